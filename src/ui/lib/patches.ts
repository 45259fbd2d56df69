// Patch documents computed from an edit (the object before → the object after): JSON merge patches,
// RFC 6902 operations guarded by `test` ops, strategic merge patches for built-in kinds, and a
// three-way merge for rebasing an edit onto a newer version of the object.
import { applyMergePatch, createMergePatch, deepEqual } from '../../api/merge-patch.js';

export { applyMergePatch, createMergePatch, deepEqual };

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

// ---------------------------------------------------------------- JSON patch (RFC 6902)

export type JsonPatchOp =
  | { op: 'add' | 'replace' | 'test'; path: string; value: Json }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** One JSON pointer token: `~` → `~0`, `/` → `~1`. */
export function escapePointer(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

export interface JsonPatchOptions {
  /** Precede every replace and remove with a `test` of the old value (default true). */
  guards?: boolean;
  /** Also test metadata.resourceVersion, so any concurrent write fails the patch (default false). */
  guardResourceVersion?: boolean;
}

/** Arrays longer than this are diffed index by index instead of by longest common subsequence. */
const LCS_LIMIT = 300;

/**
 * RFC 6902 operations turning `from` into `to`. Arrays are aligned by longest common subsequence, so
 * inserting or removing one element yields one op; an element replaced in place is diffed recursively.
 */
export function jsonPatchOps(from: Json, to: Json, opts: JsonPatchOptions = {}): JsonPatchOp[] {
  const guards = opts.guards ?? true;
  const ops: JsonPatchOp[] = [];
  const test = (path: string, value: Json) => {
    if (guards) ops.push({ op: 'test', path, value: clone(value) });
  };
  const walk = (a: Json, b: Json, path: string): void => {
    if (deepEqual(a, b)) return;
    if (isObject(a) && isObject(b)) {
      for (const k of Object.keys(a)) {
        if (!(k in b)) {
          test(`${path}/${escapePointer(k)}`, a[k]);
          ops.push({ op: 'remove', path: `${path}/${escapePointer(k)}` });
        }
      }
      for (const [k, v] of Object.entries(b)) {
        const p = `${path}/${escapePointer(k)}`;
        if (!(k in a)) ops.push({ op: 'add', path: p, value: clone(v) });
        else walk(a[k], v, p);
      }
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      diffArray(a, b, path);
      return;
    }
    test(path, a);
    ops.push({ op: 'replace', path, value: clone(b) });
  };
  const diffArray = (a: Json[], b: Json[], path: string): void => {
    const script = a.length * b.length > LCS_LIMIT * LCS_LIMIT ? indexScript(a, b) : lcsScript(a, b);
    // `i` is the index in the array as the ops so far left it
    let i = 0;
    let k = 0;
    while (k < script.length) {
      if (script[k]!.t === 'keep') {
        i++;
        k++;
        continue;
      }
      const removed: Json[] = [];
      const added: Json[] = [];
      while (k < script.length && script[k]!.t !== 'keep') {
        const s = script[k++]!;
        if (s.t === 'del') removed.push(s.v);
        else added.push(s.v);
      }
      for (const step of alignHunk(removed, added)) {
        if (step.t === 'pair') walk(removed[step.r], added[step.a], `${path}/${i++}`);
        else if (step.t === 'del') {
          test(`${path}/${i}`, removed[step.r]);
          ops.push({ op: 'remove', path: `${path}/${i}` });
        } else ops.push({ op: 'add', path: `${path}/${i++}`, value: clone(added[step.a]) });
      }
    }
  };
  walk(from, to, '');
  if (ops.length && opts.guardResourceVersion) {
    const rv = isObject(from) && isObject(from.metadata) ? from.metadata.resourceVersion : undefined;
    if (typeof rv === 'string' && rv) ops.unshift({ op: 'test', path: '/metadata/resourceVersion', value: rv });
  }
  return ops;
}

type Step = { t: 'keep' | 'del' | 'add'; v: Json };

function lcsScript(a: Json[], b: Json[]): Step[] {
  const n = a.length;
  const m = b.length;
  // lengths of the LCS of a[i..] and b[j..]
  const L: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i]![j] = deepEqual(a[i], b[j]) ? L[i + 1]![j + 1]! + 1 : Math.max(L[i + 1]![j]!, L[i]![j + 1]!);
  const out: Step[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (deepEqual(a[i], b[j])) {
      out.push({ t: 'keep', v: a[i] });
      i++;
      j++;
    } else if (L[i + 1]![j]! >= L[i]![j + 1]!) out.push({ t: 'del', v: a[i++] });
    else out.push({ t: 'add', v: b[j++] });
  }
  while (i < n) out.push({ t: 'del', v: a[i++] });
  while (j < m) out.push({ t: 'add', v: b[j++] });
  return reorderHunks(out);
}

