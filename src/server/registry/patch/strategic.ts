// Strategic merge patch (application/strategic-merge-patch+json), driven by the schema's patch
// strategies and merge keys: lists with strategy "merge" merge by merge key (or as sets of
// primitives), other lists and "replace" maps are replaced, null deletes a field. Directives:
// $patch (replace | delete | merge), $retainKeys, $setElementOrder/<list>, $deleteFromPrimitiveList/<list>.
import type { SchemaRegistry } from '../schema/registry.js';
import type { SchemaNode } from '../schema/types.js';
import { goValue } from './go-format.js';
import { cloneJson, isObject, type JsonObject } from './json-util.js';
import { PatchError } from './patch-error.js';

export { PatchError } from './patch-error.js';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';

const ERR_BAD_JSON_DOC = 'invalid JSON document';
const ERR_NO_LIST_OF_LISTS = 'lists of lists are not supported';
const ERR_PRIMITIVE_LIST = 'invalid patch format of primitive list';
const ERR_RETAIN_KEYS = 'invalid patch format of retainKeys';
const ERR_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';

const badRequest = (msg: string): PatchError => new PatchError('BadRequest', msg);
const noMergeKey = (m: JsonObject, key: string): PatchError => badRequest(`map: ${goValue(m)} does not contain declared merge key: ${key}`);
const badPatchType = (t: unknown, m: JsonObject): PatchError => badRequest(`unknown patch type: ${goValue(t)} in map: ${goValue(m)}`);

/** Patch metadata of a field: its schema and its strategy / merge key. */
interface FieldMeta {
  node: SchemaNode | undefined;
  strategy: string;
  mergeKey: string | undefined;
}

class Lookup {
  constructor(readonly reg: SchemaRegistry) {}

  field(node: SchemaNode | undefined, key: string): FieldMeta {
    const r = node ? this.reg.resolve(node) : undefined;
    const child = r?.properties?.[key] ?? (isObject(r?.additionalProperties) ? (r!.additionalProperties as SchemaNode) : undefined);
    if (!child) return { node: undefined, strategy: '', mergeKey: undefined };
    const c = this.reg.resolve(child);
    return { node: c, strategy: patchStrategy(c['x-kubernetes-patch-strategy']), mergeKey: c['x-kubernetes-patch-merge-key'] };
  }

  items(node: SchemaNode | undefined): SchemaNode | undefined {
    return node ? this.reg.resolve(node).items : undefined;
  }
}

/** The strategy besides retainKeys ("merge,retainKeys" -> "merge"). */
function patchStrategy(s: string | undefined): string {
  if (!s) return '';
  const parts = s.split(',');
  if (parts.length === 1) return parts[0] === 'retainKeys' ? '' : parts[0]!;
  if (parts.length === 2 && parts[0] === 'retainKeys') return parts[1]!;
  if (parts.length === 2 && parts[1] === 'retainKeys') return parts[0]!;
  throw badRequest(`unexpected patch strategy: [${parts.join(' ')}]`);
}

/**
 * Applies a strategic merge patch to original (typically the stored object) using the resource's
 * root schema. Returns a new object; the inputs are not modified.
 */
export function strategicMergePatch(original: unknown, patch: unknown, schema: SchemaNode | undefined, reg: SchemaRegistry): unknown {
  if (!isObject(patch)) throw badRequest(ERR_BAD_JSON_DOC);
  const base = isObject(original) ? cloneJson(original) : {};
  return mergeMap(base, patch, schema, new Lookup(reg));
}

