// CBOR (RFC 8949) as the API uses it: one self-described data item per document (tag 55799),
// RFC 8742 sequences for watch streams. JSON-shaped data is encoded by our one-pass emitter; decoding
// and the rare other values use cborg (pure JavaScript, strict: text-string map keys only, no
// shared references or records), so the server carries no native CBOR addon.
import { Token, Type, decode, decodeFirst, encode, type TagDecoder } from 'cborg';
import { emitCbor } from './cbor-emit.js';

const SELF_DESCRIBED = 55799;

/** RFC 3339 with the fraction only when there is one, as Go's time.RFC3339Nano prints. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Tag handlers: the tags upstream's decode mode accepts (checkCborBody refuses every other one). */
const TAGS: TagDecoder[] = [];
TAGS[SELF_DESCRIBED] = (inner) => inner();
// date/time: upstream's unstructured decode turns both into RFC 3339 strings (TimeTagToRFC3339Nano)
TAGS[0] = (inner) => inner();
TAGS[1] = (inner) => {
  const v = inner();
  return typeof v === 'number' ? rfc3339(v * 1000) : v;
};
// expected later encodings of a byte string (base64url, base64, base16), as they read in JSON
const later = (enc: 'base64url' | 'base64' | 'hex'): TagDecoder => (inner) => {
  const v = inner();
  return v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString(enc) : v;
};
TAGS[21] = later('base64url');
TAGS[22] = later('base64');
TAGS[23] = later('hex');

// a Date reads as JSON would write it (the API's times are RFC 3339 strings)
const ENCODE_OPTIONS = { typeEncoders: { Date: (d: unknown) => [new Token(Type.string, rfc3339((d as Date).getTime()))] } };

const DECODE_OPTIONS = { tags: TAGS, useMaps: false, allowIndefinite: true } as const;

/** Encodes one value with the self-describing tag prefix (d9 d9 f7): JSON-shaped data by our emitter, the rest by cborg. */
export function encodeCbor(value: unknown): Uint8Array {
  const plain = emitCbor(value);
  if (plain) return plain;
  const body = encode(value, ENCODE_OPTIONS);
  const out = new Uint8Array(body.length + 3);
  out.set([0xd9, 0xd9, 0xf7]);
  out.set(body, 3);
  return out;
}

/** Decodes one data item (the self-describing tag is accepted and dropped). */
export function decodeCbor(bytes: Uint8Array): unknown {
  return decode(bytes, DECODE_OPTIONS);
}

/** Decodes every item of a CBOR sequence. */
export function decodeCborSequence(bytes: Uint8Array): unknown[] {
  const out: unknown[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const [v, remainder] = decodeFirst(rest, DECODE_OPTIONS);
    out.push(v);
    rest = remainder;
  }
  return out;
}

/**
 * Upstream's CBOR decode mode for request bodies (apimachinery runtime/serializer/cbor/internal/modes
 * decode.go): MaxNestedLevels 64, MaxArrayElements and MaxMapPairs 1024, only the simple values
 * false/true/null, no NaN or infinities, valid UTF-8 text. Tags: only self-described (55799), the
 * date/time tags (0, 1) and the expected-later-encoding hints (21, 22, 23); everything else (bignums
 * 2/3, which upstream forbids, and cbor-x's shared references 28/29, records, typed arrays…) is refused
 * so the decoder never expands a small body into a huge object graph.
 */
export const CBOR_MAX_NESTED_LEVELS = 64;
export const CBOR_MAX_ELEMENTS = 1024;
const ALLOWED_TAGS = new Set([0, 1, 21, 22, 23, SELF_DESCRIBED]);

