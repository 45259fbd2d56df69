// The in-process controllers' object feed reads the API server's watch caches: the objects it hands out are
// the caches' own decoded copies (the same instances), so no object version is decoded a second time for the
// controllers. A shutdown before or during the start ends it without a sync.
import { describe, expect, it } from 'vitest';
import { ObjectFeed, type FeedEvent } from '../../src/server/controllers/object-feed.js';
import { storageDecodes } from '../../src/server/registry/decode-count.js';
import { builtinResourceTypes } from '../../src/server/registry/builtin.js';
import { typePrefix } from '../../src/server/registry/keys.js';
import { TypeRegistry } from '../../src/server/registry/registry.js';
import { MemoryStore } from '../../src/server/storage/memory.js';
import { WatchCacheSet } from '../../src/server/watch/watch-cache.js';

const enc = new TextEncoder();
const cm = (name: string, v = '1') => enc.encode(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench' }, data: { v } }));
const KEY = (name: string) => `/registry/core/configmaps/bench/${name}`;

async function setup(n: number) {
  const store = new MemoryStore();
  await store.open();
  for (let i = 0; i < n; i++) await store.create(KEY(`cm-${String(i).padStart(5, '0')}`), cm(`cm-${i}`));
  const types = new TypeRegistry(builtinResourceTypes);
  const caches = new WatchCacheSet(store);
  // as the server does before it is ready: every type's cache loaded
  await Promise.all(types.all().map((t) => caches.get(typePrefix(t)).start()));
  return { store, types, caches };
}

describe('object feed over the watch caches', () => {
  it('hands out the caches\' decoded objects: no second decode at start or for a change', async () => {
    const { store, types, caches } = await setup(1200);
    const cache = caches.get('/registry/core/configmaps/');
    for (const _ of cache.objects); // the cache decodes its copies (once)
    const before = storageDecodes();
    const feed = new ObjectFeed({ caches, types });
    const synced: { key: string; obj?: object }[][] = [];
    const events: FeedEvent[] = [];
    feed.subscribe({ onSync: (items) => synced.push(items), onEvent: (ev) => events.push(ev) });
    await feed.start();
    expect(synced).toHaveLength(1);
    const cms = synced[0]!.filter((i) => i.key.startsWith('/registry/core/configmaps/'));
    expect(cms).toHaveLength(1200);
    for (const it of cms) expect(it.obj).toBe(cache.objects.get(it.key));
    expect(storageDecodes() - before).toBe(0);

    // one write: the cache decodes it once, the feed delivers that same object, and caughtUp covers it
    const { modRevision: revision } = await store.update(KEY('cm-00007'), cm('cm-7', '2'), Number(cache.objects.get(KEY('cm-00007'))!.metadata!.resourceVersion));
    await feed.caughtUp(revision);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'put', key: KEY('cm-00007'), created: false });
    expect(events[0]!.obj).toBe(cache.objects.get(KEY('cm-00007')));
    expect(events[0]!.prev).toBe(cms.find((i) => i.key === KEY('cm-00007'))!.obj);
    expect(storageDecodes() - before).toBe(1);
    const del = await store.delete(KEY('cm-00008'));
    await feed.caughtUp(del.modRevision);
    expect(events[1]).toMatchObject({ type: 'delete', key: KEY('cm-00008') });
    expect(storageDecodes() - before).toBe(2);
    feed.stop();
    caches.stopAll();
  });

  it('an already aborted signal syncs nothing; an abort while the caches load ends the start without a sync', async () => {
    const { types, caches } = await setup(10);
    const aborted = new AbortController();
    aborted.abort();
    const none: number[] = [];
    const stopped = new ObjectFeed({ caches, types }, () => {}, aborted.signal);
    stopped.subscribe({ onSync: (items) => none.push(items.length), onEvent: () => {} });
    await stopped.start();
    expect(none).toEqual([]);

    const shutdown = new AbortController();
    const feed = new ObjectFeed({ caches, types }, () => {}, shutdown.signal);
    feed.subscribe({ onSync: (items) => none.push(items.length), onEvent: () => {} });
    const started = feed.start();
    shutdown.abort();
    await started;
    expect(none).toEqual([]);
    caches.stopAll();
  });
});

describe('object feed over an undecorated type (Events)', () => {
  it('lists the stored Events at start (decoded a few ms a turn), then their changes', async () => {
    const store = new MemoryStore();
    await store.open();
    const ev = (name: string) => enc.encode(JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'bench' }, reason: 'Started', involvedObject: { kind: 'Pod', name } }));
    for (let i = 0; i < 3000; i++) await store.create(`/registry/core/events/bench/e-${String(i).padStart(5, '0')}`, ev(`e-${i}`));
    const types = new TypeRegistry(builtinResourceTypes);
    const caches = new WatchCacheSet(store);
    await Promise.all(types.all().map((t) => caches.get(typePrefix(t)).start()));
    const feed = new ObjectFeed({ caches, types });
    const synced: { key: string; obj?: { metadata?: { name?: string } } }[][] = [];
    const events: FeedEvent[] = [];
    feed.subscribe({ onSync: (items) => synced.push(items), onEvent: (e) => events.push(e) });
    const started = feed.start();
    // a change while the snapshot is being decoded comes after it, once
    const late = await store.create('/registry/core/events/bench/late', ev('late'));
    await started;
    const evs = synced[0]!.filter((i) => i.key.startsWith('/registry/core/events/'));
    expect(evs.map((i) => [i.key, i.obj?.metadata?.name])).toEqual(Array.from({ length: 3000 }, (_, i) => [`/registry/core/events/bench/e-${String(i).padStart(5, '0')}`, `e-${i}`]));
    await feed.caughtUp(late.modRevision);
    expect(events.map((e) => [e.type, e.key])).toEqual([['put', '/registry/core/events/bench/late']]);
    feed.stop();
    caches.stopAll();
  });
});
