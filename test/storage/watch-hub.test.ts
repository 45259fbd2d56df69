// WatchHub delivery over a synchronous log (memory, SQLite, etcd's own log: pumped without promises) and an
// asynchronous one, with synchronous and asynchronous handlers: every event once, in order, one batch at a time.
import { describe, expect, it } from 'vitest';
import { WatchHub, type EventBatch, type EventLog } from '../../src/server/storage/watch-hub.js';
import type { StoreEvent } from '../../src/server/storage/types.js';

function log(async: boolean): { log: EventLog; events: StoreEvent[] } {
  const events: StoreEvent[] = [];
  const read = (prefix: string, after: number, limit: number): EventBatch => {
    const out = events.filter((e) => e.revision > after && e.kv.key.startsWith(prefix)).slice(0, limit);
    const head = events.length ? events[events.length - 1]!.revision : 0;
    return { events: out, upTo: out.length === limit ? out[out.length - 1]!.revision : head };
  };
  return {
    events,
    log: { readEvents: (p, a, l) => (async ? Promise.resolve().then(() => read(p, a, l)) : read(p, a, l)), compactedRevision: () => 0 },
  };
}

function put(events: StoreEvent[], key: string): number {
  const revision = events.length + 1;
  events.push({ type: 'put', revision, kv: { key, value: new Uint8Array(), createRevision: revision, modRevision: revision, version: 1 } } as StoreEvent);
  return revision;
}

const idle = () => new Promise<void>((r) => setTimeout(r, 5));

describe('WatchHub', () => {
  for (const asyncLog of [false, true])
    for (const asyncHandler of [false, true])
      it(`${asyncLog ? 'async' : 'sync'} log, ${asyncHandler ? 'async' : 'sync'} handler: every event once, in order, then progress`, async () => {
        const { log: l, events } = log(asyncLog);
        const hub = new WatchHub(l, 0);
        const seen: number[] = [];
        const progress: number[] = [];
        let inside = 0;
        let overlapped = false;
        hub.watch('/a/', 0, {
          onEvents: (evs) => {
            if (inside++ > 0) overlapped = true;
            for (const e of evs) seen.push(e.revision);
            if (!asyncHandler) return void inside--;
            return idle().then(() => void inside--);
          },
          onProgress: (r) => void progress.push(r),
          onError: (e) => {
            throw e;
          },
        });
        for (let i = 0; i < 5; i++) hub.advance(put(events, i % 2 ? '/b/x' : `/a/${i}`));
        await idle();
        await idle();
        for (let i = 5; i < 1500; i++) hub.advance(put(events, `/a/${i}`));
        hub.advance(put(events, '/b/last'));
        for (let i = 0; i < 20 && progress[progress.length - 1] !== events.length; i++) await idle();
        const want = events.filter((e) => e.kv.key.startsWith('/a/')).map((e) => e.revision);
        expect(seen).toEqual(want);
        expect(overlapped).toBe(false);
        // the last event is another prefix's: the watcher hears of it as progress
        expect(progress[progress.length - 1]).toBe(events.length);
        hub.closeAll();
      });
});
