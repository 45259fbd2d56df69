// cel-go's has() macro takes any select expression, `has(e.f)` with e any expression (`has(self[0].matches)`,
// `has(self.items[0].name)`); cel-js's macro only accepts a chain of field selections rooted at an identifier.
// Before compiling, such calls are rewritten to the presence test they mean: `has(e.f)` becomes
// `__has_field(e, "f")` (e evaluated as usual: a missing intermediate field is still an error, as in cel-go).
// Identifier-rooted chains are left to cel-js. The scan skips string and bytes literals (quoted, triple-quoted,
// raw) and comments, so only real calls are touched.

/** Name of the function the rewrite calls (a reserved-looking name no rule writes). */
export const HAS_FIELD_FUNCTION = '__has_field';

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;

/** End (exclusive) of the literal or comment starting at i, or -1 when none starts there. */
function skipLiteral(src: string, i: number): number {
  let j = i;
  if (src[j] === '/' && src[j + 1] === '/') {
    const nl = src.indexOf('\n', j);
    return nl < 0 ? src.length : nl;
  }
  // prefixes: r/R (raw), b/B (bytes), in either order
  let raw = false;
  while ((src[j] === 'r' || src[j] === 'R' || src[j] === 'b' || src[j] === 'B') && j - i < 2) {
    if (src[j] === 'r' || src[j] === 'R') raw = true;
    j++;
  }
  const q = src[j];
  if (q !== '"' && q !== "'") return -1;
  // a prefix letter must not end an identifier (`attr"` is not a literal)
  if (j > i && i > 0 && /[A-Za-z0-9_]/.test(src[i - 1]!)) return -1;
  const triple = src.startsWith(q.repeat(3), j);
  const close = triple ? q.repeat(3) : q;
  j += close.length;
  while (j < src.length) {
    if (!raw && src[j] === '\\') {
      j += 2;
      continue;
    }
    if (src.startsWith(close, j)) return j + close.length;
    if (!triple && src[j] === '\n') return src.length;
    j++;
  }
  return src.length;
}

/** Index just past the bracket matching the one at `open`, or -1. */
function matching(src: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const stack: string[] = [];
  for (let i = open; i < src.length; i++) {
    const end = skipLiteral(src, i);
    if (end >= 0) {
      i = end - 1;
      continue;
    }
    const c = src[i]!;
    if (pairs[c]) stack.push(pairs[c]!);
    else if (c === ')' || c === ']' || c === '}') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/** `e.f` split at its last top-level `.f`, when e is more than an identifier chain; otherwise undefined. */
function splitSelect(arg: string): { base: string; field: string } | undefined {
  const m = /^([\s\S]*?)\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(arg);
  if (!m) return undefined;
  const base = m[1]!.trim();
  if (base === '' || /^[A-Za-z_][A-Za-z0-9_]*(\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*$/.test(base)) return undefined;
  // the dot found must be at the top level of the argument (not inside brackets or a literal)
  let depth = 0;
  for (let i = 0; i < base.length; i++) {
    const end = skipLiteral(base, i);
    if (end >= 0) {
      i = end - 1;
      continue;
    }
    const c = base[i]!;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    if (depth < 0) return undefined;
  }
  if (depth !== 0) return undefined;
  return { base, field: m[2]! };
}

/** The expression with every `has(e.f)` whose e is not an identifier chain rewritten (see above). */
export function rewriteIndexedHas(src: string): string {
  if (!src.includes('has')) return src;
  let out = '';
  let i = 0;
  while (i < src.length) {
    const end = skipLiteral(src, i);
    if (end >= 0) {
      out += src.slice(i, end);
      i = end;
      continue;
    }
    IDENT.lastIndex = i;
    const id = IDENT.exec(src);
    if (!id) {
      out += src[i];
      i++;
      continue;
    }
    const word = id[0];
    const after = i + word.length;
    const prev = out.trimEnd().at(-1);
    let k = after;
    while (src[k] === ' ' || src[k] === '\t' || src[k] === '\n' || src[k] === '\r') k++;
    // a global has( call: not a member (x.has) and followed by its argument list
    if (word === 'has' && prev !== '.' && src[k] === '(') {
      const close = matching(src, k);
      if (close > 0) {
        const arg = src.slice(k + 1, close - 1);
        const split = splitSelect(arg);
        if (split) {
          out += `${HAS_FIELD_FUNCTION}(${rewriteIndexedHas(split.base)}, ${JSON.stringify(split.field)})`;
          i = close;
          continue;
        }
      }
    }
    out += word;
    i = after;
  }
  return out;
}

/** cel-go's presence test of field `f` on a map or object value (has(e.f)). */
export function hasField(target: unknown, field: string): boolean {
  if (target instanceof Map) return target.has(field);
  if (target && typeof target === 'object') return Object.prototype.hasOwnProperty.call(target, field) && (target as Record<string, unknown>)[field] !== undefined;
  throw new Error(`invalid type for field selection.`);
}
