// Storage benchmark: each figure for the memory and sqlite stores is printed
// next to a raw ceiling measured in the same run on the same bytes (a plain
// Map for memory; plain better-sqlite3 statements in one transaction for
// sqlite). ratio = fraction of the ceiling's speed (1.00 = as fast as raw).
//
// Writes are issued 256 at a time (like concurrent API requests), reads one
// at a time, awaiting each.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { MemoryStore } from '../src/server/storage/memory.js';
import { SqliteStore } from '../src/server/storage/sqlite.js';
import type { RevisionedStore, StoreEvent } from '../src/server/storage/types.js';

const VALUE_BYTES = 512;
const CONCURRENCY = 256;
const RANGE_KEYS = 10_000;
const WATCH_EVENTS = 10_000;

interface Sizes {
  creates: number;
  gets: number;
}

const SIZES: Record<'memory' | 'sqlite', Sizes> = {
  memory: { creates: 100_000, gets: 200_000 },
  sqlite: { creates: 30_000, gets: 50_000 },
};

function makeValue(i: number): Uint8Array {
  const json = JSON.stringify({ kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'bench' }, data: {} });
  const out = new Uint8Array(VALUE_BYTES);
  out.set(new TextEncoder().encode(json).subarray(0, VALUE_BYTES));
  for (let j = json.length; j < VALUE_BYTES; j++) out[j] = (i * 31 + j) & 0xff;
  return out;
}

const keyOf = (prefix: string, i: number): string => `${prefix}${String(i).padStart(8, '0')}`;

function line(backend: string, metric: string, value: number, ceiling: number, higherIsBetter: boolean): void {
  const ratio = higherIsBetter ? value / ceiling : ceiling / value;
  const fmt = (n: number) => (higherIsBetter ? String(Math.round(n)) : n.toFixed(2));
  console.log(`storage ${backend} ${metric} ${fmt(value)} (ceiling ${fmt(ceiling)}, ratio ${ratio.toFixed(2)})`);
}

function rate(count: number, ms: number): number {
  return (count / ms) * 1000;
}

/** Median wall time of fn over runs. */
async function medianMs(runs: number, fn: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

async function createMany(store: RevisionedStore, prefix: string, values: Uint8Array[]): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < values.length; i += CONCURRENCY) {
    const batch: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(i + CONCURRENCY, values.length); j++) batch.push(store.create(keyOf(prefix, j), values[j]));
    await Promise.all(batch);
  }
  return performance.now() - t0;
}

async function getMany(store: RevisionedStore, prefix: string, n: number, count: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const { kv } = await store.get(keyOf(prefix, (i * 7919) % n));
    if (!kv) throw new Error('bench: missing key');
  }
  return performance.now() - t0;
}

/** Time from the first write until a watcher has seen all of them. */
async function watchLive(store: RevisionedStore, prefix: string, values: Uint8Array[]): Promise<number> {
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const watch = store.watch(prefix, await store.currentRevision(), {
    onEvents: (events) => {
      seen += events.length;
      if (seen >= values.length) done();
    },
    onError: (err) => {
      throw err;
    },
  });
  const t0 = performance.now();
  await createMany(store, prefix, values);
  await all;
  const ms = performance.now() - t0;
  watch.stop();
  return ms;
}

/** Time for a watcher to replay count past events. */
async function watchReplay(store: RevisionedStore, prefix: string, afterRevision: number, count: number): Promise<number> {
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const t0 = performance.now();
  const watch = store.watch(prefix, afterRevision, {
    onEvents: (events: StoreEvent[]) => {
      seen += events.length;
      if (seen >= count) done();
    },
    onError: (err) => {
      throw err;
    },
  });
  await all;
  const ms = performance.now() - t0;
  watch.stop();
  return ms;
}

