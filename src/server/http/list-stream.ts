// Streams a JSON collection (a list's items, a Table's rows) from per-object cached bytes: no giant
// string is built, and each object version is encoded once for every list and watch that serves it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGzip, gzipSync } from 'node:zlib';
import type { KubeObject } from '../registry/types.js';
import { cachedJsonLine } from '../watch/encode-cache.js';
import { warningHeaders } from './respond.js';

/** Upstream compresses responses larger than this (responsewriters: defaultGzipThresholdBytes). */
const GZIP_THRESHOLD = 128 * 1024;
const CHUNK = 64 * 1024;
/** Bodies up to this size are compressed in one call rather than streamed. */
const GZIP_SYNC_MAX = 8 * 1024 * 1024;

export interface StreamOptions {
  compression: boolean;
  warnings: string[];
  contentType?: string;
}

/**
 * Written 64 KiB chunks come back here once the socket (or gzip) has taken their bytes, for the next
 * list: a 100k-item list otherwise left ~250 MB of freed chunks to the allocator per request.
 */
const spare: Buffer[] = [];
const SPARE_MAX = 64;

function takeChunk(size: number): Buffer {
  return size === CHUNK && spare.length > 0 ? spare.pop()! : Buffer.allocUnsafe(size);
}

function giveBack(b: Buffer): void {
  if (b.length === CHUNK && spare.length < SPARE_MAX) spare.push(b);
}

/** Bytes copied into fixed-size buffers; full ones wait in `ready` for the next write. */
class Chunks {
  private chunk: Buffer;
  private size = 0;
  readonly ready: Buffer[] = [];

  constructor(private readonly chunkSize: number) {
    this.chunk = takeChunk(chunkSize);
  }

  /** Copies b[0, len). */
  bytes(b: Buffer, len = b.length): void {
    let from = 0;
    while (from < len) {
      if (this.size === this.chunkSize) this.cut();
      const n = Math.min(len - from, this.chunkSize - this.size);
      b.copy(this.chunk, this.size, from, from + n);
      this.size += n;
      from += n;
    }
  }

  byte(v: number): void {
    if (this.size === this.chunkSize) this.cut();
    this.chunk[this.size++] = v;
  }

  text(s: string): void {
    this.bytes(Buffer.from(s));
  }

  /** Gives the unused current chunk back (the document is complete). */
  release(): void {
    if (this.size === 0) giveBack(this.chunk);
  }

  /** Moves what is buffered to `ready`. */
  cut(): void {
    if (this.size === 0) return;
    this.ready.push(this.size === this.chunkSize ? this.chunk : this.chunk.subarray(0, this.size));
    this.chunk = takeChunk(this.chunkSize);
    this.size = 0;
  }
}

/**
 * Writes a JSON document of exactly `total` bytes that `fill` produces piece by piece (calling
 * `pace` between items so full chunks go out, waiting for the socket to drain): Content-Length when
 * not compressed; gzip (level 1) when allowed, accepted and past 128 KiB, in one call up to 8 MiB.
 */
