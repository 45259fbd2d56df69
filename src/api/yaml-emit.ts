// A fast YAML emitter for the JSON-shaped data the server produces. Its output is byte-for-byte
// what the `yaml` library's stringify(value, { lineWidth: 0, aliasDuplicateObjects: false }) gives
// (YAML 1.2 core schema, block style, 2-space indent, no folding): it follows that library's
// rules for quoting and block scalars (stringifyString/stringifyPair/stringifyCollection).
// Values outside plain JSON (Map, Date, toJSON, bigint, undefined array items…) go to the library.
import { stringify as yamlStringify } from 'yaml';

const LIB_OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false } as const;

/** Thrown inside the emitter when a value is not plain JSON: the whole document goes to the library. */
class NotPlain extends Error {}
const notPlain = new NotPlain('not plain JSON');

/** YAML text of `value`, identical to the yaml library's block output with lineWidth 0. */
export function yamlEncode(value: unknown): string {
  return yamlEncodeBuffer(value).toString('utf8');
}

/** yamlEncode as UTF-8 bytes (what a response sends). */
export function yamlEncodeBuffer(value: unknown): Buffer {
  if (value === null || typeof value !== 'object') return Buffer.from(yamlStringify(value, LIB_OPTIONS));
  pos = 0;
  full = [];
  fullBytes = 0;
  try {
    node(value, 0);
    put('\n');
    if (full.length === 0) return Buffer.from(buf.subarray(0, pos));
    full.push(buf.subarray(0, pos));
    const out = Buffer.concat(full, fullBytes + pos);
    buf = Buffer.allocUnsafeSlow(CHUNK);
    return out;
  } catch (e) {
    if (e instanceof NotPlain) return Buffer.from(yamlStringify(value, LIB_OPTIONS));
    throw e;
  } finally {
    full = [];
  }
}

// The text goes straight into a byte buffer reused across calls: building it from returned strings
// made garbage per level of nesting, and a rope or array of pieces one heap cell per piece. A large
// text fills several chunks, joined once at the end (growing one buffer copied it log n times).
const CHUNK = 256 * 1024;
let buf = Buffer.allocUnsafeSlow(CHUNK);
let pos = 0;
let full: Buffer[] = [];
let fullBytes = 0;

function grow(need: number): void {
  full.push(buf.subarray(0, pos));
  fullBytes += pos;
  buf = Buffer.allocUnsafeSlow(Math.max(CHUNK, need));
  pos = 0;
}

function put(s: string): void {
  const n = s.length;
  if (pos + n * 3 > buf.length) grow(n * 3);
  if (n > 48) {
    pos += buf.write(s, pos);
    return;
  }
  const b = buf;
  let p = pos;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 127) {
      pos += b.write(s, pos);
      return;
    }
    b[p++] = c;
  }
  pos = p;
}

// One pass that both judges and writes the common plain value (letters, digits, `_./()+=$^;<\\`
// first, then also space, `:` not before a space or at the end, `@`, `,`, `-`, `~`, `>`). Anything
// else — and digit-first text that could read as a number — rolls back to the full rules.
const PLAIN_FIRST = new Uint8Array(128);
const PLAIN_REST = new Uint8Array(128);
const NUMERIC = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./()+=$^;<\\') PLAIN_FIRST[c.charCodeAt(0)] = 1;
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./()+=$^;<\\ :@,-~>') PLAIN_REST[c.charCodeAt(0)] = 1;
for (const c of '0123456789abcdefABCDEFxXoO.+-') NUMERIC[c.charCodeAt(0)] = 1;

