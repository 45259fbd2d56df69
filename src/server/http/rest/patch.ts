// PATCH: JSON patch, merge patch, strategic merge patch and server-side apply, each applied to the
// current object and then sent through the same update path (defaulting, validation, admission).
import jsonpatch from 'fast-json-patch';
import { MEDIA } from '../../../api/media.js';
import { applyMergePatch } from '../../../api/merge-patch.js';
import { errors, StatusError } from '../../../api/status.js';
import type { StoredObject } from '../../registry/resource-store.js';
import type { KubeObject } from '../../registry/types.js';
import { bodyDecoders } from '../body-decoders.js';
import { bodyEssence, MAX_BODY_BYTES, readBody } from '../body.js';
import { isStackOverflow } from '../../../api/nesting.js';
import type { RequestScope } from '../scope.js';
import { checkDepth, checkKind, dryRunOf, fieldValidationOf, gv, inRequestVersion, isPlainObject, served, type FieldValidation } from './decode.js';
import { canonicalApiVersion } from '../../registry/names.js';
import { negotiateFor, respondObject } from './output.js';
import { fromScale, toScale } from './scale.js';
import { checkFields } from './validate.js';
import { goValue } from '../../registry/patch/go-format.js';
import { goJson } from '../../registry/patch/path-element.js';
import { createObject, updateObject, type WriteDeps } from './write.js';
import { fromCurrent } from '../../registry/pipeline/current.js';
import { patchAlgorithms } from './patch-algorithms.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const PATCH_TYPES: Record<string, PatchType> = {
  [MEDIA.jsonPatch]: 'json',
  [MEDIA.mergePatch]: 'merge',
  [MEDIA.strategicMergePatch]: 'strategic',
  [MEDIA.applyPatchYaml]: 'apply',
  [MEDIA.applyPatchCbor]: 'apply',
};


function invalidPatchOptions(field: string, type: string, detail: string) {
  return errors.invalid('meta.service.io', 'PatchOptions', '', [{ type, field, detail }]);
}

export async function handlePatch(s: RequestScope, deps: WriteDeps): Promise<void> {
  const n = negotiateFor(s); // before anything is decoded or written, as upstream
  const ct = bodyEssence(s.req.headers['content-type']);
  const patchType = ct !== undefined && Object.hasOwn(PATCH_TYPES, ct) ? PATCH_TYPES[ct] : undefined;
  const accepted = Object.keys(PATCH_TYPES).filter((t) => t !== MEDIA.applyPatchCbor || s.gates.CBORServingAndStorage);
  if (!patchType || (ct === MEDIA.applyPatchCbor && !s.gates.CBORServingAndStorage)) throw errors.unsupportedMediaType(accepted);
  if (patchType === 'strategic' && s.type.custom) throw errors.unsupportedMediaType(accepted.filter((t) => t !== MEDIA.strategicMergePatch));
  const dryRun = dryRunOf(s.query);
  const level = fieldValidationOf(s.query);
  const manager = s.query.get('fieldManager') ?? '';
  const forceText = s.query.get('force');
  const force = forceText === 'true' || forceText === '1';
  if (patchType === 'apply' && !manager) throw invalidPatchOptions('fieldManager', 'FieldValueRequired', 'Required value: is required for apply patch');
  if (patchType !== 'apply' && forceText !== null) throw invalidPatchOptions('force', 'FieldValueForbidden', 'Forbidden: may not be specified for non-apply patch');
  if (manager.length > 128) throw invalidPatchOptions('fieldManager', 'FieldValueTooLong', 'Too long: must have at most 128 bytes');

  const buf = await readBody(s.req);
  if (buf.length === 0) throw errors.badRequest('the patch body is empty');
  const patch = decodePatch(patchType, ct, buf);
  checkDepth(patch.value);

  const ns = s.type.scope === 'Namespaced' ? s.info.namespace : undefined;
  const sub = s.info.subresource;
  for (let attempt = 0; ; attempt++) {
    try {
      // from the watch cache's object (fromCurrent): a patch on a stale one fails its CAS and applies again
      const { code, result } = await fromCurrent(s.rs, ns, s.info.name, dryRun, async (cur) => {
        if (!cur) {
          if (patchType !== 'apply' || sub) throw errors.notFound(s.rs.target(s.info.name));
          return { code: 201, result: served(s, await applyCreate(s, deps, structuredClone(patch.value) as KubeObject, manager, force, ns, dryRun, level, patch.duplicates)) };
        }
        // a result may share the patch's subtrees, and defaulting writes into it: a retry needs the patch as sent
        const value = cur.suggested ? structuredClone(patch.value) : patch.value;
        return { code: 200, result: await patchExisting(s, deps, cur, patchType, value, { manager, force, dryRun, level, duplicates: patch.duplicates }) };
      });
      respondObject(s, code, result, n);
      return;
    } catch (e) {
      // a concurrent write between read and write: re-apply the patch on the new state, unless the patch itself pinned a version
      if (e instanceof StatusError && e.code === 409 && e.reason === 'Conflict' && !pinsVersion(patch.value) && patchType !== 'apply' && attempt < 5) continue;
      if (e instanceof StatusError && e.code === 409 && e.reason === 'Conflict' && patchType === 'apply' && !pinsVersion(patch.value) && attempt < 5 && !e.status.details?.causes?.length) continue;
      throw e;
    }
  }
}

