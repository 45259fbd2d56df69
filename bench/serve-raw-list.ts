// Benchmark child (ceiling): a raw node:http server that JSON.stringify's the same objects per request
// and fans watch events out to every open connection. Prints `URL <url>`.
import { createServer, type ServerResponse } from 'node:http';
import { benchPod } from './lib/pods.js';

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
      for (const w of watchers) w.write(line);
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