/** Writes `s` when it is a plain scalar as is (the library would write it unquoted); false otherwise. */
function putPlain(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 200) return false;
  const c0 = s.charCodeAt(0);
  if (c0 > 127 || PLAIN_FIRST[c0] === 0) return false;
  const digitFirst = (c0 >= 0x30 && c0 <= 0x39) || c0 === 0x2b; // a digit or a sign
  // n/N/t/T/f/F words of 4-5 letters may be null or booleans; `.` first may be .inf/.5
  if (c0 === 0x2e || ((n === 4 || n === 5) && ((c0 | 0x20) === 110 || (c0 | 0x20) === 116 || (c0 | 0x20) === 102))) return false;
  if (pos + n > buf.length) grow(n);
  const b = buf;
  const start = pos;
  let p = pos;
  let numeric = true;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || PLAIN_REST[c] === 0 || (c === 0x3a && (i === n - 1 || s.charCodeAt(i + 1) === 0x20))) {
      pos = start;
      return false;
    }
    if (NUMERIC[c] === 0) numeric = false;
    b[p++] = c;
  }
  if (s.charCodeAt(n - 1) === 0x20 || (digitFirst && numeric)) {
    pos = start;
    return false;
  }
  pos = p;
  return true;
}

/** Flat strings per nesting depth (a concatenated string would be flattened again on every write). */
const INDENT: string[] = [];
const NEWLINE: string[] = [];
const SEQ_SEP: string[] = [];
const KEYS: Map<string, string>[] = [];
let keyCacheSize = 0;

function level(d: number): void {
  for (let i = INDENT.length; i <= d + 1; i++) {
    INDENT.push(' '.repeat(2 * i).slice(0));
    NEWLINE.push(('\n' + ' '.repeat(2 * i)).slice(0));
    SEQ_SEP.push(('\n' + ' '.repeat(2 * i) + '- ').slice(0));
    KEYS.push(new Map());
  }
}

function node(v: unknown, d: number): void {
  switch (typeof v) {
    case 'string':
      if (!putPlain(v)) put(str(v, INDENT[d]!, false));
      return;
    case 'number':
      put(num(v));
      return;
    case 'boolean':
      put(v ? 'true' : 'false');
      return;
    case 'object':
      if (v === null) put('null');
      else if (Array.isArray(v)) seq(v, d);
      else map(v as Record<string, unknown>, d);
      return;
    default:
      throw notPlain;
  }
}

function num(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? '.nan' : n < 0 ? '-.inf' : '.inf';
  return Object.is(n, -0) ? '-0' : JSON.stringify(n);
}

function isEmptyCollection(v: object): boolean {
  if (Array.isArray(v)) return v.length === 0;
  for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k) && (v as Record<string, unknown>)[k] !== undefined) return false;
  return true;
}

function map(obj: Record<string, unknown>, d: number): void {
  const proto = Object.getPrototypeOf(obj) as unknown;
  if (proto !== Object.prototype && proto !== null) throw notPlain;
  if (typeof obj.toJSON === 'function') throw notPlain;
  if (d + 1 >= INDENT.length) level(d + 1);
  const sep = NEWLINE[d]!;
  let first = true;
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    const value = obj[key];
    if (value === undefined) continue; // the library drops undefined map values
    if (first) first = false;
    else put(sep);
    pair(key, value, d);
  }
  if (first) put('{}');
}

/** A map entry: keys and values are rendered one level in (the library's pair context). */
function pair(key: string, value: unknown, d: number): void {
  const k = keyText(key, d + 1);
  // an implicit key spans at most 1024 characters (YAML 1.2 §7.4.2); longer ones go explicit: `? key`
  if (k.length > 1024) {
    put('? ');
    put(k);
    put(NEWLINE[d]!);
    put(': ');
  } else if (value !== null && typeof value === 'object' && !isEmptyCollection(value)) {
    put(k);
    put(':');
    put(NEWLINE[d + 1]!);
  } else {
    put(k);
    put(': ');
  }
  node(value, d + 1);
}

/** Rendered keys by depth: the same few keys recur on every object of a list. */
function keyText(key: string, d: number): string {
  const byKey = KEYS[d]!;
  let k = byKey.get(key);
  if (k === undefined) {
    k = str(key, INDENT[d]!, true);
    if (key.length <= 256) {
      if (++keyCacheSize > 20000) {
        for (const m of KEYS) m.clear();
        keyCacheSize = 0;
      } else byKey.set(key, k);
    }
  }
  return k;
}