/** Within each run of changes put deletions first, so removals pair with the additions replacing them. */
function reorderHunks(steps: Step[]): Step[] {
  const out: Step[] = [];
  let k = 0;
  while (k < steps.length) {
    if (steps[k]!.t === 'keep') {
      out.push(steps[k++]!);
      continue;
    }
    const dels: Step[] = [];
    const adds: Step[] = [];
    while (k < steps.length && steps[k]!.t !== 'keep') (steps[k]!.t === 'del' ? dels : adds).push(steps[k++]!);
    out.push(...dels, ...adds);
  }
  return out;
}

/** How alike two values are: shared equal top-level fields of objects; 0 for unrelated values. */
function similarity(x: Json, y: Json): number {
  if (isObject(x) && isObject(y)) {
    let n = 0;
    for (const k of Object.keys(x)) if (k in y && deepEqual(x[k], y[k])) n++;
    return n;
  }
  return 0;
}

type HunkStep = { t: 'pair'; r: number; a: number } | { t: 'del'; r: number; a?: undefined } | { t: 'add'; a: number; r?: undefined };

/**
 * Within a run of removed and added elements, which removed element each added one replaces: an
 * order-keeping alignment of the most alike pairs (so a changed list item is diffed inside, not
 * swapped for its neighbour). Equal counts pair in order.
 */
function alignHunk(removed: Json[], added: Json[]): HunkStep[] {
  const R = removed.length;
  const A = added.length;
  if (R === A || R * A > 10_000 || R === 0 || A === 0) {
    const out: HunkStep[] = [];
    const p = Math.min(R, A);
    for (let j = 0; j < p; j++) out.push({ t: 'pair', r: j, a: j });
    for (let j = p; j < R; j++) out.push({ t: 'del', r: j });
    for (let j = p; j < A; j++) out.push({ t: 'add', a: j });
    return out;
  }
  // best[r][a]: the highest total similarity aligning removed[r..] with added[a..]
  const best: number[][] = Array.from({ length: R + 1 }, () => new Array<number>(A + 1).fill(0));
  for (let r = R - 1; r >= 0; r--)
    for (let a = A - 1; a >= 0; a--) best[r]![a] = Math.max(best[r + 1]![a]!, best[r]![a + 1]!, similarity(removed[r], added[a]) + best[r + 1]![a + 1]!);
  const out: HunkStep[] = [];
  let r = 0;
  let a = 0;
  while (r < R && a < A) {
    const sim = similarity(removed[r], added[a]);
    if (sim > 0 && best[r]![a] === sim + best[r + 1]![a + 1]!) out.push({ t: 'pair', r: r++, a: a++ });
    else if (best[r]![a] === best[r + 1]![a]) out.push({ t: 'del', r: r++ });
    else out.push({ t: 'add', a: a++ });
  }
  while (r < R) out.push({ t: 'del', r: r++ });
  while (a < A) out.push({ t: 'add', a: a++ });
  return out;
}

function indexScript(a: Json[], b: Json[]): Step[] {
  const out: Step[] = [];
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) {
    if (deepEqual(a[i], b[i])) out.push({ t: 'keep', v: a[i] });
    else out.push({ t: 'del', v: a[i] }, { t: 'add', v: b[i] });
  }
  for (let i = common; i < a.length; i++) out.push({ t: 'del', v: a[i] });
  for (let i = common; i < b.length; i++) out.push({ t: 'add', v: b[i] });
  return out;
}

