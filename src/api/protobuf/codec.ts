// JSON-shaped objects <-> Kubernetes protobuf (envelope: "k8s\0" + runtime.Unknown{typeMeta, raw}).
// Encoding walks the JSON object with the compiled message tables; decoding yields the object the
// JSON API would show (omitempty rules, Time as RFC 3339, Quantity/IntOrString as scalars, bytes as base64).
import { messageForKind } from './kinds.js';
import type { FieldInfo, MessageInfo, ScalarType } from './schema.js';
import { formatDuration, formatMicroTime, formatTime, parseDuration, parseRfc3339, type Timestamp } from './time.js';
import { Reader, WIRE_LEN, Writer, base64Decode, base64Encode, releaseUtf8View, utf8Decode, utf8Encode, varintSize } from './wire.js';

export type JsonObject = Record<string, unknown>;

/** The 4-byte magic that starts every protobuf-encoded Kubernetes object ("k8s\0"). */
export const PROTOBUF_PREFIX: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export class ProtobufError extends Error {
  override name = 'ProtobufError';
}

export function hasProtobufPrefix(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
}

// ---------------------------------------------------------------------------------------------
// writer pool: one reusable buffer for the common non-reentrant case

const POOL_KEEP_LIMIT = 4 << 20;
let pooled: Writer | undefined = new Writer(64 << 10);

function withWriter(fn: (w: Writer) => void): Uint8Array {
  const w = pooled ?? new Writer(1024);
  pooled = undefined;
  w.reset();
  try {
    fn(w);
    return w.finish();
  } finally {
    if (w.buf.length <= POOL_KEEP_LIMIT) pooled = w;
    else pooled ??= new Writer(64 << 10);
  }
}

// ---------------------------------------------------------------------------------------------
// encode

function toInt(v: unknown, what: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new ProtobufError(`${what}: expected an integer, got ${JSON.stringify(v)}`);
  return Math.trunc(n);
}

function writeScalar(w: Writer, t: ScalarType, v: unknown, what: string): void {
  switch (t) {
    case 'string':
      w.string(typeof v === 'string' ? v : v == null ? '' : String(v));
      return;
    case 'bool':
      w.varint(v ? 1 : 0);
      return;
    case 'bytes':
      w.bytes(v instanceof Uint8Array ? v : base64Decode(v == null ? '' : String(v)));
      return;
    case 'double':
      w.double(v == null ? 0 : Number(v));
      return;
    case 'int32':
    case 'int64':
    case 'uint32':
    case 'uint64':
      w.varint(v == null ? 0 : toInt(v, what));
      return;
    default:
      throw new ProtobufError(`${what}: unsupported scalar type ${t}`);
  }
}

const typeError = (f: FieldInfo, want: string, v: unknown) =>
  new ProtobufError(`field ${f.json}: expected ${want}, got ${Array.isArray(v) ? 'array' : typeof v}`);

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function encodeBody(w: Writer, info: MessageInfo, obj: JsonObject): void {
  if (info.fields.length > 6 && !info.hasInline) {
    encodeSparse(w, info, obj);
    return;
  }
  const order = info.encodeOrder;
  for (let i = 0; i < order.length; i++) {
    const f = order[i];
    if (f.inline) encodeInline(w, f, obj);
    else encodeFieldValue(w, f, obj[f.json]);
  }
}

/** Wide messages are mostly sparse: walk the object's keys, then write in field-number order. */
function encodeSparse(w: Writer, info: MessageInfo, obj: JsonObject): void {
  const present: FieldInfo[] = [];
  for (const k in obj) {
    const f = info.byJson.get(k);
    if (!f) continue;
    // insertion sort by field number; JSON key order is usually close to it already
    let i = present.length;
    present.push(f);
    while (i > 0 && present[i - 1].id > f.id) {
      present[i] = present[i - 1];
      i--;
    }
    present[i] = f;
  }
  for (let i = 0; i < present.length; i++) encodeFieldValue(w, present[i], obj[present[i].json]);
}

