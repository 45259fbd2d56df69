// Field sets (sets of field paths, as a trie keyed by serialized path elements), their FieldsV1
// wire form, and the set of fields an object sets according to its schema.
import type { SchemaRegistry } from '../schema/registry.js';
import type { SchemaNode } from '../schema/types.js';
import { isEmptyObject, isObject } from './json-util.js';
import { comparePE, parsePE, pathString, serializePE, type Path, type PathElement } from './path-element.js';
import { asAssociativeList, asGranularMap, declares, fieldType, schemaTypes, type TypeNode } from './schema-types.js';

export * from './path-element.js';

export interface FieldSetChild {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

const NO_MEMBERS: ReadonlyMap<string, PathElement> = new Map();
const NO_CHILDREN: ReadonlyMap<string, FieldSetChild> = new Map();

/**
 * A set of field paths. `members` are paths ending at this node; `children` hold paths that go
 * deeper. Children are never empty. Treat sets as immutable once built: operations share subtrees
 * with their inputs and return an input itself when the result equals it.
 */
export class FieldSet {
  private m?: Map<string, PathElement>;
  private c?: Map<string, FieldSetChild>;

  get members(): ReadonlyMap<string, PathElement> {
    return this.m ?? NO_MEMBERS;
  }

  get children(): ReadonlyMap<string, FieldSetChild> {
    return this.c ?? NO_CHILDREN;
  }

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Plain field paths in dotted form, e.g. `FieldSet.fields('status', 'metadata.labels')` (reset fields). */
  static fields(...dotted: string[]): FieldSet {
    return FieldSet.of(...dotted.map((d) => d.split('.').map((name): PathElement => ({ t: 'f', name }))));
  }

  /** Adds a path (the empty path, "the whole object", is never tracked). */
  insert(path: Path): void {
    if (path.length === 0) return;
    let s: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) s = s.descend(path[i]!);
    s.addMember(path[path.length - 1]!);
  }

  addMember(pe: PathElement, key = serializePE(pe)): void {
    (this.m ??= new Map()).set(key, pe);
  }

  /** Attaches a non-empty subset under pe (replacing any previous one). */
  addChild(pe: PathElement, set: FieldSet, key = serializePE(pe)): void {
    if (!set.isEmpty()) (this.c ??= new Map()).set(key, { pe, set });
  }

  private descend(pe: PathElement): FieldSet {
    const key = serializePE(pe);
    this.c ??= new Map();
    let c = this.c.get(key);
    if (!c) {
      c = { pe, set: new FieldSet() };
      this.c.set(key, c);
    }
    return c.set;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let s: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1; i++) {
      s = s.children.get(serializePE(path[i]!))?.set;
      if (!s) return false;
    }
    return s.members.has(serializePE(path[path.length - 1]!));
  }

  /** The subset of paths below pe (pe itself excluded). */
  withPrefix(pe: PathElement | string): FieldSet {
    return this.children.get(typeof pe === 'string' ? pe : serializePE(pe))?.set ?? EMPTY;
  }

  isEmpty(): boolean {
    return (this.m === undefined || this.m.size === 0) && (this.c === undefined || this.c.size === 0);
  }

  /** Number of paths in the set. */
  get size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.set.size;
    return n;
  }

  union(o: FieldSet): FieldSet {
    if (o === this || o.isEmpty()) return this;
    if (this.isEmpty()) return o;
    let same = true;
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.addMember(pe, k);
    for (const [k, pe] of o.members) {
      if (!this.members.has(k)) {
        out.addMember(pe, k);
        same = false;
      }
    }
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      const u = oc ? c.set.union(oc.set) : c.set;
      if (u !== c.set) same = false;
      out.addChild(c.pe, u, k);
    }
    for (const [k, c] of o.children) {
      if (!this.children.has(k)) {
        out.addChild(c.pe, c.set, k);
        same = false;
      }
    }
    return same ? this : out;
  }

  intersection(o: FieldSet): FieldSet {
    if (o === this) return this;
    const out = new FieldSet();
    if (this.isEmpty() || o.isEmpty()) return out;
    for (const [k, pe] of this.members) if (o.members.has(k)) out.addMember(pe, k);
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      if (oc) out.addChild(c.pe, c.set.intersection(oc.set), k);
    }
    return out;
  }

  /** Paths in this set and not in o (a parent path does not remove its children). */
  difference(o: FieldSet): FieldSet {
    return this.minus(o, false);
  }

  /** Like difference, but a path in o also removes every path below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    return this.minus(o, true);
  }

  private minus(o: FieldSet, recursive: boolean): FieldSet {
    if (o.isEmpty() || this.isEmpty()) return this;
    let same = true;
    const out = new FieldSet();
    for (const [k, pe] of this.members) {
      if (o.members.has(k)) same = false;
      else out.addMember(pe, k);
    }
    for (const [k, c] of this.children) {
      if (recursive && o.members.has(k)) {
        same = false;
        continue;
      }
      const oc = o.children.get(k);
      const d = oc ? c.set.minus(oc.set, recursive) : c.set;
      if (d !== c.set) same = false;
      out.addChild(c.pe, d, k);
    }
    return same ? this : out;
  }

  equals(o: FieldSet): boolean {
    if (this === o) return true;
    if (this.members.size !== o.members.size || this.children.size !== o.children.size) return false;
    for (const k of this.members.keys()) if (!o.members.has(k)) return false;
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      if (!oc || !c.set.equals(oc.set)) return false;
    }
    return true;
  }

  /** All paths, depth-first: at each level the members (sorted), then the children (sorted). */
  paths(): PathElement[][] {
    const out: PathElement[][] = [];
    const walk = (s: FieldSet, prefix: PathElement[]): void => {
      for (const pe of [...s.members.values()].sort(comparePE)) out.push([...prefix, pe]);
      for (const c of [...s.children.values()].sort((a, b) => comparePE(a.pe, b.pe))) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }

  /** Human-readable paths (`.spec.replicas`), in paths() order. */
  toStrings(): string[] {
    return this.paths().map(pathString);
  }

  /** The FieldsV1 JSON object: keys sorted as upstream, "." marking a member that also has children. */
  toFieldsV1(): Record<string, unknown> {
    const entries: [string, PathElement][] = [];
    for (const [k, pe] of this.members) entries.push([k, pe]);
    for (const [k, c] of this.children) if (!this.members.has(k)) entries.push([k, c.pe]);
    if (entries.length > 1) entries.sort(byPE);
    const out: Record<string, unknown> = {};
    for (const [k] of entries) {
      const c = this.children.get(k);
      if (!c) out[k] = {};
      else if (this.members.has(k)) out[k] = { '.': {}, ...c.set.toFieldsV1() };
      else out[k] = c.set.toFieldsV1();
    }
    return out;
  }

  /** Parses a FieldsV1 object (or its JSON text); throws on malformed input. */
  static fromFieldsV1(v: unknown): FieldSet {
    const obj = typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
    if (!isObject(obj)) throw new Error('FieldsV1 must be a JSON object');
    const out = new FieldSet();
    parseInto(obj, out);
    return out;
  }
}