async function benchMemory(): Promise<void> {
  const { creates, gets } = SIZES.memory;
  const values = Array.from({ length: creates }, (_, i) => makeValue(i));

  // Ceilings: a plain Map holding the same bytes.
  const map = new Map<string, Uint8Array>();
  const t0 = performance.now();
  for (let i = 0; i < creates; i++) map.set(keyOf('/bench/a/', i), values[i]);
  const mapSetMs = performance.now() - t0;
  const mapGetMs = await medianMs(1, () => {
    for (let i = 0; i < gets; i++) if (!map.get(keyOf('/bench/a/', (i * 7919) % creates))) throw new Error('miss');
  });
  const rangeMap = new Map<string, Uint8Array>();
  for (let i = 0; i < RANGE_KEYS; i++) rangeMap.set(keyOf('/bench/r/', i), values[i]);
  const mapRangeMs = await medianMs(5, () => Array.from(rangeMap.values()));
  const watchValues = values.slice(0, WATCH_EVENTS);
  const callbackMs = await medianMs(3, () => {
    const m = new Map<string, Uint8Array>();
    let seen = 0;
    const deliver = (_e: unknown) => void seen++;
    for (let i = 0; i < WATCH_EVENTS; i++) {
      const key = keyOf('/bench/w/', i);
      m.set(key, watchValues[i]);
      deliver({ key, value: watchValues[i] });
    }
    return seen;
  });
  const events = watchValues.map((value, i) => ({ key: keyOf('/bench/w/', i), value }));
  const replayCeilMs = await medianMs(5, () => {
    let seen = 0;
    for (const e of events) if (e.key.startsWith('/bench/w/')) seen++;
    return seen;
  });

  const store = new MemoryStore();
  await store.open();
  const createMs = await createMany(store, '/bench/a/', values);
  line('memory', 'creates/s', rate(creates, createMs), rate(creates, mapSetMs), true);
  const getMs = await getMany(store, '/bench/a/', creates, gets);
  line('memory', 'gets/s', rate(gets, getMs), rate(gets, mapGetMs), true);
  await createMany(store, '/bench/r/', values.slice(0, RANGE_KEYS));
  const rangeMs = await medianMs(5, () => store.range({ prefix: '/bench/r/' }));
  line('memory', 'range-10k ms', rangeMs, mapRangeMs, false);
  const before = await store.currentRevision();
  const liveMs = await watchLive(store, '/bench/w/', watchValues);
  line('memory', 'watch-live events/s', rate(WATCH_EVENTS, liveMs), rate(WATCH_EVENTS, callbackMs), true);
  const replayMs = await watchReplay(store, '/bench/w/', before, WATCH_EVENTS);
  line('memory', 'watch-replay events/s', rate(WATCH_EVENTS, replayMs), rate(WATCH_EVENTS, replayCeilMs), true);
  await store.close();
}

async function benchSqlite(): Promise<void> {
  const { creates, gets } = SIZES.sqlite;
  const values = Array.from({ length: creates }, (_, i) => makeValue(i));
  const dir = mkdtempSync(join(tmpdir(), 'periscope-bench-'));
  try {
    // Ceilings: plain better-sqlite3 with the store's pragmas, one transaction per phase.
    const raw = new Database(join(dir, 'raw.db'));
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.exec('CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB)');
    const insert = raw.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
    const select = raw.prepare('SELECT value FROM kv WHERE key = ?').pluck();
    const selectRange = raw.prepare('SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key');
    let t0 = performance.now();
    raw.transaction(() => {
      for (let i = 0; i < creates; i++) insert.run(keyOf('/bench/a/', i), values[i]);
    })();
    const rawInsertMs = performance.now() - t0;
    t0 = performance.now();
    raw.transaction(() => {
      for (let i = 0; i < gets; i++) if (!select.get(keyOf('/bench/a/', (i * 7919) % creates))) throw new Error('miss');
    })();
    const rawSelectMs = performance.now() - t0;
    raw.transaction(() => {
      for (let i = 0; i < RANGE_KEYS; i++) insert.run(keyOf('/bench/r/', i), values[i]);
    })();
    const rawRangeMs = await medianMs(5, () => selectRange.all('/bench/r/', '/bench/r0'));
    raw.exec('CREATE TABLE events (revision INTEGER PRIMARY KEY, key TEXT, value BLOB)');
    const insertEvent = raw.prepare('INSERT INTO events (key, value) VALUES (?, ?)');
    t0 = performance.now();
    raw.transaction(() => {
      for (let i = 0; i < WATCH_EVENTS; i++) insertEvent.run(keyOf('/bench/w/', i), values[i]);
    })();
    const rawEventInsertMs = performance.now() - t0;
    const rawReplayMs = await medianMs(5, () => raw.prepare('SELECT * FROM events ORDER BY revision').all());
    raw.close();

    const storeDir = join(dir, 'store');
    let store = new SqliteStore(storeDir);
    await store.open();
    const createMs = await createMany(store, '/bench/a/', values);
    line('sqlite', 'creates/s', rate(creates, createMs), rate(creates, rawInsertMs), true);
    const getMs = await getMany(store, '/bench/a/', creates, gets);
    line('sqlite', 'gets/s', rate(gets, getMs), rate(gets, rawSelectMs), true);
    await createMany(store, '/bench/r/', values.slice(0, RANGE_KEYS));
    const rangeMs = await medianMs(5, () => store.range({ prefix: '/bench/r/' }));
    line('sqlite', 'range-10k ms', rangeMs, rawRangeMs, false);
    const before = await store.currentRevision();
    const liveMs = await watchLive(store, '/bench/w/', values.slice(0, WATCH_EVENTS));
    line('sqlite', 'watch-live events/s', rate(WATCH_EVENTS, liveMs), rate(WATCH_EVENTS, rawEventInsertMs), true);
    // Reopen so the replay comes from the log table, not the in-memory window.
    await store.close();
    store = new SqliteStore(storeDir);
    await store.open();
    const replayMs = await watchReplay(store, '/bench/w/', before, WATCH_EVENTS);
    line('sqlite', 'watch-replay events/s', rate(WATCH_EVENTS, replayMs), rate(WATCH_EVENTS, rawReplayMs), true);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchStorage(): Promise<void> {
  console.log(`storage: ${VALUE_BYTES}-byte values, writes ${CONCURRENCY} in flight, ratio = fraction of raw ceiling speed`);
  await benchMemory();
  await benchSqlite();
}