function encodeFieldValue(w: Writer, f: FieldInfo, v: unknown): void {
  if (v === undefined || v === null) return;
  if (f.map) encodeMap(w, f, v);
  else if (f.repeated) {
    if (!Array.isArray(v)) throw typeError(f, 'an array', v);
    for (let j = 0; j < v.length; j++) encodeOne(w, f, v[j]);
  } else encodeOne(w, f, v);
}

function encodeOne(w: Writer, f: FieldInfo, v: unknown): void {
  w.raw(f.tag);
  if (f.scalar) {
    writeScalar(w, f.scalar, v, f.json);
    return;
  }
  const start = w.beginLen();
  encodeMessageValue(w, f.msg!, v, f);
  w.endLen(start);
}

function encodeMessageValue(w: Writer, info: MessageInfo, v: unknown, f: FieldInfo): void {
  if (info.special) {
    encodeSpecial(w, info, v, f);
    return;
  }
  if (v === null || v === undefined) return;
  if (!isPlainObject(v)) throw typeError(f, 'an object', v);
  encodeBody(w, info, v);
}

function encodeInline(w: Writer, f: FieldInfo, obj: JsonObject): void {
  const mark = w.pos;
  w.raw(f.tag);
  const start = w.beginLen();
  encodeBody(w, f.msg!, obj);
  if (w.pos === start + 1) w.pos = mark;
  else w.endLen(start);
}

const MAP_KEY_STRING_TAG = Uint8Array.of(0x0a);
const MAP_VALUE_MSG_TAG = Uint8Array.of(0x12);

function mapValueTag(t: ScalarType): number {
  switch (t) {
    case 'string': case 'bytes': return 0x12;
    case 'double': case 'fixed64': case 'sfixed64': return 0x11;
    case 'float': case 'fixed32': case 'sfixed32': return 0x15;
    default: return 0x10;
  }
}

function encodeMap(w: Writer, f: FieldInfo, v: unknown): void {
  if (!isPlainObject(v)) throw typeError(f, 'an object', v);
  const keys = Object.keys(v);
  if (keys.length > 1) keys.sort(); // Go writes map entries in key order
  for (const k of keys) {
    const val = v[k];
    w.raw(f.tag);
    const start = w.beginLen();
    if (f.keyType === 'string') {
      w.raw(MAP_KEY_STRING_TAG);
      w.string(k);
    } else {
      w.varint(0x08);
      writeScalar(w, f.keyType!, f.keyType === 'bool' ? k === 'true' : k, f.json);
    }
    if (val !== undefined && val !== null) {
      if (f.scalar) {
        w.varint(mapValueTag(f.scalar));
        writeScalar(w, f.scalar, val, `${f.json}[${k}]`);
      } else {
        w.raw(MAP_VALUE_MSG_TAG);
        const s = w.beginLen();
        encodeMessageValue(w, f.msg!, val, f);
        w.endLen(s);
      }
    }
    w.endLen(start);
  }
}

function toTimestamp(v: unknown, f: FieldInfo): Timestamp {
  if (typeof v === 'string') return parseRfc3339(v);
  if (v instanceof Date) {
    const ms = v.getTime();
    const seconds = Math.floor(ms / 1000);
    return { seconds, nanos: (ms - seconds * 1000) * 1e6 };
  }
  throw typeError(f, 'an RFC 3339 time string', v);
}

