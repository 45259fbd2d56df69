import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { MemoryStore } from '../../src/server/storage/memory.js';
import { encodeForStorage } from '../../src/server/registry/resource-store.js';
import type { RangeOptions, RevisionedStore } from '../../src/server/storage/types.js';

const flags = { port: 0, store: 'memory' as const, demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 };

async function seeded(): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.open();
  const meta = { namespace: 'default', uid: '00000000-0000-4000-8000-000000000001', creationTimestamp: '2026-11-01T10:00:00Z' };
  await store.create('/registry/core/pods/default/p1', encodeForStorage({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', ...meta }, spec: { containers: [{ name: 'c', image: 'i' }] } }));
  return store;
}

describe('startup', () => {
  let server: ApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('is ready only once the watch caches hold every type (as upstream readyz waits for its cachers)', async () => {
    server = await startServer(flags, { store: await seeded() });
    const pods = server.deps.caches.get('/registry/core/pods/');
    expect(pods.revision).toBeGreaterThan(1);
    expect(pods.objects.has('/registry/core/pods/default/p1')).toBe(true);
    expect(pods.keysUnder('/registry/core/pods/')).toEqual(['/registry/core/pods/default/p1']);
  });

  it("serves without a scan of the whole registry: the controllers' feeds start from the watch caches", async () => {
    const store = await seeded();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let scans = 0;
    // a scan of the whole registry (what the controllers' feeds did before they followed the watch caches) is held
    const held = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'range')
          return async (o: RangeOptions) => {
            if (o.prefix === '/registry/') {
              scans++;
              await gate;
            }
            return target.range(o);
          };
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as RevisionedStore;
    server = await startServer(flags, { store: held });
    const r = await fetch(`${server.url}/api/v1/namespaces/default/pods`);
    expect(r.status).toBe(200);
    expect(((await r.json()) as { items: unknown[] }).items).toHaveLength(1);
    // the deletion and workload controllers' feeds took the caches' objects: nothing listed the registry again
    await server.deps.caches.get('/registry/core/pods/').start();
    expect(scans).toBe(0);
    release();
  });
});
