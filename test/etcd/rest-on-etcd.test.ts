// The REST list, watch, CRUD and write suites again, with every server they start backed by a
// real etcd of its own (the suites assume a fresh store: their revisions start at 2). This is
// also what exercises the watch cache's consistent reads on etcd: they wait for the store
// watch to report progress up to etcd's current revision.
import { afterAll, vi } from 'vitest';
import type { EtcdProcess } from './etcd-process.js';

const started = vi.hoisted(() => [] as EtcdProcess[]);

vi.mock('../../src/server/app.js', async (importOriginal) => {
  const app = await importOriginal<typeof import('../../src/server/app.js')>();
  const { startEtcd } = await import('./etcd-process.js');
  const startServer: typeof app.startServer = async (flags = {}, opts = {}) => {
    const etcd = await startEtcd();
    started.push(etcd);
    return app.startServer({ ...flags, store: 'etcd', etcdServers: [etcd.url] }, opts);
  };
  return { ...app, startServer };
});

afterAll(async () => {
  // The suites' own afterAll hooks (closing their servers) run first.
  await Promise.all(started.map((e) => e.cleanup()));
});

await import('../rest/list.test.js');
await import('../rest/watch.test.js');
await import('../rest/crud.test.js');
await import('../rest/writes.test.js');
await import('../rest/crd.test.js');
await import('../rest/encodings.test.js');
