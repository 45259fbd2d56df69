// List and watch options: parsing, upstream validation, and the resourceVersion semantics table.
import { ContinueTokenError, decodeContinue, type ContinueToken } from '../../../api/continue-token.js';
import { parseFieldSelector, parseLabelSelector, SelectorError, type FieldSelector, type LabelSelector } from '../../../api/selectors.js';
import { errors } from '../../../api/status.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import { parseInt64Query } from './int64.js';

export type ReadMode =
  | { kind: 'MostRecent' }
  | { kind: 'Any' }
  | { kind: 'NotOlderThan'; rv: number }
  | { kind: 'Exact'; rv: number }
  | { kind: 'Continuation'; token: ContinueToken };

export interface ListOptions {
  resourceVersion: string | undefined;
  resourceVersionMatch: string | undefined;
  limit: number;
  continueToken: string | undefined;
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  mode: ReadMode;
}

export interface WatchOptions {
  resourceVersion: string | undefined;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  timeoutSeconds: number | undefined;
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
}

function invalidListOptions(field: string, type: string, detail: string) {
  return errors.invalid('meta.service.io', 'ListOptions', '', [{ type, field, detail }]);
}

const MAX_UINT64 = 2n ** 64n - 1n;

/** Parses a resourceVersion value; undefined/'' → undefined. Not a uint64 (strconv.ParseUint(v, 10, 64) upstream) → 400. */
export function parseRV(v: string | undefined | null): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (!/^\d+$/.test(v) || v.length > 20 || BigInt(v) > MAX_UINT64) throw errors.badRequest(`resourceVersion: Invalid value: "${v}": invalid resource version`);
  return Number(v);
}

export function parseSelectors(q: URLSearchParams, type: ResourceType): { labelSelector: LabelSelector; fieldSelector: FieldSelector } {
  let labelSelector: LabelSelector;
  let fieldSelector: FieldSelector;
  try {
    labelSelector = parseLabelSelector(q.get('labelSelector'));
  } catch (e) {
    throw errors.badRequest(`labelSelector: Invalid value: "${q.get('labelSelector')}": ${(e as Error).message}`);
  }
  try {
    fieldSelector = parseFieldSelector(q.get('fieldSelector'));
  } catch (e) {
    if (e instanceof SelectorError) throw errors.badRequest(e.message);
    throw e;
  }
  for (const r of fieldSelector.requirements)
    if (r.field !== 'metadata.name' && r.field !== 'metadata.namespace' && !type.strategy.fieldSelectors?.[r.field])
      throw errors.badRequest(`field label not supported: ${r.field}`);
  return { labelSelector, fieldSelector };
}

/** The value of a selectable field of an object. */
export function fieldValue(type: ResourceType, obj: KubeObject, field: string): string | undefined {
  if (field === 'metadata.name') return obj.metadata?.name ?? '';
  if (field === 'metadata.namespace') return obj.metadata?.namespace ?? '';
  return type.strategy.fieldSelectors?.[field]?.(obj) ?? '';
}

export function matchesSelectors(type: ResourceType, obj: KubeObject, ls: LabelSelector, fs: FieldSelector): boolean {
  return ls.matches(obj.metadata?.labels) && (fs.empty || fs.matches((f) => fieldValue(type, obj, f)));
}

export function parseListOptions(q: URLSearchParams, type: ResourceType): ListOptions {
  if (q.get('sendInitialEvents') !== null)
    throw invalidListOptions('sendInitialEvents', 'FieldValueForbidden', 'Forbidden: sendInitialEvents is forbidden for list');
  const rvText = q.get('resourceVersion') ?? undefined;
  const match = q.get('resourceVersionMatch') ?? undefined;
  const cont = q.get('continue') || undefined;
  const limitText = q.get('limit');
  let limit = 0;
  if (limitText !== null && limitText !== '') {
    // an int64 (so "0x10", "1e3" and " 5" are syntax errors, as upstream)
    limit = parseInt64Query('limit', limitText);
    if (limit < 0) throw errors.badRequest(`limit: Invalid value: "${limitText}": must be a non-negative integer`);
  }
  if (match !== undefined && match !== '') {
    if (rvText === undefined || rvText === '')
      throw invalidListOptions('resourceVersionMatch', 'FieldValueForbidden', 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (cont) throw invalidListOptions('resourceVersionMatch', 'FieldValueForbidden', 'Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (match !== 'Exact' && match !== 'NotOlderThan')
      throw invalidListOptions('resourceVersionMatch', 'FieldValueNotSupported', `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan", ""`);
    if (match === 'Exact' && rvText === '0')
      throw invalidListOptions('resourceVersionMatch', 'FieldValueForbidden', 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  }
  const rv = parseRV(rvText);
  const { labelSelector, fieldSelector } = parseSelectors(q, type);
  let mode: ReadMode;
  if (cont) {
    if (rvText !== undefined && rvText !== '' && rvText !== '0')
      throw errors.badRequest('specifying resource version is not allowed when using continue');
    let token: ContinueToken;
    try {
      token = decodeContinue(cont);
    } catch (e) {
      if (e instanceof ContinueTokenError) throw errors.badRequest(e.message);
      throw e;
    }
    mode = { kind: 'Continuation', token };
  } else if (match === 'Exact') mode = { kind: 'Exact', rv: rv! };
  else if (match === 'NotOlderThan') mode = rv === 0 ? { kind: 'Any' } : { kind: 'NotOlderThan', rv: rv! };
  else if (rv === undefined) mode = { kind: 'MostRecent' };
  else if (rv === 0) mode = { kind: 'Any' };
  else mode = limit > 0 ? { kind: 'Exact', rv } : { kind: 'NotOlderThan', rv };
  return { resourceVersion: rvText, resourceVersionMatch: match, limit, continueToken: cont, labelSelector, fieldSelector, mode };
}

export function parseWatchOptions(q: URLSearchParams, type: ResourceType): WatchOptions {
  const rvText = q.get('resourceVersion') ?? undefined;
  const match = q.get('resourceVersionMatch') ?? undefined;
  const sie = q.get('sendInitialEvents');
  const sendInitialEvents = sie === null || sie === '' ? undefined : sie === 'true' || sie === '1';
  if (sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan')
      throw invalidListOptions('sendInitialEvents', 'FieldValueForbidden', 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
  } else if (match !== undefined && match !== '')
    throw invalidListOptions(
      'resourceVersionMatch',
      'FieldValueForbidden',
      'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
  if (q.get('continue')) throw invalidListOptions('continue', 'FieldValueForbidden', 'Forbidden: continue is forbidden for watch');
  parseRV(rvText);
  const timeoutSeconds = parseTimeoutSeconds(q.get('timeoutSeconds'));
  const b = q.get('allowWatchBookmarks');
  return {
    resourceVersion: rvText,
    allowWatchBookmarks: b === 'true' || b === '1',
    sendInitialEvents,
    timeoutSeconds,
    ...parseSelectors(q, type),
  };
}

/**
 * timeoutSeconds is an int64 query parameter (a non-integer fails the conversion as a 400); a negative
 * one is refused rather than ending the watch at once. The caller caps it to what a timer can hold.
 */
export function parseTimeoutSeconds(ts: string | null): number | undefined {
  if (ts === null || ts === '') return undefined;
  const n = parseInt64Query('timeoutSeconds', ts);
  if (n < 0) throw errors.badRequest(`timeoutSeconds: Invalid value: ${ts}: must be greater than or equal to 0`);
  return n;
}
