// The RBAC and access review suites again on a real etcd: bindings just written must take effect on
// the next request (the RBAC watch caches sync to etcd's revision after a write seen by this server).
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
  await Promise.all(started.map((e) => e.cleanup()));
});

await import('../authz/rbac.test.js');
await import('../authz/reviews.test.js');
