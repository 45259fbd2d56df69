// Protobuf wire primitives: a growable writer and a bounded reader over Uint8Array (browser-safe).

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder('utf-8', { fatal: false });
const TWO_32 = 4294967296;

export function varintSize(v: number): number {
  if (v < 0) return 10;
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  let n = 4;
  let hi = Math.floor(v / 0x10000000);
  while (hi > 0) {
    n++;
    hi = Math.floor(hi / 128);
  }
  return n;
}

export class Writer {
  buf: Uint8Array;
  pos = 0;
  private view: DataView | undefined;

  constructor(initial = 1024) {
    this.buf = new Uint8Array(initial);
  }

  reset(): void {
    this.pos = 0;
  }

  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = undefined;
  }

  /** Unsigned varint for 0 <= v < 2^53, or a negative integer as 10-byte two's complement. */
  varint(v: number): void {
    if (v >= 0 && v < 0x80) {
      this.ensure(1);
      this.buf[this.pos++] = v;
      return;
    }
    this.ensure(10);
    if (v < 0) {
      this.varint64Negative(v);
      return;
    }
    const buf = this.buf;
    let pos = this.pos;
    while (v >= 0x80000000) {
      buf[pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    while (v >= 0x80) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos++] = v;
    this.pos = pos;
  }

  private varint64Negative(v: number): void {
    // two's complement of |v| over 64 bits, split into 32-bit halves
    const abs = -v;
    let lo = abs % TWO_32;
    let hi = Math.floor(abs / TWO_32);
    lo = ~lo >>> 0;
    hi = ~hi >>> 0;
    lo = lo + 1;
    if (lo >= TWO_32) {
      lo -= TWO_32;
      hi = (hi + 1) >>> 0;
    }
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < 9; i++) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo = (lo >>> 7) | ((hi & 0x7f) << 25);
      hi >>>= 7;
    }
    buf[pos++] = lo & 0x01;
    this.pos = pos;
  }

  tag(id: number, wire: number): void {
    this.varint(id * 8 + wire);
  }

  /** Writes bytes as they are (pre-computed tags, encoded sub-messages). */
  raw(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    if (n <= 8) {
      const buf = this.buf;
      let pos = this.pos;
      for (let i = 0; i < n; i++) buf[pos++] = bytes[i];
      this.pos = pos;
      return;
    }
    this.buf.set(bytes, this.pos);
    this.pos += n;
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.raw(b);
  }

  string(s: string): void {
    const len = s.length;
    if (len === 0) {
      this.ensure(1);
      this.buf[this.pos++] = 0;
      return;
    }
    const max = len * 3;
    const reserve = varintSize(max);
    this.ensure(reserve + max);
    const start = this.pos;
    let n: number;
    if (len < 64 && isAscii(s)) {
      const buf = this.buf;
      let p = start + reserve;
      for (let i = 0; i < len; i++) buf[p++] = s.charCodeAt(i);
      n = len;
    } else {
      n = textEncoder.encodeInto(s, this.buf.subarray(start + reserve)).written;
    }
    const size = varintSize(n);
    if (size !== reserve) this.buf.copyWithin(start + size, start + reserve, start + reserve + n);
    this.pos = start;
    this.varint(n);
    this.pos = start + size + n;
  }

  double(v: number): void {
    this.ensure(8);
    this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** Starts a length-delimited section; returns the position to hand to endLen. */
  beginLen(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Closes a section begun with beginLen, writing its length (shifting the body if it needs more than a byte). */
  endLen(start: number): void {
    const len = this.pos - start - 1;
    if (len < 0x80) {
      this.buf[start] = len;
      return;
    }
    const size = varintSize(len);
    this.ensure(size - 1);
    this.buf.copyWithin(start + size, start + 1, this.pos);
    const end = this.pos + size - 1;
    this.pos = start;
    this.varint(len);
    this.pos = end;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

export class Reader {
  readonly buf: Uint8Array;
  pos: number;
  readonly end: number;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  private fail(what: string): never {
    throw new Error(`protobuf: truncated or malformed ${what} at offset ${this.pos}`);
  }

  /** Reads a varint as a JS number; 64-bit negatives come back negative. */
  varint(): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos >= this.end) this.fail('varint');
    let b = buf[pos++];
    if (b < 0x80) {
      this.pos = pos;
      return b;
    }
    let lo = b & 0x7f;
    let shift = 7;
    while (shift < 28) {
      if (pos >= this.end) this.fail('varint');
      b = buf[pos++];
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return lo >>> 0;
      }
      shift += 7;
    }
    // 5th byte carries 4 low bits into lo and 3 bits into hi
    if (pos >= this.end) this.fail('varint');
    b = buf[pos++];
    lo = (lo | ((b & 0x0f) << 28)) >>> 0;
    let hi = (b & 0x7f) >> 4;
    if (b >= 0x80) {
      shift = 3;
      for (;;) {
        if (pos >= this.end) this.fail('varint');
        if (shift > 31) this.fail('varint');
        b = buf[pos++];
        hi |= (b & 0x7f) << shift;
        if (b < 0x80) break;
        shift += 7;
      }
    }
    this.pos = pos;
    hi >>>= 0;
    if (hi & 0x80000000) {
      // negative two's complement
      const nlo = (~lo >>> 0) + 1;
      const nhi = ~hi >>> 0;
      return -(nhi * TWO_32 + nlo);
    }
    return hi * TWO_32 + lo;
  }

  /** Length of a length-delimited section, bounds-checked. */
  len(): number {
    const n = this.varint();
    if (n < 0 || this.pos + n > this.end) this.fail('length');
    return n;
  }

  bytes(): Uint8Array {
    const n = this.len();
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  string(): string {
    const n = this.len();
    const start = this.pos;
    this.pos += n;
    return utf8Decode(this.buf, start, start + n);
  }

  double(): number {
    if (this.pos + 8 > this.end) this.fail('double');
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }

  float(): number {
    if (this.pos + 4 > this.end) this.fail('float');
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 4).getFloat32(0, true);
    this.pos += 4;
    return v;
  }

  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        if (this.pos + 8 > this.end) this.fail('fixed64');
        this.pos += 8;
        return;
      case WIRE_LEN: {
        const n = this.len();
        this.pos += n;
        return;
      }
      case WIRE_FIXED32:
        if (this.pos + 4 > this.end) this.fail('fixed32');
        this.pos += 4;
        return;
      default:
        this.fail(`wire type ${wire}`);
    }
  }
}

