// etcd benchmark: a throwaway etcd (Debian etcd-server), the EtcdStore and API replicas on it,
// each figure printed beside the raw etcd3 npm client doing the same puts/ranges/watches of
// the same bytes in the same run. ratio = fraction of the raw client's speed (1.00 = as fast).
//
//   store   creates/s (256 in flight), gets/s (one at a time), a 10k-key paged range (500 a page),
//           watch delivery (first write to last event seen)
//   api     creates/s through one replica and through two (connections split over both); watch
//           delivery of etcd puts to HTTP watches on one replica, then on both; a paged list of
//           10k objects (limit 500 + continue)
//
// Replicas run as child processes (this file with --replica <etcd-url>).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Etcd3 } from 'etcd3';
import { startServer } from '../src/server/app.js';
import { EtcdStore } from '../src/server/storage/etcd.js';
import { startEtcd } from '../test/etcd/etcd-process.js';
import { startChild, type ChildServer } from './lib/child.js';
import { runLoad } from './lib/http-load.js';

const VALUE_BYTES = 512;
const CONCURRENCY = 256;
const KEYS = 10_000;
const GETS = 5_000;
const PAGE = 500;
const WATCH_EVENTS = 5_000;
const API_SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const API_CONCURRENCY = 64;
const API_WATCH_EVENTS = 2_000;

function value(i: number): Buffer {
  const json = JSON.stringify({ kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'bench' }, data: {} });
  const out = Buffer.alloc(VALUE_BYTES, 0x61);
  out.write(json);
  return out;
}
const keyOf = (prefix: string, i: number) => `${prefix}${String(i).padStart(8, '0')}`;

function line(area: string, metric: string, value: number, raw: number, higherIsBetter: boolean, unit = ''): void {
  const ratio = higherIsBetter ? value / raw : raw / value;
  const fmt = (n: number) => (higherIsBetter ? String(Math.round(n)) : n.toFixed(1));
  console.log(`etcd ${area} ${metric} ${fmt(value)}${unit} (raw etcd3 ${fmt(raw)}${unit}, ratio ${ratio.toFixed(2)})`);
}

async function inBatches(n: number, fn: (i: number) => PromiseLike<unknown>, concurrency = CONCURRENCY): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
  return performance.now() - t0;
}

async function rawPagedRange(raw: Etcd3, prefix: string): Promise<number> {
  const end = Buffer.from(prefix);
  end[end.length - 1]!++;
  let key = Buffer.from(prefix);
  let revision: string | undefined;
  let total = 0;
  for (;;) {
    const res = await raw.kv.range({ key, range_end: end, limit: PAGE, revision });
    revision = res.header.revision;
    total += res.kvs.length;
    if (!res.more) return total;
    key = Buffer.concat([res.kvs[res.kvs.length - 1]!.key, Buffer.from([0])]);
  }
}

async function storePagedRange(store: EtcdStore, prefix: string): Promise<number> {
  let startKey: string | undefined;
  let revision: number | undefined;
  let total = 0;
  for (;;) {
    const page = await store.range({ prefix, startKey, limit: PAGE, revision });
    revision = page.revision;
    total += page.kvs.length;
    if (!page.more) return total;
    startKey = page.kvs[page.kvs.length - 1]!.key + '\u0000';
  }
}

