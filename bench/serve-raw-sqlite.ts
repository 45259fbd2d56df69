// Benchmark child: the durable POST ceiling. A raw node:http server that inserts each request body
// into SQLite with better-sqlite3 under the store's durability settings (WAL, synchronous=NORMAL,
// exclusive locking), one commit per request, and answers with fixed bytes after the commit.
// argv: <data-dir> <post-body-file>. Prints `URL <url>`.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const db = new Database(join(process.argv[2]!, 'raw.db'));
db.pragma('locking_mode = EXCLUSIVE');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS objects (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value BLOB NOT NULL)');
const insert = db.prepare('INSERT INTO objects (key, value) VALUES (?, ?)');
const postBody = readFileSync(process.argv[3]!);
let n = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    insert.run(`/registry/core/configmaps/bench/raw-${n++}`, Buffer.concat(chunks)); // autocommit: one transaction
    res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': postBody.length });
    res.end(postBody);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address() as { port: number };
  process.stdout.write(`URL http://127.0.0.1:${a.port}\n`);
});
process.on('SIGTERM', () => {
  db.close();
  process.exit(0);
});
