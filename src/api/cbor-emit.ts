// A CBOR emitter for the JSON-shaped values the API encodes (plain objects, arrays, strings, numbers,
// booleans, null, undefined), writing exactly the bytes cbor-x writes with the options in cbor.ts
// (useRecords: false, variableMapSize: true: preferred serialization, smallest heads, keys in
// insertion order, integers as the smallest int up to 32 bits, other numbers as float64). cbor-x
// spends most of an encode counting map sizes (Object.keys + Object.values per object) and in its
// generic dispatch; here one pass with Object.keys per object. Anything else (class instances,
// typed arrays, Maps, bigints…) is left to cbor-x: emitCbor then answers undefined.

/** Bytes reserved per slab; results are views into it, as cbor-x's are. */
const SLAB = 64 * 1024;

let buf = Buffer.allocUnsafeSlow(SLAB);
let view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
let start = 0;
let pos = 0;

/** Thrown inside the walk when a value is not JSON-shaped. */
const NOT_PLAIN = Symbol('not plain');

/** Makes room for `n` more bytes: a new slab holding the item written so far (earlier results keep the old one). */
function room(n: number): void {
  if (pos + n <= buf.length) return;
  const used = pos - start;
  // at least the current slab's size (as cbor-x grows): a large item is not regrown from 64 KiB each time
  const next = Buffer.allocUnsafeSlow(Math.max(SLAB, 4 * (used + n), buf.length));
  buf.copy(next, 0, start, pos);
  buf = next;
  view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  start = 0;
  pos = used;
}

/** A head: major type (shifted) and argument in its smallest form. */
function head(major: number, n: number): void {
  if (n < 0x18) buf[pos++] = major | n;
  else if (n < 0x100) {
    buf[pos++] = major | 0x18;
    buf[pos++] = n;
  } else if (n < 0x10000) {
    buf[pos++] = major | 0x19;
    buf[pos++] = n >> 8;
    buf[pos++] = n & 0xff;
  } else {
    buf[pos++] = major | 0x1a;
    view.setUint32(pos, n);
    pos += 4;
  }
}

function str(s: string): void {
  const n = s.length;
  room(n * 3 + 5);
  if (n < 0x40) {
    // short strings code unit by code unit, as cbor-x does below 64 units (a lone surrogate is
    // written as its three bytes, where utf8Write would write U+FFFD): after a one-byte head,
    // moved when the bytes need a longer one
    const at = pos + 1;
    let p = at;
    for (let i = 0; i < n; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) buf[p++] = c;
      else if (c < 0x800) {
        buf[p++] = (c >> 6) | 0xc0;
        buf[p++] = (c & 0x3f) | 0x80;
      } else {
        let d: number;
        if ((c & 0xfc00) === 0xd800 && ((d = s.charCodeAt(i + 1)) & 0xfc00) === 0xdc00) {
          c = 0x10000 + ((c & 0x03ff) << 10) + (d & 0x03ff);
          i++;
          buf[p++] = (c >> 18) | 0xf0;
          buf[p++] = ((c >> 12) & 0x3f) | 0x80;
          buf[p++] = ((c >> 6) & 0x3f) | 0x80;
          buf[p++] = (c & 0x3f) | 0x80;
        } else {
          buf[p++] = (c >> 12) | 0xe0;
          buf[p++] = ((c >> 6) & 0x3f) | 0x80;
          buf[p++] = (c & 0x3f) | 0x80;
        }
      }
    }
    const len = p - at;
    if (len < 0x18) {
      buf[pos] = 0x60 | len;
      pos = p;
      return;
    }
    // 24..191 bytes: a two-byte head
    buf.copyWithin(pos + 2, at, p);
    buf[pos] = 0x78;
    buf[pos + 1] = len;
    pos = p + 1;
    return;
  }
  // longer: the head is sized for the longest encoding, and the bytes move back when it is shorter
  const max = n * 3;
  const hs = max < 0x100 ? 2 : max < 0x10000 ? 3 : 5;
  const len = buf.utf8Write(s, pos + hs, buf.length - pos - hs);
  const real = len < 0x18 ? 1 : len < 0x100 ? 2 : len < 0x10000 ? 3 : 5;
  if (real !== hs) buf.copyWithin(pos + real, pos + hs, pos + hs + len);
  head(0x60, len);
  pos += len;
}

