// Schema-driven operations on JSON values used by server-side apply: validating an applied
// configuration, merging it into the live object, comparing two objects field by field, and
// removing field paths.
import { FieldSet, isLeaf } from './fieldpath.js';
import { isEmptyObject, isObject, jsonEqual, type JsonObject } from './json-util.js';
import { PatchError } from './patch-error.js';
import { peString, type PathElement } from './path-element.js';
import { asAssociativeList, asGranularMap, DEDUCED, declares, fieldType, type ItemKey, type ListType, type TypeNode } from './schema-types.js';

/** Key of a list item; items without a valid key (only in stored objects) fall back to their index. */
function itemKey(list: ListType, item: unknown, index: number): ItemKey {
  const k = list.itemKey(item);
  return typeof k === 'string' ? { pe: { t: 'i', index }, key: 'i:' + index } : k;
}

/**
 * Copies an applied configuration, dropping nulls where the schema does not allow them (a null
 * there means "unset", as when a typed object is decoded) and rejecting map-list items without
 * their key fields or with duplicate keys.
 */
export function prepareConfig(value: unknown, t: TypeNode, opts: { undeclared?: string[] } = {}): unknown {
  return prepare(value, t, [], opts.undeclared);
}

/**
 * `undeclared`: collects `<path>: field not declared in schema` for members a struct (properties, no additional
 * ones) does not declare, as structured-merge-diff's typed conversion of an applied configuration reports them.
 */
function prepare(value: unknown, t: TypeNode, at: PathElement[], undeclared?: string[]): unknown {
  const map = asGranularMap(t, value);
  if (map) {
    const obj = value as JsonObject;
    const out: JsonObject = {};
    for (const k in obj) {
      const v = obj[k];
      if (v === undefined) continue;
      if (undeclared && map.kind === 'map' && map.struct && !declares(map, k)) {
        undeclared.push(`${pathOf(at)}.${k}: field not declared in schema`);
        continue;
      }
      const ct = fieldType(map, k);
      if (v === null) {
        if (ct.nullable) out[k] = null;
        continue;
      }
      at.push({ t: 'f', name: k });
      out[k] = prepare(v, ct, at, undeclared);
      at.pop();
    }
    return out;
  }
  const list = asAssociativeList(t, value);
  if (list) {
    const arr = value as unknown[];
    const seen = new Set<string>();
    const it = list.item();
    const out: unknown[] = new Array(arr.length);
    for (let i = 0; i < arr.length; i++) {
      const k = list.itemKey(arr[i]);
      if (typeof k === 'string') throw new PatchError('BadRequest', `${pathOf(at)}: element ${i}: ${k}`);
      if (seen.has(k.key)) throw new PatchError('BadRequest', `${pathOf(at)}: duplicate entries for key ${peString(k.pe)}`);
      seen.add(k.key);
      at.push(k.pe);
      out[i] = prepare(arr[i], it, at, undeclared);
      at.pop();
    }
    return out;
  }
  return copyJson(value);
}

const pathOf = (at: PathElement[]): string => at.map(peString).join('');

function copyJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copyJson);
  const out: JsonObject = {};
  for (const k in v as JsonObject) out[k] = copyJson((v as JsonObject)[k]);
  return out;
}

function emptyMap(v: unknown): boolean {
  return v === undefined || v === null || isEmptyObject(v);
}

function emptyList(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0);
}

/**
 * Merges an applied configuration (rhs) into an object (lhs): rhs wins on leaves, granular maps
 * merge by key, associative lists merge by item key keeping live-only items in place and shared
 * items in rhs order. Values are shared with the inputs, not copied.
 */
export function merge(l: unknown, r: unknown, t: TypeNode): unknown {
  if (r === undefined) return l;
  if (l === undefined) return r;
  const lm = asGranularMap(t, l);
  if (lm && isObject(r)) {
    if (emptyMap(l) && emptyMap(r)) return r;
    const lo = l as JsonObject;
    const out: JsonObject = {};
    for (const k in lo) out[k] = k in r ? merge(lo[k], r[k], fieldType(lm, k)) : lo[k];
    for (const k in r) if (!(k in lo)) out[k] = r[k];
    return out;
  }
  const ll = asAssociativeList(t, l);
  if (ll && Array.isArray(r)) {
    if (emptyList(l) && emptyList(r)) return r;
    return mergeList(l as unknown[], r, ll);
  }
  return r;
}

