// Turning a request body into an object of the endpoint's kind: decoding, kind/apiVersion checks, field validation.
import { MEDIA } from '../../../api/media.js';
import { MAX_OBJECT_DEPTH, NestingError } from '../../../api/nesting.js';
import { checkDepth } from '../../registry/pipeline/create.js';
import { errors } from '../../../api/status.js';
import { canonicalApiVersion, canonicalGroup, inApiVersionSpelling } from '../../registry/names.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import { bodyDecoders } from '../body-decoders.js';
import { bodyEssence, readBody } from '../body.js';
import type { RequestScope } from '../scope.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export function fieldValidationOf(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw errors.badRequest(`fieldValidation: Unsupported value: "${v}": supported values: "Ignore", "Strict", "Warn"`);
}

export function dryRunOf(q: URLSearchParams): boolean {
  const all = q.getAll('dryRun');
  if (all.length === 0) return false;
  for (const v of all) {
    if (v === '') continue;
    if (v !== 'All') throw errors.badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  }
  return all.includes('All');
}

export interface DecodedObject {
  obj: KubeObject;
  /** Duplicate fields seen while parsing (dotted paths). */
  duplicates: string[];
}

const ACCEPTED_BODIES = [MEDIA.json, MEDIA.yaml, MEDIA.protobuf];

/** A map, not an array, byte string (CBOR major type 2) or other typed value. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Reads and decodes the request body as an object (JSON, YAML, Protobuf, CBOR by Content-Type). */
export async function decodeObjectBody(s: RequestScope): Promise<DecodedObject> {
  const buf = await readBody(s.req);
  const ct = bodyEssence(s.req.headers['content-type']);
  const decoder = ct === undefined ? undefined : bodyDecoders.get(ct);
  if (!decoder || (ct === MEDIA.cbor && !s.gates.CBORServingAndStorage)) throw errors.unsupportedMediaType(ACCEPTED_BODIES);
  if (buf.length === 0) throw errors.badRequest('the request body is empty');
  const decoded = decoder(buf);
  const v = decoded.value;
  if (!isPlainObject(v)) throw errors.badRequest('the request body must be a single object');
  if (decoded.depth === undefined) checkDepth(v);
  else if (decoded.depth > MAX_OBJECT_DEPTH) throw errors.badRequest(new NestingError(MAX_OBJECT_DEPTH).message);
  return { obj: v as KubeObject, duplicates: decoded.duplicates };
}

/** Checks (and fills when absent) kind and apiVersion against the endpoint; stores the canonical group. */
export function checkKind(s: RequestScope, obj: KubeObject, expectKind = s.type.kind, expectGroup = s.type.group, expectVersion = s.type.version): void {
  if (obj.kind === undefined || obj.kind === '') obj.kind = expectKind;
  if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = gv(expectGroup, expectVersion);
  if (typeof obj.kind !== 'string' || typeof obj.apiVersion !== 'string') throw errors.badRequest('kind and apiVersion must be strings');
  const slash = obj.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : canonicalGroup(obj.apiVersion.slice(0, slash));
  const version = slash < 0 ? obj.apiVersion : obj.apiVersion.slice(slash + 1);
  if (group !== expectGroup || version !== expectVersion)
    throw errors.badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${gv(expectGroup, expectVersion)})`);
  if (obj.kind !== expectKind) throw errors.badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${expectKind})`);
  obj.apiVersion = gv(expectGroup, expectVersion);
  if (obj.metadata !== undefined && (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata)))
    throw errors.badRequest(`${expectKind} in version "${expectVersion}" cannot be handled as a ${expectKind}: metadata must be an object`);
}

/** Objects nested deeper than the write path's recursive steps survive are the client's error (400). */
export { checkDepth };

export function gv(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** The object as served: apiVersion (and managedFields entries of it) spelled as the request spelled its group. */
export function served(s: RequestScope, obj: KubeObject): KubeObject {
  if (obj.kind !== s.type.kind) return obj;
  return inApiVersionSpelling(inRequestVersion(s, obj), s.apiVersion);
}

/** The stored object in the request's version (what a patch or update applies to); managedFields as stored. */
export function inRequestVersion(s: RequestScope, obj: KubeObject): KubeObject {
  if (obj.apiVersion === s.apiVersion || obj.kind !== s.type.kind) return obj;
  const convert = s.type.strategy.convertFrom;
  if (convert && canonicalApiVersion(obj.apiVersion ?? '') !== (s.type.group ? `${s.type.group}/${s.type.version}` : s.type.version))
    return { ...convert(obj), apiVersion: s.apiVersion };
  return { ...obj, apiVersion: s.apiVersion };
}

export function typeLabel(t: ResourceType): string {
  return t.group ? `${t.plural}.${t.group}` : t.plural;
}
