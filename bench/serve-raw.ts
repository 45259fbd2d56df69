// Benchmark child: a raw node:http server answering with fixed bytes (the ceiling of a Node server here).
// argv: <get-body-file> <post-body-file>. Prints `URL <url>`.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const getBody = readFileSync(process.argv[2]!);
const postBody = readFileSync(process.argv[3]!);
const server = createServer((req, res) => {
  if (req.method === 'POST') {
    req.on('data', () => {});
    req.on('end', () => {
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': postBody.length });
      res.end(postBody);
    });
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': getBody.length });
  res.end(getBody);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address() as { port: number };
  process.stdout.write(`URL http://127.0.0.1:${a.port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
