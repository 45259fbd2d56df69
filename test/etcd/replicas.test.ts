// Two API servers on one etcd behave as one API: watches see each other's writes exactly once,
// optimistic concurrency holds across replicas, continue tokens travel; and etcd faults turn
// into 5xx Status errors the servers recover from without a restart.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { client } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';
import { startEtcd, type EtcdProcess } from './etcd-process.js';

let etcd: EtcdProcess;
let a: ApiServer;
let b: ApiServer;
let apiA: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
const streams: WatchStream[] = [];
const logs: string[] = [];

const cm = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
const coll = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const names = (r: { body: { items: { metadata: { name: string } }[] } }) => r.body.items.map((i) => i.metadata.name);

function replica(url: string): Promise<ApiServer> {
  return startServer(
    { port: 0, store: 'etcd', etcdServers: [url], demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 },
    { log: (l) => void logs.push(l) },
  );
}

async function namespace(name: string): Promise<void> {
  const r = await apiA.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  expect(r.status).toBe(201);
}

async function watch(server: ApiServer, path: string): Promise<WatchStream> {
  const w = await WatchStream.open(server.url + path);
  streams.push(w);
  expect(w.status).toBe(200);
  return w;
}

beforeAll(async () => {
  etcd = await startEtcd();
  [a, b] = await Promise.all([replica(etcd.url), replica(etcd.url)]);
  apiA = client(a.url);
  apiB = client(b.url);
});

afterAll(async () => {
  for (const s of streams) s.close();
  await Promise.all([a?.close(), b?.close()]);
  await etcd?.cleanup();
});

describe('two replicas on one etcd', () => {
  it('a watch on one replica sees every write made through either, once, in revision order', async () => {
    await namespace('alt');
    const list = await apiB.get(coll('alt'));
    const fromB = await watch(b, `${coll('alt')}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
    const fromA = await watch(a, `${coll('alt')}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
    const n = 40;
    const created: { name: string; rv: number }[] = [];
    await Promise.all(
      [0, 1].map(async (lane) => {
        for (let i = lane; i < n; i += 2) {
          const r = await (i % 2 ? apiB : apiA).post(coll('alt'), cm(`cm-${String(i).padStart(2, '0')}`));
          expect(r.status).toBe(201);
          created.push({ name: r.body.metadata.name, rv: Number(r.body.metadata.resourceVersion) });
        }
      }),
    );
    created.sort((x, y) => x.rv - y.rv);
    for (const w of [fromA, fromB]) {
      await w.until((evs) => evs.length >= n, 10_000);
      // Nothing more than the n creates (no duplicates) once the last has arrived.
      expect(w.events.map((e) => e.type)).toEqual(Array(n).fill('ADDED'));
      expect(w.events.map((e) => e.object.metadata.name)).toEqual(created.map((c) => c.name));
      expect(w.events.map((e) => Number(e.object.metadata.resourceVersion))).toEqual(created.map((c) => c.rv));
    }
  });

  it('a consistent list on one replica includes what the other just wrote', async () => {
    await namespace('fresh');
    for (let i = 0; i < 15; i++) {
      const [writer, reader] = i % 2 ? [apiA, apiB] : [apiB, apiA];
      const w = await writer.post(coll('fresh'), cm(`c${i}`));
      expect(w.status).toBe(201);
      const r = await reader.get(coll('fresh'));
      expect(r.status).toBe(200);
      expect(names(r)).toContain(`c${i}`);
      expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(w.body.metadata.resourceVersion));
    }
  });

  it('concurrent updates of one object through different replicas: exactly one succeeds, the rest conflict', async () => {
    await namespace('cas');
    const created = await apiA.post(coll('cas'), cm('shared', { v: '0' }));
    const base = created.body;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? apiB : apiA).put(`${coll('cas')}/shared`, { ...base, data: { v: String(i + 1) } })),
    );
    const codes = results.map((r) => r.status).sort();
    expect(codes).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    const winner = results.find((r) => r.status === 200)!.body;
    for (const api of [apiA, apiB]) {
      const got = await api.get(`${coll('cas')}/shared`);
      expect(got.body.data).toEqual(winner.data);
      expect(got.body.metadata.resourceVersion).toBe(winner.metadata.resourceVersion);
    }
  });

  it('continue tokens from one replica work on the other, on the same snapshot', async () => {
    await namespace('pages');
    for (let i = 0; i < 10; i++) expect((await apiA.post(coll('pages'), cm(`p${i}`))).status).toBe(201);
    const first = await apiA.get(`${coll('pages')}?limit=4`);
    expect(names(first)).toEqual(['p0', 'p1', 'p2', 'p3']);
    await apiB.del(`${coll('pages')}/p5`);
    await apiB.post(coll('pages'), cm('p4a'));
    const second = await apiB.get(`${coll('pages')}?limit=4&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(second.status).toBe(200);
    expect(names(second)).toEqual(['p4', 'p5', 'p6', 'p7']);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    const third = await apiA.get(`${coll('pages')}?limit=4&continue=${encodeURIComponent(second.body.metadata.continue)}`);
    expect(names(third)).toEqual(['p8', 'p9']);
    expect(third.body.metadata.continue).toBeUndefined();
  });

  it('reads at an exact revision and 410 for a compacted one, on either replica', async () => {
    await namespace('hist');
    const one = await apiA.post(coll('hist'), cm('one'));
    const rv = one.body.metadata.resourceVersion;
    await apiB.post(coll('hist'), cm('two'));
    const exact = await apiB.get(`${coll('hist')}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(names(exact)).toEqual(['one']);
    await a.store.compact(await a.store.currentRevision());
    const gone = await apiB.get(`${coll('hist')}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
  });
});

describe('compaction with two replicas', () => {
  it('both run the compactor, etcd history gets compacted, and both keep serving', async () => {
    const own = await startEtcd();
    const flags = { port: 0, store: 'etcd' as const, etcdServers: [own.url], demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 150 };
    const [x, y] = await Promise.all([startServer(flags, { log: () => {} }), startServer(flags, { log: () => {} })]);
    try {
      const api = [client(x.url), client(y.url)];
      expect((await api[0]!.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cmp' } })).status).toBe(201);
      const first = await api[1]!.post(coll('cmp'), cm('c0'));
      for (let i = 1; i < 6; i++) expect((await api[i % 2]!.post(coll('cmp'), cm(`c${i}`))).status).toBe(201);
      await vi.waitFor(async () => expect(await x.store.compactedRevision()).toBeGreaterThan(Number(first.body.metadata.resourceVersion)), { timeout: 15_000, interval: 100 });
      // The election key records the revision of the last compaction.
      const key = await fetch(`${own.url}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('compact_rev_key').toString('base64') }) });
      const kv = ((await key.json()) as { kvs: { value: string; version: string }[] }).kvs[0]!;
      expect(Number(Buffer.from(kv.value, 'base64').toString())).toBeGreaterThan(0);
      const gone = await api[0]!.get(`${coll('cmp')}?resourceVersion=${first.body.metadata.resourceVersion}&resourceVersionMatch=Exact`);
      expect(gone.status).toBe(410);
      for (const c of api) expect(names(await c.get(coll('cmp')))).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    } finally {
      await Promise.all([x.close(), y.close()]);
      await own.cleanup();
    }
  });
});

