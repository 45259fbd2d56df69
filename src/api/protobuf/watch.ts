// Protobuf watch streams (`application/vnd.service.protobuf;stream=watch`). Upstream frames each
// event as a 4-byte big-endian length followed by a *raw* metav1.WatchEvent message (the stream
// serializer adds no envelope); the event's object.raw holds the object as a full protobuf body
// (prefix + Unknown envelope).
import {
  type JsonObject, ProtobufError, decodeProtobufEnvelope, decodeProtobufObject, hasProtobufPrefix,
} from './codec.js';
import { Reader, Writer, utf8Decode, varintSize } from './wire.js';

/** Encodes the raw WatchEvent{type, object: RawExtension{raw}} message. */
export function encodeProtobufWatchEvent(type: string, objectBytes: Uint8Array): Uint8Array {
  const w = new Writer(objectBytes.length + type.length + 16);
  writeEvent(w, type, objectBytes);
  return w.finish();
}

function writeEvent(w: Writer, type: string, objectBytes: Uint8Array): void {
  w.varint(0x0a);
  w.string(type);
  w.varint(0x12);
  w.varint(1 + varintSize(objectBytes.length) + objectBytes.length);
  w.varint(0x0a);
  w.bytes(objectBytes);
}

/**
 * One frame of a protobuf watch stream: length prefix + WatchEvent whose object is
 * `objectBytesEnvelope` (as produced by encodeProtobufObject).
 */
export function encodeProtobufWatchFrame(type: string, objectBytesEnvelope: Uint8Array): Uint8Array {
  const w = new Writer(objectBytesEnvelope.length + type.length + 24);
  w.pos = 4;
  writeEvent(w, type, objectBytesEnvelope);
  const len = w.pos - 4;
  const out = w.finish();
  new DataView(out.buffer, out.byteOffset, 4).setUint32(0, len, false);
  return out;
}

export interface DecodedWatchEvent {
  type: string;
  object: JsonObject;
}

/**
 * Decodes one frame payload (without its length prefix) into {type, object}. Accepts the upstream
 * raw WatchEvent and, leniently, a WatchEvent wrapped in the envelope.
 */
export function decodeProtobufWatchEvent(frame: Uint8Array): DecodedWatchEvent {
  let msg = frame;
  if (hasProtobufPrefix(frame)) {
    const env = decodeProtobufEnvelope(frame);
    if (env.kind !== 'WatchEvent') throw new ProtobufError(`expected a WatchEvent, got ${env.kind}`);
    msg = env.raw;
  }
  let type = '';
  let raw: Uint8Array | undefined;
  const r = new Reader(msg);
  while (!r.done()) {
    const key = r.varint();
    if (key === 0x0a) type = r.string();
    else if (key === 0x12) {
      const n = r.len();
      const ext = new Reader(msg, r.pos, r.pos + n);
      while (!ext.done()) {
        const k = ext.varint();
        if (k === 0x0a) raw = ext.bytes();
        else ext.skip(k & 7);
      }
      r.pos += n;
    } else r.skip(key & 7);
  }
  if (!raw || raw.length === 0) throw new ProtobufError('watch event has no object');
  let object: JsonObject;
  if (hasProtobufPrefix(raw)) object = decodeProtobufObject(raw);
  else {
    try {
      object = JSON.parse(utf8Decode(raw, 0, raw.length)) as JsonObject;
    } catch {
      throw new ProtobufError('watch event object is neither protobuf nor JSON');
    }
  }
  return { type, object };
}

/** Splits a byte stream of length-delimited frames (4-byte big-endian length) into frame payloads. */
export class ProtobufFrameReader {
  private chunks: Uint8Array[] = [];
  private size = 0;

  constructor(private readonly maxFrameBytes = 64 << 20) {}

  /** Bytes received but not yet returned as frames. */
  get buffered(): number {
    return this.size;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /** The next complete frame payload, or undefined until more bytes arrive. */
  next(): Uint8Array | undefined {
    if (this.size < 4) return undefined;
    const head = this.peek(4);
    const len = ((head[0] << 24) | (head[1] << 16) | (head[2] << 8) | head[3]) >>> 0;
    if (len > this.maxFrameBytes) throw new ProtobufError(`watch frame of ${len} bytes exceeds the ${this.maxFrameBytes}-byte limit`);
    if (this.size < 4 + len) return undefined;
    this.take(4);
    return this.take(len);
  }

  /** Drains every complete frame currently buffered. */
  *frames(): Generator<Uint8Array> {
    for (let f = this.next(); f !== undefined; f = this.next()) yield f;
  }

  private peek(n: number): Uint8Array {
    const first = this.chunks[0];
    if (first.length >= n) return first.subarray(0, n);
    return this.copy(n, false);
  }

  private take(n: number): Uint8Array {
    const first = this.chunks[0];
    if (first && first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      this.size -= n;
      return out;
    }
    return this.copy(n, true);
  }

  private copy(n: number, consume: boolean): Uint8Array {
    const out = new Uint8Array(n);
    let o = 0;
    let i = 0;
    while (o < n) {
      const c = this.chunks[i];
      const k = Math.min(c.length, n - o);
      out.set(c.subarray(0, k), o);
      o += k;
      if (consume) {
        if (k === c.length) this.chunks.shift();
        else {
          this.chunks[0] = c.subarray(k);
          i = 0;
        }
      } else i++;
    }
    if (consume) this.size -= n;
    return out;
  }
}
