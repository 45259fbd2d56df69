// Path elements of structured-merge-diff field paths: a struct/map field (f:), a list-map item by
// its key fields (k:), a set item by value (v:) or a positional index (i:). Their serialized form is
// the FieldsV1 key, which is also our canonical identity for a path element.
import { goFloat, goQuote } from './go-format.js';
import { isObject } from './json-util.js';

export type KeyFields = readonly (readonly [string, unknown])[];

export type PathElement =
  | { readonly t: 'f'; readonly name: string }
  | { readonly t: 'k'; readonly key: KeyFields }
  | { readonly t: 'v'; readonly value: unknown }
  | { readonly t: 'i'; readonly index: number };

export type Path = readonly PathElement[];

export const fieldPE = (name: string): PathElement => ({ t: 'f', name });

/** Key path element with fields sorted by name (the canonical order). */
export function keyPE(fields: [string, unknown][]): PathElement {
  fields.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { t: 'k', key: fields };
}

/** FieldsV1 key of a path element, e.g. `f:image`, `k:{"name":"c"}`, `v:"x"`, `i:0`. */
export function serializePE(pe: PathElement): string {
  switch (pe.t) {
    case 'f':
      return 'f:' + pe.name;
    case 'k': {
      let s = 'k:{';
      for (let i = 0; i < pe.key.length; i++) {
        if (i) s += ',';
        s += goJson(pe.key[i]![0]) + ':' + goJson(pe.key[i]![1]);
      }
      return s + '}';
    }
    case 'v':
      return 'v:' + goJson(pe.value);
    case 'i':
      return 'i:' + pe.index;
  }
}

/** Parses a FieldsV1 key; throws on malformed input. */
export function parsePE(s: string): PathElement {
  if (s.length < 2 || s[1] !== ':') throw new Error(`invalid path element ${JSON.stringify(s)}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { t: 'f', name: body };
    case 'v':
      return { t: 'v', value: JSON.parse(body) as unknown };
    case 'k': {
      const obj = JSON.parse(body) as unknown;
      if (!isObject(obj)) throw new Error(`invalid key path element ${JSON.stringify(s)}`);
      return keyPE(Object.entries(obj));
    }
    case 'i': {
      if (!/^-?\d+$/.test(body)) throw new Error(`invalid index path element ${JSON.stringify(s)}`);
      return { t: 'i', index: Number(body) };
    }
    default:
      throw new Error(`unknown path element type in ${JSON.stringify(s)}`);
  }
}

const TYPE_RANK = { f: 0, k: 1, v: 2, i: 3 } as const;

/** Total order of path elements (fields, then keys, then values, then indices), as upstream sorts them. */
export function comparePE(a: PathElement, b: PathElement): number {
  if (a.t !== b.t) return TYPE_RANK[a.t] - TYPE_RANK[b.t];
  switch (a.t) {
    case 'f':
      return compareStrings(a.name, (b as typeof a).name);
    case 'k': {
      const bk = (b as typeof a).key;
      for (let i = 0; ; i++) {
        if (i >= a.key.length) return i >= bk.length ? 0 : -1;
        if (i >= bk.length) return 1;
        const c = compareStrings(a.key[i]![0], bk[i]![0]) || compareValues(a.key[i]![1], bk[i]![1]);
        if (c) return c;
      }
    }
    case 'v':
      return compareValues(a.value, (b as typeof a).value);
    case 'i':
      return a.index - (b as typeof a).index;
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const rank = (v: unknown): number =>
  typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : typeof v === 'boolean' ? 2 : Array.isArray(v) ? 3 : isObject(v) ? 4 : 5;

/** Order of values: numbers < strings < booleans < lists < maps < null. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return (a as number) - (b as number);
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return (a ? 1 : 0) - (b ? 1 : 0);
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; i < la.length && i < lb.length; i++) {
        const c = compareValues(la[i], lb[i]);
        if (c) return c;
      }
      return la.length - lb.length;
    }
    case 4: {
      const oa = a as Record<string, unknown>;
      const ob = b as Record<string, unknown>;
      const ka = Object.keys(oa).sort();
      const kb = Object.keys(ob).sort();
      for (let i = 0; i < ka.length && i < kb.length; i++) {
        const c = compareStrings(ka[i]!, kb[i]!) || compareValues(oa[ka[i]!], ob[kb[i]!]);
        if (c) return c;
      }
      return ka.length - kb.length;
    }
    default:
      return 0;
  }
}

/** Compact JSON as Go's encoder writes it: map keys sorted, <, >, & and U+2028/9 escaped. */
export function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return escapeHtml(JSON.stringify(v));
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(goJson).join(',') + ']';
  const o = v as Record<string, unknown>;
  return '{' + Object.keys(o).sort().map((k) => goJson(k) + ':' + goJson(o[k])).join(',') + '}';
}

function escapeHtml(s: string): string {
  return /[<>&\u2028\u2029]/.test(s)
    ? s.replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
    : s;
}

/** Human form of a path element as in conflict messages: `.name`, `[name="c"]`, `[="x"]`, `[0]`. */
export function peString(pe: PathElement): string {
  switch (pe.t) {
    case 'f':
      return '.' + pe.name;
    case 'k':
      return '[' + pe.key.map(([k, v]) => `${k}=${valueString(v)}`).join(',') + ']';
    case 'v':
      return `[=${valueString(pe.value)}]`;
    case 'i':
      return `[${pe.index}]`;
  }
}

export function pathString(path: Path): string {
  let s = '';
  for (const pe of path) s += peString(pe);
  return s;
}

function valueString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map(valueString).join(',') + ']';
  const o = v as Record<string, unknown>;
  return Object.keys(o).map((k) => `${k}=${valueString(o[k])}`).join('');
}
