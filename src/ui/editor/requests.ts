// The write requests the editor builds (data/writes.ts sends them, first with dryRun=All, then for real)
// and what their answers mean for the editor: warnings, field markers, apply conflicts, stale-version conflicts.
import { ApiError, resourcePath, type KubeObject, type Query, type ResourceRef, type StatusCause } from '../../client/index.js';
import { createMergePatch, jsonPatchOps, strategicMergePatch, type JsonPatchOp, type PatchSchema } from '../lib/patches.js';
import { isObject } from './documents.js';
import { fieldsInDecodingMessage, type FieldMessage } from './locate.js';

export type EditMode = 'edit' | 'apply' | 'merge' | 'json' | 'strategic' | 'replace';
/** The modes that send a patch document computed from the edit. */
export type PatchMode = 'merge' | 'json' | 'strategic';
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export { FIELD_MANAGER, sendWrite, type WriteResult } from '../data/writes.js';
import { FIELD_MANAGER, type WriteRequest as SentRequest } from '../data/writes.js';

export const MODE_LABEL: Record<EditMode, string> = {
  edit: 'Edit',
  apply: 'Apply (server-side)',
  merge: 'Merge patch',
  json: 'JSON patch',
  strategic: 'Strategic merge patch',
  replace: 'Replace (PUT)',
};

export const CONTENT_TYPE: Record<Exclude<EditMode, 'replace' | 'edit'>, string> = {
  apply: 'application/apply-patch+yaml',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** An editor write: always a body, and its content type. */
export interface WriteRequest extends SentRequest {
  method: 'POST' | 'PUT' | 'PATCH';
  contentType: string;
  /** Exactly the bytes sent. */
  body: string;
}

export interface WriteSettings {
  fieldValidation: FieldValidation;
  /** Apply only: take ownership of conflicting fields. */
  force?: boolean;
}

/** The patch document a patch mode sends, computed from the object before and after the edit. */
export function computePatch(mode: 'merge' | 'json' | 'strategic', before: KubeObject, after: unknown, opts: { guardResourceVersion: boolean; schema?: PatchSchema }): unknown {
  const rv = before.metadata?.resourceVersion;
  if (mode === 'json') return jsonPatchOps(before, after, { guardResourceVersion: opts.guardResourceVersion }) satisfies JsonPatchOp[];
  const patch = (mode === 'merge' ? createMergePatch(before, after) : strategicMergePatch(before, after, opts.schema)) as Record<string, unknown>;
  // an empty patch stays empty: nothing to lock
  if (opts.guardResourceVersion && rv && Object.keys(patch).length) {
    const meta = isObject(patch.metadata) ? patch.metadata : {};
    patch.metadata = { ...meta, resourceVersion: rv };
  }
  return patch;
}

/**
 * The patch the default Edit mode sends, as `kubectl edit` does: the user's changes against the
 * version they started from, as a strategic merge patch for built-in kinds and a JSON merge patch for
 * custom resources (which take no strategic patches, upstream answers 415), always with that version's
 * resourceVersion as a precondition so a concurrent change is a 409 to rebase on, never overwritten.
 */
export function editPatchMode(isCustom: boolean | undefined): 'merge' | 'strategic' {
  return isCustom === false ? 'strategic' : 'merge';
}

export function buildWrite(
  kind: 'create' | Exclude<EditMode, 'edit'>,
  ref: ResourceRef,
  body: string,
  settings: WriteSettings,
): WriteRequest {
  const query: Query = { fieldManager: FIELD_MANAGER, fieldValidation: settings.fieldValidation };
  if (kind === 'create') return { method: 'POST', path: resourcePath({ ...ref, name: undefined }), contentType: 'application/json', body, query };
  if (kind === 'replace') return { method: 'PUT', path: resourcePath(ref), contentType: 'application/json', body, query };
  if (kind === 'apply' && settings.force) query.force = 'true';
  return { method: 'PATCH', path: resourcePath(ref), contentType: CONTENT_TYPE[kind], body, query };
}

/** A field another manager owns, from a 409 of server-side apply. */
export interface ApplyConflict {
  field: string;
  manager: string;
  /** "apps/v1", and the subresource when the owner wrote through one. */
  apiVersion?: string;
  subresource?: string;
  message: string;
}

export function applyConflicts(err: unknown): ApplyConflict[] {
  if (!(err instanceof ApiError) || err.code !== 409) return [];
  return err.causes
    .filter((c: StatusCause) => c.reason === 'FieldManagerConflict' && c.field)
    .map((c: StatusCause) => {
      const m = /conflict with "((?:[^"\\]|\\.)*)"(?: with subresource "([^"]*)")?(?: using (\S+))?/.exec(c.message ?? '');
      return { field: c.field!, manager: m?.[1] ?? '(unknown)', subresource: m?.[2], apiVersion: m?.[3], message: c.message ?? '' };
    });
}

