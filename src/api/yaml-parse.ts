// A fast YAML decoder for the block-style, JSON-shaped documents clients send (manifests): block
// maps and sequences, plain/quoted/literal scalars, comments. It resolves scalars by the YAML 1.2
// core schema exactly as the `yaml` library does, and reports duplicate keys with the same paths.
// Anything outside that subset (anchors, aliases, tags, flow collections, folded or multi-line
// scalars, several documents, tabs, CR, directives…) returns undefined: the caller then uses the
// library, which also produces every error message. So the fast path only ever accepts documents
// the library accepts, with the same value.

/** Nesting the fast path takes on (recursive); deeper documents go to the library and its depth check. */
const MAX_DEPTH = 64;

/** Not in the subset: let the library decode this body. */
class Unsupported extends Error {}
const unsupported = new Unsupported('outside the fast YAML subset');

export interface FastYamlResult {
  value: unknown;
  duplicates: string[];
}

let src = '';
let pos = 0; // where the current node's content starts
let col = 0; // the column of pos
let dups: string[] = [];

/** The decoded document and its duplicate-key paths, or undefined when the library must decode it. */
export function fastYamlDecode(text: string): FastYamlResult | undefined {
  // raw tabs, CR, control characters, BOM, NEL, LS/PS: the library's rules for those are subtler
  if (/[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]/.test(text)) return undefined;
  src = text;
  dups = [];
  try {
    // one leading `---` line is allowed; any other document marker or directive is the library's
    pos = src.startsWith('---') && isBreakOrSpace(3) && isEnd(3) ? lineEnd(3) : 0;
    skipBlank();
    if (pos >= src.length) return undefined;
    const value = block(-1, 0, '', true);
    if (pos < src.length) return undefined; // text left over (a less-indented line, a `---`, `...`)
    return { value, duplicates: dups };
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  } finally {
    src = '';
  }
}

// ---- lines

/** After position i: only spaces then end of line, end of text, or a comment. */
function isEnd(i: number): boolean {
  for (; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x0a) return true;
    if (c === 0x23) return src.charCodeAt(i - 1) === 0x20 || src.charCodeAt(i - 1) === 0x0a;
    if (c !== 0x20) return false;
  }
  return true;
}

function isBreakOrSpace(i: number): boolean {
  const c = src.charCodeAt(i);
  return i >= src.length || c === 0x20 || c === 0x0a;
}

/** The position after the newline ending the line that holds i (or the end of text). */
function lineEnd(i: number): number {
  const nl = src.indexOf('\n', i);
  return nl < 0 ? src.length : nl + 1;
}

/** Moves pos/col to the first content of the next line holding something other than spaces or a comment. */
function skipBlank(): void {
  for (;;) {
    const start = pos;
    let i = start;
    while (src.charCodeAt(i) === 0x20) i++;
    if (i >= src.length) {
      pos = src.length;
      col = 0;
      return;
    }
    const c = src.charCodeAt(i);
    if (c === 0x0a || c === 0x23) {
      pos = lineEnd(i);
      continue;
    }
    pos = i;
    col = i - start;
    // a document marker or directive on the line: not for the fast path
    if (col === 0 && (c === 0x25 || ((src.startsWith('---', i) || src.startsWith('...', i)) && isBreakOrSpace(i + 3)))) throw unsupported;
    return;
  }
}

/** After a node's content ends on a line: the rest must be blank or a comment; moves to the next content. */
function endLine(i: number): void {
  while (src.charCodeAt(i) === 0x20) i++;
  const c = src.charCodeAt(i);
  if (i < src.length && c !== 0x0a && !(c === 0x23 && src.charCodeAt(i - 1) === 0x20)) throw unsupported;
  pos = lineEnd(i);
  skipBlank();
}

function joinPath(base: string, seg: string | number): string {
  return typeof seg === 'number' ? `${base}[${seg}]` : base ? `${base}.${seg}` : seg;
}

// ---- collections

