// Benchmark child: the API server on a free port, memory store, quiet. Prints `URL <url>`.
import { startServer } from '../src/server/app.js';

const store = (process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'memory') as 'memory' | 'sqlite';
// BENCH_WATCH_COALESCE_MS: the watch batching window to measure (default: the server's)
const coalesce = process.env.BENCH_WATCH_COALESCE_MS;
const server = await startServer({ port: 0, store, dataDir: process.argv[3], demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 }, coalesce ? { watch: { coalesceMs: Number(coalesce) } } : {});
// optional bulk seed straight into the store: `--seed-pods N` (stored bytes as the API stores them)
const seedAt = process.argv.indexOf('--seed-pods');
if (seedAt > 0) {
  const n = Number(process.argv[seedAt + 1]);
  const { benchPod } = await import('./lib/pods.js');
  const { encodeForStorage } = await import('../src/server/registry/resource-store.js');
  await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) });
  // the pods' owner exists, so the garbage collector leaves them alone
  await server.store.create(
    '/registry/apps/replicasets/bench/web-7d9f8c6b5',
    encodeForStorage({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-7d9f8c6b5', namespace: 'bench', uid: '5f0c1f7e-0000-4000-8000-000000000001', creationTimestamp: '2026-11-01T10:00:00Z', generation: 1 },
      spec: { replicas: n, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web' }] } } },
    }),
  );
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
