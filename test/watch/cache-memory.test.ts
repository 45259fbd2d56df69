// What the watch cache keeps alive: its history window holds the store's bytes, not a decoded object per version.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeForStorage } from '../../src/server/registry/resource-store.js';
import type { KubeObject } from '../../src/server/registry/types.js';
import { MemoryStore } from '../../src/server/storage/memory.js';
import { WatchCache, type CacheEvent } from '../../src/server/watch/watch-cache.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const P = '/registry/core/configmaps/';
const cm = (name: string, data: Record<string, string>, labels?: Record<string, string>) =>
  encodeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ...(labels ? { labels } : {}) }, data });

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

async function cacheOf(store: MemoryStore): Promise<WatchCache> {
  const c = new WatchCache(P, store);
  await c.start();
  cleanup.push(() => c.stop());
  return c;
}

/** Resolves once the cache has applied revision rev. */
const applied = (c: WatchCache, rev: number) => c.waitFresh(rev);

describe('watch cache history', () => {
  it('lets a superseded version be collected once the watchers that got it are done with it', async () => {
    const store = new MemoryStore();
    await store.open();
    const cache = await cacheOf(store);
    const got: CacheEvent[] = [];
    const stop = cache.watch(P, cache.revision, { internal: true, push: (ev) => (got.push(ev), true), onClose: () => {} });
    const first = await store.create(`${P}ns/a`, cm('a', { v: '0' }));
    await applied(cache, first.modRevision);
    const ref = new WeakRef(got[0]!.obj);
    let rev = first.modRevision;
    for (let i = 1; i <= 3; i++) rev = (await store.update(`${P}ns/a`, cm('a', { v: String(i) }), rev)).modRevision;
    await applied(cache, rev);
    stop();
    got.length = 0;
    await new Promise((r) => setImmediate(r));
    gc();
    // the history still holds the change (a watch from before it replays it), but not the decoded object
    expect(cache.oldestWatchable).toBeLessThan(first.modRevision);
    expect(ref.deref()).toBeUndefined();
  });

  it('replays retained changes from a past revision with each version, its predecessor, and deletes', async () => {
    const store = new MemoryStore();
    await store.open();
    const cache = await cacheOf(store);
    const start = cache.revision;
    const a = await store.create(`${P}ns/a`, cm('a', { v: '0' }, { app: 'x' }));
    const a1 = await store.update(`${P}ns/a`, cm('a', { v: '1' }, { app: 'y' }), a.modRevision);
    const b = await store.create(`${P}ns/b`, cm('b', { v: '0' }));
    const gone = await store.delete(`${P}ns/b`);
    const a2 = await store.update(`${P}ns/a`, cm('a', { v: '2' }, { app: 'y' }), a1.modRevision);
    await applied(cache, a2.modRevision);
    const replayed: CacheEvent[] = [];
    const stop = cache.watch(P, start, { internal: true, push: (ev) => (replayed.push(ev), true), replay: (evs) => replayed.push(...evs), onClose: () => {} });
    cleanup.push(stop);
    const view = (ev: CacheEvent) => [ev.type, ev.obj.metadata?.name, (ev.obj as KubeObject & { data: { v: string } }).data.v, ev.obj.metadata?.resourceVersion, ev.revision, ev.prevObj?.metadata?.labels?.['app'] ?? null];
    expect(replayed.map(view)).toEqual([
      ['ADDED', 'a', '0', String(a.modRevision), a.modRevision, null],
      ['MODIFIED', 'a', '1', String(a1.modRevision), a1.modRevision, 'x'],
      ['ADDED', 'b', '0', String(b.modRevision), b.modRevision, null],
      ['DELETED', 'b', '0', String(gone.modRevision), gone.modRevision, null],
      ['MODIFIED', 'a', '2', String(a2.modRevision), a2.modRevision, 'y'],
    ]);
    // the current version is the cached object itself, not a second decode
    expect(replayed[4]!.obj).toBe(cache.objects.get(`${P}ns/a`));
  });
});