async function storeBench(url: string): Promise<void> {
  const raw = new Etcd3({ hosts: url });
  const store = new EtcdStore({ servers: [url], prefix: '/bench-store', keyRoot: '' });
  await store.open();
  try {
    const values = Array.from({ length: KEYS }, (_, i) => value(i));
    const rawCreate = await inBatches(KEYS, (i) => raw.put(keyOf('/bench-raw/k', i)).value(values[i]!).exec());
    const storeCreate = await inBatches(KEYS, (i) => store.create(keyOf('/k', i), values[i]!));
    line('store', 'creates/s', (KEYS / storeCreate) * 1000, (KEYS / rawCreate) * 1000, true);

    const t0 = performance.now();
    for (let i = 0; i < GETS; i++) if (!(await raw.get(keyOf('/bench-raw/k', (i * 7919) % KEYS)).buffer())) throw new Error('missing');
    const rawGet = performance.now() - t0;
    const t1 = performance.now();
    for (let i = 0; i < GETS; i++) if (!(await store.get(keyOf('/k', (i * 7919) % KEYS))).kv) throw new Error('missing');
    const storeGet = performance.now() - t1;
    line('store', 'gets/s', (GETS / storeGet) * 1000, (GETS / rawGet) * 1000, true);

    const median = async (fn: () => Promise<number>) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        if ((await fn()) !== KEYS) throw new Error('bench: wrong key count');
        times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b)[2]!;
    };
    const rawList = await median(() => rawPagedRange(raw, '/bench-raw/k'));
    const storeList = await median(() => storePagedRange(store, '/k'));
    line('store', `paged range ${KEYS / 1000}k (${PAGE}/page) ms`, storeList, rawList, false, 'ms');

    // Watch delivery: time from the first write until the watcher has every event.
    const rawWatcher = await raw.watch().prefix('/bench-rawwatch/').create();
    let rawSeen = 0;
    let rawDone!: () => void;
    const rawAll = new Promise<void>((r) => (rawDone = r));
    rawWatcher.on('put', () => {
      if (++rawSeen === WATCH_EVENTS) rawDone();
    });
    const t2 = performance.now();
    await inBatches(WATCH_EVENTS, (i) => raw.put(keyOf('/bench-rawwatch/k', i)).value(values[i]!).exec());
    await rawAll;
    const rawWatch = performance.now() - t2;
    await rawWatcher.cancel();

    let seen = 0;
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    const w = store.watch('/w/', await store.currentRevision(), {
      onEvents: (evs) => {
        seen += evs.length;
        if (seen >= WATCH_EVENTS) done();
      },
      onError: (err) => {
        throw err;
      },
    });
    const t3 = performance.now();
    await inBatches(WATCH_EVENTS, (i) => store.create(keyOf('/w/k', i), values[i]!));
    await all;
    const storeWatch = performance.now() - t3;
    w.stop();
    line('store', `watch ${WATCH_EVENTS / 1000}k events ms`, storeWatch, rawWatch, false, 'ms');
  } finally {
    await store.close();
    raw.close();
  }
}

/** Counts events of an HTTP watch until n have arrived. */
async function httpWatch(url: string, n: number): Promise<{ done: Promise<void>; stop(): void }> {
  const ac = new AbortController();
  const res = await fetch(url, { signal: ac.signal });
  if (res.status !== 200) throw new Error(`watch failed: ${res.status}`);
  const done = (async () => {
    let count = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      for (const b of chunk) if (b === 10) count++;
      if (count >= n) return;
    }
    throw new Error(`watch ended after ${count} events`);
  })();
  return { done, stop: () => ac.abort() };
}

const cmBody = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { key: 'x'.repeat(200) } });

async function post(base: string, ns: string, i: number): Promise<void> {
  const r = await fetch(`${base}/api/v1/namespaces/${ns}/configmaps`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: cmBody(i) });
  await r.arrayBuffer();
  if (r.status !== 201) throw new Error(`create failed: ${r.status}`);
}