function encodeSpecial(w: Writer, info: MessageInfo, v: unknown, f: FieldInfo): void {
  switch (info.special) {
    case 'time':
    case 'microtime': {
      if (v === null || v === undefined) return;
      const ts = toTimestamp(v, f);
      if (ts.seconds !== 0) {
        w.varint(0x08);
        w.varint(ts.seconds);
      }
      if (ts.nanos !== 0) {
        w.varint(0x10);
        w.varint(ts.nanos);
      }
      return;
    }
    case 'duration': {
      const ns = typeof v === 'string' ? parseDuration(v) : toInt(v, f.json);
      if (ns !== 0) {
        w.varint(0x08);
        w.varint(ns);
      }
      return;
    }
    case 'quantity':
      w.varint(0x0a);
      w.string(typeof v === 'string' ? v : String(v ?? '0'));
      return;
    case 'intorstring':
      if (typeof v === 'string') {
        w.varint(0x08);
        w.varint(1);
        w.varint(0x1a);
        w.string(v);
      } else {
        w.varint(0x10);
        w.varint(toInt(v ?? 0, f.json));
      }
      return;
    case 'rawext':
    case 'rawjson': {
      if (v === undefined) return;
      const raw = v instanceof Uint8Array ? v : utf8Encode(JSON.stringify(v));
      w.varint(0x0a);
      w.bytes(raw);
      return;
    }
    case 'stringarray':
      if (!Array.isArray(v)) throw typeError(f, 'an array', v);
      for (const s of v) {
        w.varint(0x0a);
        w.string(s == null ? '' : String(s));
      }
      return;
    case 'schemaOrArray':
      encodeBody(w, info, Array.isArray(v) ? { jSONSchemas: v } : { schema: v });
      return;
    case 'schemaOrBool':
      encodeBody(w, info, typeof v === 'boolean' ? { allows: v } : { allows: true, schema: v });
      return;
    case 'schemaOrStringArray':
      encodeBody(w, info, Array.isArray(v) ? { property: v } : { schema: v });
      return;
  }
}

function typeMetaOf(obj: JsonObject): { apiVersion: string; kind: string } {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
    throw new ProtobufError('object has no apiVersion/kind; cannot choose a protobuf message');
  }
  return { apiVersion, kind };
}

function requireMessage(apiVersion: string, kind: string): MessageInfo {
  const info = messageForKind(apiVersion, kind);
  if (!info) throw new ProtobufError(`no protobuf serialization for ${kind} in ${apiVersion}`);
  return info;
}

function writeEnvelopeHead(w: Writer, apiVersion: string, kind: string): void {
  w.raw(PROTOBUF_PREFIX);
  w.varint(0x0a); // typeMeta
  const tm = w.beginLen();
  w.varint(0x0a);
  w.string(apiVersion);
  w.varint(0x12);
  w.string(kind);
  w.endLen(tm);
  w.varint(0x12); // raw
}

/** Encodes an API object (with apiVersion/kind) as a complete protobuf body: prefix + Unknown envelope. */
export function encodeProtobufObject(obj: JsonObject): Uint8Array {
  const { apiVersion, kind } = typeMetaOf(obj);
  const info = requireMessage(apiVersion, kind);
  return withWriter((w) => {
    writeEnvelopeHead(w, apiVersion, kind);
    const start = w.beginLen();
    encodeBody(w, info, obj);
    w.endLen(start);
  });
}

/** Encodes only the object's message (no prefix, no envelope): the form list items take on the wire. */
export function encodeProtobufRaw(obj: JsonObject): Uint8Array {
  const { apiVersion, kind } = typeMetaOf(obj);
  const info = requireMessage(apiVersion, kind);
  return withWriter((w) => encodeBody(w, info, obj));
}

/** Wraps an already-encoded message in the envelope. */
export function encodeProtobufEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  return withWriter((w) => {
    writeEnvelopeHead(w, apiVersion, kind);
    w.bytes(raw);
  });
}

const LIST_META = 'k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta';

/**
 * Writes a list body (envelope included) from a ListMeta object and items already encoded with
 * encodeProtobufRaw, so a server can cache per-object bytes. Output equals encoding the whole list.
 */