/** Encoded map keys (head and UTF-8): API objects use a small vocabulary of keys. */
const keyCache = new Map<string, Buffer>();
const KEY_CACHE_MAX = 4096;

function key(k: string): void {
  let b = keyCache.get(k);
  if (b === undefined) {
    if (k.length >= 0x40 || keyCache.size >= KEY_CACHE_MAX) {
      str(k);
      return;
    }
    const rel = pos - start; // str may move the item to a new slab
    str(k);
    b = Buffer.from(buf.subarray(start + rel, pos));
    keyCache.set(k, b);
    return;
  }
  const n = b.length;
  room(n);
  for (let i = 0; i < n; i++) buf[pos + i] = b[i]!;
  pos += n;
}

function num(v: number): void {
  room(9);
  if (v >>> 0 === v) head(0x00, v);
  else if (v >> 0 === v) head(0x20, -1 - v);
  else if (v < 0 && v >= -0x100000000 && Math.floor(v) === v) {
    buf[pos++] = 0x3a;
    view.setUint32(pos, -1 - v);
    pos += 4;
  } else {
    buf[pos++] = 0xfb;
    view.setFloat64(pos, v);
    pos += 8;
  }
}

function value(v: unknown): void {
  if (typeof v === 'string') str(v);
  else if (typeof v === 'object') {
    if (v === null) {
      room(1);
      buf[pos++] = 0xf6;
    } else {
      const c = (v as object).constructor;
      if (c === Object) map(v as Record<string, unknown>);
      else if (c === Array) list(v as unknown[]);
      else throw NOT_PLAIN;
    }
  } else if (typeof v === 'number') num(v);
  else if (typeof v === 'boolean') {
    room(1);
    buf[pos++] = v ? 0xf5 : 0xf4;
  } else if (v === undefined) {
    room(1);
    buf[pos++] = 0xf7;
  } else throw NOT_PLAIN;
}

function list(a: unknown[]): void {
  room(5);
  head(0x80, a.length);
  for (let i = 0; i < a.length; i++) value(a[i]);
}

function map(o: Record<string, unknown>): void {
  // for-in walks the own keys in Object.keys order without building the array (a plain
  // object's prototype has no enumerable keys); the one-byte head is widened for 24 or more.
  // Offsets are kept from the item's start: room() may move the item to a new slab.
  room(1);
  const rel = pos++ - start;
  let n = 0;
  for (const k in o) {
    key(k);
    value(o[k]);
    n++;
  }
  if (n < 0x18) {
    buf[start + rel] = 0xa0 | n;
    return;
  }
  const w = n < 0x100 ? 1 : n < 0x10000 ? 2 : 4;
  room(w);
  const at = start + rel;
  buf.copyWithin(at + 1 + w, at + 1, pos);
  const end = pos + w;
  pos = at;
  head(0xa0, n);
  pos = end;
}

/**
 * One data item behind the self-describing tag (d9 d9 f7), or undefined when the value holds
 * something other than plain JSON-shaped data (the caller encodes it with cbor-x then).
 */
export function emitCbor(v: unknown): Buffer | undefined {
  pos = start;
  try {
    room(3);
    buf[pos++] = 0xd9;
    buf[pos++] = 0xd9;
    buf[pos++] = 0xf7;
    value(v);
  } catch (e) {
    pos = start;
    if (e === NOT_PLAIN) return undefined;
    throw e;
  }
  const out = buf.subarray(start, pos);
  // the next item starts after this one in the same slab (results stay views, as cbor-x's do)
  start = pos = Math.min((pos + 7) & ~7, buf.length);
  return out;
}

declare global {
  interface Buffer {
    /** Node's UTF-8 write without argument checks (what Buffer#write calls). */
    utf8Write(s: string, offset: number, length?: number): number;
  }
}
