// DeleteOptions: read from the body or, when there is none, from the query (as upstream), and validated
// with upstream's rules and messages.
import { MEDIA } from '../../../api/media.js';
import { errors } from '../../../api/status.js';
import type { FeatureGates } from '../../features.js';
import type { FieldError } from '../../registry/types.js';
import { bodyDecoders } from '../body-decoders.js';
import { bodyEssence, readBody } from '../body.js';
import { isInt64, parseInt64Query } from './int64.js';
import type { IncomingMessage } from 'node:http';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions {
  dryRun?: string[];
  gracePeriodSeconds?: number;
  /** Deprecated form of propagationPolicy (true = Orphan, false = Foreground for the 202 rule and namespaces). */
  orphanDependents?: boolean;
  preconditions?: Preconditions;
  propagationPolicy?: PropagationPolicy | string;
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

export const isDryRun = (o: DeleteOptions): boolean => (o.dryRun ?? []).length > 0;

const META_GROUP = 'meta.service.io';
const BODY_TYPES = [MEDIA.json, MEDIA.yaml, MEDIA.protobuf];

/** The request's DeleteOptions: the body when it has one, the query parameters otherwise. */
export async function readDeleteOptions(req: IncomingMessage, query: URLSearchParams, gates?: FeatureGates): Promise<DeleteOptions> {
  const buf = await readBody(req);
  if (buf.length > 0) {
    const ct = bodyEssence(req.headers['content-type']);
    const dec = ct === undefined ? undefined : bodyDecoders.get(ct);
    if (!dec || (ct === MEDIA.cbor && !gates?.CBORServingAndStorage)) throw errors.unsupportedMediaType(BODY_TYPES);
    return fromBody(dec(buf).value);
  }
  return fromQuery(query);
}

function fromBody(v: unknown): DeleteOptions {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw errors.badRequest('decoded object cannot be converted to DeleteOptions');
  const b = v as Record<string, unknown>;
  if (b.kind !== undefined && b.kind !== '' && b.kind !== 'DeleteOptions') throw errors.badRequest('decoded object cannot be converted to DeleteOptions');
  const o: DeleteOptions = {};
  const bad = (field: string, type: string) =>
    errors.badRequest(`json: cannot unmarshal ${jsonType(b[field])} into Go struct field DeleteOptions.${field} of type ${type}`);
  if (b.gracePeriodSeconds !== undefined && b.gracePeriodSeconds !== null) {
    if (typeof b.gracePeriodSeconds === 'number' && Number.isInteger(b.gracePeriodSeconds) && !isInt64(b.gracePeriodSeconds))
      throw errors.badRequest(`json: cannot unmarshal number ${b.gracePeriodSeconds} into Go struct field DeleteOptions.gracePeriodSeconds of type int64`);
    if (!isInt64(b.gracePeriodSeconds)) throw bad('gracePeriodSeconds', 'int64');
    o.gracePeriodSeconds = b.gracePeriodSeconds;
  }
  for (const f of ['orphanDependents', 'ignoreStoreReadErrorWithClusterBreakingPotential'] as const) {
    if (b[f] === undefined || b[f] === null) continue;
    if (typeof b[f] !== 'boolean') throw bad(f, 'bool');
    o[f] = b[f];
  }
  if (b.propagationPolicy !== undefined && b.propagationPolicy !== null) {
    if (typeof b.propagationPolicy !== 'string') throw bad('propagationPolicy', 'v1.DeletionPropagation');
    o.propagationPolicy = b.propagationPolicy;
  }
  if (b.dryRun !== undefined && b.dryRun !== null) {
    if (!Array.isArray(b.dryRun) || b.dryRun.some((x) => typeof x !== 'string')) throw bad('dryRun', '[]string');
    o.dryRun = b.dryRun as string[];
  }
  if (b.preconditions !== undefined && b.preconditions !== null) {
    if (typeof b.preconditions !== 'object' || Array.isArray(b.preconditions)) throw bad('preconditions', 'v1.Preconditions');
    const p = b.preconditions as Record<string, unknown>;
    const pre: Preconditions = {};
    for (const f of ['uid', 'resourceVersion'] as const) {
      if (p[f] === undefined || p[f] === null) continue;
      if (typeof p[f] !== 'string') throw bad(`preconditions.${f}`, 'string');
      pre[f] = p[f] as string;
    }
    o.preconditions = pre;
  }
  return o;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

/** strconv.ParseBool */
function parseBool(name: string, v: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw errors.badRequest(`${name}: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

function fromQuery(q: URLSearchParams): DeleteOptions {
  const o: DeleteOptions = {};
  const gps = q.get('gracePeriodSeconds');
  if (gps !== null && gps !== '') {
    o.gracePeriodSeconds = parseInt64Query('gracePeriodSeconds', gps);
  }
  const od = q.get('orphanDependents');
  if (od !== null && od !== '') o.orphanDependents = parseBool('orphanDependents', od);
  const pp = q.get('propagationPolicy');
  if (pp !== null && pp !== '') o.propagationPolicy = pp;
  const ign = q.get('ignoreStoreReadErrorWithClusterBreakingPotential');
  if (ign !== null && ign !== '') o.ignoreStoreReadErrorWithClusterBreakingPotential = parseBool('ignoreStoreReadErrorWithClusterBreakingPotential', ign);
  const dry = q.getAll('dryRun').filter((v) => v !== '');
  if (dry.length > 0) o.dryRun = dry;
  return o;
}

/**
 * Drops the unsafe-delete option when its gate is off (as upstream: it then has no effect), then applies
 * upstream's ValidateDeleteOptions. Throws 422 Invalid (DeleteOptions.meta...).
 */
export function normalizeDeleteOptions(o: DeleteOptions, gates: FeatureGates): DeleteOptions {
  if (!gates.AllowUnsafeMalformedObjectDeletion) delete o.ignoreStoreReadErrorWithClusterBreakingPotential;
  const errs = validateDeleteOptions(o);
  if (errs.length > 0) throw errors.invalid(META_GROUP, 'DeleteOptions', '', errs);
  return o;
}

export function validateDeleteOptions(o: DeleteOptions): FieldError[] {
  const errs: FieldError[] = [];
  const pp = o.propagationPolicy;
  if (o.orphanDependents !== undefined && pp !== undefined)
    errs.push({ type: 'FieldValueInvalid', field: 'propagationPolicy', detail: `Invalid value: ${JSON.stringify(pp)}: orphanDependents and deletionPropagation cannot be both set` });
  if (pp !== undefined && pp !== 'Foreground' && pp !== 'Background' && pp !== 'Orphan')
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'propagationPolicy',
      detail: `Unsupported value: ${JSON.stringify(pp)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    });
  const dry = o.dryRun ?? [];
  if (dry.some((v) => v !== 'All'))
    errs.push({ type: 'FieldValueNotSupported', field: 'dryRun', detail: `Unsupported value: []string{${dry.map((v) => JSON.stringify(v)).join(', ')}}: supported values: "All"` });
  if (o.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
    const field = 'ignoreStoreReadErrorWithClusterBreakingPotential';
    const together = (what: string): FieldError => ({ type: 'FieldValueInvalid', field, detail: `Invalid value: true: cannot be set together with .${what}` });
    if (dry.length > 0) errs.push(together('dryRun'));
    if (pp !== undefined) errs.push(together('propagationPolicy'));
    if (o.orphanDependents !== undefined) errs.push(together('orphanDependents'));
    if (o.gracePeriodSeconds !== undefined) errs.push(together('gracePeriodSeconds'));
    if (o.preconditions !== undefined) errs.push(together('preconditions'));
  }
  return errs;
}
