// Shared behaviour suite for every RevisionedStore backend, in the spirit of
// upstream's storage/testing store_tests.go and watcher_tests.go.
// Waits use vi.waitFor with generous timeouts as hang guards only.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  StoreError,
  type KeyValue,
  type RevisionedStore,
  type StoreErrorCode,
  type StoreEvent,
} from '../../src/server/storage/types.js';

export interface StoreFixture {
  store: RevisionedStore;
  cleanup(): Promise<void>;
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const WAIT = { timeout: 15_000, interval: 5 };

async function expectStoreError(p: Promise<unknown>, code: StoreErrorCode): Promise<StoreError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe(code);
    return err as StoreError;
  }
  throw new Error(`expected StoreError ${code}, the call succeeded`);
}

export interface Recorder {
  events: StoreEvent[];
  errors: StoreError[];
  stop(): void;
  waitForEvents(n: number): Promise<void>;
  waitForError(): Promise<StoreError>;
}

export function record(store: RevisionedStore, prefix: string, afterRevision: number): Recorder {
  const events: StoreEvent[] = [];
  const errors: StoreError[] = [];
  const watch = store.watch(prefix, afterRevision, {
    onEvents: (batch) => void events.push(...batch),
    onError: (err) => void errors.push(err),
  });
  return {
    events,
    errors,
    stop: () => watch.stop(),
    waitForEvents: (n) =>
      vi.waitFor(() => {
        expect(errors).toEqual([]);
        expect(events.length).toBeGreaterThanOrEqual(n);
      }, WAIT),
    waitForError: async () => {
      await vi.waitFor(() => expect(errors.length).toBe(1), WAIT);
      return errors[0];
    },
  };
}

function revisions(events: StoreEvent[]): number[] {
  return events.map((e) => e.revision);
}

function expectStrictlyIncreasing(revs: number[]): void {
  for (let i = 1; i < revs.length; i++) expect(revs[i]).toBeGreaterThan(revs[i - 1]);
}

