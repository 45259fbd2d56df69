// Benchmark helper: fills a SQLite store directly (stored bytes as the API stores them) with the
// bench namespace, its ReplicaSet and N pods, or N small configmaps. Usage: seed-sqlite.ts <dir> <pods|configmaps> <n>
import { SqliteStore } from '../src/server/storage/sqlite.js';
import { encodeForStorage } from '../src/server/registry/resource-store.js';
import { benchPod } from './lib/pods.js';

const [dir, kind, count] = [process.argv[2]!, process.argv[3]!, Number(process.argv[4])];
const store = new SqliteStore(dir);
await store.open();
const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), uid: `00000000-0000-4000-8000-${String(name.length).padStart(12, '0')}`, creationTimestamp: '2026-11-01T10:00:00Z' });
await store.create('/registry/core/namespaces/bench', encodeForStorage({ apiVersion: 'v1', kind: 'Namespace', metadata: meta('bench'), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }));
await store.create(
  '/registry/apps/replicasets/bench/web-7d9f8c6b5',
  encodeForStorage({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { ...meta('web-7d9f8c6b5', 'bench'), uid: '5f0c1f7e-0000-4000-8000-000000000001', generation: 1 },
    spec: { replicas: count, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web' }] } } },
  }),
);
let batch: Promise<unknown>[] = [];
for (let i = 0; i < count; i++) {
  if (kind === 'pods') {
    const pod = benchPod(i);
    batch.push(store.create(`/registry/core/pods/bench/${(pod.metadata as { name: string }).name}`, encodeForStorage(pod)));
  } else {
    const name = `cm-${String(i).padStart(7, '0')}`;
    batch.push(store.create(`/registry/core/configmaps/bench/${name}`, encodeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', uid: `c0000000-0000-4000-8000-${String(i).padStart(12, '0')}`, creationTimestamp: '2026-11-01T10:00:00Z' }, data: { key: `value-${i}` } })));
  }
  if (batch.length >= 1000) {
    await Promise.all(batch);
    batch = [];
  }
}
await Promise.all(batch);
await store.close();