function seq(arr: unknown[], d: number): void {
  if (arr.length === 0) {
    put('[]');
    return;
  }
  if (d + 1 >= INDENT.length) level(d + 1);
  const sep = SEQ_SEP[d]!;
  for (let i = 0; i < arr.length; i++) {
    const item = arr[i];
    if (item === undefined || !(i in arr)) throw notPlain;
    put(i === 0 ? '- ' : sep);
    node(item, d + 1);
  }
}

// ---- strings (the library's stringifyString with defaultStringType PLAIN, lineWidth 0)

/** Strings made only of these characters, not looking like another core-schema scalar, stay plain. */
const SIMPLE = /^[A-Za-z0-9_./()+=$^~;<\\][A-Za-z0-9_./()+=$^~;<>\\ :@,-]*$/;
/** Characters that force double quotes (controls, C1, lone surrogates). */
const FORCE_DOUBLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const DOC_MARKER = /^(%|---|\.\.\.)/m;
/** The core schema's implicit tags other than str (null, bool, int, float): a plain scalar matching one is not a string. */
const CORE_TAGS = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];

function looksTyped(s: string): boolean {
  for (const re of CORE_TAGS) if (re.test(s)) return true;
  return false;
}

function str(value: string, indent: string, implicitKey: boolean): string {
  const c0 = value.charCodeAt(0);
  // fast path: a simple string that is not a number/bool/null and has no ': ', ' #', trailing ':'/' '
  if (SIMPLE.test(value) && !NEEDS_CHECK.test(value) && !(c0 <= 57 || c0 === 46 || c0 === 126 || isTypedWord(value))) return value;
  if (FORCE_DOUBLE.test(value)) return doubleQuoted(value, indent, implicitKey);
  return plain(value, indent, implicitKey);
}

/** Patterns inside SIMPLE's alphabet that the full rules must judge. */
const NEEDS_CHECK = /: |:$| $|^[?-]|^(?:%|---|\.\.\.)/;

/** Starts with a letter that could begin null/true/false/.inf etc.: take the full check. */
function isTypedWord(s: string): boolean {
  const c = s.charCodeAt(0) | 0x20;
  return (c === 110 || c === 116 || c === 102) && s.length <= 5; // n(ull) t(rue) f(alse)
}

function plain(value: string, indent: string, implicitKey: boolean): string {
  if (implicitKey && value.includes('\n')) return quoted(value, indent, implicitKey);
  if (NOT_PLAIN.test(value)) {
    return implicitKey || !value.includes('\n') ? quoted(value, indent, implicitKey) : block(value, indent, implicitKey);
  }
  if (!implicitKey && value.includes('\n')) return block(value, indent, implicitKey);
  if (DOC_MARKER.test(value)) {
    // indent '' only for a top-level scalar, which never reaches this emitter
    if (implicitKey && indent === '  ') return quoted(value, indent, implicitKey);
  }
  // (no newline can reach here: keys with one were quoted, values with one went to block)
  if (looksTyped(value)) return quoted(value, indent, implicitKey);
  return value;
}

function quoted(value: string, indent: string, implicitKey: boolean): string {
  const hasDouble = value.includes('"');
  const hasSingle = value.includes("'");
  if (hasDouble && !hasSingle) return singleQuoted(value, indent, implicitKey);
  return doubleQuoted(value, indent, implicitKey);
}