/** A block node starting at pos (column col), inside a parent at indent `parent`. */
function block(parent: number, depth: number, path: string, top = false): unknown {
  if (depth > MAX_DEPTH) throw unsupported;
  if (col <= parent && !top) throw unsupported;
  const c = src.charCodeAt(pos);
  if (c === 0x2d && isSeqIndicator(pos)) return seq(col, depth, path);
  return map(col, depth, path);
}

function isSeqIndicator(i: number): boolean {
  const n = src.charCodeAt(i + 1);
  return n === 0x20 || n === 0x0a || i + 1 >= src.length;
}

function seq(indent: number, depth: number, path: string): unknown[] {
  const out: unknown[] = [];
  for (;;) {
    // at a `-` in column `indent`
    const itemPath = joinPath(path, out.length);
    let i = pos + 1;
    while (src.charCodeAt(i) === 0x20) i++;
    const c = src.charCodeAt(i);
    if (i >= src.length || c === 0x0a || (c === 0x23 && src.charCodeAt(i - 1) === 0x20)) {
      // `-` alone: the item is on the following lines, or null
      pos = lineEnd(i);
      skipBlank();
      if (pos < src.length && col > indent) out.push(block(indent, depth + 1, itemPath));
      else out.push(null);
    } else {
      const itemCol = col + (i - pos);
      pos = i;
      col = itemCol;
      out.push(inlineNode(indent, depth + 1, itemPath));
    }
    if (pos >= src.length || col < indent) return out;
    if (col > indent) throw unsupported;
    if (src.charCodeAt(pos) !== 0x2d || !isSeqIndicator(pos)) return out;
  }
}

/** A node that starts on a line after `- ` (a compact map or sequence, or a scalar). */
function inlineNode(parent: number, depth: number, path: string): unknown {
  if (depth > MAX_DEPTH) throw unsupported;
  const c = src.charCodeAt(pos);
  if (c === 0x2d && isSeqIndicator(pos)) return seq(col, depth, path);
  if (keyEnd(pos) >= 0) return map(col, depth, path);
  const v = scalar(parent);
  return v;
}

function map(indent: number, depth: number, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (;;) {
    const key = readKey();
    const after = keyAfter;
    if (Object.prototype.hasOwnProperty.call(out, key)) dups.push(joinPath(path, key));
    const valuePath = joinPath(path, key);
    let i = after;
    while (src.charCodeAt(i) === 0x20) i++;
    const c = src.charCodeAt(i);
    let value: unknown;
    if (i >= src.length || c === 0x0a || (c === 0x23 && src.charCodeAt(i - 1) === 0x20)) {
      // `key:` alone: the value is on the following lines (more indented, or a `-` list at this indent), or null
      pos = lineEnd(i);
      skipBlank();
      if (pos < src.length && col > indent) value = block(indent, depth + 1, valuePath);
      else if (pos < src.length && col === indent && src.charCodeAt(pos) === 0x2d && isSeqIndicator(pos)) value = seq(col, depth + 1, valuePath);
      else value = null;
    } else {
      if (i === after) throw unsupported; // `key:value` is not a pair
      col += i - pos;
      pos = i;
      const v = src.charCodeAt(pos);
      if (v === 0x2d && isSeqIndicator(pos)) throw unsupported; // `key: - x` is an error
      value = scalar(indent); // (refuses `a: b: c`, an error)
    }
    out[key] = value;
    if (pos >= src.length || col < indent) return out;
    if (col > indent) throw unsupported;
  }
}

/**
 * End of a plain or quoted implicit key starting at i (the index of its `:`), or -1 when the line
 * holds no key there.
 */
function keyEnd(i: number): number {
  const c = src.charCodeAt(i);
  if (c === 0x22 || c === 0x27) {
    const close = quotedEnd(i);
    if (close < 0) return -1;
    let j = close + 1;
    while (src.charCodeAt(j) === 0x20) j++;
    return src.charCodeAt(j) === 0x3a && isValueIndicator(j) ? j : -1;
  }
  if (!plainStart(i)) return -1;
  for (let j = i; j < src.length; j++) {
    const d = src.charCodeAt(j);
    if (d === 0x0a) return -1;
    if (d === 0x3a && isValueIndicator(j)) return j;
    if (d === 0x23 && src.charCodeAt(j - 1) === 0x20) return -1;
  }
  return -1;
}