function mergeList(lhs: unknown[], rhs: unknown[], t: ListType): unknown[] {
  const it = t.item();
  const rKeys = new Array<string>(rhs.length);
  const rByKey = new Map<string, unknown>();
  for (let i = 0; i < rhs.length; i++) {
    const k = itemKey(t, rhs[i], i).key;
    rKeys[i] = k;
    if (!rByKey.has(k)) rByKey.set(k, rhs[i]);
  }
  const lKeys = new Array<string>(lhs.length);
  const lByKey = new Map<string, unknown>();
  for (let i = 0; i < lhs.length; i++) {
    const k = itemKey(t, lhs[i], i).key;
    lKeys[i] = k;
    if (!lByKey.has(k)) lByKey.set(k, lhs[i]);
  }
  // Shared items are emitted in rhs order; live-only items stay where they were relative to them.
  const shared: string[] = [];
  for (const k of rKeys) if (lByKey.has(k)) shared.push(k);
  let sharedPos = 0;
  let nextShared: string | undefined = shared[sharedPos++];
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
        nextShared = shared[sharedPos++];
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
      if (nextShared === rk) nextShared = shared[sharedPos++];
    }
  }
  return out;
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** Comparison sets of one node, created on first use. */
class Diff {
  added?: FieldSet;
  modified?: FieldSet;
  removed?: FieldSet;
  add(which: 'added' | 'modified' | 'removed', pe: PathElement, key: string): void {
    (this[which] ??= new FieldSet()).addMember(pe, key);
  }
  attach(sub: Diff, pe: PathElement, key: string): void {
    if (sub.added) (this.added ??= new FieldSet()).addChild(pe, sub.added, key);
    if (sub.modified) (this.modified ??= new FieldSet()).addChild(pe, sub.modified, key);
    if (sub.removed) (this.removed ??= new FieldSet()).addChild(pe, sub.removed, key);
  }
}

/**
 * Field-level differences from l to r. Leaves (and atomic values) are added, removed or modified;
 * granular maps and list items that appear or disappear are recorded too. Paths in `ignore` (and
 * everything below them) are skipped. With `zeroStructs` (built-in kinds), struct fields reached
 * from the root through struct fields, and their required fields, count as always present, as in
 * upstream's zero-valued Go structs: their appearing or disappearing is not itself a change.
 */
export function compareTyped(l: unknown, r: unknown, t: TypeNode, ignore?: FieldSet, zeroStructs = false): Comparison {
  const d = new Diff();
  compareChildren(l, r, t, d, ignore, zeroStructs);
  return { added: d.added ?? new FieldSet(), modified: d.modified ?? new FieldSet(), removed: d.removed ?? new FieldSet() };
}

function compareChildren(l: unknown, r: unknown, t: TypeNode, out: Diff, ignore: FieldSet | undefined, structChain: boolean): void {
  const map = asGranularMap(t, l ?? r) ?? asGranularMap(t, r);
  if (map) {
    const lo = isObject(l) ? l : undefined;
    const ro = isObject(r) ? r : undefined;
    if (lo) for (const k in lo) compareField(map, k, lo[k], ro?.[k], out, ignore, structChain);
    if (ro) for (const k in ro) if (!lo || !(k in lo)) compareField(map, k, undefined, ro[k], out, ignore, structChain);
    return;
  }
  const list = asAssociativeList(t, Array.isArray(l) ? l : r);
  if (!list) return;
  const it = list.item();
  const la = Array.isArray(l) ? l : [];
  const ra = Array.isArray(r) ? r : [];
  const lByKey = new Map<string, { pe: PathElement; v: unknown }>();
  for (let i = 0; i < la.length; i++) {
    const { pe, key } = itemKey(list, la[i], i);
    if (!lByKey.has(key)) lByKey.set(key, { pe, v: la[i] });
  }
  const seen = new Set<string>();
  for (let i = 0; i < ra.length; i++) {
    const { pe, key } = itemKey(list, ra[i], i);
    if (seen.has(key)) continue;
    seen.add(key);
    if (ignore?.members.has(key)) continue;
    compareEntry(pe, key, lByKey.get(key)?.v, ra[i], it, out, ignore?.withPrefix(key), false);
  }
  for (const [key, { pe, v }] of lByKey) {
    if (seen.has(key) || ignore?.members.has(key)) continue;
    compareEntry(pe, key, v, undefined, it, out, ignore?.withPrefix(key), false);
  }
}

