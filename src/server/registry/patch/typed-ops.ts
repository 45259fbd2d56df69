// Schema-driven operations on JSON values used by server-side apply: validating an applied
// configuration, merging it into the live object, comparing two objects field by field, and
// removing field paths.
import { FieldSet, isLeaf } from './fieldpath.js';
import { isEmptyObject, isObject, jsonEqual, type JsonObject } from './json-util.js';
import { PatchError } from './patch-error.js';
import { peString, serializePE, type PathElement } from './path-element.js';
import { asAssociativeList, asGranularMap, DEDUCED, declares, fieldType, listItemPE, type ListType, type TypeNode } from './schema-types.js';

/**
 * Copies an applied configuration, dropping nulls where the schema does not allow them (a null
 * there means "unset", as when a typed object is decoded) and rejecting map-list items without
 * their key fields or with duplicate keys. `at` is the path shown in errors.
 */
export function prepareConfig(value: unknown, t: TypeNode, at = ''): unknown {
  const map = asGranularMap(t, value);
  if (map) {
    const obj = value as JsonObject;
    const out: JsonObject = {};
    for (const k in obj) {
      const v = obj[k];
      if (v === undefined) continue;
      const ct = fieldType(map, k);
      if (v === null) {
        if (ct.nullable) out[k] = null;
        continue;
      }
      out[k] = prepareConfig(v, ct, at + '.' + k);
    }
    return out;
  }
  const list = asAssociativeList(t, value);
  if (list) {
    const arr = value as unknown[];
    const seen = new Set<string>();
    const it = list.item();
    return arr.map((item, i) => {
      const pe = listItemPE(list, item);
      if (typeof pe === 'string') throw new PatchError('BadRequest', `${at}: element ${i}: ${pe}`);
      const key = serializePE(pe);
      if (seen.has(key)) throw new PatchError('BadRequest', `${at}: duplicate entries for key ${peString(pe)}`);
      seen.add(key);
      return prepareConfig(item, it, `${at}${peString(pe)}`);
    });
  }
  return copyJson(value);
}

function copyJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copyJson);
  const out: JsonObject = {};
  for (const k in v as JsonObject) out[k] = copyJson((v as JsonObject)[k]);
  return out;
}

function itemPE(list: ListType, item: unknown, index: number): PathElement {
  const pe = listItemPE(list, item);
  return typeof pe === 'string' ? { t: 'i', index } : pe;
}

const bothEmptyMaps = (l: unknown, r: unknown): boolean => (l === undefined || l === null || isEmptyObject(l)) && (r === undefined || r === null || isEmptyObject(r));
const bothEmptyLists = (l: unknown, r: unknown): boolean =>
  (l === undefined || l === null || (Array.isArray(l) && l.length === 0)) && (r === undefined || r === null || (Array.isArray(r) && r.length === 0));

/**
 * Merges an applied configuration (rhs) into an object (lhs): rhs wins on leaves, granular maps
 * merge by key, associative lists merge by item key keeping live-only items in place and shared
 * items in rhs order. Values are shared with the inputs, not copied.
 */
export function merge(l: unknown, r: unknown, t: TypeNode): unknown {
  if (r === undefined) return l;
  if (l === undefined) return r;
  const lm = asGranularMap(t, l);
  const rm = asGranularMap(t, r);
  if (lm && rm) {
    if (bothEmptyMaps(l, r)) return r;
    const lo = l as JsonObject;
    const ro = r as JsonObject;
    const out: JsonObject = {};
    for (const k in lo) out[k] = k in ro ? merge(lo[k], ro[k], fieldType(lm, k)) : lo[k];
    for (const k in ro) if (!(k in lo)) out[k] = ro[k];
    return out;
  }
  const ll = asAssociativeList(t, l);
  const rl = asAssociativeList(t, r);
  if (ll && rl) {
    if (bothEmptyLists(l, r)) return r;
    return mergeList(l as unknown[], r as unknown[], ll);
  }
  return r;
}