describe('the history window', () => {
  it('keeps the last maxHistory changes as they pass through it, and replays exactly those', async () => {
    const store = new MemoryStore();
    await store.open();
    const cache = new WatchCache(P, store, { maxHistory: 3 });
    await cache.start();
    cleanup.push(() => cache.stop());
    const revs: number[] = [];
    for (let i = 0; i < 2000; i++) {
      revs.push((await store.create(`${P}ns/c${i}`, cm(`c${i}`, { v: String(i) }))).modRevision);
      if (i % 500 === 499) await applied(cache, revs[i]!); // several applies, each cutting what left the window
    }
    await applied(cache, revs[1999]!);
    expect(cache.oldestWatchable).toBe(revs[1996]);
    const replayed: CacheEvent[] = [];
    cleanup.push(cache.watch(P, revs[1996]!, { internal: true, push: (ev) => (replayed.push(ev), true), replay: (evs) => replayed.push(...evs), onClose: () => {} }));
    expect(replayed.map((ev) => ev.obj.metadata?.name)).toEqual(['c1997', 'c1998', 'c1999']);
  });
});

describe('an undecorated type (Events)', () => {
  const E = '/registry/core/events/';
  const event = (name: string, reason: string) =>
    encodeForStorage({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'ns' }, involvedObject: { kind: 'Pod', name: 'p' }, reason });

  it('keeps stored bytes, not decoded Events, and still serves reads, lists, watches and replays', async () => {
    const store = new MemoryStore();
    await store.open();
    const early = await store.create(`${E}ns/early`, event('early', 'Loaded'));
    const cache = new WatchCache(E, store);
    await cache.start();
    cleanup.push(() => cache.stop());
    const start = cache.revision;
    const got: CacheEvent[] = [];
    cleanup.push(cache.watch(E, start, { internal: true, push: (ev) => (got.push(ev), true), onClose: () => {} }));
    const a = await store.create(`${E}ns/a`, event('a', 'Scheduled'));
    const a1 = await store.update(`${E}ns/a`, event('a', 'Pulled'), a.modRevision);
    const b = await store.create(`${E}ns/b`, event('b', 'Started'));
    const gone = await store.delete(`${E}ns/early`);
    await applied(cache, gone.modRevision);
    // the live fan-out: each change decoded once, the previous version on demand
    expect(got.map((ev) => [ev.type, ev.obj.metadata?.name, (ev.obj as KubeObject & { reason: string }).reason, ev.prevObj ? (ev.prevObj as KubeObject & { reason: string }).reason : null])).toEqual([
      ['ADDED', 'a', 'Scheduled', null],
      ['MODIFIED', 'a', 'Pulled', 'Scheduled'],
      ['ADDED', 'b', 'Started', null],
      ['DELETED', 'early', 'Loaded', 'Loaded'],
    ]);
    const ref = new WeakRef(got[2]!.obj); // b: current, but not held decoded
    got.length = 0;
    await new Promise((r) => setImmediate(r));
    gc();
    expect(ref.deref()).toBeUndefined();
    // reads decode a copy each
    expect(cache.objects.get(`${E}ns/a`)).toMatchObject({ reason: 'Pulled', metadata: { name: 'a', resourceVersion: String(a1.modRevision) } });
    expect(cache.objects.get(`${E}ns/early`)).toBeUndefined();
    expect(cache.objects.size).toBe(2);
    expect([...cache.objects].map(([k, o]) => [k, o.metadata?.name])).toEqual([[`${E}ns/a`, 'a'], [`${E}ns/b`, 'b']]);
    expect([...cache.objects.values()].map((o) => o.metadata?.name)).toEqual(['a', 'b']);
    expect(cache.keysUnder(`${E}ns/`)).toEqual([`${E}ns/a`, `${E}ns/b`]);
    expect(cache.objectAt(`${E}ns/b`, b.modRevision)?.metadata?.name).toBe('b');
    expect(cache.holdsStateAt(cache.revision)).toBe(true);
    // a watch from before the changes replays them
    const replayed: CacheEvent[] = [];
    cleanup.push(cache.watch(E, start, { internal: true, push: (ev) => (replayed.push(ev), true), replay: (evs) => replayed.push(...evs), onClose: () => {} }));
    expect(replayed.map((ev) => [ev.type, ev.obj.metadata?.name, ev.revision])).toEqual([
      ['ADDED', 'a', a.modRevision],
      ['MODIFIED', 'a', a1.modRevision],
      ['ADDED', 'b', b.modRevision],
      ['DELETED', 'early', gone.modRevision],
    ]);
    expect(early.modRevision).toBeLessThan(start + 1);
  });
});