async function apiBench(url: string): Promise<void> {
  const raw = new Etcd3({ hosts: url });
  const replicas: ChildServer[] = [];
  try {
    replicas.push(await startChild('etcd.ts', ['--replica', url]), await startChild('etcd.ts', ['--replica', url]));
    const [a, b] = replicas as [ChildServer, ChildServer];
    for (const ns of ['one', 'two', 'watch1', 'watch2', 'list'])
      await fetch(`${a.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }) });
    // The bytes the API stores for one of these objects: the raw client writes exactly these.
    await post(a.url, 'one', -1);
    const stored = (await raw.get('/registry/core/configmaps/one/cm--1').buffer())!;

    // creates/s: one replica, then two (half the connections on each), beside raw puts of the stored bytes.
    const body = (ns: string) => ({ url: `${a.url}/api/v1/namespaces/${ns}/configmaps`, method: 'POST' as const, body: cmBody, concurrency: API_CONCURRENCY, seconds: API_SECONDS });
    const one = await runLoad(body('one'));
    const two = await Promise.all([runLoad({ ...body('two'), concurrency: API_CONCURRENCY / 2 }), runLoad({ ...body('two'), url: `${b.url}/api/v1/namespaces/two/configmaps`, body: (i) => cmBody(i + 1e7), concurrency: API_CONCURRENCY / 2 })]);
    const rawN = 20_000;
    const rawPuts = await inBatches(rawN, (i) => raw.put(keyOf('/bench-api-raw/cm', i)).value(stored).exec(), API_CONCURRENCY);
    const rawRate = (rawN / rawPuts) * 1000;
    line('api', 'creates/s one replica', one.rps, rawRate, true);
    line('api', 'creates/s two replicas', two[0].rps + two[1].rps, rawRate, true);
    if (one.errors + two[0].errors + two[1].errors > 0) console.log(`etcd api create errors ${one.errors + two[0].errors + two[1].errors}`);

    // Watch delivery through the API: first POST until the watcher has every event.
    const rawWatcher = await raw.watch().prefix('/bench-api-rawwatch/').create();
    let rawSeen = 0;
    let rawDone!: () => void;
    const rawAll = new Promise<void>((r) => (rawDone = r));
    rawWatcher.on('put', () => {
      if (++rawSeen === API_WATCH_EVENTS) rawDone();
    });
    const t0 = performance.now();
    await inBatches(API_WATCH_EVENTS, (i) => raw.put(keyOf('/bench-api-rawwatch/cm', i)).value(stored).exec(), API_CONCURRENCY);
    await rawAll;
    const rawWatch = performance.now() - t0;
    await rawWatcher.cancel();
    // The same puts, now of objects the replicas serve: until HTTP watches on one, then on both replicas have them all.
    const named = (ns: string, i: number) => stored.toString().replace('"cm--1"', `"cm${String(i).padStart(8, '0')}"`).replace('"namespace":"one"', `"namespace":"${ns}"`);
    for (const [label, ns, watched] of [
      ['one replica', 'watch1', [a]],
      ['two replicas', 'watch2', [a, b]],
    ] as const) {
      const watches = await Promise.all(
        watched.map(async (r) => {
          const rv = ((await (await fetch(`${r.url}/api/v1/namespaces/${ns}/configmaps`)).json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
          return httpWatch(`${r.url}/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`, API_WATCH_EVENTS);
        }),
      );
      const t = performance.now();
      await inBatches(API_WATCH_EVENTS, (i) => raw.put(keyOf(`/registry/core/configmaps/${ns}/cm`, i)).value(named(ns, i)).exec(), API_CONCURRENCY);
      await Promise.all(watches.map((w) => w.done));
      const ms = performance.now() - t;
      for (const w of watches) w.stop();
      line('api', `watch ${API_WATCH_EVENTS / 1000}k events ${label} ms`, ms, rawWatch, false, 'ms');
    }

    // A paged list of 10k objects (limit 500): the first page from the watch cache, the rest from etcd.
    await inBatches(KEYS, (i) => raw.put(keyOf('/registry/core/configmaps/list/cm', i)).value(stored.toString().replace('cm--1', `cm${String(i).padStart(8, '0')}`)).exec());
    const listOnce = async (base: string) => {
      let cont = '';
      let total = 0;
      for (;;) {
        const r = (await (await fetch(`${base}/api/v1/namespaces/list/configmaps?limit=${PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`)).json()) as { items: unknown[]; metadata: { continue?: string } };
        total += r.items.length;
        if (!r.metadata.continue) return total;
        cont = r.metadata.continue;
      }
    };
    const median = async (fn: () => Promise<number>) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const n = await fn();
        if (n !== KEYS) throw new Error(`bench: listed ${n} objects, expected ${KEYS}`);
        times.push(performance.now() - t);
      }
      return times.sort((x, y) => x - y)[2]!;
    };
    const rawList = await median(() => rawPagedRange(raw, '/registry/core/configmaps/list/'));
    const apiList = await median(() => listOnce(b.url));
    line('api', `paged list ${KEYS / 1000}k (${PAGE}/page) ms`, apiList, rawList, false, 'ms');
  } finally {
    for (const r of replicas) await r.stop();
    raw.close();
  }
}

export async function benchEtcd(): Promise<void> {
  const etcd = await startEtcd();
  try {
    await storeBench(etcd.url);
    await apiBench(etcd.url);
  } finally {
    await etcd.cleanup();
  }
}

// Child mode: one API replica on the given etcd; prints `URL <url>` for bench/lib/child.ts.
if (process.argv[2] === '--replica' && import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const server = await startServer({ port: 0, store: 'etcd', etcdServers: [process.argv[3]!], demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 });
  process.stdout.write(`URL ${server.url}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}
