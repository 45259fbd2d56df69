// Benchmark child (ceiling): a raw node:http server that JSON.stringify's the same objects per request
// and fans watch events out to every open connection. Prints `URL <url>`.
import { createServer, type ServerResponse } from 'node:http';
import { defaultWatchSettings } from '../src/server/http/rest/watch.js';
import { benchPod } from './lib/pods.js';

/**
 * Fan-out with the API server's batching, best case: the events of one turn (or of the coalescing
 * window after the last batch) are joined once, as one ready-framed HTTP chunk, and that one Buffer is
 * written straight to every connection (no backpressure bookkeeping, no selectors, no bounds).
 */
const COALESCE_MS = Number(process.env.BENCH_WATCH_COALESCE_MS ?? defaultWatchSettings.coalesceMs);
let batch: Buffer[] = [];
let scheduled = false;
let lastBatch = -Infinity;
function sendBatch(): void {
  scheduled = false;
  lastBatch = performance.now();
  let size = 0;
  for (const b of batch) size += b.length;
  const chunk = Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), ...batch, Buffer.from('\r\n')]);
  batch = [];
  for (const w of watchers) w.socket!.write(chunk);
}
function fanOut(line: Buffer): void {
  batch.push(line);
  if (scheduled) return;
  scheduled = true;
  const wait = lastBatch + COALESCE_MS - performance.now();
  if (wait <= 0) setImmediate(sendBatch);
  else setTimeout(sendBatch, wait);
}

const n = Number(process.argv[2] ?? 10000);
const items = Array.from({ length: n }, (_, i) => benchPod(i));
const watchers = new Set<ServerResponse>();
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.searchParams.get('watch')) {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    watchers.add(res);
    res.on('close', () => watchers.delete(res));
    return;
  }
  if (req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const obj = JSON.parse(Buffer.concat(chunks).toString());
      const line = Buffer.from(JSON.stringify({ type: 'ADDED', object: obj }) + '\n');
      fanOut(line);
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(obj));
    });
    return;
  }
  const limit = Number(url.searchParams.get('limit') ?? 0);
  const slice = limit > 0 ? items.slice(0, limit) : items;
  const body = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: slice });
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`URL http://127.0.0.1:${(server.address() as { port: number }).port}\n`));
process.on('SIGTERM', () => process.exit(0));
