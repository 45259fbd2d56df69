// Streams a JSON collection item by item from per-object cached bytes: no giant string is built,
// and each object version is encoded once for every list and watch that serves it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGzip, gzipSync } from 'node:zlib';
import type { KubeObject } from '../registry/types.js';
import { cachedJson } from '../watch/encode-cache.js';
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
  const comma = Buffer.from(',');
  const parts: Buffer[] = new Array(items.length);
  let total = prefix.length + suffix.length + Math.max(0, items.length - 1);
  for (let i = 0; i < items.length; i++) {
    const b = cachedJson(items[i]!, head.apiVersion);
    parts[i] = b;
    total += b.length;
  }
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
      at += parts[i]!.copy(whole, at);
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
  let batch: Buffer[] = [prefix];
  let size = prefix.length;
  const flush = async () => {
    if (batch.length === 0) return;
    const ok = out.write(batch.length === 1 ? batch[0]! : Buffer.concat(batch, size));
    batch = [];
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
    if (i > 0) {
      batch.push(comma);
      size += 1;
    }
    batch.push(parts[i]!);
    size += parts[i]!.length;
    if (size >= CHUNK) await flush();
  }
  batch.push(suffix);
  size += suffix.length;
  await flush();
  out.end();
}