function compareField(map: ReturnType<typeof asGranularMap> & object, k: string, lv: unknown, rv: unknown, out: Diff, ignore: FieldSet | undefined, structChain: boolean): void {
  const key = 'f:' + k;
  if (ignore?.members.has(key)) return;
  const ct = fieldType(map, k);
  const chain = structChain && ct.kind === 'map' && ct.struct && declares(map, k);
  // Required fields of zero-valued structs are present too (as null): only their contents change.
  const present = chain || (structChain && map.kind === 'map' && map.requires(k));
  compareEntry(map.kind === 'map' ? map.fieldPE(k) : { t: 'f', name: k }, key, lv, rv, ct, out, ignore?.withPrefix(key), chain, present);
}

function compareEntry(
  pe: PathElement,
  key: string,
  lv: unknown,
  rv: unknown,
  t: TypeNode,
  out: Diff,
  ignore: FieldSet | undefined,
  zeroStruct: boolean,
  alwaysPresent = zeroStruct,
): void {
  if (lv === undefined && rv === undefined) return;
  if (zeroStruct) {
    // A zero-valued struct: absent, null and {} are the same value.
    if (lv === undefined || lv === null) lv = {};
    if (rv === undefined || rv === null) rv = {};
  }
  if (isLeafPair(t, lv, rv)) {
    if (lv === undefined) out.add('added', pe, key);
    else if (rv === undefined) out.add('removed', pe, key);
    else if (!jsonEqual(lv, rv)) out.add('modified', pe, key);
    return;
  }
  const sub = new Diff();
  compareChildren(lv, rv, t, sub, ignore, zeroStruct);
  out.attach(sub, pe, key);
  if (alwaysPresent) return;
  if (lv === undefined) out.add('added', pe, key);
  else if (rv === undefined) out.add('removed', pe, key);
}

/** Whether l/r are compared as whole values: atomic types, mismatched shapes, or both empty. */
function isLeafPair(t: TypeNode, l: unknown, r: unknown): boolean {
  const present = l === undefined ? r : l;
  if (present === null || isLeaf(t, present)) return true;
  if (l !== undefined && r !== undefined) {
    if (r === null || l === null) return true;
    if (Array.isArray(l) !== Array.isArray(r) || isObject(l) !== isObject(r)) return true;
  }
  return Array.isArray(present) ? emptyList(l) && emptyList(r) : emptyMap(l) && emptyMap(r);
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
    const arr = value as unknown[];
    const out: unknown[] = [];
    for (let i = 0; i < arr.length; i++) {
      const { key } = itemKey(list, arr[i], i);
      if (set.members.has(key)) continue;
      const sub = set.children.get(key);
      const v = sub ? removeItems(arr[i], sub.set, it) : arr[i];
      if (v !== undefined) out.push(v);
    }
    return out.length ? out : undefined;
  }
  return value;
}

/** Adds every struct field on the way to a path as a member itself (maps keys and list items are not added). */
export function ensureNamedFieldsAreMembers(set: FieldSet, t: TypeNode): FieldSet {
  if (set.children.size === 0) return set;
  const out = new FieldSet();
  for (const [k, pe] of set.members) out.addMember(pe, k);
  for (const [k, c] of set.children) {
    let ct: TypeNode;
    if (c.pe.t === 'f') {
      ct = t.kind === 'map' ? t.field(c.pe.name) : DEDUCED;
      if (declares(t, c.pe.name)) out.addMember(c.pe, k);
    } else {
      ct = t.kind === 'list' ? t.item() : DEDUCED;
    }
    out.addChild(c.pe, ensureNamedFieldsAreMembers(c.set, ct), k);
  }
  return out;
}