/** Merges patch into orig (owned, mutated) and returns the result. */
function mergeMap(orig: JsonObject, patch: JsonObject, node: SchemaNode | undefined, lk: Lookup): JsonObject {
  if (DIRECTIVE in patch) {
    const d = patch[DIRECTIVE];
    if (d === 'replace') return cleanMap(patch, node, lk) ?? {};
    if (d === 'delete') return {};
    throw badPatchType(d, patch);
  }
  if (RETAIN_KEYS in patch) applyRetainKeys(orig, patch);
  const ordered = new Set<string>();
  for (const k in patch) {
    if (k.startsWith(SET_ELEMENT_ORDER)) ordered.add(applySetElementOrder(orig, patch, k, node, lk));
  }
  for (const k in patch) {
    if (k === RETAIN_KEYS || k.startsWith(SET_ELEMENT_ORDER) || ordered.has(k)) continue;
    const pv = patch[k];
    if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      deleteFromPrimitiveList(orig, k, pv, node, lk);
      continue;
    }
    if (pv === null) {
      delete orig[k];
      continue;
    }
    const meta = lk.field(node, k);
    const ov = orig[k];
    if (ov === undefined || kindOf(ov) !== kindOf(pv)) {
      const v = cleanValue(pv, meta.node, lk);
      if (v === undefined) delete orig[k];
      else orig[k] = v;
      continue;
    }
    if (isObject(pv)) orig[k] = meta.strategy === 'replace' ? (cleanMap(pv, meta.node, lk) ?? {}) : mergeMap(ov as JsonObject, pv, meta.node, lk);
    else if (Array.isArray(pv)) orig[k] = mergeListField(ov as unknown[], pv, meta, lk, false);
    else orig[k] = pv;
  }
  return orig;
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function applyRetainKeys(orig: JsonObject, patch: JsonObject): void {
  const list = patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw badRequest(ERR_RETAIN_KEYS);
  const keep = new Set(list);
  for (const k in patch) {
    if (k === RETAIN_KEYS || patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw badRequest(ERR_RETAIN_KEYS);
  }
  for (const k in orig) if (!keep.has(k)) delete orig[k];
}

/** `$deleteFromPrimitiveList/<list>: [values]` removes those values from a merging primitive list. */
function deleteFromPrimitiveList(orig: JsonObject, directive: string, pv: unknown, node: SchemaNode | undefined, lk: Lookup): void {
  const key = directiveKey(directive, DELETE_FROM_PRIMITIVE_LIST, ERR_PRIMITIVE_LIST);
  if (!Array.isArray(pv)) throw badRequest(ERR_PRIMITIVE_LIST);
  const ov = orig[key];
  if (!Array.isArray(ov)) return;
  const meta = lk.field(node, key);
  orig[key] = mergeListField(ov, pv, meta, lk, true);
}

function directiveKey(directive: string, prefix: string, err: string): string {
  const slash = directive.indexOf('/');
  if (slash < 0 || directive.slice(0, slash) !== prefix) throw badRequest(err);
  return directive.slice(slash + 1);
}

/**
 * `$setElementOrder/<list>`: merges the patch list (if any) and orders the result: items named in
 * the directive in its order, live-only items interleaved by their live position. Returns the list key.
 */
function applySetElementOrder(orig: JsonObject, patch: JsonObject, directive: string, node: SchemaNode | undefined, lk: Lookup): string {
  const order = patch[directive];
  if (!Array.isArray(order)) throw badRequest(ERR_SET_ELEMENT_ORDER);
  const key = directiveKey(directive, SET_ELEMENT_ORDER, ERR_SET_ELEMENT_ORDER);
  const ov = orig[key];
  const pv = patch[key];
  if (ov !== undefined && !Array.isArray(ov)) throw badRequest(`expected a []interface {}, but received a ${goType(ov)}`);
  if (pv !== undefined && !Array.isArray(pv)) throw badRequest(`expected a []interface {}, but received a ${goType(pv)}`);
  const meta = lk.field(node, key);
  validateSetOrder(pv ?? [], order, meta.mergeKey);
  let merged: unknown[];
  if (ov === undefined && pv === undefined) return key;
  if (pv === undefined) merged = ov as unknown[];
  else merged = mergeListField((ov as unknown[] | undefined) ?? [], pv, meta, lk, false);
  const mergeKey = merged.some(isObject) ? meta.mergeKey : undefined;
  const [inOrder, serverOnly] = partition(merged, order, mergeKey);
  orig[key] = normalizeOrder(inOrder, serverOnly, order, (ov as unknown[] | undefined) ?? [], mergeKey);
  return key;
}

function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (isObject(v)) return 'map[string]interface {}';
  return '<nil>';
}