export function utf8Decode(buf: Uint8Array, start: number, end: number): string {
  // TextDecoder (ignoreBOM false) drops a leading byte order mark: keep doing so for such strings
  if (buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) return textDecoder.decode(buf.subarray(start, end));
  // Buffer's decoder (same U+FFFD replacement as TextDecoder) makes one string, without a
  // subarray or a string per character: short strings were most of the decoder's garbage
  return bufferView(buf).toString('utf8', start, end);
}

let lastBuf: Uint8Array | undefined;
let lastView: Buffer | undefined;

/** Forgets the cached view (a decoded body is not kept alive by it). */
export function releaseUtf8View(): void {
  lastBuf = lastView = undefined;
}

function bufferView(buf: Uint8Array): Buffer {
  if (buf !== lastBuf) {
    lastView = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    lastBuf = buf;
  }
  return lastView!;
}

export function utf8Encode(s: string): Uint8Array {
  return textEncoder.encode(s);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = (() => {
  const t = new Int16Array(128).fill(-1);
  for (let i = 0; i < B64.length; i++) t[B64.charCodeAt(i)] = i;
  t['-'.charCodeAt(0)] = 62; // base64url, tolerated on input
  t['_'.charCodeAt(0)] = 63;
  return t;
})();

export function base64Encode(b: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const n = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
    out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  if (i < b.length) {
    const n = (b[i] << 16) | ((i + 1 < b.length ? b[i + 1] : 0) << 8);
    out += B64[n >> 18] + B64[(n >> 12) & 63] + (i + 1 < b.length ? B64[(n >> 6) & 63] : '=') + '=';
  }
  return out;
}

export function base64Decode(s: string): Uint8Array {
  let len = s.length;
  while (len > 0 && s[len - 1] === '=') len--;
  const out = new Uint8Array(Math.floor((len * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? B64_INDEX[c] : -1;
    if (v < 0) {
      if (c === 10 || c === 13 || c === 32) continue;
      throw new Error(`illegal base64 data at input byte ${i}`);
    }
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return o === out.length ? out : out.slice(0, o);
}
