// The shared store conformance suite on a real etcd (one etcd for the file; every test gets
// its own key prefix, so tests see an empty store), plus etcd-specific behaviour.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EtcdStore } from '../../src/server/storage/etcd.js';
import { ElectedCompactionStore } from '../../src/server/storage/etcd-compaction.js';
import { startEtcd, type EtcdProcess } from '../etcd/etcd-process.js';
import { runStoreConformance } from './conformance.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

let etcd: Promise<EtcdProcess> | undefined;
const getEtcd = (): Promise<EtcdProcess> => (etcd ??= startEtcd());
let n = 0;

function newStore(url: string, prefix = `/conformance/${String(++n).padStart(4, '0')}`, extra: Partial<ConstructorParameters<typeof EtcdStore>[0]> = {}): EtcdStore {
  return new EtcdStore({ servers: [url], prefix, keyRoot: '', requestTimeoutMs: 5000, ...extra });
}

afterAll(async () => {
  await (await etcd)?.cleanup();
});

runStoreConformance('etcd', async () => {
  const { url } = await getEtcd();
  const store = newStore(url);
  return { store, cleanup: () => store.close() };
});

describe('etcd store specifics', () => {
  it('maps the /registry root onto the etcd prefix and keeps other prefixes apart', async () => {
    const { url } = await getEtcd();
    const a = new EtcdStore({ servers: [url], prefix: '/tenant-a' });
    const b = new EtcdStore({ servers: [url], prefix: '/tenant-b/' });
    const raw = newStore(url, '', {});
    await Promise.all([a.open(), b.open(), raw.open()]);
    try {
      await a.create('/registry/core/pods/ns/p', enc('a'));
      await b.create('/registry/core/pods/ns/p', enc('b'));
      expect(dec((await raw.get('/tenant-a/core/pods/ns/p')).kv!.value)).toBe('a');
      expect(dec((await raw.get('/tenant-b/core/pods/ns/p')).kv!.value)).toBe('b');
      const all = await a.range({ prefix: '' });
      expect(all.kvs.map((kv) => kv.key)).toEqual(['/registry/core/pods/ns/p']);
      expect((await a.range({ prefix: '/other/' })).kvs).toEqual([]);
      await expect(a.create('/elsewhere', enc('x'))).rejects.toThrow(TypeError);
    } finally {
      await Promise.all([a.close(), b.close(), raw.close()]);
    }
  });

  it('reports progress to an idle watcher when other keys change', async () => {
    const { url } = await getEtcd();
    const store = newStore(url);
    await store.open();
    const progress: number[] = [];
    store.watch('/a/', await store.currentRevision(), { onEvents: () => {}, onError: () => {}, onProgress: (rev) => void progress.push(rev) });
    const kv = await store.create('/b/x', enc('1'));
    await vi.waitFor(() => expect(progress).toContain(kv.modRevision), { timeout: 5000, interval: 5 });
    // A write outside the prefix (another tenant) counts as progress too.
    const other = newStore(url);
    await other.open();
    const foreign = await other.create('/z', enc('1'));
    await vi.waitFor(() => expect(progress).toContain(foreign.modRevision), { timeout: 5000, interval: 5 });
    await other.close();
    await store.close();
  });

  it('sees writes made through another store instance on the same etcd', async () => {
    const { url } = await getEtcd();
    const prefix = `/shared/${++n}`;
    const one = newStore(url, prefix);
    const two = newStore(url, prefix);
    await Promise.all([one.open(), two.open()]);
    const seen: number[] = [];
    two.watch('/', await two.currentRevision(), { onEvents: (evs) => void seen.push(...evs.map((e) => e.revision)), onError: () => {} });
    const revs: number[] = [];
    for (let i = 0; i < 20; i++) revs.push((await (i % 2 ? two : one).create(`/k${i}`, enc(String(i)))).modRevision);
    await vi.waitFor(() => expect(seen).toEqual(revs), { timeout: 5000, interval: 5 });
    await Promise.all([one.close(), two.close()]);
  });

  it('serves a watch older than its in-memory log from etcd history', async () => {
    const { url } = await getEtcd();
    const prefix = `/old/${++n}`;
    const writer = newStore(url, prefix);
    await writer.open();
    const start = await writer.currentRevision();
    const a = await writer.create('/a', enc('1'));
    const b = await writer.update('/a', enc('2'), a.modRevision);
    // A store opened later has no log before its own start.
    const late = newStore(url, prefix);
    await late.open();
    const events: string[] = [];
    late.watch('/', start, { onEvents: (evs) => void events.push(...evs.map((e) => `${e.type}@${e.revision}:${e.prevKv ? dec(e.prevKv.value) : '-'}`)), onError: () => {} });
    const c = await writer.delete('/a');
    await vi.waitFor(() => expect(events).toEqual([`put@${a.modRevision}:-`, `put@${b.modRevision}:1`, `delete@${c.modRevision}:2`]), { timeout: 5000, interval: 5 });
    await Promise.all([writer.close(), late.close()]);
  });

  it('elects one compactor among replicas through compact_rev_key', async () => {
    const { url } = await getEtcd();
    const compactKey = `compact_rev_key_test_${++n}`;
    const stores = [newStore(url, undefined, { compactKey }), newStore(url, undefined, { compactKey })];
    await Promise.all(stores.map((s) => s.open()));
    const views = stores.map((s) => new ElectedCompactionStore(s));
    const kv = await stores[0]!.create('/c', enc('1'));
    // Round 1: both start from version 0; exactly one swap succeeds.
    await Promise.all(views.map((v) => v.compact(kv.modRevision)));
    expect(views.map((v) => v.compactions).sort()).toEqual([0, 1]);
    // Round 2: both now know version 1; again exactly one wins.
    const kv2 = await stores[0]!.update('/c', enc('2'), kv.modRevision);
    await Promise.all(views.map((v) => v.compact(kv2.modRevision)));
    expect(views[0]!.compactions + views[1]!.compactions).toBe(2);
    expect(await stores[1]!.compactedRevision()).toBe(kv2.modRevision);
    // The other replica learned of the compaction from the key: an old watch fails at once.
    const err = await new Promise<{ code: string }>((resolve) => stores[1]!.watch('/', kv.modRevision - 1, { onEvents: () => {}, onError: resolve }));
    expect(err.code).toBe('Compacted');
    await Promise.all(stores.map((s) => s.close()));
  });

  it('fails with Unavailable while etcd is down and recovers, with watches resuming where they were', async () => {
    const { url } = await getEtcd();
    const proc = await getEtcd();
    const store = newStore(url);
    await store.open();
    const seen: number[] = [];
    const errors: string[] = [];
    store.watch('/w/', await store.currentRevision(), { onEvents: (evs) => void seen.push(...evs.map((e) => e.revision)), onError: (e) => void errors.push(e.code) });
    const before = await store.create('/w/1', enc('1'));
    await proc.stop();
    await expect(store.get('/w/1')).rejects.toMatchObject({ code: 'Unavailable' });
    await expect(store.create('/w/2', enc('2'))).rejects.toMatchObject({ code: 'Unavailable' });
    await proc.start();
    const after = await vi.waitFor(() => store.create('/w/3', enc('3')), { timeout: 10_000, interval: 100 });
    await vi.waitFor(() => expect(seen).toEqual([before.modRevision, after.modRevision]), { timeout: 10_000, interval: 10 });
    expect(errors).toEqual([]);
    await store.close();
  });

  it('moves on to the next etcd server when one is unreachable', async () => {
    const { url } = await getEtcd();
    const store = new EtcdStore({ servers: ['http://127.0.0.1:1', url], prefix: `/failover/${++n}`, keyRoot: '', requestTimeoutMs: 5000 });
    await store.open();
    const rec: number[] = [];
    store.watch('/', await store.currentRevision(), { onEvents: (evs) => void rec.push(...evs.map((e) => e.revision)), onError: () => {} });
    const kv = await store.create('/a', enc('1'));
    expect(dec((await store.get('/a')).kv!.value)).toBe('1');
    await vi.waitFor(() => expect(rec).toEqual([kv.modRevision]), { timeout: 5000, interval: 5 });
    await store.close();
  });

  it('open fails with a clear Unavailable error when etcd is unreachable', async () => {
    const store = new EtcdStore({ servers: ['http://127.0.0.1:1'], requestTimeoutMs: 2000 });
    const err = await store.open().then(
      () => undefined,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(err?.code).toBe('Unavailable');
    expect(err?.message).toMatch(/etcd http:\/\/127\.0\.0\.1:1/);
    await store.close();
  });
});
