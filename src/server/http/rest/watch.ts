// watch: a chunked stream of events from the type's watch cache, with the spec's start semantics,
// bookmarks, streaming lists (sendInitialEvents), timeouts and slow-consumer protection.
import { StoreError } from '../../storage/types.js';
import { INITIAL_EVENTS_END_ANNOTATION, INITIAL_EVENTS_END_ANNOTATION_UPSTREAM } from '../../registry/names.js';
import type { KubeObject } from '../../registry/types.js';
import { cachedEncoding } from '../../watch/encode-cache.js';
import { WatchOutbox } from '../../watch/outbox.js';
import type { CacheEvent, EventType, WatchCache } from '../../watch/watch-cache.js';
import { contentTypeHeader } from '../negotiate.js';
import { warningHeaders } from '../respond.js';
import type { RequestScope } from '../scope.js';
import { columnDefinitions, tableRow, toPartialObjectMetadata } from '../table.js';
import { parseRV, parseWatchOptions, matchesSelectors } from './list-options.js';
import { includeObjectOf, negotiateFor } from './output.js';
import { served } from './decode.js';

export interface WatchSettings {
  /** Interval between bookmarks when allowWatchBookmarks (upstream: 1 min). */
  bookmarkIntervalMs: number;
  /** Live events buffered for one watcher before it counts as too slow and is closed (upstream: 1000). */
  maxBuffered: number;
  /** Unsent bytes held for one watcher before it counts as too slow and is closed. */
  maxBufferedBytes: number;
  /** Watches without timeoutSeconds end after a random time in this range (upstream: 30–60 min). */
  defaultTimeoutMs: [number, number];
  /** Live events wait at most this long to share one write with the next ones (see watch/outbox.ts). */
  coalesceMs: number;
}

export const defaultWatchSettings: WatchSettings = {
  bookmarkIntervalMs: 60_000,
  maxBuffered: 1000,
  // Upstream bounds a watcher by events only: its buffer holds pointers to shared objects and a client
  // that stops reading blocks the writer. Here unsent frames are held per watcher, so bytes are bounded
  // too: 8 MiB is over five objects at etcd's 1.5 MiB request limit, while 500 stalled watchers cannot
  // pin more than 4 GiB between them even with unshared (Table) frames.
  maxBufferedBytes: 8 * 1024 * 1024,
  defaultTimeoutMs: [30 * 60_000, 60 * 60_000],
  coalesceMs: 0,
};

/** Node's timers fire at once past 2^31-1 ms (~24.8 days): longer timeouts are cut to this. */
export const MAX_WATCH_TIMEOUT_MS = 2 ** 31 - 1;

type WireType = EventType | 'BOOKMARK' | 'ERROR';

/** How one encoding frames watch events: objects are encoded once and spliced into each event. */
export interface WatchEncoder {
  /** The bytes of one object as it appears inside an event. */
  object(obj: unknown): Buffer;
  /** One event frame around already-encoded object bytes. */
  event(type: WireType, objectBytes: Buffer): Buffer;
}

const jsonWatchEncoder: WatchEncoder = {
  object: (obj) => Buffer.from(JSON.stringify(obj)),
  event: (type, bytes) => Buffer.concat([Buffer.from(`{"type":"${type}","object":`), bytes, Buffer.from('}\n')]),
};

const watchEncoders = new Map<string, WatchEncoder>([['json', jsonWatchEncoder]]);
export function registerWatchEncoder(encoding: string, enc: WatchEncoder): void {
  watchEncoders.set(encoding, enc);
}