export class CborLimitError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Checks one CBOR data item against the limits above, without recursion. Throws CborLimitError. */
export function checkCborBody(bytes: Uint8Array): void {
  let pos = 0;
  const fail = (why: string): never => {
    throw new CborLimitError(why);
  };
  const need = (n: number) => {
    if (pos + n > bytes.length) fail('unexpected end of the CBOR data');
  };
  // open containers: items still expected (-1: indefinite, until a break), items seen, tag or not
  const open: { left: number; seen: number; max: number; tag: boolean }[] = [];
  const head = () => {
    need(1);
    const b = bytes[pos++]!;
    const major = b >> 5;
    const info = b & 31;
    if (info < 24) return { major, info, value: info };
    if (info === 31) return { major, info, value: -1 };
    if (info > 27) fail(`malformed CBOR: reserved additional information ${info}`);
    const len = 1 << (info - 24);
    need(len);
    let v = 0;
    for (let i = 0; i < len; i++) v = v * 256 + bytes[pos++]!;
    return { major, info, value: v };
  };
  const push = (left: number, max: number, tag = false) => {
    if (open.length >= CBOR_MAX_NESTED_LEVELS) fail(`the CBOR data is nested deeper than ${CBOR_MAX_NESTED_LEVELS} levels`);
    open.push({ left, seen: 0, max, tag });
  };
  let started = false;
  while (!started || open.length > 0) {
    started = true;
    const top = open[open.length - 1];
    if (top && top.left === 0) {
      open.pop();
      if (open.length > 0) itemDone();
      continue;
    }
    if (top && top.left < 0 && bytes[pos] === 0xff) {
      pos++;
      open.pop();
      if (open.length > 0) itemDone();
      continue;
    }
    const h = head();
    switch (h.major) {
      case 0:
      case 1:
        // upstream decodes integers as int64 and fails on overflow
        if (h.info === 31) fail('malformed CBOR: indefinite-length integer');
        if (h.value > Number.MAX_SAFE_INTEGER) fail('the CBOR integer does not fit the range the API handles');
        break;
      case 2:
      case 3:
        if (h.value < 0) {
          // indefinite-length string: definite chunks of the same major type until a break
          for (;;) {
            need(1);
            if (bytes[pos] === 0xff) {
              pos++;
              break;
            }
            const c = head();
            if (c.major !== h.major || c.value < 0) fail('malformed CBOR: bad chunk in an indefinite-length string');
            need(c.value);
            if (h.major === 3) checkUtf8(bytes.subarray(pos, pos + c.value), fail);
            pos += c.value;
          }
        } else {
          need(h.value);
          if (h.major === 3) checkUtf8(bytes.subarray(pos, pos + h.value), fail);
          pos += h.value;
        }
        break;
      case 4:
      case 5:
        if (h.value > CBOR_MAX_ELEMENTS) fail(tooMany(h.major));
        // a map's pairs are counted as key and value items
        push(h.value < 0 ? -1 : h.major === 4 ? h.value : h.value * 2, h.major === 4 ? CBOR_MAX_ELEMENTS : CBOR_MAX_ELEMENTS * 2);
        continue;
      case 6:
        if (!ALLOWED_TAGS.has(h.value)) fail(`the CBOR tag ${h.value} is not accepted`);
        push(1, 1, true);
        continue;
      case 7:
        if (h.info < 24 || h.info === 24) {
          if (h.value !== 20 && h.value !== 21 && h.value !== 22) fail(`the CBOR simple value ${h.value} is not accepted`);
        } else if (h.info === 31) fail('malformed CBOR: unexpected break');
        else if (!Number.isFinite(floatAt(bytes, pos - (1 << (h.info - 24)), h.info))) fail('NaN and infinite floats are not accepted');
        break;
    }
    itemDone();
  }
  if (pos !== bytes.length) fail('the CBOR body holds more than one data item');

  function itemDone() {
    const top = open[open.length - 1];
    if (!top) return;
    if (top.left > 0) top.left--;
    else if (++top.seen > top.max) fail(tooMany(top.max === CBOR_MAX_ELEMENTS ? 4 : 5));
    if (top.tag && top.left === 0) {
      open.pop();
      itemDone();
    }
  }
}

function tooMany(major: number): string {
  return major === 4 ? `the CBOR array has more than ${CBOR_MAX_ELEMENTS} elements` : `the CBOR map has more than ${CBOR_MAX_ELEMENTS} pairs`;
}

function checkUtf8(b: Uint8Array, fail: (why: string) => never): void {
  try {
    utf8.decode(b);
  } catch {
    fail('the CBOR text string is not valid UTF-8');
  }
}

function floatAt(bytes: Uint8Array, at: number, info: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at);
  if (info === 25) {
    const h = view.getUint16(0);
    return (h & 0x7c00) === 0x7c00 ? NaN : 0;
  }
  return info === 26 ? view.getFloat32(0) : view.getFloat64(0);
}
