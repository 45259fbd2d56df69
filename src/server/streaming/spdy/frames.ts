// SPDY/3.1 frames as kubectl's spdystream speaks them (moby/spdystream spdy/types.go; big-endian): control
// frames `1|version 3|type u16|flags u8|length u24`, data frames `0|stream id 31|flags u8|length u24`.
// No maintained SPDY library runs on Node 20 for raw streams, so this is our own codec, fuzzed
// (test/streaming/spdy-fuzz.test.ts). The decoder holds at most one frame (bounded) and throws
// SpdyProtocolError on anything malformed.
import { constants, createInflate, type Inflate } from 'node:zlib';
import { SPDY3_DICTIONARY } from './dictionary.js';

export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;

export const FrameType = { SynStream: 1, SynReply: 2, RstStream: 3, Settings: 4, Ping: 6, GoAway: 7, Headers: 8, WindowUpdate: 9 } as const;
type FrameTypeId = (typeof FrameType)[keyof typeof FrameType];

export const RST_PROTOCOL_ERROR = 1;
export const RST_REFUSED_STREAM = 3;
export const RST_CANCEL = 5;
export const RST_INTERNAL_ERROR = 6;

export type Frame =
  | { type: 'data'; streamId: number; flags: number; data: Buffer }
  | { type: 'syn_stream'; streamId: number; associatedId: number; priority: number; flags: number; headerBlock: Buffer }
  | { type: 'syn_reply'; streamId: number; flags: number; headerBlock: Buffer }
  | { type: 'headers'; streamId: number; flags: number; headerBlock: Buffer }
  | { type: 'rst_stream'; streamId: number; status: number }
  | { type: 'settings'; flags: number }
  | { type: 'ping'; id: number }
  | { type: 'goaway'; lastGoodStreamId: number; status: number }
  | { type: 'window_update'; streamId: number; delta: number }
  | { type: 'unknown'; frameType: number };

export class SpdyProtocolError extends Error {}

/** Largest frame payload accepted (kubectl writes at most 32 KiB of data per frame). */
export const MAX_FRAME_PAYLOAD = 1 << 20;

const HEADER = 8;

/** Incremental decoder: push bytes, get whole frames. */
export class FrameDecoder {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly maxPayload = MAX_FRAME_PAYLOAD) {}

  /** Bytes held, waiting for the rest of a frame (never more than one frame). */
  get buffered(): number {
    return this.buf.length;
  }

  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Frame[] = [];
    let off = 0;
    while (this.buf.length - off >= HEADER) {
      const len = this.buf.readUIntBE(off + 5, 3);
      if (len > this.maxPayload) throw new SpdyProtocolError(`frame of ${len} bytes exceeds the limit of ${this.maxPayload}`);
      if (this.buf.length - off < HEADER + len) break;
      out.push(decodeFrame(this.buf.subarray(off, off + HEADER + len)));
      off += HEADER + len;
    }
    this.buf = off === this.buf.length ? Buffer.alloc(0) : Buffer.from(this.buf.subarray(off));
    return out;
  }
}

function need(p: Buffer, n: number, what: string): void {
  if (p.length < n) throw new SpdyProtocolError(`${what} frame too short (${p.length} bytes)`);
}