/** The object changed since the edit began: a resourceVersion precondition or a JSON patch guard failed. */
export function isStaleConflict(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.code === 409 && !applyConflicts(err).length) return true;
  return err.code === 422 && err.causes.some((c) => /^patch\[\d+\]$/.test(c.field ?? '') && /test operation failed/.test(c.message ?? ''));
}

export interface FieldProblems {
  /** Problems located in the edited object. */
  object: FieldMessage[];
  /** Problems of a JSON patch op (`patch[3]`), by op index. */
  patchOps: { index: number; message: string }[];
}

/**
 * The words to show for an error answer. A patch's strict decoding error carries the whole patched object as its
 * bad value (upstream handlers/patch.go): the banner shows what is wrong, not the object again.
 */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const strict = err.causes.find((c) => c.field === 'patch' && /strict decoding error/.test(c.message ?? ''));
    if (strict) return `patch: ${(strict.message ?? '').replace(/^Invalid value: "(?:[^"\\]|\\.)*": /, '')}`;
  }
  return err instanceof Error ? err.message : String(err ?? '');
}

/** Field problems from an error answer: Invalid causes, strict-decoding unknown or duplicate fields. */
export function fieldProblems(err: unknown): FieldProblems {
  const out: FieldProblems = { object: [], patchOps: [] };
  if (!(err instanceof ApiError)) return out;
  for (const c of err.causes) {
    // a patch's strict decoding error is a 422 on the field `patch` (upstream handlers/patch.go): the fields are in its message
    if (c.field === 'patch' && /strict decoding error/.test(c.message ?? '')) {
      for (const f of fieldsInDecodingMessage(c.message ?? '')) out.object.push({ ...f, severity: 'error' });
      continue;
    }
    const op = /^patch\[(\d+)\]$/.exec(c.field ?? '');
    if (op) out.patchOps.push({ index: Number(op[1]), message: c.message ?? c.reason ?? 'invalid' });
    else if (c.field && c.reason !== 'FieldManagerConflict') out.object.push({ field: c.field.replace(/^\./, ''), message: c.message ?? c.reason ?? 'invalid', severity: 'error' });
  }
  if (!err.causes.length && err.code === 400) {
    for (const f of fieldsInDecodingMessage(err.message)) out.object.push({ ...f, severity: 'error' });
    // server-side apply names members its schema lacks: `.spec.x: field not declared in schema`
    for (const m of err.message.matchAll(/(?:^|[\s(])(\.[^\s:]+): field not declared in schema/g))
      out.object.push({ field: m[1]!.slice(1), message: 'field not declared in schema', severity: 'error' });
  }
  return out;
}

/** Unknown or duplicate fields reported in Warning headers (fieldValidation=Warn). */
export function warningProblems(warnings: string[]): FieldMessage[] {
  return warnings.flatMap((w) => fieldsInDecodingMessage(w).map((f) => ({ ...f, severity: 'warning' as const })));
}