async function sendDocument(
  req: IncomingMessage,
  res: ServerResponse,
  total: number,
  opts: StreamOptions,
  fill: (c: Chunks, pace: () => Promise<boolean>) => Promise<void>,
): Promise<void> {
  if (opts.warnings.length) res.setHeader('Warning', warningHeaders(opts.warnings));
  res.setHeader('Content-Type', opts.contentType ?? 'application/json');
  res.setHeader('Cache-Control', 'no-cache, private');
  const gzip = opts.compression && total >= GZIP_THRESHOLD && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  if (gzip && total <= GZIP_SYNC_MAX && req.method !== 'HEAD') {
    // one synchronous level-1 gzip (a few ms per MB): a gzip stream sends each 64 KiB chunk through
    // the thread pool and waits for its drain, which took seconds for a 1 MB page on a busy machine
    const whole = new Chunks(total);
    await fill(whole, async () => true);
    whole.cut();
    const gz = gzipSync(whole.ready[0] ?? Buffer.alloc(0), { level: 1 });
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Content-Length', gz.length);
    res.writeHead(200);
    res.end(gz);
    return;
  }
  let out: NodeJS.WritableStream = res;
  if (gzip) {
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
    res.writeHead(200);
    const z = createGzip({ level: 1 });
    z.pipe(res);
    out = z;
  } else {
    res.setHeader('Content-Length', total);
    res.writeHead(200);
  }
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const c = new Chunks(CHUNK);
  // writes the full chunks; false once the client is gone
  const pace = async (): Promise<boolean> => {
    if (res.destroyed) return false;
    for (const b of c.ready.splice(0)) {
      // a full chunk is reused once written (the callback: its bytes are handed on)
      if (out.write(b, b.length === CHUNK ? () => giveBack(b) : undefined) || res.destroyed) continue;
      await new Promise<void>((r) => {
        const done = () => {
          out.removeListener('drain', done);
          res.removeListener('close', done);
          r();
        };
        out.once('drain', done);
        res.once('close', done);
      });
    }
    return !res.destroyed;
  };
  await fill(c, pace);
  c.cut();
  c.release();
  if (!(await pace())) return;
  out.end();
}

export async function streamJsonList(
  req: IncomingMessage,
  res: ServerResponse,
  head: { kind: string; apiVersion: string; metadata: Record<string, unknown> },
  items: KubeObject[],
  opts: StreamOptions,
): Promise<void> {
  const prefix = Buffer.from(`{"kind":${JSON.stringify(head.kind)},"apiVersion":${JSON.stringify(head.apiVersion)},"metadata":${JSON.stringify(head.metadata)},"items":[`);
  // each part is an item's JSON plus "\n": the newline's byte becomes the separating comma
  const parts: Buffer[] = new Array(items.length);
  let total = prefix.length + SUFFIX.length - (items.length > 0 ? 1 : 0);
  for (let i = 0; i < items.length; i++) {
    const b = cachedJsonLine(items[i]!, head.apiVersion);
    parts[i] = b;
    total += b.length;
  }
  await sendDocument(req, res, total, opts, async (c, pace) => {
    c.bytes(prefix);
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) c.byte(0x2c);
      c.bytes(parts[i]!, parts[i]!.length - 1);
      if (c.ready.length > 0 && !(await pace())) return;
    }
    c.bytes(SUFFIX);
  });
}

const SUFFIX = Buffer.from(']}\n');

/** A Table row as pieces: bytes, or strings encoded per request (cells that read the clock). */
export type RowPieces = (Buffer | string)[];

/**
 * Streams a meta/v1 Table (kind, apiVersion, metadata, columnDefinitions, rows: the order
 * JSON.stringify of toTable writes) from rows given as pieces.
 */
export async function streamJsonTable(
  req: IncomingMessage,
  res: ServerResponse,
  head: { apiVersion: string; metadata: Record<string, unknown>; columnDefinitions: unknown[] },
  rows: RowPieces[],
  opts: StreamOptions,
): Promise<void> {
  const prefix = Buffer.from(
    `{"kind":"Table","apiVersion":${JSON.stringify(head.apiVersion)},"metadata":${JSON.stringify(head.metadata)},"columnDefinitions":${JSON.stringify(head.columnDefinitions)},"rows":[`,
  );
  let total = prefix.length + SUFFIX.length + Math.max(0, rows.length - 1);
  for (const row of rows) for (const p of row) total += typeof p === 'string' ? Buffer.byteLength(p) : p.length;
  await sendDocument(req, res, total, opts, async (c, pace) => {
    c.bytes(prefix);
    for (let i = 0; i < rows.length; i++) {
      if (i > 0) c.byte(0x2c);
      for (const p of rows[i]!) if (typeof p === 'string') c.text(p);
      else c.bytes(p);
      if (c.ready.length > 0 && !(await pace())) return;
    }
    c.bytes(SUFFIX);
  });
}
