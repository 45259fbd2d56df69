// Streams a JSON collection item by item from per-object cached bytes: no giant string is built,
// and each object version is encoded once for every list and watch that serves it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGzip, gzipSync } from 'node:zlib';
import type { KubeObject } from '../registry/types.js';
import { cachedJsonLine } from '../watch/encode-cache.js';
import { warningHeaders } from './respond.js';

const GZIP_THRESHOLD = 128 * 1024;
const CHUNK = 64 * 1024;
/** Bodies up to this size are compressed in one call rather than streamed. */
const GZIP_SYNC_MAX = 8 * 1024 * 1024;

export async function streamJsonList(
  req: IncomingMessage,
  res: ServerResponse,
  head: { kind: string; apiVersion: string; metadata: Record<string, unknown> },
  items: KubeObject[],
  opts: { compression: boolean; warnings: string[] },
): Promise<void> {
  const prefix = Buffer.from(`{"kind":${JSON.stringify(head.kind)},"apiVersion":${JSON.stringify(head.apiVersion)},"metadata":${JSON.stringify(head.metadata)},"items":[`);
  const suffix = Buffer.from(']}\n');
  // each part is an item's JSON plus "\n": the newline's byte becomes the separating comma
  const parts: Buffer[] = new Array(items.length);
  let total = prefix.length + suffix.length - 1;
  for (let i = 0; i < items.length; i++) {
    const b = cachedJsonLine(items[i]!, head.apiVersion);
    parts[i] = b;
    total += b.length;
  }
  if (items.length === 0) total += 1;
  if (opts.warnings.length) res.setHeader('Warning', warningHeaders(opts.warnings));
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-cache, private');
  const gzip = opts.compression && total >= GZIP_THRESHOLD && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  let out: NodeJS.WritableStream = res;
  if (gzip && total <= GZIP_SYNC_MAX && req.method !== 'HEAD') {
    // one synchronous level-1 gzip (a few ms per MB): a gzip stream sends each 64 KiB chunk through
    // the thread pool and waits for its drain, which took seconds for a 1 MB page on a busy machine
    const whole = Buffer.allocUnsafe(total);
    let at = prefix.copy(whole, 0);
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) whole[at++] = 0x2c;
      at += parts[i]!.copy(whole, at, 0, parts[i]!.length - 1);
    }
    suffix.copy(whole, at);
    const gz = gzipSync(whole, { level: 1 });
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Content-Length', gz.length);
    res.writeHead(200);
    res.end(gz);
    return;
  }
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
  // items are copied into CHUNK-sized buffers (one write each), waiting for drain when the socket is full
  let chunk = Buffer.allocUnsafe(Math.max(CHUNK, prefix.length));
  let size = prefix.copy(chunk, 0);
  const flush = async () => {
    if (size === 0) return;
    const ok = out.write(size === chunk.length ? chunk : chunk.subarray(0, size));
    chunk = Buffer.allocUnsafe(CHUNK);
    size = 0;
    if (!ok && !res.destroyed)
      await new Promise<void>((r) => {
        const done = () => {
          out.removeListener('drain', done);
          res.removeListener('close', done);
          r();
        };
        out.once('drain', done);
        res.once('close', done);
      });
  };
  for (let i = 0; i < parts.length; i++) {
    if (res.destroyed) return;
    const b = parts[i]!;
    const len = b.length - 1; // without its newline
    const need = i > 0 ? len + 1 : len;
    if (size + need > chunk.length) {
      await flush();
      if (need > chunk.length) chunk = Buffer.allocUnsafe(need); // an item larger than a chunk
    }
    if (i > 0) chunk[size++] = 0x2c;
    size += b.copy(chunk, size, 0, len);
  }
  if (size + suffix.length > chunk.length) await flush();
  size += suffix.copy(chunk, size);
  await flush();
  out.end();
}
