// Benchmark child: the API server on a free port, memory store, quiet. Prints `URL <url>`.
import { startServer } from '../src/server/app.js';

const store = (process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'memory') as 'memory' | 'sqlite';
const server = await startServer({ port: 0, store, dataDir: process.argv[3], demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 });
// optional bulk seed straight into the store: `--seed-pods N` (stored bytes as the API stores them)
const seedAt = process.argv.indexOf('--seed-pods');
if (seedAt > 0) {
  const n = Number(process.argv[seedAt + 1]);
  const { benchPod } = await import('./lib/pods.js');
  const { encodeForStorage } = await import('../src/server/registry/resource-store.js');
  await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) });
  const batch: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const pod = benchPod(i);
    batch.push(server.store.create(`/registry/core/pods/bench/${(pod.metadata as { name: string }).name}`, encodeForStorage(pod)));
    if (batch.length >= 1000) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
}
process.stdout.write(`URL ${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