/** Decodes one whole frame (header included). */
export function decodeFrame(f: Buffer): Frame {
  const first = f.readUInt32BE(0);
  const flags = f[4]!;
  const p = f.subarray(HEADER);
  if ((first & 0x80000000) === 0) return { type: 'data', streamId: first & 0x7fffffff, flags, data: p };
  const version = (first >>> 16) & 0x7fff;
  if (version !== 3) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
  const type = first & 0xffff;
  switch (type) {
    case FrameType.SynStream:
      need(p, 10, 'SYN_STREAM');
      return { type: 'syn_stream', streamId: p.readUInt32BE(0) & 0x7fffffff, associatedId: p.readUInt32BE(4) & 0x7fffffff, priority: p[8]! >> 5, flags, headerBlock: p.subarray(10) };
    case FrameType.SynReply:
      need(p, 4, 'SYN_REPLY');
      return { type: 'syn_reply', streamId: p.readUInt32BE(0) & 0x7fffffff, flags, headerBlock: p.subarray(4) };
    case FrameType.Headers:
      need(p, 4, 'HEADERS');
      return { type: 'headers', streamId: p.readUInt32BE(0) & 0x7fffffff, flags, headerBlock: p.subarray(4) };
    case FrameType.RstStream:
      need(p, 8, 'RST_STREAM');
      return { type: 'rst_stream', streamId: p.readUInt32BE(0) & 0x7fffffff, status: p.readUInt32BE(4) };
    case FrameType.Settings:
      need(p, 4, 'SETTINGS');
      if (p.length !== 4 + 8 * p.readUInt32BE(0)) throw new SpdyProtocolError('SETTINGS frame length does not match its entries');
      return { type: 'settings', flags };
    case FrameType.Ping:
      need(p, 4, 'PING');
      return { type: 'ping', id: p.readUInt32BE(0) };
    case FrameType.GoAway:
      need(p, 8, 'GOAWAY');
      return { type: 'goaway', lastGoodStreamId: p.readUInt32BE(0) & 0x7fffffff, status: p.readUInt32BE(4) };
    case FrameType.WindowUpdate:
      need(p, 8, 'WINDOW_UPDATE');
      return { type: 'window_update', streamId: p.readUInt32BE(0) & 0x7fffffff, delta: p.readUInt32BE(4) & 0x7fffffff };
    default:
      return { type: 'unknown', frameType: type };
  }
}

function control(type: FrameTypeId, flags: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(HEADER);
  h.writeUInt32BE((0x8000 | 3) * 0x10000 + type, 0);
  h[4] = flags;
  h.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([h, payload]);
}

export function encodeData(streamId: number, flags: number, data: Buffer): Buffer {
  const h = Buffer.alloc(HEADER);
  h.writeUInt32BE(streamId & 0x7fffffff, 0);
  h[4] = flags;
  h.writeUIntBE(data.length, 5, 3);
  return data.length ? Buffer.concat([h, data]) : h;
}

export function encodeSynStream(streamId: number, associatedId: number, priority: number, flags: number, headerBlock: Buffer): Buffer {
  const p = Buffer.alloc(10);
  p.writeUInt32BE(streamId & 0x7fffffff, 0);
  p.writeUInt32BE(associatedId & 0x7fffffff, 4);
  p[8] = (priority & 7) << 5;
  return control(FrameType.SynStream, flags, Buffer.concat([p, headerBlock]));
}

export function encodeSynReply(streamId: number, flags: number, headerBlock: Buffer): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt32BE(streamId & 0x7fffffff, 0);
  return control(FrameType.SynReply, flags, Buffer.concat([p, headerBlock]));
}

export function encodeRstStream(streamId: number, status: number): Buffer {
  const p = Buffer.alloc(8);
  p.writeUInt32BE(streamId & 0x7fffffff, 0);
  p.writeUInt32BE(status, 4);
  return control(FrameType.RstStream, 0, p);
}

export function encodePing(id: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt32BE(id >>> 0, 0);
  return control(FrameType.Ping, 0, p);
}

export function encodeGoAway(lastGoodStreamId: number, status: number): Buffer {
  const p = Buffer.alloc(8);
  p.writeUInt32BE(lastGoodStreamId & 0x7fffffff, 0);
  p.writeUInt32BE(status, 4);
  return control(FrameType.GoAway, 0, p);
}

export type HeaderMap = Map<string, string[]>;

/** Most name/value pairs read from one header block. */
const MAX_HEADER_PAIRS = 256;