/** Items of the patch list must appear in the $setElementOrder list, in the same relative order. */
function validateSetOrder(patchList: unknown[], order: unknown[], mergeKey: string | undefined): void {
  if (order.length === 0 || patchList.length === 0) return;
  const keyed = patchList.some(isObject);
  const items = keyed ? patchList.filter((v) => !(isObject(v) && v[DIRECTIVE] === 'delete')) : patchList;
  let pi = 0;
  let oi = 0;
  while (pi < items.length && oi < order.length) {
    const item = items[pi];
    if (isObject(item) && DIRECTIVE in item) {
      pi++;
      continue;
    }
    if (sameKey(item, order[oi], keyed ? mergeKey : undefined)) pi++;
    oi++;
  }
  if (pi < items.length && oi >= order.length) {
    throw badRequest(`The order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goValue(order)}\n`);
  }
}

function sameKey(a: unknown, b: unknown, mergeKey: string | undefined): boolean {
  if (!mergeKey) return a === b;
  if (!isObject(a)) throw badRequest(`expected a map[string]interface {}, but received a ${goType(a)}`);
  if (!isObject(b)) throw badRequest(`expected a map[string]interface {}, but received a ${goType(b)}`);
  if (!(mergeKey in a)) throw noMergeKey(a, mergeKey);
  if (!(mergeKey in b)) throw noMergeKey(b, mergeKey);
  return a[mergeKey] === b[mergeKey];
}

