// The server end of a SPDY/3.1 connection as spdystream speaks it: the client opens every stream
// (SYN_STREAM, odd ids) and we accept each with an empty SYN_REPLY; data frames carry the bytes, an empty
// frame with FIN half-closes, RST_STREAM resets. Pings from the client are echoed. No flow control
// (spdystream never sends WINDOW_UPDATE and ignores it). Frames are handled one at a time (header blocks
// are inflated asynchronously); at most a few frames wait, or the socket is paused.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { PassThrough } from 'node:stream';
import {
  decodeHeaderBlock,
  encodeData,
  encodeGoAway,
  encodeHeaderBlock,
  encodePing,
  encodeRstStream,
  encodeSynReply,
  FLAG_FIN,
  FrameDecoder,
  HeaderCompressor,
  HeaderDecompressor,
  RST_PROTOCOL_ERROR,
  SpdyProtocolError,
  type Frame,
  type HeaderMap,
} from './frames.js';

/** Largest data frame we send (spdystream reads any size; kubectl itself writes 32 KiB). */
const MAX_DATA_FRAME = 32 * 1024;
/** Frames waiting to be handled before the socket is paused. */
const MAX_QUEUED = 64;
/** Bytes a stream's reader may hold before the socket is paused. */
const STREAM_HIGH_WATER = 256 * 1024;

export class SpdyStream extends EventEmitter {
  /** What the client sent on this stream (read it as a stream; it ends on the client's FIN). */
  readonly readable = new PassThrough({ highWaterMark: STREAM_HIGH_WATER });
  localEnded = false;
  remoteEnded = false;
  wasReset = false;

  constructor(
    readonly id: number,
    readonly headers: HeaderMap,
    private readonly conn: SpdyConnection,
  ) {
    super();
  }

  header(name: string): string | undefined {
    return this.headers.get(name)?.[0];
  }

  /** Accepts the stream (an empty SYN_REPLY). */
  reply(): void {
    this.conn.send(encodeSynReply(this.id, 0, this.conn.compressHeaders(new Map())));
  }

  async write(data: Buffer | string): Promise<void> {
    if (this.localEnded || this.wasReset) return;
    const b = typeof data === 'string' ? Buffer.from(data) : data;
    for (let off = 0; off < b.length; off += MAX_DATA_FRAME) await this.conn.sendAsync(encodeData(this.id, 0, b.subarray(off, off + MAX_DATA_FRAME)));
  }

  /** Half-closes our side: an empty data frame with FIN. */
  end(): void {
    if (this.localEnded || this.wasReset) return;
    this.localEnded = true;
    this.conn.send(encodeData(this.id, FLAG_FIN, Buffer.alloc(0)));
    this.conn.maybeForget(this);
  }

  reset(status: number): void {
    if (this.wasReset) return;
    this.wasReset = true;
    this.conn.send(encodeRstStream(this.id, status));
    this.remoteGone();
  }

  /** @internal */
  remoteData(data: Buffer, fin: boolean): boolean {
    let ok = true;
    if (data.length && !this.remoteEnded) ok = this.readable.write(data);
    if (fin) this.remoteFin();
    return ok;
  }

  /** @internal */
  remoteFin(): void {
    if (this.remoteEnded) return;
    this.remoteEnded = true;
    this.readable.end();
    this.emit('remote-end');
    this.conn.maybeForget(this);
  }

  /** @internal the client reset the stream, or the connection is gone */
  remoteGone(): void {
    this.wasReset = true;
    this.localEnded = true;
    if (!this.remoteEnded) {
      this.remoteEnded = true;
      this.readable.end();
    }
    this.emit('reset');
    this.conn.maybeForget(this);
  }
}

export interface SpdyConnectionOptions {
  onStream?(stream: SpdyStream): void;
  /** Connection idle past this (no stream opened, no data either way) is closed; 0 = never. */
  idleTimeoutMs: number;
  log?(line: string): void;
}

export class SpdyConnection extends EventEmitter {
  private readonly decoder = new FrameDecoder();
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly streams = new Map<number, SpdyStream>();
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  private lastStreamId = 0;
  private idleTimer?: NodeJS.Timeout;
  closed = false;

  constructor(
    private readonly socket: Duplex,
    private readonly opts: SpdyConnectionOptions,
  ) {
    super();
    socket.on('data', (chunk: Buffer) => this.onBytes(chunk));
    socket.on('error', () => this.destroy());
    socket.on('close', () => this.destroy());
    socket.on('end', () => this.destroy());
    this.touch();
  }