function pinsVersion(patch: unknown): boolean {
  if (Array.isArray(patch)) return patch.some((op) => typeof op?.path === 'string' && op.path === '/metadata/resourceVersion');
  const md = (patch as KubeObject | undefined)?.metadata;
  return typeof md === 'object' && md !== null && typeof md.resourceVersion === 'string' && md.resourceVersion !== '';
}

function decodePatch(type: PatchType, ct: string | undefined, buf: Buffer): { value: unknown; duplicates: string[] } {
  if (type === 'apply') {
    const dec = ct === MEDIA.applyPatchCbor ? bodyDecoders.get(MEDIA.cbor) : bodyDecoders.get(MEDIA.yaml);
    if (!dec) throw errors.unsupportedMediaType([MEDIA.applyPatchYaml]);
    const d = dec(buf);
    if (!isPlainObject(d.value)) throw errors.badRequest('an apply patch must be a single object');
    return d;
  }
  const d = bodyDecoders.get(MEDIA.json)!(buf);
  if (type === 'json') {
    if (!Array.isArray(d.value)) throw errors.badRequest('json patch must be an array of operations');
    checkJsonPatchLength(d.value);
    return d;
  }
  if (!isPlainObject(d.value)) throw errors.badRequest(`${type} patch must be a JSON object`);
  return d;
}

interface PatchRun {
  manager: string;
  force: boolean;
  dryRun: boolean;
  level: FieldValidation;
  duplicates: string[];
}

async function patchExisting(s: RequestScope, deps: WriteDeps, cur: StoredObject, type: PatchType, patch: unknown, run: PatchRun): Promise<KubeObject> {
  const sub = s.info.subresource;
  const base: KubeObject = sub === 'scale' ? toScale(s.type, cur.obj) : inRequestVersion(s, cur.obj);
  // the stored object is the watch cache's, shared: a merge, strategic or apply result shares its untouched
  // subtrees, and defaulting writes into the result (a JSON patch copies its document itself)
  let next = applyTo(s, type === 'json' || sub === 'scale' ? base : structuredClone(base), type, patch, run);
  // a patch can nest a value under a deep path: bound the result before the recursive steps see it
  checkDepth(next);
  if (sub === 'scale') {
    next = fromScale(s.type, structuredClone(cur.obj), next);
  } else {
    checkKind(s, next);
    // upstream's bad value: the patched object as JSON (JSON and merge patches), the patch as Go prints a map (strategic)
    const patchValue = type === 'apply' ? undefined : type === 'strategic' ? () => goValue(patch) : () => goJson(next);
    for (const w of checkFields(s.type, next, run.level, run.duplicates, false, patchValue)) s.warnings.push(w);
  }
  const updated = await updateObject(s, deps, next, cur, sub === 'scale' ? '' : sub, run.dryRun);
  return sub === 'scale' ? toScale(s.type, updated) : served(s, updated);
}

function applyTo(s: RequestScope, base: KubeObject, type: PatchType, patch: unknown, run: PatchRun): KubeObject {
  switch (type) {
    case 'json':
      return applyJsonPatch(base, patch as jsonpatch.Operation[]);
    case 'merge': {
      const out = applyMergePatch(base, patch);
      if (typeof out !== 'object' || out === null || Array.isArray(out)) throw errors.badRequest('the merge patch must produce an object');
      return out as KubeObject;
    }
    case 'strategic':
      if (!patchAlgorithms.strategic) throw errors.unsupportedMediaType([MEDIA.jsonPatch, MEDIA.mergePatch]);
      return patchAlgorithms.strategic(s, base, patch);
    case 'apply':
      if (!patchAlgorithms.apply) throw errors.unsupportedMediaType([MEDIA.jsonPatch, MEDIA.mergePatch]);
      checkApplyVersion(s, patch as KubeObject);
      checkKind(s, patch as KubeObject);
      return patchAlgorithms.apply(s, base, patch as KubeObject, { manager: run.manager, force: run.force });
  }
}

/** An apply body must name the endpoint's group/version (either spelling of the group). */
function checkApplyVersion(s: RequestScope, applied: KubeObject): void {
  const expected = gv(s.type.group, s.type.version);
  if (typeof applied.apiVersion !== 'string' || canonicalApiVersion(applied.apiVersion) !== expected)
    throw errors.badRequest(`Incorrect version specified in apply patch. Specified patch version: ${String(applied.apiVersion ?? '')}, expected: ${s.apiVersion}`);
}

