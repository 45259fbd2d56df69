// A consistent list (no resourceVersion) while the watch cache lags behind storage: upstream's cacher
// waits for the cache (3 s), then serves the list from storage instead of failing (cacher delegator,
// "fall back to etcd").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { createStore } from '../../src/server/storage/index.js';
import type { RevisionedStore, StoreEvent, WatchHandlers } from '../../src/server/storage/types.js';
import { API_SERVER_CONTROLLERS, client } from '../helpers/server.js';

const CM_PREFIX = '/registry/core/configmaps/';

/** A memory store whose configmap watches can be held back (the cache then lags behind). */
function laggingStore(): { store: RevisionedStore; hold(): void; release(): void } {
  const inner = createStore({ kind: 'memory' });
  let holding = false;
  const held: (() => void)[] = [];
  const store = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'watch')
        return (prefix: string, after: number, h: WatchHandlers) =>
          target.watch(prefix, after, {
            ...h,
            onEvents: (evs: StoreEvent[]) => {
              if (holding && prefix.startsWith(CM_PREFIX)) return void held.push(() => h.onEvents(evs));
              return h.onEvents(evs);
            },
            onProgress: (rev: number) => {
              if (holding && prefix.startsWith(CM_PREFIX)) return void held.push(() => h.onProgress?.(rev));
              h.onProgress?.(rev);
            },
          });
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return {
    store,
    hold: () => void (holding = true),
    release: () => {
      holding = false;
      for (const f of held.splice(0)) f();
    },
  };
}

describe('consistent list while the cache lags', () => {
  let server: ApiServer;
  let lag: ReturnType<typeof laggingStore>;
  beforeAll(async () => {
    lag = laggingStore();
    server = await startServer({ port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, controllers: API_SERVER_CONTROLLERS }, { store: lag.store, log: () => {} });
  });
  afterAll(async () => {
    lag.release();
    await server.close();
  });

  it('serves the list from storage (200, the new object in it), not 504', async () => {
    const api = client(server.url);
    lag.hold();
    expect((await api.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'written-while-lagging' } })).status).toBe(201);
    const r = await api.get('/api/v1/namespaces/default/configmaps');
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: any) => i.metadata.name)).toContain('written-while-lagging');
    lag.release();
  }, 20_000);
});