/** Byte-order comparison of the UTF-8 encodings, the order ranges must return. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function runStoreConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`${name} store conformance`, () => {
    let fixture: StoreFixture;
    let store: RevisionedStore;

    beforeEach(async () => {
      fixture = await makeStore();
      store = fixture.store;
      await store.open();
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    describe('create, get, update, delete', () => {
      it('starts empty at a positive revision with nothing compacted', async () => {
        const rev = await store.currentRevision();
        expect(rev).toBeGreaterThan(0);
        expect(await store.compactedRevision()).toBe(0);
        expect(await store.get('/r/none')).toEqual({ revision: rev });
        expect(await store.range({ prefix: '/r/' })).toEqual({ kvs: [], revision: rev, more: false, count: 0 });
      });

      it('create stores the value at a new revision', async () => {
        const before = await store.currentRevision();
        const kv = await store.create('/r/a', enc('one'));
        expect(kv.key).toBe('/r/a');
        expect(dec(kv.value)).toBe('one');
        expect(kv.modRevision).toBeGreaterThan(before);
        expect(kv.createRevision).toBe(kv.modRevision);
        expect(await store.currentRevision()).toBe(kv.modRevision);
        const got = await store.get('/r/a');
        expect(got.revision).toBe(kv.modRevision);
        expect(got.kv).toMatchObject({ key: '/r/a', createRevision: kv.modRevision, modRevision: kv.modRevision });
        expect(dec(got.kv!.value)).toBe('one');
      });

      it('create of an existing key fails with KeyExists and leaves the revision alone', async () => {
        const kv = await store.create('/r/a', enc('one'));
        const err = await expectStoreError(store.create('/r/a', enc('two')), 'KeyExists');
        expect(err.key).toBe('/r/a');
        expect(await store.currentRevision()).toBe(kv.modRevision);
        expect(dec((await store.get('/r/a')).kv!.value)).toBe('one');
      });

      it('a deleted key can be created again with a new createRevision', async () => {
        const first = await store.create('/r/a', enc('one'));
        await store.delete('/r/a');
        const again = await store.create('/r/a', enc('two'));
        expect(again.createRevision).toBeGreaterThan(first.createRevision);
        expect(again.createRevision).toBe(again.modRevision);
      });

      it('keeps arbitrary bytes, including empty values, and copies the caller buffer', async () => {
        const all = new Uint8Array(256).map((_, i) => i);
        await store.create('/r/bytes', all);
        await store.create('/r/empty', new Uint8Array(0));
        const mine = enc('original');
        await store.create('/r/copy', mine);
        mine.fill(0);
        expect(Array.from((await store.get('/r/bytes')).kv!.value)).toEqual(Array.from(all));
        expect((await store.get('/r/empty')).kv!.value.length).toBe(0);
        expect(dec((await store.get('/r/copy')).kv!.value)).toBe('original');
      });

      it('update is a compare-and-swap on modRevision', async () => {
        const created = await store.create('/r/a', enc('v1'));
        const updated = await store.update('/r/a', enc('v2'), created.modRevision);
        expect(updated.modRevision).toBeGreaterThan(created.modRevision);
        expect(updated.createRevision).toBe(created.createRevision);
        expect(dec(updated.value)).toBe('v2');

        const err = await expectStoreError(store.update('/r/a', enc('v3'), created.modRevision), 'Conflict');
        expect(err.key).toBe('/r/a');
        expect(await store.currentRevision()).toBe(updated.modRevision);
        expect(dec((await store.get('/r/a')).kv!.value)).toBe('v2');
      });

      it('update of a missing key fails with KeyNotFound', async () => {
        const rev = await store.currentRevision();
        await expectStoreError(store.update('/r/missing', enc('x'), rev), 'KeyNotFound');
        const kv = await store.create('/r/gone', enc('x'));
        await store.delete('/r/gone');
        await expectStoreError(store.update('/r/gone', enc('y'), kv.modRevision), 'KeyNotFound');
      });

      it('delete returns the last value with modRevision set to the deletion revision', async () => {
        const created = await store.create('/r/a', enc('v1'));
        const updated = await store.update('/r/a', enc('v2'), created.modRevision);
        const deleted = await store.delete('/r/a');
        expect(deleted.modRevision).toBeGreaterThan(updated.modRevision);
        expect(deleted.createRevision).toBe(created.createRevision);
        expect(dec(deleted.value)).toBe('v2');
        expect(await store.currentRevision()).toBe(deleted.modRevision);
        expect((await store.get('/r/a')).kv).toBeUndefined();
      });

      it('delete checks the expected modRevision and reports missing keys', async () => {
        await expectStoreError(store.delete('/r/missing'), 'KeyNotFound');
        const created = await store.create('/r/a', enc('v1'));
        const updated = await store.update('/r/a', enc('v2'), created.modRevision);
        await expectStoreError(store.delete('/r/a', created.modRevision), 'Conflict');
        expect((await store.get('/r/a')).kv).toBeDefined();
        const deleted = await store.delete('/r/a', updated.modRevision);
        expect(deleted.modRevision).toBeGreaterThan(updated.modRevision);
        await expectStoreError(store.delete('/r/a'), 'KeyNotFound');
      });

      it('concurrent compare-and-swap updates: exactly one wins', async () => {
        const created = await store.create('/r/counter', enc('0'));
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => store.update('/r/counter', enc(`w${i}`), created.modRevision)),
        );
        const won = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<KeyValue>[];
        const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(9);
        for (const r of lost) expect((r.reason as StoreError).code).toBe('Conflict');
        const got = await store.get('/r/counter');
        expect(got.kv!.modRevision).toBe(won[0].value.modRevision);
        expect(dec(got.kv!.value)).toBe(dec(won[0].value.value));
      });

      it('concurrent creates of one key: exactly one wins', async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 8 }, (_, i) => store.create('/r/once', enc(`c${i}`))),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
        for (const r of lost) expect((r.reason as StoreError).code).toBe('KeyExists');
      });

      it('a read-modify-write loop with retries on Conflict loses no increments', async () => {
        await store.create('/r/n', enc('0'));
        const increment = async (): Promise<void> => {
          for (;;) {
            const { kv } = await store.get('/r/n');
            try {
              await store.update('/r/n', enc(String(Number(dec(kv!.value)) + 1)), kv!.modRevision);
              return;
            } catch (err) {
              if (!(err instanceof StoreError) || err.code !== 'Conflict') throw err;
            }
          }
        };
        await Promise.all(Array.from({ length: 20 }, increment));
        expect(dec((await store.get('/r/n')).kv!.value)).toBe('20');
      });

      it('revisions strictly increase across all writes', async () => {
        const revs: number[] = [];
        const a = await store.create('/r/a', enc('1'));
        revs.push(a.modRevision);
        const kvs = await Promise.all(['/r/b', '/r/c', '/r/d'].map((k) => store.create(k, enc(k))));
        revs.push(...kvs.map((kv) => kv.modRevision).sort((x, y) => x - y));
        revs.push((await store.update('/r/a', enc('2'), a.modRevision)).modRevision);
        revs.push((await store.delete('/r/b')).modRevision);
        expectStrictlyIncreasing(revs);
        expect(new Set(revs).size).toBe(revs.length);
        expect(await store.currentRevision()).toBe(revs[revs.length - 1]);
      });
    });

    describe('reads at past revisions', () => {
      it('get returns the version current at each past revision', async () => {
        const v1 = await store.create('/p/a', enc('v1'));
        const v2 = await store.update('/p/a', enc('v2'), v1.modRevision);
        const other = await store.create('/p/b', enc('b'));
        const del = await store.delete('/p/a');
        const v3 = await store.create('/p/a', enc('v3'));

        expect((await store.get('/p/a', v1.modRevision - 1)).kv).toBeUndefined();
        expect(dec((await store.get('/p/a', v1.modRevision)).kv!.value)).toBe('v1');
        expect((await store.get('/p/a', v2.modRevision)).kv).toMatchObject({ modRevision: v2.modRevision });
        const atOther = await store.get('/p/a', other.modRevision);
        expect(atOther.revision).toBe(other.modRevision);
        expect(dec(atOther.kv!.value)).toBe('v2');
        expect((await store.get('/p/a', del.modRevision)).kv).toBeUndefined();
        expect((await store.get('/p/a', v3.modRevision)).kv).toMatchObject({
          createRevision: v3.modRevision,
          modRevision: v3.modRevision,
        });
      });

      it('a revision newer than the current one fails with FutureRevision', async () => {
        const kv = await store.create('/p/a', enc('x'));
        const err = await expectStoreError(store.get('/p/a', kv.modRevision + 5), 'FutureRevision');
        expect(err.revision).toBe(kv.modRevision);
        await expectStoreError(store.range({ prefix: '/p/', revision: kv.modRevision + 1 }), 'FutureRevision');
      });

      it('range at a past revision sees the keys of that time', async () => {
        await store.create('/p/a', enc('a1'));
        const b = await store.create('/p/b', enc('b1'));
        const snapshot = b.modRevision;
        await store.create('/p/c', enc('c1'));
        await store.delete('/p/a');
        await store.update('/p/b', enc('b2'), b.modRevision);

        const past = await store.range({ prefix: '/p/', revision: snapshot });
        expect(past.revision).toBe(snapshot);
        expect(past.count).toBe(2);
        expect(past.kvs.map((kv) => [kv.key, dec(kv.value)])).toEqual([
          ['/p/a', 'a1'],
          ['/p/b', 'b1'],
        ]);
        const now = await store.range({ prefix: '/p/' });
        expect(now.kvs.map((kv) => [kv.key, dec(kv.value)])).toEqual([
          ['/p/b', 'b2'],
          ['/p/c', 'c1'],
        ]);
      });
    });

    describe('range', () => {
      it('returns keys under the prefix only, sorted by UTF-8 byte order', async () => {
        const keys = ['/s/b', '/s/a', '/s/a/x', '/s/Z', '/s/\u00e9', '/s/\uffef', '/s/\u{1f600}', '/s/0', '/s/a-'];
        for (const k of keys) await store.create(k, enc(k));
        await store.create('/sx/a', enc('no'));
        await store.create('/s', enc('no'));
        await store.create('/r/z', enc('no'));
        const result = await store.range({ prefix: '/s/' });
        expect(result.kvs.map((kv) => kv.key)).toEqual([...keys].sort(byteOrder));
        expect(result.count).toBe(keys.length);
        expect(result.more).toBe(false);
        expect(result.revision).toBe(await store.currentRevision());
      });

      it('an empty prefix ranges over every key', async () => {
        for (const k of ['/b', '/a', 'z']) await store.create(k, enc(k));
        expect((await store.range({ prefix: '' })).kvs.map((kv) => kv.key)).toEqual(['/a', '/b', 'z']);
      });

      it('pages with startKey and limit, reporting count and more', async () => {
        const keys = Array.from({ length: 25 }, (_, i) => `/pg/k${String(i).padStart(3, '0')}`);
        await Promise.all(keys.map((k) => store.create(k, enc(k))));

        const first = await store.range({ prefix: '/pg/', limit: 10 });
        expect(first.kvs.map((kv) => kv.key)).toEqual(keys.slice(0, 10));
        expect(first.count).toBe(25);
        expect(first.more).toBe(true);

        const seen: string[] = [];
        let startKey: string | undefined;
        let pages = 0;
        for (;;) {
          const page = await store.range({ prefix: '/pg/', startKey, limit: 10, revision: first.revision });
          pages++;
          expect(page.revision).toBe(first.revision);
          expect(page.count).toBe(25 - seen.length);
          seen.push(...page.kvs.map((kv) => kv.key));
          if (!page.more) break;
          startKey = page.kvs[page.kvs.length - 1].key + '\u0000';
        }
        expect(pages).toBe(3);
        expect(seen).toEqual(keys);

        const exact = await store.range({ prefix: '/pg/', startKey: keys[20], limit: 5 });
        expect(exact.kvs.map((kv) => kv.key)).toEqual(keys.slice(20));
        expect(exact.more).toBe(false);
        expect(exact.count).toBe(5);
        expect((await store.range({ prefix: '/pg/', limit: 0 })).kvs).toHaveLength(25);
        expect(await store.range({ prefix: '/pg/', startKey: '/pg/zzz' })).toMatchObject({ kvs: [], count: 0 });
      });

      it('paging at a fixed revision is a consistent snapshot while writes continue', async () => {
        const keys = Array.from({ length: 12 }, (_, i) => `/snap/k${String(i).padStart(2, '0')}`);
        for (const k of keys) await store.create(k, enc('old'));
        const first = await store.range({ prefix: '/snap/', limit: 5 });

        await store.create('/snap/k05a', enc('new'));
        await store.delete(keys[8]);
        const k10 = (await store.get(keys[10])).kv!;
        await store.update(keys[10], enc('new'), k10.modRevision);

        const rest = await store.range({
          prefix: '/snap/',
          startKey: first.kvs[4].key + '\u0000',
          revision: first.revision,
        });
        expect(rest.kvs.map((kv) => kv.key)).toEqual(keys.slice(5));
        expect(rest.kvs.every((kv) => dec(kv.value) === 'old')).toBe(true);
        expect(rest.count).toBe(7);
      });
    });

    describe('watch', () => {
      it('delivers puts and deletes after the start revision, in order, with prevKv', async () => {
        const start = await store.currentRevision();
        const rec = record(store, '/w/', start);
        const created = await store.create('/w/a', enc('v1'));
        const updated = await store.update('/w/a', enc('v2'), created.modRevision);
        const deleted = await store.delete('/w/a');
        await rec.waitForEvents(3);
        expect(rec.events).toHaveLength(3);
        const [c, u, d] = rec.events;
        expect(c).toMatchObject({ type: 'put', revision: created.modRevision, kv: { key: '/w/a', modRevision: created.modRevision } });
        expect(c.prevKv).toBeUndefined();
        expect(u).toMatchObject({ type: 'put', revision: updated.modRevision });
        expect(dec(u.kv.value)).toBe('v2');
        expect(u.prevKv).toMatchObject({ modRevision: created.modRevision });
        expect(dec(u.prevKv!.value)).toBe('v1');
        expect(d).toMatchObject({ type: 'delete', revision: deleted.modRevision });
        expect(d.kv.modRevision).toBe(deleted.modRevision);
        expect(d.kv.createRevision).toBe(created.createRevision);
        expect(dec(d.kv.value)).toBe('v2');
        expect(d.prevKv).toMatchObject({ modRevision: updated.modRevision });
        rec.stop();
      });

      it('never calls handlers synchronously inside a write', async () => {
        let inWrite = false;
        let calledInWrite = false;
        let calls = 0;
        store.watch('/w/', await store.currentRevision(), {
          onEvents: () => {
            calls++;
            if (inWrite) calledInWrite = true;
          },
          onError: () => {},
        });
        inWrite = true;
        const p = store.create('/w/sync', enc('x'));
        inWrite = false;
        await p;
        await vi.waitFor(() => expect(calls).toBeGreaterThan(0), WAIT);
        expect(calledInWrite).toBe(false);
      });

      it('replays history from a past revision, then continues live', async () => {
        const start = await store.currentRevision();
        const a = await store.create('/w/a', enc('1'));
        await store.update('/w/a', enc('2'), a.modRevision);
        await store.create('/w/b', enc('1'));
        const rec = record(store, '/w/', start);
        await rec.waitForEvents(3);
        await store.delete('/w/b');
        await rec.waitForEvents(4);
        expect(rec.events.map((e) => `${e.type} ${e.kv.key}`)).toEqual(['put /w/a', 'put /w/a', 'put /w/b', 'delete /w/b']);
        expect(rec.events[0].revision).toBe(a.modRevision);
        expectStrictlyIncreasing(revisions(rec.events));
        rec.stop();
      });

      it('a watch started in the middle of a burst of writes sees each later revision exactly once', async () => {
        const total = 300;
        const writes: Promise<KeyValue>[] = [];
        let rec: Recorder | undefined;
        let startRev = 0;
        for (let i = 0; i < total; i++) {
          writes.push(store.create(`/race/${i}`, enc(String(i))));
          if (i === 100) {
            await writes[50];
            startRev = (await writes[50]).modRevision;
            rec = record(store, '/race/', startRev);
          }
          if (i % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        const kvs = await Promise.all(writes);
        const expected = kvs.map((kv) => kv.modRevision).filter((r) => r > startRev).sort((x, y) => x - y);
        await rec!.waitForEvents(expected.length);
        expect(revisions(rec!.events)).toEqual(expected);
        rec!.stop();
      });

      it('replays more events than one delivery batch, in order', async () => {
        const start = await store.currentRevision();
        const n = 2500;
        for (let i = 0; i < n; i += 250) {
          await Promise.all(Array.from({ length: 250 }, (_, j) => store.create(`/big/${i + j}`, enc('x'))));
        }
        const rec = record(store, '/big/', start);
        await rec.waitForEvents(n);
        expect(rec.events).toHaveLength(n);
        expectStrictlyIncreasing(revisions(rec.events));
        expect(rec.events[0].revision).toBe(start + 1);
        rec.stop();
      });

      it('only delivers keys under the watched prefix', async () => {
        const start = await store.currentRevision();
        const a = record(store, '/iso/a/', start);
        const all = record(store, '/iso/', start);
        await store.create('/iso/a/1', enc('x'));
        await store.create('/iso/ab/1', enc('x'));
        await store.create('/iso/b/1', enc('x'));
        await store.create('/other/a/1', enc('x'));
        await store.create('/iso/a/2', enc('x'));
        await all.waitForEvents(4);
        await a.waitForEvents(2);
        expect(a.events.map((e) => e.kv.key)).toEqual(['/iso/a/1', '/iso/a/2']);
        expect(all.events.map((e) => e.kv.key)).toEqual(['/iso/a/1', '/iso/ab/1', '/iso/b/1', '/iso/a/2']);
        a.stop();
        all.stop();
      });

      it('stop() ends delivery, also from inside a handler', async () => {
        const start = await store.currentRevision();
        const sentinel = record(store, '/stop/', start);
        const stopped = record(store, '/stop/', start);
        const inHandler: StoreEvent[] = [];
        const self = store.watch('/stop/', start, {
          onEvents: (events) => {
            inHandler.push(...events);
            self.stop();
          },
          onError: () => {},
        });
        await store.create('/stop/1', enc('x'));
        await stopped.waitForEvents(1);
        stopped.stop();
        for (let i = 2; i <= 5; i++) await store.create(`/stop/${i}`, enc('x'));
        await sentinel.waitForEvents(5);
        expect(stopped.events).toHaveLength(1);
        expect(inHandler).toHaveLength(1);
        sentinel.stop();
      });

      it('a watcher that does not keep up blocks neither writers nor other watchers', async () => {
        const start = await store.currentRevision();
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        const slow: StoreEvent[] = [];
        store.watch('/slow/', start, {
          onEvents: async (events) => {
            slow.push(...events);
            await gate;
          },
          onError: () => {},
        });
        // A handler that is slow synchronously as well.
        const busy: StoreEvent[] = [];
        store.watch('/slow/', start, {
          onEvents: (events) => {
            busy.push(...events);
            const until = Date.now() + 2;
            while (Date.now() < until);
          },
          onError: () => {},
        });
        const fast = record(store, '/slow/', start);
        const n = 60;
        await store.create('/slow/0', enc('x'));
        // The slow watcher now sits in its handler until the gate opens.
        await vi.waitFor(() => expect(slow).toHaveLength(1), WAIT);
        for (let i = 1; i < n; i++) await store.create(`/slow/${i}`, enc('x'));
        await fast.waitForEvents(n);
        expect(fast.events).toHaveLength(n);
        expect(slow).toHaveLength(1);
        release();
        await vi.waitFor(() => expect(slow).toHaveLength(n), WAIT);
        await vi.waitFor(() => expect(busy).toHaveLength(n), WAIT);
        expect(revisions(slow)).toEqual(revisions(fast.events));
        expect(revisions(busy)).toEqual(revisions(fast.events));
        fast.stop();
      });

      it('a watch may start at a future revision and receives the writes after it', async () => {
        const start = await store.currentRevision();
        const rec = record(store, '/fut/', start + 2);
        const a = await store.create('/fut/1', enc('x'));
        const b = await store.create('/fut/2', enc('x'));
        const c = await store.create('/fut/3', enc('x'));
        expect(b.modRevision).toBe(start + 2);
        await rec.waitForEvents(1);
        expect(revisions(rec.events)).toEqual([c.modRevision]);
        expect(a.modRevision).toBeLessThan(start + 2);
        rec.stop();
      });
    });

    describe('compaction', () => {
      it('past reads before the compacted revision fail with Compacted; the compacted revision itself is readable', async () => {
        const a = await store.create('/c/a', enc('a1'));
        const a2 = await store.update('/c/a', enc('a2'), a.modRevision);
        const b = await store.create('/c/b', enc('b1'));
        await store.delete('/c/b');
        const keep = await store.create('/c/c', enc('c1'));
        await store.update('/c/a', enc('a3'), a2.modRevision);

        await store.compact(keep.modRevision);
        expect(await store.compactedRevision()).toBe(keep.modRevision);

        const err = await expectStoreError(store.get('/c/a', a2.modRevision), 'Compacted');
        expect(err.revision).toBe(keep.modRevision);
        const rangeErr = await expectStoreError(store.range({ prefix: '/c/', revision: b.modRevision }), 'Compacted');
        expect(rangeErr.revision).toBe(keep.modRevision);

        const at = await store.range({ prefix: '/c/', revision: keep.modRevision });
        expect(at.kvs.map((kv) => [kv.key, dec(kv.value)])).toEqual([
          ['/c/a', 'a2'],
          ['/c/c', 'c1'],
        ]);
        expect(dec((await store.get('/c/a', keep.modRevision)).kv!.value)).toBe('a2');
        expect(dec((await store.get('/c/a')).kv!.value)).toBe('a3');
        expect((await store.range({ prefix: '/c/' })).count).toBe(2);
      });

      it('compacting at or below the compacted revision is a no-op; a future revision fails', async () => {
        const a = await store.create('/c/a', enc('x'));
        const b = await store.create('/c/b', enc('x'));
        await store.compact(b.modRevision);
        await store.compact(a.modRevision);
        await store.compact(b.modRevision);
        expect(await store.compactedRevision()).toBe(b.modRevision);
        const err = await expectStoreError(store.compact(b.modRevision + 10), 'FutureRevision');
        expect(err.revision).toBe(b.modRevision);
      });

      it('a watch from before the compacted revision fails asynchronously with Compacted', async () => {
        const a = await store.create('/c/a', enc('x'));
        await store.update('/c/a', enc('y'), a.modRevision);
        const b = await store.create('/c/b', enc('x'));
        await store.compact(b.modRevision);

        let synchronous = true;
        const errors: StoreError[] = [];
        const events: StoreEvent[] = [];
        store.watch('/c/', a.modRevision, {
          onEvents: (e) => void events.push(...e),
          onError: (err) => {
            expect(synchronous).toBe(false);
            errors.push(err);
          },
        });
        synchronous = false;
        await vi.waitFor(() => expect(errors).toHaveLength(1), WAIT);
        expect(errors[0].code).toBe('Compacted');
        expect(errors[0].revision).toBe(b.modRevision);
        expect(events).toEqual([]);
      });

      it('a watch from the compacted revision gets every later change', async () => {
        const a = await store.create('/c/a', enc('x'));
        const b = await store.update('/c/a', enc('y'), a.modRevision);
        const c = await store.create('/c/b', enc('x'));
        await store.compact(b.modRevision);
        const rec = record(store, '/c/', b.modRevision);
        const d = await store.delete('/c/a');
        await rec.waitForEvents(2);
        expect(revisions(rec.events)).toEqual([c.modRevision, d.modRevision]);
        expect(dec(rec.events[1].kv.value)).toBe('y');
        rec.stop();
      });

      it('live watchers keep receiving events across a compaction', async () => {
        const start = await store.currentRevision();
        const rec = record(store, '/c/', start);
        const a = await store.create('/c/a', enc('x'));
        await rec.waitForEvents(1);
        await store.compact(a.modRevision);
        const b = await store.create('/c/b', enc('x'));
        await rec.waitForEvents(2);
        expect(revisions(rec.events)).toEqual([a.modRevision, b.modRevision]);
        rec.stop();
      });
    });

    describe('lifecycle', () => {
      it('operations on a closed store fail with Unavailable', async () => {
        await store.close();
        await expectStoreError(store.create('/l/a', enc('x')), 'Unavailable');
        await expectStoreError(store.get('/l/a'), 'Unavailable');
        await expectStoreError(store.range({ prefix: '/l/' }), 'Unavailable');
      });
    });
  });
}