export function encodeListFromItems(
  listApiVersion: string,
  listKind: string,
  listMeta: JsonObject | undefined,
  itemBytes: readonly Uint8Array[],
): Uint8Array {
  const info = requireMessage(listApiVersion, listKind);
  const metaField = info.byId[1];
  const itemsField = info.byId[2];
  if (metaField?.msg?.name !== LIST_META || !itemsField?.repeated || !itemsField.msg) {
    throw new ProtobufError(`${listKind} is not a list type`);
  }
  const metaBytes = withWriter((w) => encodeBody(w, metaField.msg!, listMeta ?? {}));
  let total = 1 + varintSize(metaBytes.length) + metaBytes.length;
  for (const b of itemBytes) total += 1 + varintSize(b.length) + b.length;
  return withWriter((w) => {
    writeEnvelopeHead(w, listApiVersion, listKind);
    w.varint(total);
    w.ensure(total);
    w.varint(0x0a);
    w.bytes(metaBytes);
    for (const b of itemBytes) {
      w.varint(0x12);
      w.bytes(b);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// decode

function readScalar(r: Reader, t: ScalarType): unknown {
  switch (t) {
    case 'string':
      return r.string();
    case 'bool':
      return r.varint() !== 0;
    case 'bytes':
      return r.bytes();
    case 'double':
      return r.double();
    case 'float':
      return r.float();
    case 'int32':
      return r.varint() | 0;
    case 'uint32':
      return r.varint() >>> 0;
    case 'int64':
    case 'uint64':
      return r.varint();
    default:
      throw new ProtobufError(`unsupported scalar type ${t}`);
  }
}

function scalarZero(t: ScalarType): unknown {
  return t === 'string' || t === 'bytes' ? '' : t === 'bool' ? false : 0;
}

function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function decodeValue(buf: Uint8Array, start: number, end: number, info: MessageInfo): unknown {
  return info.special ? decodeSpecial(buf, start, end, info) : decodeObject(buf, start, end, info);
}

function pushSlot(slots: unknown[], i: number, v: unknown): void {
  const cur = slots[i] as unknown[] | undefined;
  if (cur) cur.push(v);
  else slots[i] = [v];
}

/**
 * Slot arrays reused per nesting depth: a fresh array per message was a large share of the decoder's
 * garbage. Every slot is emptied again as the message's object is built (or on an error).
 */
const slotPool: unknown[][] = [];
let slotDepth = 0;

function decodeObject(buf: Uint8Array, start: number, end: number, info: MessageInfo): JsonObject {
  const fields = info.fields;
  const slots = (slotPool[slotDepth] ??= []);
  slotDepth++;
  try {
    return decodeInto(buf, start, end, info, fields, slots);
  } catch (e) {
    slots.fill(undefined);
    throw e;
  } finally {
    slotDepth--;
  }
}

function decodeInto(buf: Uint8Array, start: number, end: number, info: MessageInfo, fields: FieldInfo[], slots: unknown[]): JsonObject {
  const r = new Reader(buf, start, end);
  while (r.pos < end) {
    const key = r.varint();
    const wire = key & 7;
    const f = info.byId[key >>> 3];
    if (!f) {
      r.skip(wire);
      continue;
    }
    if (f.map) {
      if (wire !== WIRE_LEN) {
        r.skip(wire);
        continue;
      }
      const n = r.len();
      const obj = (slots[f.index] ??= {}) as JsonObject;
      readMapEntry(buf, r.pos, r.pos + n, f, obj);
      r.pos += n;
      continue;
    }
    if (f.scalar) {
      if (wire === f.wire) {
        const v = readScalar(r, f.scalar);
        if (f.repeated) pushSlot(slots, f.index, f.scalar === 'bytes' ? base64Encode(v as Uint8Array) : v);
        else slots[f.index] = v;
      } else if (f.repeated && wire === WIRE_LEN) {
        const n = r.len();
        const sub = new Reader(buf, r.pos, r.pos + n);
        while (!sub.done()) pushSlot(slots, f.index, readScalar(sub, f.scalar));
        r.pos += n;
      } else r.skip(wire);
      continue;
    }
    if (wire !== WIRE_LEN) {
      r.skip(wire);
      continue;
    }
    const n = r.len();
    const v = decodeValue(buf, r.pos, r.pos + n, f.msg!);
    r.pos += n;
    if (f.repeated) pushSlot(slots, f.index, v === undefined ? null : v);
    else slots[f.index] = v;
  }

  const out: JsonObject = {};
  for (let i = 0; i < fields.length; i++) {
    let v = slots[i];
    if (v === undefined) continue;
    slots[i] = undefined;
    const f = fields[i];
    if (f.inline) {
      if (v && typeof v === 'object') Object.assign(out, v);
      continue;
    }
    if (f.scalar && !f.repeated && !f.map) {
      if (f.scalar === 'string') {
        if (v === '' && !f.keepZero) continue;
      } else if (f.scalar === 'bytes') {
        if ((v as Uint8Array).length === 0) continue;
        v = base64Encode(v as Uint8Array);
      } else if (!f.keepZero && (v === 0 || v === false)) continue;
    }
    out[f.json] = v;
  }
  return out;
}

function readMapEntry(buf: Uint8Array, start: number, end: number, f: FieldInfo, obj: JsonObject): void {
  const r = new Reader(buf, start, end);
  let k: unknown = scalarZero(f.keyType!);
  let v: unknown;
  while (!r.done()) {
    const key = r.varint();
    const id = key >>> 3;
    const wire = key & 7;
    if (id === 1) {
      k = readScalar(r, f.keyType!);
    } else if (id === 2) {
      if (f.scalar) v = readScalar(r, f.scalar);
      else if (wire === WIRE_LEN) {
        const n = r.len();
        v = decodeValue(buf, r.pos, r.pos + n, f.msg!);
        r.pos += n;
      } else r.skip(wire);
    } else r.skip(wire);
  }
  if (v === undefined) v = f.scalar ? scalarZero(f.scalar) : f.msg!.special ? decodeSpecial(buf, end, end, f.msg!) ?? null : {};
  if (v instanceof Uint8Array) v = base64Encode(v);
  setKey(obj, String(k), v);
}

/** Reads the small fixed-shape messages (Time, Quantity, ...) into an array indexed by field number. */
function readSmall(buf: Uint8Array, start: number, end: number, types: Record<number, ScalarType>): unknown[] {
  const r = new Reader(buf, start, end);
  const out: unknown[] = [];
  while (!r.done()) {
    const key = r.varint();
    const t = types[key >>> 3];
    if (t === undefined) r.skip(key & 7);
    else if (t === 'string' && (key & 7) === WIRE_LEN) {
      const v = r.string();
      const prev = out[key >>> 3];
      if (Array.isArray(prev)) prev.push(v);
      else out[key >>> 3] = prev === undefined ? v : [prev, v];
    } else out[key >>> 3] = readScalar(r, t);
  }
  return out;
}

const TIME_FIELDS: Record<number, ScalarType> = { 1: 'int64', 2: 'int32' };
const ONE_INT64: Record<number, ScalarType> = { 1: 'int64' };
const ONE_STRING: Record<number, ScalarType> = { 1: 'string' };
const ONE_BYTES: Record<number, ScalarType> = { 1: 'bytes' };
const INT_OR_STRING: Record<number, ScalarType> = { 1: 'int64', 2: 'int32', 3: 'string' };

function parseEmbeddedJson(raw: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(utf8Decode(raw, 0, raw.length));
  } catch {
    throw new ProtobufError(`${what}: raw bytes are neither protobuf nor JSON`);
  }
}

function decodeSpecial(buf: Uint8Array, start: number, end: number, info: MessageInfo): unknown {
  switch (info.special) {
    case 'time':
    case 'microtime': {
      const [, seconds = 0, nanos = 0] = readSmall(buf, start, end, TIME_FIELDS) as number[];
      if (seconds === 0 && nanos === 0) return undefined; // Go's zero Time marshals to nothing and shows as null
      return info.special === 'time' ? formatTime(seconds) : formatMicroTime(seconds, nanos);
    }
    case 'duration': {
      const [, ns = 0] = readSmall(buf, start, end, ONE_INT64) as number[];
      return formatDuration(ns);
    }
    case 'quantity': {
      const [, s] = readSmall(buf, start, end, ONE_STRING);
      return typeof s === 'string' && s !== '' ? s : '0';
    }
    case 'intorstring': {
      const [, type = 0, intVal = 0, strVal = ''] = readSmall(buf, start, end, INT_OR_STRING);
      return type === 1 ? strVal : intVal;
    }
    case 'rawext':
    case 'rawjson': {
      const [, raw] = readSmall(buf, start, end, ONE_BYTES) as (Uint8Array | undefined)[];
      if (!raw || raw.length === 0) return undefined;
      if (info.special === 'rawext' && hasProtobufPrefix(raw)) return decodeProtobufObject(raw);
      return parseEmbeddedJson(raw, info.name);
    }
    case 'stringarray': {
      const [, items] = readSmall(buf, start, end, ONE_STRING);
      return items === undefined ? [] : Array.isArray(items) ? items : [items];
    }
    case 'schemaOrArray': {
      const o = decodeObject(buf, start, end, info);
      return Array.isArray(o.jSONSchemas) && o.jSONSchemas.length > 0 ? o.jSONSchemas : o.schema;
    }
    case 'schemaOrBool': {
      const o = decodeObject(buf, start, end, info);
      return o.schema !== undefined ? o.schema : o.allows === true;
    }
    case 'schemaOrStringArray': {
      const o = decodeObject(buf, start, end, info);
      return Array.isArray(o.property) && o.property.length > 0 ? o.property : o.schema;
    }
    default:
      return decodeObject(buf, start, end, info);
  }
}

export interface ProtobufEnvelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** Splits a protobuf body into its envelope parts without decoding the object. */
export function decodeProtobufEnvelope(bytes: Uint8Array): ProtobufEnvelope {
  if (!hasProtobufPrefix(bytes)) {
    throw new ProtobufError('body is not a Kubernetes protobuf object: it does not start with the expected prefix "k8s\\x00"');
  }
  const env: ProtobufEnvelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  try {
    const r = new Reader(bytes, 4);
    while (!r.done()) {
      const key = r.varint();
      switch (key) {
        case 0x0a: {
          const n = r.len();
          const tm = new Reader(bytes, r.pos, r.pos + n);
          while (!tm.done()) {
            const k = tm.varint();
            if (k === 0x0a) env.apiVersion = tm.string();
            else if (k === 0x12) env.kind = tm.string();
            else tm.skip(k & 7);
          }
          r.pos += n;
          break;
        }
        case 0x12:
          env.raw = r.bytes();
          break;
        case 0x1a:
          env.contentEncoding = r.string();
          break;
        case 0x22:
          env.contentType = r.string();
          break;
        default:
          r.skip(key & 7);
      }
    }
  } catch (err) {
    throw err instanceof ProtobufError ? err : new ProtobufError(`malformed protobuf envelope: ${(err as Error).message}`);
  }
  return env;
}

/** Decodes a message of the given type (no envelope) into its JSON shape, apiVersion/kind first. */
export function decodeProtobufRaw(apiVersion: string, kind: string, raw: Uint8Array): JsonObject {
  const info = requireMessage(apiVersion, kind);
  let body: JsonObject;
  try {
    body = decodeObject(raw, 0, raw.length, info);
  } catch (err) {
    throw err instanceof ProtobufError ? err : new ProtobufError(`malformed protobuf ${kind}: ${(err as Error).message}`);
  } finally {
    releaseUtf8View();
  }
  return { apiVersion, kind, ...body };
}

/** Decodes a complete protobuf body (prefix + envelope) into the object the JSON API would show. */
export function decodeProtobufObject(bytes: Uint8Array): JsonObject {
  const env = decodeProtobufEnvelope(bytes);
  if (env.contentEncoding !== '') throw new ProtobufError(`unsupported protobuf contentEncoding ${JSON.stringify(env.contentEncoding)}`);
  if (env.kind === '' || env.apiVersion === '') throw new ProtobufError('protobuf envelope has no apiVersion/kind');
  if (env.contentType !== '' && !/protobuf/.test(env.contentType)) {
    if (!/json/.test(env.contentType)) throw new ProtobufError(`unsupported protobuf contentType ${JSON.stringify(env.contentType)}`);
    const obj = parseEmbeddedJson(env.raw, env.kind);
    if (!isPlainObject(obj)) throw new ProtobufError('embedded JSON is not an object');
    return { apiVersion: env.apiVersion, kind: env.kind, ...obj };
  }
  return decodeProtobufRaw(env.apiVersion, env.kind, env.raw);
}