  /** Who receives the streams the client opens. */
  setStreamHandler(fn: (s: SpdyStream) => void): void {
    this.opts.onStream = fn;
  }

  /** Feeds bytes read before the connection took the socket over (the upgrade's head). */
  feed(head: Buffer): void {
    if (head.length) this.onBytes(head);
  }

  private touch(): void {
    if (!this.opts.idleTimeoutMs) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), this.opts.idleTimeoutMs);
    this.idleTimer.unref?.();
  }

  private onBytes(chunk: Buffer): void {
    if (this.closed) return;
    let frames: Frame[];
    try {
      frames = this.decoder.push(chunk);
    } catch (e) {
      this.fail(e);
      return;
    }
    for (const f of frames) {
      this.queued++;
      if (this.queued > MAX_QUEUED) this.socket.pause();
      this.chain = this.chain
        .then(() => (this.closed ? undefined : this.handle(f)))
        .catch((e) => this.fail(e))
        .finally(() => {
          this.queued--;
          if (this.queued <= MAX_QUEUED / 2 && !this.closed) this.socket.resume();
        });
    }
  }

  private fail(e: unknown): void {
    if (this.closed) return;
    this.opts.log?.(`spdy: ${(e as Error).message}`);
    if (e instanceof SpdyProtocolError) this.send(encodeGoAway(this.lastStreamId, RST_PROTOCOL_ERROR));
    this.destroy();
  }

  private async handle(f: Frame): Promise<void> {
    switch (f.type) {
      case 'syn_stream': {
        const block = await this.decompressor.decompress(f.headerBlock);
        const headers = decodeHeaderBlock(block);
        if (f.streamId % 2 === 0 || f.streamId <= this.lastStreamId) {
          this.send(encodeRstStream(f.streamId, RST_PROTOCOL_ERROR));
          return;
        }
        this.lastStreamId = f.streamId;
        const s = new SpdyStream(f.streamId, headers, this);
        this.streams.set(f.streamId, s);
        this.touch();
        if (this.opts.onStream) this.opts.onStream(s);
        else s.reset(RST_PROTOCOL_ERROR);
        if (f.flags & FLAG_FIN) s.remoteFin();
        return;
      }
      case 'headers':
      case 'syn_reply':
        // a header block still advances the shared zlib stream
        await this.decompressor.decompress(f.headerBlock);
        return;
      case 'data': {
        const s = this.streams.get(f.streamId);
        if (!s) return; // data for a stream we reset or never saw: dropped (spdystream does the same)
        this.touch();
        if (!s.remoteData(f.data, (f.flags & FLAG_FIN) !== 0)) {
          this.socket.pause();
          s.readable.once('drain', () => !this.closed && this.socket.resume());
        }
        return;
      }
      case 'rst_stream':
        this.streams.get(f.streamId)?.remoteGone();
        return;
      case 'ping':
        // echo the client's pings (odd ids); ours would be even and we send none
        if (f.id % 2 === 1) this.send(encodePing(f.id));
        return;
      case 'goaway':
        this.close();
        return;
      default:
        return; // SETTINGS, WINDOW_UPDATE, unknown types: ignored as spdystream does
    }
  }

  /** @internal */
  compressHeaders(h: HeaderMap): Buffer {
    return this.compressor.compress(encodeHeaderBlock(h));
  }

  /** @internal */
  send(b: Buffer): boolean {
    if (this.closed || this.socket.destroyed) return false;
    return this.socket.write(b);
  }

  /** @internal writes, resolving once the socket takes more (backpressure for stream writers) */
  sendAsync(b: Buffer): Promise<void> {
    if (this.closed || this.socket.destroyed) return Promise.resolve();
    this.touch();
    if (this.socket.write(b)) return Promise.resolve();
    return new Promise((r) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        r();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  /** @internal */
  maybeForget(s: SpdyStream): void {
    if ((s.localEnded && s.remoteEnded) || s.wasReset) this.streams.delete(s.id);
  }

  /** Ends the connection politely: GOAWAY, then the socket. */
  close(): void {
    if (this.closed) return;
    this.send(encodeGoAway(this.lastStreamId, 0));
    this.socket.end();
    this.destroy();
  }

  private destroy(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.decompressor.close();
    for (const s of [...this.streams.values()]) s.remoteGone();
    this.streams.clear();
    if (!this.socket.writableEnded) this.socket.destroy();
    else setTimeout(() => this.socket.destroy(), 1000).unref();
    this.emit('close');
  }
}