function isValueIndicator(j: number): boolean {
  const n = src.charCodeAt(j + 1);
  return n === 0x20 || n === 0x0a || j + 1 >= src.length;
}

/** Where readKey's key ended (after its `:`). */
let keyAfter = 0;

function readKey(): string {
  const end = keyEnd(pos);
  if (end < 0 || end - pos > 1024) throw unsupported; // implicit keys span at most 1024 characters
  const c = src.charCodeAt(pos);
  let key: string;
  if (c === 0x22 || c === 0x27) {
    key = quotedValue(pos);
  } else {
    let e = end;
    while (src.charCodeAt(e - 1) === 0x20) e--;
    key = src.slice(pos, e);
    if (resolvePlain(key) !== key) throw unsupported; // a key read as null/bool/number: let the library say
  }
  if (key === '__proto__' || key === '<<') throw unsupported;
  keyAfter = end + 1;
  return key;
}

// ---- scalars

/** May a plain scalar start at i? (YAML 1.2 §7.3.3: not with an indicator, except `-?:` before a non-space.) */
function plainStart(i: number): boolean {
  const c = src.charCodeAt(i);
  switch (c) {
    case 0x2c: case 0x5b: case 0x5d: case 0x7b: case 0x7d: // , [ ] { }
    case 0x23: case 0x26: case 0x2a: case 0x21: case 0x7c: // # & * ! |
    case 0x3e: case 0x27: case 0x22: case 0x25: case 0x40: case 0x60: // > ' " % @ `
    case 0x20: case 0x0a:
      return false;
    case 0x2d: case 0x3f: case 0x3a: {
      const n = src.charCodeAt(i + 1);
      return !(n === 0x20 || n === 0x0a || i + 1 >= src.length);
    }
    default:
      return i < src.length;
  }
}

/** The scalar at pos (a value in a map or sequence at indent `parent`); moves past its line(s). */
function scalar(parent: number): unknown {
  const c = src.charCodeAt(pos);
  if (c === 0x22 || c === 0x27) {
    const close = quotedEnd(pos);
    if (close < 0) throw unsupported;
    const v = quotedValue(pos);
    endLine(close + 1);
    if (pos < src.length && col > parent) throw unsupported;
    return v;
  }
  if (c === 0x7c) return literal(parent);
  if ((c === 0x5b && src.charCodeAt(pos + 1) === 0x5d) || (c === 0x7b && src.charCodeAt(pos + 1) === 0x7d)) {
    const v = c === 0x5b ? [] : {};
    endLine(pos + 2);
    if (pos < src.length && col > parent) throw unsupported;
    return v;
  }
  if (!plainStart(pos)) throw unsupported;
  let end = pos;
  let i = pos;
  for (; i < src.length; i++) {
    const d = src.charCodeAt(i);
    if (d === 0x0a) break;
    if (d === 0x23 && src.charCodeAt(i - 1) === 0x20) break;
    if (d === 0x3a && isValueIndicator(i)) throw unsupported;
    if (d !== 0x20) end = i + 1;
  }
  const text = src.slice(pos, end);
  endLine(i);
  // a more-indented line after a plain scalar continues it (multi-line plain): the library's job
  if (pos < src.length && col > parent) throw unsupported;
  return resolvePlain(text);
}

/** Index of the closing quote of the single-line quoted scalar opening at i, or -1. */
function quotedEnd(i: number): number {
  const q = src.charCodeAt(i);
  for (let j = i + 1; j < src.length; j++) {
    const c = src.charCodeAt(j);
    if (c === 0x0a) return -1;
    if (q === 0x22 && c === 0x5c) {
      j++;
      continue;
    }
    if (c === q) {
      if (q === 0x27 && src.charCodeAt(j + 1) === 0x27) {
        j++;
        continue;
      }
      return j;
    }
  }
  return -1;
}

const ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ',
  '"': '"', '/': '/', '\\': '\\', N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029',
};

function quotedValue(i: number): string {
  const close = quotedEnd(i);
  const body = src.slice(i + 1, close);
  if (src.charCodeAt(i) === 0x27) return body.includes("''") ? body.replace(/''/g, "'") : body;
  if (!body.includes('\\')) return body;
  let out = '';
  let start = 0;
  for (let j = 0; j < body.length; j++) {
    if (body.charCodeAt(j) !== 0x5c) continue;
    out += body.slice(start, j);
    const e = body[j + 1]!;
    const simple = ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      j += 1;
    } else {
      const len = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      const hex = body.slice(j + 2, j + 2 + len);
      if (len === 0 || hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) throw unsupported;
      const code = parseInt(hex, 16);
      if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) throw unsupported;
      out += String.fromCodePoint(code);
      j += 1 + len;
    }
    start = j + 1;
  }
  return out + body.slice(start);
}

/** A literal block scalar (`|`, `|-`, `|+`) whose content is indented more than `parent`. */
function literal(parent: number): string {
  const h = src.charCodeAt(pos + 1);
  const chomp = h === 0x2d ? '-' : h === 0x2b ? '+' : '';
  const headerEnd = pos + 1 + chomp.length;
  if (!isEnd(headerEnd)) throw unsupported; // an indentation indicator, or text after the header
  let i = lineEnd(headerEnd);
  // the first content line sets the indent; leading empty lines and empty scalars are the library's
  let indent = 0;
  while (src.charCodeAt(i + indent) === 0x20) indent++;
  const first = src.charCodeAt(i + indent);
  if (i >= src.length || i + indent >= src.length || first === 0x0a || indent <= parent) throw unsupported;
  let text = '';
  let breaks = '';
  while (i < src.length) {
    let sp = 0;
    while (src.charCodeAt(i + sp) === 0x20) sp++;
    const nl = src.indexOf('\n', i + sp);
    const stop = nl < 0 ? src.length : nl;
    if (i + sp === stop) {
      // an empty line: whitespace past the indent would be content (the library's job)
      if (sp > indent) throw unsupported;
      if (nl < 0) {
        i = src.length;
        break;
      }
      breaks += '\n';
      i = nl + 1;
      continue;
    }
    if (sp < indent) break; // content at a lower indent: the scalar ended before this line
    text += breaks + src.slice(i + indent, stop);
    if (nl < 0) {
      breaks = '';
      i = src.length;
      break;
    }
    breaks = '\n';
    i = nl + 1;
  }
  // kept trailing breaks when the text ends without a newline: the library counts the end as one
  if (chomp === '+' && i >= src.length && src.charCodeAt(src.length - 1) !== 0x0a) throw unsupported;
  if (chomp === '+') text += breaks;
  else if (chomp === '' && text !== '') text += '\n';
  pos = i;
  if (pos < src.length) skipBlank();
  else col = 0;
  if (pos < src.length && col > parent) throw unsupported;
  return text;
}

// ---- plain scalar resolution: the YAML 1.2 core schema, as the yaml library resolves it

const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

export function resolvePlain(s: string): unknown {
  const n = s.length;
  if (n === 0) return null;
  const c = s.charCodeAt(0);
  if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) {
    // a letter first: only null (4 letters) and booleans (4 or 5) can be other than a string
    if (n === 4 || n === 5) {
      if (NULL.test(s)) return null;
      if (BOOL.test(s)) return c === 0x74 || c === 0x54;
    }
    return s;
  }
  if (c > 0x39 && c !== 0x7e) return s; // not `~ . + - digit`: always a string
  if (NULL.test(s)) return null;
  if (INT_OCT.test(s)) return parseInt(s.slice(2), 8);
  if (INT.test(s)) return parseInt(s, 10);
  if (INT_HEX.test(s)) return parseInt(s.slice(2), 16);
  if (FLOAT_NAN.test(s)) return s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? -Infinity : Infinity;
  if (FLOAT_EXP.test(s) || FLOAT.test(s)) return parseFloat(s);
  return s;
}