function mergeList(lhs: unknown[], rhs: unknown[], t: ListType): unknown[] {
  const it = t.item();
  const rKeys = rhs.map((item, i) => serializePE(itemPE(t, item, i)));
  const lKeys = lhs.map((item, i) => serializePE(itemPE(t, item, i)));
  const rByKey = new Map<string, unknown>();
  rKeys.forEach((k, i) => rByKey.has(k) || rByKey.set(k, rhs[i]));
  const lByKey = new Map<string, unknown>();
  lKeys.forEach((k, i) => lByKey.has(k) || lByKey.set(k, lhs[i]));
  // Shared items are emitted in rhs order; live-only items stay where they were relative to them.
  const shared = rKeys.filter((k) => lByKey.has(k));
  let sharedPos = 0;
  let nextShared: string | undefined = shared[sharedPos++];
  const advance = (): void => {
    nextShared = shared[sharedPos++];
  };
  const emitted = new Set<string>();
  const out: unknown[] = [];
  let li = 0;
  let ri = 0;
  while (li < lhs.length || ri < rhs.length) {
    if (li < lhs.length && ri < rhs.length) {
      const lk = lKeys[li]!;
      if (lk === rKeys[ri]) {
        if (!emitted.has(lk)) out.push(merge(lByKey.get(lk), rByKey.get(lk), it));
        emitted.add(lk);
        li++;
        ri++;
        advance();
        continue;
      }
      if (rByKey.has(lk) && nextShared !== undefined && nextShared !== lk) {
        li++;
        continue;
      }
    }
    if (li < lhs.length) {
      const lk = lKeys[li]!;
      if (!rByKey.has(lk)) {
        out.push(lhs[li]);
        li++;
        continue;
      }
      if (emitted.has(lk)) {
        li++;
        continue;
      }
    }
    if (ri < rhs.length) {
      const rk = rKeys[ri]!;
      if (!emitted.has(rk)) out.push(merge(lByKey.get(rk), rByKey.get(rk), it));
      emitted.add(rk);
      ri++;
      if (nextShared === rk) advance();
    }
  }
  return out;
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * Field-level differences from l to r. Leaves (and atomic values) are added, removed or modified;
 * granular maps and list items that appear or disappear are recorded too. Paths in `ignore` (and
 * everything below them) are skipped.
 */
export function compareTyped(l: unknown, r: unknown, t: TypeNode, ignore?: FieldSet): Comparison {
  const out: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareChildren(l, r, t, out, ignore);
  return out;
}

function compareChildren(l: unknown, r: unknown, t: TypeNode, out: Comparison, ignore: FieldSet | undefined): void {
  const map = asGranularMap(t, l ?? r) ?? asGranularMap(t, r);
  if (map) {
    const lo = isObject(l) ? l : undefined;
    const ro = isObject(r) ? r : undefined;
    if (lo) {
      for (const k in lo) {
        const key = 'f:' + k;
        if (ignore?.members.has(key)) continue;
        compareEntry({ t: 'f', name: k }, key, lo[k], ro?.[k], fieldType(map, k), out, ignore?.withPrefix(key));
      }
    }
    if (ro) {
      for (const k in ro) {
        if (lo && k in lo) continue;
        const key = 'f:' + k;
        if (ignore?.members.has(key)) continue;
        compareEntry({ t: 'f', name: k }, key, undefined, ro[k], fieldType(map, k), out, ignore?.withPrefix(key));
      }
    }
    return;
  }
  const list = asAssociativeList(t, Array.isArray(l) ? l : r);
  if (!list) return;
  const it = list.item();
  const la = Array.isArray(l) ? l : [];
  const ra = Array.isArray(r) ? r : [];
  const lByKey = new Map<string, { pe: PathElement; v: unknown }>();
  la.forEach((item, i) => {
    const pe = itemPE(list, item, i);
    const key = serializePE(pe);
    if (!lByKey.has(key)) lByKey.set(key, { pe, v: item });
  });
  const seen = new Set<string>();
  ra.forEach((item, i) => {
    const pe = itemPE(list, item, i);
    const key = serializePE(pe);
    if (seen.has(key)) return;
    seen.add(key);
    if (ignore?.members.has(key)) return;
    compareEntry(pe, key, lByKey.get(key)?.v, item, it, out, ignore?.withPrefix(key));
  });
  for (const [key, { pe, v }] of lByKey) {
    if (seen.has(key) || ignore?.members.has(key)) continue;
    compareEntry(pe, key, v, undefined, it, out, ignore?.withPrefix(key));
  }
}

function compareEntry(pe: PathElement, key: string, lv: unknown, rv: unknown, t: TypeNode, out: Comparison, ignore: FieldSet | undefined): void {
  if (lv === undefined && rv === undefined) return;
  if (isLeafPair(t, lv, rv)) {
    if (lv === undefined) out.added.addMember(pe, key);
    else if (rv === undefined) out.removed.addMember(pe, key);
    else if (!jsonEqual(lv, rv)) out.modified.addMember(pe, key);
    return;
  }
  const sub: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareChildren(lv, rv, t, sub, ignore);
  out.added.addChild(pe, sub.added, key);
  out.modified.addChild(pe, sub.modified, key);
  out.removed.addChild(pe, sub.removed, key);
  if (lv === undefined) out.added.addMember(pe, key);
  else if (rv === undefined) out.removed.addMember(pe, key);
}

/** Whether l/r are compared as whole values: atomic types, mismatched shapes, or both empty. */
function isLeafPair(t: TypeNode, l: unknown, r: unknown): boolean {
  const present = l === undefined ? r : l;
  if (present === null || isLeaf(t, present)) return true;
  if (l !== undefined && r !== undefined) {
    if (r === null || l === null) return true;
    if (Array.isArray(l) !== Array.isArray(r) || isObject(l) !== isObject(r)) return true;
  }
  return Array.isArray(present) ? bothEmptyLists(l, r) : bothEmptyMaps(l, r);
}

/**
 * Removes the paths in `set` from value. A path removes its whole subtree; maps and lists left
 * empty by removals disappear (undefined), as upstream leaves them null and null means unset.
 */
export function removeItems(value: unknown, set: FieldSet, t: TypeNode): unknown {
  if (set.isEmpty()) return value;
  const map = asGranularMap(t, value);
  if (map) {
    const obj = value as JsonObject;
    const out: JsonObject = {};
    let n = 0;
    for (const k in obj) {
      const key = 'f:' + k;
      if (set.members.has(key)) continue;
      const sub = set.children.get(key);
      const v = sub ? removeItems(obj[k], sub.set, fieldType(map, k)) : obj[k];
      if (v === undefined) continue;
      out[k] = v;
      n++;
    }
    return n ? out : undefined;
  }
  const list = asAssociativeList(t, value);
  if (list) {
    const it = list.item();
    const out: unknown[] = [];
    (value as unknown[]).forEach((item, i) => {
      const key = serializePE(itemPE(list, item, i));
      if (set.members.has(key)) return;
      const sub = set.children.get(key);
      const v = sub ? removeItems(item, sub.set, it) : item;
      if (v !== undefined) out.push(v);
    });
    return out.length ? out : undefined;
  }
  return value;
}

/** Adds every struct field on the way to a path as a member itself (maps keys and list items are not added). */
export function ensureNamedFieldsAreMembers(set: FieldSet, t: TypeNode): FieldSet {
  if (set.children.size === 0) return set;
  const out = new FieldSet();
  for (const [k, pe] of set.members) out.members.set(k, pe);
  for (const [k, c] of set.children) {
    let ct: TypeNode;
    if (c.pe.t === 'f') {
      ct = t.kind === 'map' ? t.field(c.pe.name) : DEDUCED;
      if (declares(t, c.pe.name)) out.members.set(k, c.pe);
    } else {
      ct = t.kind === 'list' ? t.item() : DEDUCED;
    }
    out.children.set(k, { pe: c.pe, set: ensureNamedFieldsAreMembers(c.set, ct) });
  }
  return out;
}