describe('etcd faults', () => {
  it('etcd restarted under load: in-flight requests get 5xx Status errors, nothing acknowledged is lost, both replicas recover', async () => {
    await namespace('load');
    const list = await apiA.get(coll('load'));
    const w = await watch(b, `${coll('load')}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
    const acked: string[] = [];
    const failures: { status: number; body: unknown }[] = [];
    let stop = false;
    let seq = 0;
    const writer = async (api: ReturnType<typeof client>) => {
      while (!stop) {
        const name = `w${seq++}`;
        let r;
        try {
          r = await api.post(coll('load'), cm(name));
        } catch (e) {
          failures.push({ status: 0, body: String(e) });
          continue;
        }
        if (r.status === 201) acked.push(name);
        else {
          failures.push({ status: r.status, body: r.body });
          await new Promise((res) => setTimeout(res, 20));
        }
      }
    };
    const writers = [writer(apiA), writer(apiB), writer(apiA), writer(apiB)];
    await vi.waitFor(() => expect(acked.length).toBeGreaterThan(20), { timeout: 10_000, interval: 20 });
    // A crash (SIGKILL) with requests in flight, down for a moment, then back on the same data.
    await etcd.restart(300, true);
    // Both replicas take writes again without being restarted.
    const before = acked.length;
    await vi.waitFor(() => expect(acked.length).toBeGreaterThan(before + 20), { timeout: 15_000, interval: 50 });
    stop = true;
    await Promise.all(writers);

    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) {
      expect(f.status, JSON.stringify(f.body)).toBeGreaterThanOrEqual(500);
      expect(f.body).toMatchObject({ kind: 'Status', status: 'Failure' });
    }
    for (const api of [apiA, apiB]) {
      const r = await api.get(coll('load'));
      expect(r.status).toBe(200);
      const present = new Set(names(r));
      expect(acked.filter((n) => !present.has(n))).toEqual([]);
    }
    // The watch resumed across the restart: every acknowledged create exactly once, in order.
    if (!w.ended) {
      await w.until((evs) => acked.every((n) => evs.some((e) => e.object.metadata.name === n)), 10_000);
      const seen = w.events.map((e) => e.object.metadata.name);
      expect(new Set(seen).size).toBe(seen.length);
      const revs = w.events.map((e) => Number(e.object.metadata.resourceVersion));
      expect(revs).toEqual([...revs].sort((x, y) => x - y));
    }
    for (const s of [a, b]) expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
  });

  it('etcd unreachable at start: a clear message, /readyz 503 until etcd comes up, then ready', async () => {
    const later = await startEtcd();
    await later.stop();
    const lines: string[] = [];
    const s = await startServer(
      { port: 0, store: 'etcd', etcdServers: [later.url], demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 },
      { log: (l) => void lines.push(l) },
    );
    try {
      expect(lines.join('\n')).toMatch(/etcd is unreachable .*127\.0\.0\.1.*not ready/);
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(503);
      const api = client(s.url);
      const r = await api.get('/api/v1/namespaces');
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ kind: 'Status', code: 503 });
      await later.start();
      await vi.waitFor(async () => expect((await fetch(`${s.url}/readyz`)).status).toBe(200), { timeout: 15_000, interval: 100 });
      expect((await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'late' } })).status).toBe(201);
      // While etcd is down again, readiness reports it.
      await later.stop();
      await vi.waitFor(async () => expect((await fetch(`${s.url}/readyz`)).status).toBe(503), { timeout: 15_000, interval: 100 });
    } finally {
      await s.close();
      await later.cleanup();
    }
  });
});