/** Merges a patch list into a live list per the field's strategy (replace unless "merge"). */
function mergeListField(ov: unknown[], pv: unknown[], meta: FieldMeta, lk: Lookup, isDeleteList: boolean): unknown[] {
  if (meta.strategy !== 'merge') return cleanList(pv, lk.items(meta.node), lk);
  if (ov.length === 0 && pv.length === 0) return ov;
  const elem = elementKind(ov, pv);
  if (elem !== 'object') {
    if (isDeleteList) {
      const drop = new Set(pv);
      return ov.filter((v) => !drop.has(v));
    }
    const merged = dedupe([...ov, ...pv]);
    const [inPatch, serverOnly] = partition(merged, pv, undefined);
    return normalizeOrder(inPatch, serverOnly, pv, ov, undefined);
  }
  const mergeKey = meta.mergeKey;
  if (!mergeKey) throw badRequest('cannot merge lists without merge key for type map');
  const itemNode = lk.items(meta.node);
  let live = ov;
  const plain: JsonObject[] = [];
  let replace = false;
  for (const v of pv as JsonObject[]) {
    if (!(DIRECTIVE in v)) {
      plain.push(v);
      continue;
    }
    const d = v[DIRECTIVE];
    if (d === 'delete') {
      if (!(mergeKey in v)) throw noMergeKey(v, mergeKey);
      live = live.filter((item) => !(isObject(item) && item[mergeKey] === v[mergeKey]));
    } else if (d === 'replace') {
      replace = true;
    } else if (d === 'merge') {
      throw badRequest('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(d, v);
    }
  }
  if (replace) return cleanList(plain, itemNode, lk);
  const merged = [...live];
  for (const v of plain) {
    if (!(mergeKey in v)) throw noMergeKey(v, mergeKey);
    const i = merged.findIndex((item) => isObject(item) && item[mergeKey] === v[mergeKey]);
    if (i >= 0) merged[i] = mergeMap(merged[i] as JsonObject, v, itemNode, lk);
    else merged.push(cleanMap(v, itemNode, lk) ?? {});
  }
  const [inPatch, serverOnly] = partition(merged, plain, mergeKey);
  return normalizeOrder(inPatch, serverOnly, plain, live, mergeKey);
}

function elementKind(...lists: unknown[][]): string {
  let kind: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = Array.isArray(v) ? 'array' : isObject(v) ? 'object' : typeof v;
      if (kind === undefined) {
        if (k === 'array') throw new PatchError('Invalid', ERR_NO_LIST_OF_LISTS);
        kind = k;
      } else if (k !== kind) {
        throw badRequest(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  return kind ?? 'none';
}

function dedupe(values: unknown[]): unknown[] {
  const seen = new Set<unknown>();
  return values.filter((v) => (seen.has(v) ? false : (seen.add(v), true)));
}

/** Splits items into those present in `by` (by merge key, or by value) and the rest. */
function partition(items: unknown[], by: unknown[], mergeKey: string | undefined): [unknown[], unknown[]] {
  const present = new Set<unknown>();
  for (const v of by) present.add(mergeKey ? (isObject(v) ? v[mergeKey] : undefined) : v);
  const yes: unknown[] = [];
  const no: unknown[] = [];
  for (const v of items) {
    let id: unknown = v;
    if (mergeKey) {
      if (!isObject(v)) throw badRequest(`expected a map[string]interface {}, but received a ${goType(v)}`);
      if (!(mergeKey in v)) throw noMergeKey(v, mergeKey);
      id = v[mergeKey];
    }
    (present.has(id) ? yes : no).push(v);
  }
  return [yes, no];
}

/**
 * Orders patch items by patchOrder and server-only items by their live order, then interleaves
 * them: a server-only item goes first only while it precedes the next patch item in the live list.
 */
function normalizeOrder(patchItems: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string | undefined): unknown[] {
  const idOf = (v: unknown): unknown => (mergeKey ? (isObject(v) ? v[mergeKey] : undefined) : v);
  const indexer = (list: unknown[]): Map<unknown, number> => {
    const m = new Map<unknown, number>();
    list.forEach((v, i) => {
      const id = idOf(v);
      if (!m.has(id)) m.set(id, i);
    });
    return m;
  };
  const sortBy = (items: unknown[], order: unknown[]): unknown[] => {
    const idx = indexer(order);
    const at = (v: unknown): number => idx.get(idOf(v)) ?? -1;
    return items
      .map((v, i) => ({ v, i, at: at(v) }))
      .sort((a, b) => a.at - b.at || a.i - b.i)
      .map((e) => e.v);
  };
  if (mergeKey) for (const v of [...patchItems, ...patchOrder]) if (isObject(v) && !(mergeKey in v)) throw noMergeKey(v, mergeKey);
  const left = sortBy(serverOnly, serverOrder);
  const right = sortBy(patchItems, patchOrder);
  const liveIndex = indexer(serverOrder);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = liveIndex.get(idOf(left[i]));
      const ri = liveIndex.get(idOf(right[j]));
      if (li !== undefined && ri !== undefined && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/**
 * A patch value taken as is (no live counterpart): a fresh copy without null fields and without
 * directives (`$patch: delete` maps vanish, list-level `$patch` items are dropped).
 */
function cleanValue(v: unknown, node: SchemaNode | undefined, lk: Lookup): unknown {
  if (isObject(v)) return cleanMap(v, node, lk);
  if (Array.isArray(v)) return cleanList(v, lk.items(node), lk);
  return v;
}

function cleanMap(m: JsonObject, node: SchemaNode | undefined, lk: Lookup): JsonObject | undefined {
  if (DIRECTIVE in m) {
    const d = m[DIRECTIVE];
    if (d === 'delete') return undefined;
    if (d !== 'replace' && d !== 'merge') throw badPatchType(d, m);
  }
  const out: JsonObject = {};
  for (const k in m) {
    const v = m[k];
    if (v === null || k === DIRECTIVE || k === RETAIN_KEYS || k.startsWith(SET_ELEMENT_ORDER) || k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
    const c = cleanValue(v, lk.field(node, k).node, lk);
    if (c !== undefined) out[k] = c;
  }
  return out;
}

function cleanList(list: unknown[], itemNode: SchemaNode | undefined, lk: Lookup): unknown[] {
  const out: unknown[] = [];
  for (const v of list) {
    if (isObject(v)) {
      if (DIRECTIVE in v && (v[DIRECTIVE] === 'delete' || v[DIRECTIVE] === 'replace')) continue;
      const c = cleanMap(v, itemNode, lk);
      if (c !== undefined) out.push(c);
    } else out.push(cloneJson(v));
  }
  return out;
}