function byPE(a: [string, PathElement], b: [string, PathElement]): number {
  // Field names compare as strings, like their keys; other kinds need the value order.
  if (a[1].t === 'f' && b[1].t === 'f') return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
  return comparePE(a[1], b[1]);
}

const EMPTY = new FieldSet();

function parseInto(obj: Record<string, unknown>, out: FieldSet): void {
  for (const key in obj) {
    if (key === '.') continue;
    const pe = parsePE(key);
    const v = obj[key];
    if (!isObject(v)) throw new Error(`FieldsV1 value for ${JSON.stringify(key)} must be an object`);
    const canonical = pe.t === 'f' ? key : serializePE(pe);
    let hasChildKeys = false;
    for (const k in v) {
      if (k !== '.') {
        hasChildKeys = true;
        break;
      }
    }
    if (!hasChildKeys) {
      out.addMember(pe, canonical);
      continue;
    }
    if ('.' in v) out.addMember(pe, canonical);
    const sub = new FieldSet();
    parseInto(v, sub);
    out.addChild(pe, sub, canonical);
  }
}

/**
 * The set of fields `obj` sets: leaves, atomic lists/maps as one path, set items by value, map-list
 * items by key (items are members too), map keys of granular maps, null and empty-map fields.
 * Struct fields holding other fields are not members themselves.
 */
export function fieldSetOf(obj: unknown, schema: SchemaNode | undefined, reg: SchemaRegistry): FieldSet {
  return typedFieldSet(obj, schemaTypes(reg).root(schema));
}

export function typedFieldSet(value: unknown, t: TypeNode): FieldSet {
  const out = new FieldSet();
  collect(value, t, out);
  return out;
}

/** Adds the paths below value (relative to it) to out. */
function collect(value: unknown, t: TypeNode, out: FieldSet): void {
  const map = asGranularMap(t, value);
  if (map) {
    const obj = value as Record<string, unknown>;
    for (const k in obj) {
      const v = obj[k];
      if (v === undefined) continue;
      const pe: PathElement = { t: 'f', name: k };
      const key = 'f:' + k;
      const ct = fieldType(map, k);
      if (v === null || isLeaf(ct, v)) {
        out.addMember(pe, key);
        continue;
      }
      const sub = new FieldSet();
      collect(v, ct, sub);
      out.addChild(pe, sub, key);
      if (!declares(map, k) || isEmptyObject(v)) out.addMember(pe, key);
    }
    return;
  }
  const list = asAssociativeList(t, value);
  if (list) {
    const it = list.item();
    const arr = value as unknown[];
    for (let i = 0; i < arr.length; i++) {
      const item = arr[i];
      const ik = list.itemKey(item);
      const pe: PathElement = typeof ik === 'string' ? { t: 'i', index: i } : ik.pe;
      const key = typeof ik === 'string' ? 'i:' + i : ik.key;
      out.addMember(pe, key);
      if (item !== null && !isLeaf(it, item)) {
        const sub = new FieldSet();
        collect(item, it, sub);
        out.addChild(pe, sub, key);
      }
    }
  }
}

/** Whether a (non-null) value is owned as a single path under type t. */
export function isLeaf(t: TypeNode, v: unknown): boolean {
  return !asGranularMap(t, v) && !asAssociativeList(t, v);
}