export async function handleWatch(s: RequestScope, cache: WatchCache, settings: WatchSettings): Promise<void> {
  const opts = parseWatchOptions(s.query, s.type);
  const n = negotiateFor(s, { watch: true });
  const includeObject = includeObjectOf(s.query);
  const ns = s.type.scope === 'Namespaced' && s.info.namespace ? s.info.namespace : undefined;
  const prefix = s.rs.prefix(ns);
  const rv = parseRV(opts.resourceVersion);
  const upstreamSpelling = s.info.group.endsWith('.k8s.io') || n.metaGroup === 'meta.k8s.io' || n.mediaType.includes('kubernetes');

  // Decide the start point before writing anything, so 410/504 still become plain HTTP errors.
  let initial: KubeObject[] | undefined;
  let startRev: number;
  let initialEventsEnd = false;
  let compactedStart = false;
  if (opts.sendInitialEvents !== undefined) {
    if (rv === undefined) await cache.waitConsistent();
    else if (rv > 0) await cache.waitFresh(rv);
    else await cache.start();
    if (opts.sendInitialEvents) {
      initial = snapshot(cache, prefix);
      initialEventsEnd = true;
    }
    startRev = cache.revision;
  } else if (rv === undefined) {
    await cache.waitConsistent();
    initial = snapshot(cache, prefix);
    startRev = cache.revision;
  } else if (rv === 0) {
    await cache.start();
    initial = snapshot(cache, prefix);
    startRev = cache.revision;
  } else {
    await cache.start();
    startRev = rv;
    // the retained-history rule holds for watches as for lists: a start the store has compacted away is
    // 410 even when the watch cache still holds those events
    compactedStart = await isCompacted(s, rv);
  }

  const res = s.res;
  const matches = (o: KubeObject) => matchesSelectors(s.type, o, opts.labelSelector, opts.fieldSelector);
  const filtered = !opts.labelSelector.empty || !opts.fieldSelector.empty;
  let sentColumns = false;
  let lastRev = startRev;

  const encodeObj = (o: KubeObject): unknown => {
    if (n.representation === 'PartialObjectMetadata') return toPartialObjectMetadata(o, n.metaGroup);
    if (n.representation === 'Table') {
      const table: Record<string, unknown> = {
        kind: 'Table',
        apiVersion: `${n.metaGroup}/v1`,
        metadata: { resourceVersion: o.metadata?.resourceVersion },
        columnDefinitions: sentColumns ? [] : columnDefinitions(s.type),
        rows: [tableRow(o, s.type, { includeObject, metaGroup: n.metaGroup })],
      };
      sentColumns = true;
      return table;
    }
    return served(s, o);
  };

  const enc = watchEncoders.get(n.encoding) ?? jsonWatchEncoder;
  // objects and metadata-only forms are encoded once per object version, encoding and spelling, and
  // shared by every watcher and list; a Table row depends on the watcher (columns on the first event)
  const cacheKey = n.representation === 'object' ? `${n.encoding}:${s.apiVersion}` : n.representation === 'PartialObjectMetadata' ? `${n.encoding}:pom:${n.metaGroup}` : undefined;
  // whole frames are cached too, so every watcher's backlog points at the same bytes (the keys are made
  // once per watch, not per event)
  const frameKeys = cacheKey ? new Map<WireType, string>() : undefined;
  const frameKey = (type: WireType): string => {
    let k = frameKeys!.get(type);
    if (k === undefined) frameKeys!.set(type, (k = `${cacheKey}:${type}`));
    return k;
  };
  const frame = (type: WireType, o: KubeObject): Buffer =>
    cacheKey ? cachedEncoding(o, frameKey(type), () => enc.event(type, enc.object(encodeObj(o)))) : enc.event(type, enc.object(encodeObj(o)));

  const bookmark = (rev: number, extraAnnotation = false): Buffer => {
    const meta: Record<string, unknown> = { resourceVersion: String(rev) };
    if (extraAnnotation) meta.annotations = { [upstreamSpelling ? INITIAL_EVENTS_END_ANNOTATION_UPSTREAM : INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    return enc.event('BOOKMARK', enc.object({ kind: s.type.kind, apiVersion: s.apiVersion, metadata: meta }));
  };

  // An unfiltered watcher sends the event as it is: its frame is kept on the event for the other
  // watchers of the same form (one map lookup per watcher, no per-watcher closure or key string)
  const eventFrame = (ev: CacheEvent): Buffer => {
    if (!cacheKey) return frame(ev.type, ev.obj);
    const key = frameKey(ev.type);
    const m = (ev.encoded ??= new Map());
    let b = m.get(key);
    if (b === undefined) m.set(key, (b = frame(ev.type, ev.obj)));
    return b;
  };

  // Convert a cache event into what this watcher sees (selector transitions become ADDED/DELETED).
  const toFrame = (ev: CacheEvent): Buffer | undefined => {
    if (ev.revision > lastRev) lastRev = ev.revision;
    if (!filtered) return eventFrame(ev);
    const now = ev.type === 'DELETED' ? false : matches(ev.obj);
    const before = ev.prevObj ? matches(ev.prevObj) : false;
    if (ev.type === 'DELETED') return before || matches(ev.obj) ? frame('DELETED', ev.obj) : undefined;
    if (now && before) return frame('MODIFIED', ev.obj);
    if (now && !before) return frame('ADDED', ev.obj);
    if (!now && before) {
      const gone = { ...ev.prevObj!, metadata: { ...ev.prevObj!.metadata, resourceVersion: String(ev.revision) } };
      return frame('DELETED', gone);
    }
    return undefined;
  };

  res.writeHead(200, {
    'Content-Type': contentTypeHeader(n, true),
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
    ...(s.warnings.length ? { Warning: warningHeaders(s.warnings) } : {}),
  });
  res.flushHeaders();
  const closedPromise = new Promise<void>((resolve) => res.once('close', resolve));

  const out = new WatchOutbox(res, { maxEvents: settings.maxBuffered, maxBytes: settings.maxBufferedBytes, coalesceMs: settings.coalesceMs });
  let closed = false;
  let unregister: () => void = () => {};
  let timers: NodeJS.Timeout[] = [];
  const finish = (how: 'end' | 'abort', last?: Buffer) => {
    if (closed) return;
    closed = true;
    for (const t of timers) clearTimeout(t);
    timers = [];
    unregister();
    if (how === 'abort') out.abort();
    else out.end(last);
  };

  // Initial state (and the initial-events-end bookmark) or replayed history goes out as fast as the
  // client reads it; changes from here on queue behind it. The first backlog frame is made at once
  // (nothing is written yet), so a Table's column definitions still ride on the first frame sent.
  if (initial) {
    const objs = initial;
    const withEnd = initialEventsEnd && opts.allowWatchBookmarks;
    out.addBacklog(
      (function* () {
        for (const o of objs) if (!filtered || matches(o)) yield frame('ADDED', o);
        if (withEnd) yield bookmark(startRev, true);
      })(),
    );
  } else if (initialEventsEnd && opts.allowWatchBookmarks) out.addBacklog([bookmark(startRev, true)]);

  const expired = () => {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'The resourceVersion for the provided watch is too old.', reason: 'Expired', code: 410 };
    return enc.event('ERROR', enc.object(status));
  };
  if (compactedStart) {
    finish('end', expired());
    await closedPromise;
    return;
  }
  try {
    unregister = cache.watch(prefix, startRev, {
      push: (ev) => closed || ev.revision <= startRev || out.push(toFrame(ev)),
      replay: (evs) => {
        if (evs.length > 0)
          out.addBacklog(
            (function* () {
              for (const ev of evs) yield toFrame(ev);
            })(),
          );
      },
      progress: (r) => {
        if (r > lastRev) lastRev = r;
      },
      onClose: (reason) => {
        if (reason === 'slow') return finish('abort');
        if (reason === 'expired') return finish('end', expired());
        finish('end');
      },
    });
  } catch (e) {
    // too old: the stream has started, so the error travels as an ERROR event (as upstream)
    const status = (e as { status?: unknown }).status ?? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: String(e), reason: 'InternalError', code: 500 };
    finish('end', enc.event('ERROR', enc.object(status)));
    await closedPromise;
    return;
  }
  const write = (b: Buffer) => {
    if (!closed && !out.push(b)) finish('abort');
  };

  const [lo, hi] = settings.defaultTimeoutMs;
  // as upstream, a given timeoutSeconds is used as is (0 = unset: the random default), up to what a timer holds
  const timeoutMs = opts.timeoutSeconds ? Math.min(opts.timeoutSeconds * 1000, MAX_WATCH_TIMEOUT_MS) : lo + Math.random() * (hi - lo);
  if (opts.allowWatchBookmarks) {
    const tick = () => {
      if (closed) return;
      write(bookmark(Math.max(lastRev, cache.revision)));
      timers.push(setTimeout(tick, settings.bookmarkIntervalMs));
    };
    timers.push(setTimeout(tick, settings.bookmarkIntervalMs));
  }
  timers.push(
    setTimeout(() => finish('end', opts.allowWatchBookmarks ? bookmark(Math.max(lastRev, cache.revision)) : undefined), timeoutMs),
  );
  // server shutdown ends the stream; a client that left has nothing to flush to
  s.signal.addEventListener('abort', () => finish(res.destroyed ? 'abort' : 'end'), { once: true });
  res.on('close', () => finish('abort'));
  await closedPromise;
}

function snapshot(cache: WatchCache, prefix: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const k of cache.keysUnder(prefix)) {
    const o = cache.objects.get(k);
    if (o !== undefined) out.push(o); // found undecodable on this read (the cache decodes lazily)
  }
  return out;
}

/** Whether the store has compacted `rv` away: one point read at that revision (cheap on every store, one RPC on etcd). */
async function isCompacted(s: RequestScope, rv: number): Promise<boolean> {
  try {
    await s.rs.store.get(s.rs.prefix(), rv);
    return false;
  } catch (e) {
    if (e instanceof StoreError && e.code === 'Compacted') return true;
    // a future revision and the like are left to the watch itself
    return false;
  }
}