/** Uncompressed header block: u32 count, then (u32 length, name, u32 length, values joined by NUL). */
export function encodeHeaderBlock(h: HeaderMap): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n, 0);
    return b;
  };
  parts.push(u32(h.size));
  for (const [k, vs] of h) {
    const name = Buffer.from(k.toLowerCase());
    const value = Buffer.from(vs.join('\0'));
    parts.push(u32(name.length), name, u32(value.length), value);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(b: Buffer): HeaderMap {
  const h: HeaderMap = new Map();
  if (b.length < 4) throw new SpdyProtocolError('header block too short');
  const n = b.readUInt32BE(0);
  if (n > MAX_HEADER_PAIRS) throw new SpdyProtocolError(`too many headers (${n})`);
  let off = 4;
  const str = () => {
    if (off + 4 > b.length) throw new SpdyProtocolError('truncated header block');
    const len = b.readUInt32BE(off);
    off += 4;
    if (off + len > b.length) throw new SpdyProtocolError('truncated header block');
    const s = b.subarray(off, off + len).toString('latin1');
    off += len;
    return s;
  };
  for (let i = 0; i < n; i++) {
    const name = str();
    const value = str();
    if (name === '') throw new SpdyProtocolError('empty header name');
    h.set(name.toLowerCase(), [...(h.get(name.toLowerCase()) ?? []), ...value.split('\0')]);
  }
  return h;
}

/**
 * The sending side's zlib stream of header blocks. Every block is written as stored (uncompressed) deflate
 * blocks: a valid zlib stream with the SPDY dictionary announced, byte-aligned after each header block as a
 * sync flush leaves it, and synchronous. Header blocks are small; their size is not worth a compressor.
 */
export class HeaderCompressor {
  private started = false;

  compress(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      this.started = true;
      const cmf = 0x78;
      let flg = 0x20; // FDICT
      flg += 31 - ((cmf * 256 + flg) % 31);
      const head = Buffer.alloc(6);
      head[0] = cmf;
      head[1] = flg;
      head.writeUInt32BE(adler32(SPDY3_DICTIONARY), 2);
      parts.push(head);
    }
    for (let off = 0; off < block.length; off += 0xffff) {
      const piece = block.subarray(off, Math.min(block.length, off + 0xffff));
      const h = Buffer.alloc(5);
      h[0] = 0; // BFINAL 0, BTYPE 00 (stored)
      h.writeUInt16LE(piece.length, 1);
      h.writeUInt16LE(~piece.length & 0xffff, 3);
      parts.push(h, piece);
    }
    // an empty stored block ends every header block, as a sync flush does: Go's flate reader hands out a
    // block's data only once it has read the next block's header, and must not read past this frame for it
    parts.push(SYNC_MARK);
    return Buffer.concat(parts);
  }
}

const SYNC_MARK = Buffer.from([0, 0, 0, 0xff, 0xff]);

export function adler32(b: Buffer): number {
  let a = 1;
  let s = 0;
  for (let i = 0; i < b.length; i++) {
    a = (a + b[i]!) % 65521;
    s = (s + a) % 65521;
  }
  return ((s << 16) | a) >>> 0;
}

/** Largest decompressed header block accepted. */
const MAX_HEADER_BLOCK = 64 * 1024;

/** The receiving side's zlib stream: one inflater over all header blocks, flushed per block. */
export class HeaderDecompressor {
  private readonly inflater: Inflate = createInflate({ dictionary: SPDY3_DICTIONARY });
  private out: Buffer[] = [];
  private size = 0;
  private failed?: Error;

  constructor() {
    this.inflater.on('data', (c: Buffer) => {
      this.size += c.length;
      if (this.size <= MAX_HEADER_BLOCK) this.out.push(c);
    });
    this.inflater.on('error', (e) => (this.failed = e));
  }

  decompress(block: Buffer): Promise<Buffer> {
    if (this.failed) return Promise.reject(new SpdyProtocolError(`header decompression failed: ${this.failed.message}`));
    return new Promise((resolve, reject) => {
      this.inflater.write(block);
      this.inflater.flush(constants.Z_SYNC_FLUSH, () => {
        const size = this.size;
        const data = Buffer.concat(this.out);
        this.out = [];
        this.size = 0;
        if (this.failed) reject(new SpdyProtocolError(`header decompression failed: ${this.failed.message}`));
        else if (size > MAX_HEADER_BLOCK) reject(new SpdyProtocolError(`header block larger than ${MAX_HEADER_BLOCK} bytes`));
        else resolve(data);
      });
    });
  }

  close(): void {
    this.inflater.destroy();
  }
}
