// SIGTERM during the controllers' start-up scan of a large store: close() waits for the scan, and at
// 1M objects that took minutes. The shutdown signal ends the scan at its next page.
import { describe, expect, it } from 'vitest';
import { ObjectFeed } from '../../src/server/controllers/object-feed.js';
import { MemoryStore } from '../../src/server/storage/memory.js';

const enc = new TextEncoder();

async function storeWith(n: number): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.open();
  for (let i = 0; i < n; i++) {
    const name = `cm-${String(i).padStart(5, '0')}`;
    await store.create(`/registry/configmaps/bench/${name}`, enc.encode(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench' } })));
  }
  return store;
}

describe('object feed start-up scan and shutdown', () => {
  it('an abort during the scan ends it at the next page: no sync, no watch', async () => {
    const store = await storeWith(3000);
    let pages = 0;
    const range = store.range.bind(store);
    const shutdown = new AbortController();
    // the third page of 500 is where the server shuts down
    store.range = async (opts) => {
      if (++pages === 3) shutdown.abort();
      return range(opts);
    };
    const feed = new ObjectFeed(store, () => {}, shutdown.signal);
    const synced: number[] = [];
    feed.subscribe({ onSync: (items) => synced.push(items.length), onEvent: () => {} });
    await feed.start();
    expect(pages).toBe(3);
    expect(synced).toEqual([]);
    // nothing watches the store after the scan ended
    await store.create('/registry/configmaps/bench/late', enc.encode('{"metadata":{"name":"late"}}'));
    expect(synced).toEqual([]);
  });

  it('an already aborted signal scans nothing; without abort the scan syncs every object', async () => {
    const store = await storeWith(1200);
    const aborted = new AbortController();
    aborted.abort();
    const none: number[] = [];
    const stopped = new ObjectFeed(store, () => {}, aborted.signal);
    stopped.subscribe({ onSync: (items) => none.push(items.length), onEvent: () => {} });
    await stopped.start();
    expect(none).toEqual([]);

    const all: number[] = [];
    const feed = new ObjectFeed(store, () => {}, new AbortController().signal);
    feed.subscribe({ onSync: (items) => all.push(items.length), onEvent: () => {} });
    await feed.start();
    expect(all).toEqual([1200]);
    feed.stop();
  });
});