/** Applies RFC 6902 ops to a copy of `doc`; throws on a failed `test` or a missing path. */
export function applyJsonPatch(doc: Json, ops: JsonPatchOp[]): Json {
  let root = clone(doc);
  const parse = (p: string): string[] => (p === '' ? [] : p.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~')));
  const parentOf = (tokens: string[]): { parent: Json; key: string } => {
    let cur: Json = root;
    for (const t of tokens.slice(0, -1)) {
      if (Array.isArray(cur)) cur = cur[Number(t)];
      else if (isObject(cur)) cur = cur[t];
      else cur = undefined;
      if (cur === undefined) throw new Error(`path not found: /${tokens.join('/')}`);
    }
    return { parent: cur, key: tokens[tokens.length - 1]! };
  };
  const get = (tokens: string[]): Json => {
    if (!tokens.length) return root;
    const { parent, key } = parentOf(tokens);
    return Array.isArray(parent) ? parent[Number(key)] : isObject(parent) ? parent[key] : undefined;
  };
  const remove = (tokens: string[]): Json => {
    const { parent, key } = parentOf(tokens);
    if (Array.isArray(parent)) {
      const i = Number(key);
      if (!(i >= 0 && i < parent.length)) throw new Error(`index out of range: /${tokens.join('/')}`);
      return parent.splice(i, 1)[0];
    }
    if (!isObject(parent) || !(key in parent)) throw new Error(`path not found: /${tokens.join('/')}`);
    const v = parent[key];
    delete parent[key];
    return v;
  };
  const add = (tokens: string[], value: Json, replace: boolean): void => {
    if (!tokens.length) {
      root = value;
      return;
    }
    const { parent, key } = parentOf(tokens);
    if (Array.isArray(parent)) {
      const i = key === '-' ? parent.length : Number(key);
      if (!(i >= 0 && i <= parent.length) || (replace && i === parent.length)) throw new Error(`index out of range: /${tokens.join('/')}`);
      parent.splice(i, replace ? 1 : 0, value);
    } else if (isObject(parent)) {
      if (replace && !(key in parent)) throw new Error(`path not found: /${tokens.join('/')}`);
      parent[key] = value;
    } else throw new Error(`path not found: /${tokens.join('/')}`);
  };
  for (const op of ops) {
    const t = parse(op.path);
    switch (op.op) {
      case 'test':
        if (!deepEqual(get(t), op.value)) throw new Error(`test failed at ${op.path}`);
        break;
      case 'add':
        add(t, clone(op.value), false);
        break;
      case 'replace':
        add(t, clone(op.value), true);
        break;
      case 'remove':
        remove(t);
        break;
      case 'move':
        add(t, remove(parse(op.from)), false);
        break;
      case 'copy':
        add(t, clone(get(parse(op.from))), false);
        break;
    }
  }
  return root;
}

// ---------------------------------------------------------------- strategic merge patch

/** What a strategic merge patch needs to know about a field: from the schema's x-kubernetes-patch-* extensions. */
export interface PatchSchema {
  /** The schema of a property (or of the values of a map). */
  field(name: string): PatchSchema | undefined;
  /** The schema of a list's items. */
  items(): PatchSchema | undefined;
  /** x-kubernetes-patch-strategy split on commas: merge, replace, retainKeys. */
  readonly strategies: readonly string[];
  /** x-kubernetes-patch-merge-key. */
  readonly mergeKey?: string;
}

/**
 * The two-way strategic merge patch turning `from` into `to` (what kubectl edit sends): maps merge,
 * lists with strategy "merge" merge by their merge key (or as sets of primitives) with $patch: delete,
 * $deleteFromPrimitiveList and $setElementOrder directives; other lists are replaced whole.
 */
export function strategicMergePatch(from: Json, to: Json, schema: PatchSchema | undefined): JsonObject {
  if (!isObject(from) || !isObject(to)) throw new Error('a strategic merge patch needs two objects');
  return diffMap(from, to, schema);
}

function diffMap(a: JsonObject, b: JsonObject, schema: PatchSchema | undefined): JsonObject {
  const patch: JsonObject = {};
  for (const k of Object.keys(a)) if (!(k in b)) patch[k] = null;
  for (const [k, bv] of Object.entries(b)) {
    const av = a[k];
    if (!(k in a)) {
      patch[k] = clone(bv);
      continue;
    }
    if (deepEqual(av, bv)) continue;
    const fs = schema?.field(k);
    const strategies = fs?.strategies ?? [];
    if (isObject(av) && isObject(bv) && !strategies.includes('replace')) {
      const sub = diffMap(av, bv, fs);
      if (strategies.includes('retainKeys')) sub['$retainKeys'] = Object.keys(bv).sort();
      patch[k] = sub;
    } else if (Array.isArray(av) && Array.isArray(bv) && strategies.includes('merge')) {
      Object.assign(patch, diffMergeList(k, av, bv, fs));
    } else patch[k] = clone(bv);
  }
  return patch;
}

function diffMergeList(k: string, a: Json[], b: Json[], schema: PatchSchema | undefined): JsonObject {
  const out: JsonObject = {};
  const primitive = (v: Json) => !isObject(v) && !Array.isArray(v);
  if (a.every(primitive) && b.every(primitive)) {
    const added = b.filter((x) => !a.some((y) => deepEqual(x, y)));
    const deleted = a.filter((x) => !b.some((y) => deepEqual(x, y)));
    if (added.length) out[k] = clone(added);
    if (deleted.length) out[`$deleteFromPrimitiveList/${k}`] = clone(deleted);
    out[`$setElementOrder/${k}`] = clone(b);
    return out;
  }
  const key = schema?.mergeKey;
  const keyed = (v: Json) => isObject(v) && key !== undefined && key in v;
  if (!key || !a.every(keyed) || !b.every(keyed)) {
    out[k] = clone(b);
    return out;
  }
  const items: Json[] = [];
  const itemSchema = schema?.items();
  for (const bi of b as JsonObject[]) {
    const ai = (a as JsonObject[]).find((x) => deepEqual(x[key], bi[key]));
    if (!ai) items.push(clone(bi));
    else if (!deepEqual(ai, bi)) items.push({ [key]: clone(bi[key]), ...diffMap(ai, bi, itemSchema) });
  }
  for (const ai of a as JsonObject[]) if (!(b as JsonObject[]).some((x) => deepEqual(x[key], ai[key]))) items.push({ [key]: clone(ai[key]), $patch: 'delete' });
  if (items.length) out[k] = items;
  out[`$setElementOrder/${k}`] = (b as JsonObject[]).map((x) => ({ [key]: clone(x[key]) }));
  return out;
}

// ---------------------------------------------------------------- three-way merge (rebase)

export interface ThreeWayResult {
  merged: Json;
  /** JSON pointers both sides changed differently; the merged document keeps "yours" there. */
  conflicts: string[];
}

/**
 * Replays the changes base → yours onto theirs. Maps merge key by key; any other value changed on
 * both sides to different results is a conflict (yours wins, the pointer is reported).
 */
export function threeWayMerge(base: Json, yours: Json, theirs: Json): ThreeWayResult {
  const conflicts: string[] = [];
  const merge = (b: Json, y: Json, t: Json, path: string): Json => {
    if (deepEqual(y, b)) return clone(t);
    if (deepEqual(t, b) || deepEqual(t, y)) return clone(y);
    if (isObject(b) && isObject(y) && isObject(t)) {
      const out: JsonObject = {};
      const keys = new Set([...Object.keys(t), ...Object.keys(y), ...Object.keys(b)]);
      for (const k of keys) {
        const inB = k in b;
        const inY = k in y;
        const inT = k in t;
        const p = `${path}/${escapePointer(k)}`;
        if (inY && inT) out[k] = merge(inB ? b[k] : undefined, y[k], t[k], p);
        else if (inY && !inT) {
          // they removed it: keep yours only if you changed (or added) it
          if (!inB) out[k] = clone(y[k]);
          else if (!deepEqual(b[k], y[k])) {
            conflicts.push(p);
            out[k] = clone(y[k]);
          }
        } else if (!inY && inT) {
          // you removed it: drop it unless they changed it meanwhile
          if (inB && !deepEqual(b[k], t[k])) {
            conflicts.push(p);
          } else if (!inB) out[k] = clone(t[k]);
        }
      }
      return out;
    }
    conflicts.push(path || '/');
    return clone(y);
  };
  return { merged: merge(base, yours, theirs, ''), conflicts };
}

// ---------------------------------------------------------------- field selection

/** Removes a field (by path segments) from a copy of the object; missing paths leave it unchanged. */
export function withoutPath(doc: Json, path: (string | number)[]): Json {
  const out = clone(doc);
  let cur: Json = out;
  for (let i = 0; i < path.length - 1; i++) {
    const s = path[i]!;
    cur = Array.isArray(cur) && typeof s === 'number' ? cur[s] : isObject(cur) ? cur[String(s)] : undefined;
    if (cur === undefined) return out;
  }
  const last = path[path.length - 1];
  if (last === undefined) return out;
  if (Array.isArray(cur) && typeof last === 'number') cur.splice(last, 1);
  else if (isObject(cur)) delete cur[String(last)];
  return out;
}