function singleQuoted(value: string, indent: string, implicitKey: boolean): string {
  if ((implicitKey && value.includes('\n')) || /[ \t]\n|\n[ \t]/.test(value)) return doubleQuoted(value, indent, implicitKey);
  const ind = indent || (DOC_MARKER.test(value) ? '  ' : '');
  return "'" + value.replace(/'/g, "''").replace(/\n+/g, `$&\n${ind}`) + "'";
}

/** The library's double-quoted style: JSON escapes, YAML short escapes, and long strings with newlines as multi-line. */
function doubleQuoted(value: string, indent: string, implicitKey: boolean): string {
  const json = JSON.stringify(value);
  const ind = indent || (DOC_MARKER.test(value) ? '  ' : '');
  if (!json.includes('\\')) return json;
  let out = '';
  let start = 0;
  for (let i = 0; i < json.length; i++) {
    let ch = json[i];
    if (ch === ' ' && json[i + 1] === '\\' && json[i + 2] === 'n') {
      // a space before a newline is escaped so it is not folded away
      out += json.slice(start, i) + '\\ ';
      i += 1;
      start = i;
      ch = '\\';
    }
    if (ch !== '\\') continue;
    const next = json[i + 1];
    if (next === 'u') {
      out += json.slice(start, i);
      const code = json.substr(i + 2, 4);
      out += SHORT_ESCAPES[code] ?? (code.startsWith('00') ? '\\x' + code.slice(2) : json.substr(i, 6));
      i += 5;
      start = i + 1;
    } else if (next === 'n') {
      if (implicitKey || json[i + 2] === '"' || json.length < 40) {
        i += 1;
      } else {
        out += json.slice(start, i) + '\n\n';
        while (json[i + 2] === '\\' && json[i + 3] === 'n' && json[i + 4] !== '"') {
          out += '\n';
          i += 2;
        }
        out += ind;
        if (json[i + 2] === ' ') out += '\\';
        i += 1;
        start = i + 1;
      }
    } else {
      i += 1;
    }
  }
  return start ? out + json.slice(start) : json;
}

const SHORT_ESCAPES: Record<string, string> = {
  '0000': '\\0',
  '0007': '\\a',
  '000b': '\\v',
  '001b': '\\e',
  '0085': '\\N',
  '00a0': '\\_',
  '2028': '\\L',
  '2029': '\\P',
};

let blockEndNewlines: RegExp;
try {
  blockEndNewlines = new RegExp('(^|(?<!\n))\n+(?!\n|$)', 'g');
} catch {
  blockEndNewlines = /\n+(?!\n|$)/g;
}

/** A literal block scalar (`|`, `|-`, `|+`, with an indentation indicator when it starts with a space). */
function block(value: string, indent: string, implicitKey: boolean): string {
  if (/\n[\t ]+$/.test(value)) return quoted(value, indent, implicitKey);
  const ind = indent || (DOC_MARKER.test(value) ? '  ' : '');
  if (!value) return '|\n';
  let endStart: number;
  for (endStart = value.length; endStart > 0; --endStart) {
    const ch = value[endStart - 1];
    if (ch !== '\n' && ch !== '\t' && ch !== ' ') break;
  }
  let end = value.substring(endStart);
  const endNlPos = end.indexOf('\n');
  let chomp: string;
  if (endNlPos === -1) chomp = '-';
  else if (value === end || endNlPos !== end.length - 1) chomp = '+';
  else chomp = '';
  if (end) {
    value = value.slice(0, -end.length);
    if (end[end.length - 1] === '\n') end = end.slice(0, -1);
    end = end.replace(blockEndNewlines, `$&${ind}`);
  }
  let startWithSpace = false;
  let startEnd: number;
  let startNlPos = -1;
  for (startEnd = 0; startEnd < value.length; ++startEnd) {
    const ch = value[startEnd];
    if (ch === ' ') startWithSpace = true;
    else if (ch === '\n') startNlPos = startEnd;
    else break;
  }
  let start = value.substring(0, startNlPos < startEnd ? startNlPos + 1 : startEnd);
  if (start) {
    value = value.substring(start.length);
    start = start.replace(/\n+/g, `$&${ind}`);
  }
  const header = (startWithSpace ? (ind ? '2' : '1') : '') + chomp;
  value = value.replace(/\n+/g, `$&${ind}`);
  return `|${header}\n${ind}${start}${value}${end}`;
}
