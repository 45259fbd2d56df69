import { describe, expect, it } from 'vitest';
import { createStore } from '../storage/index.js';
import type { RevisionedStore } from '../storage/types.js';
import { WatchCacheSet } from '../watch/watch-cache.js';
import { CachedRbacSource } from './rbac-source.js';

/** A memory store that calls itself etcd and counts revision round trips. */
function etcdLike(): { store: RevisionedStore; calls: () => number } {
  const inner = createStore({ kind: 'memory', dataDir: '', etcdServers: [], etcdPrefix: '/registry', log: () => {} });
  let n = 0;
  const store = new Proxy(inner, {
    get(t, p) {
      if (p === 'name') return 'etcd';
      if (p === 'currentRevision') return () => (n++, t.currentRevision());
      const v = Reflect.get(t, p);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
  return { store, calls: () => n };
}

describe('CachedRbacSource', () => {
  it('on etcd, skips the revision round trip between syncs unless an RBAC write was just seen', async () => {
    const { store, calls } = etcdLike();
    await store.open();
    const caches = new WatchCacheSet(store);
    const src = new CachedRbacSource(caches, store);
    try {
      await src.sync();
      const after = calls();
      await src.sync();
      await src.sync();
      expect(calls()).toBe(after);
      src.markWritten();
      await src.sync();
      await src.sync();
      expect(calls()).toBe(after + 2);
    } finally {
      caches.stopAll();
      await store.close();
    }
  });
});