/** Upstream refuses JSON patches of more operations (endpoints/handlers/patch.go maxJSONPatchOperations) with 413. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * Bytes a JSON patch may copy in all (server config JSONPatchMaxCopyBytes = MaxRequestBodyBytes,
 * enforced by evanphx/json-patch AccumulatedCopySizeLimit): stops chains of doubling copies.
 */
export const JSON_PATCH_MAX_COPY_BYTES = MAX_BODY_BYTES;

export function checkJsonPatchLength(ops: unknown[]): void {
  if (ops.length > MAX_JSON_PATCH_OPERATIONS)
    throw errors.tooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`);
}

export function applyJsonPatch(base: KubeObject, ops: jsonpatch.Operation[]): KubeObject {
  checkJsonPatchLength(ops);
  for (const [i, op] of ops.entries()) {
    if (typeof op !== 'object' || op === null || typeof op.op !== 'string' || typeof op.path !== 'string')
      throw errors.badRequest(`json patch operation ${i} is malformed: it needs "op" and "path"`);
    if (op.path.split('/').some((seg) => seg === '__proto__' || seg === 'constructor' || seg === 'prototype'))
      throw errors.badRequest(`json patch operation ${i}: path ${op.path} is not allowed`);
  }
  let index = 0;
  try {
    let doc: unknown = structuredClone(base);
    let copied = 0;
    for (; index < ops.length; index++) {
      const op = ops[index]!;
      if (op.op === 'copy' && typeof op.from === 'string') {
        // measured before the value is cloned: the patch stops as soon as the copies pass the limit
        copied += encodedSize(jsonpatch.getValueByPointer(doc, op.from), JSON_PATCH_MAX_COPY_BYTES - copied);
        if (copied > JSON_PATCH_MAX_COPY_BYTES)
          throw errors.invalid('', 'Patch', '', [
            {
              type: 'FieldValueInvalid',
              field: `patch[${index}]`,
              detail: `Invalid value: "copy": Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${JSON_PATCH_MAX_COPY_BYTES}`,
            },
          ]);
      }
      doc = jsonpatch.applyOperation(doc, op, true, true, true, index).newDocument;
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw errors.badRequest('the json patch must produce an object');
    return doc as KubeObject;
  } catch (e) {
    if (e instanceof StatusError || isStackOverflow(e)) throw e;
    const err = e as { name?: string; message?: string; index?: number; operation?: { op?: string; path?: string } };
    if (err.name === 'TEST_OPERATION_FAILED')
      throw errors.invalid('', 'Patch', '', [
        { type: 'FieldValueInvalid', field: `patch[${err.index ?? index}]`, detail: `Invalid value: "test": test operation failed at ${err.operation?.path ?? ''}: the value differs; nothing was changed` },
      ]);
    throw errors.invalid('', 'Patch', '', [
      { type: 'FieldValueInvalid', field: `patch[${err.index ?? index}]`, detail: `Invalid value: ${JSON.stringify(err.operation?.op ?? '')}: ${String(err.message ?? e).split('\n')[0]}` },
    ]);
  }
}

/** The JSON-encoded size of a value in bytes, walked without recursion; stops counting once past `budget`. */
export function encodedSize(value: unknown, budget: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= budget) {
    const v = stack.pop();
    if (v === undefined) continue;
    if (v === null || typeof v !== 'object') {
      size += typeof v === 'string' ? Buffer.byteLength(JSON.stringify(v)) : String(JSON.stringify(v)).length;
    } else if (Array.isArray(v)) {
      size += 1 + Math.max(v.length, 1);
      for (const x of v) stack.push(x);
    } else {
      const keys = Object.keys(v);
      size += 1 + Math.max(keys.length, 1);
      for (const k of keys) {
        size += Buffer.byteLength(JSON.stringify(k)) + 1;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return size;
}

async function applyCreate(
  s: RequestScope,
  deps: WriteDeps,
  applied: KubeObject,
  manager: string,
  force: boolean,
  ns: string | undefined,
  dryRun: boolean,
  level: FieldValidation,
  duplicates: string[],
): Promise<KubeObject> {
  if (!patchAlgorithms.apply) throw errors.unsupportedMediaType([MEDIA.jsonPatch, MEDIA.mergePatch]);
  checkApplyVersion(s, applied);
  checkKind(s, applied);
  const meta = (applied.metadata ??= {});
  if (meta.name !== undefined && meta.name !== s.info.name)
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${s.info.name})`);
  meta.name = s.info.name;
  if (ns !== undefined && meta.namespace !== undefined && meta.namespace !== ns)
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  const obj = patchAlgorithms.apply(s, undefined, applied, { manager, force });
  for (const w of checkFields(s.type, obj, level, duplicates)) s.warnings.push(w);
  return createObject(s, deps, obj, ns, dryRun);
}
