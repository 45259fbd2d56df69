// One view of every object of every type for the in-process controllers (garbage collector, namespace
// controller, pod grace periods, the workload controllers' informer cache): the API server's own watch caches,
// not a store watch of its own. The objects handed out are the watch cache's decoded copies, shared read-only
// with every API reader and watcher, so each object version is decoded once per process (upstream's in-process
// informers on the loopback client decode their own copy; sharing the cache is what a single-threaded server
// affords). Listeners must never change an object they are given: they copy before editing (ApiWriter.mutate).
// Starts with a snapshot of every type's cache and re-lists (onSync again) whenever a cache reloads.
import { typePrefix } from '../registry/keys.js';
import type { TypeRegistry } from '../registry/registry.js';
import type { KubeObject } from '../registry/types.js';
import { decodeFromStorage } from '../registry/resource-store.js';
import type { KeyValue } from '../storage/types.js';
import type { CacheEvent, WatchCacheSet } from '../watch/watch-cache.js';

/** Time the snapshot's decoding of an undecorated type (Events) takes per event-loop turn. */
const SNAPSHOT_SLICE_MS = 4;

export const REGISTRY_PREFIX = '/registry/';

export interface FeedItem {
  key: string;
  /** Undefined when the stored bytes cannot be decoded. */
  obj?: KubeObject;
}

export interface FeedEvent extends FeedItem {
  /** For a delete, obj is the last state. */
  type: 'put' | 'delete';
  /** A put that created the key. */
  created: boolean;
  /** For a put: the state before (undefined for a create). */
  readonly prev?: KubeObject;
}

export interface FeedListener {
  /** The complete current state (at start and after every re-list). */
  onSync(items: FeedItem[]): void;
  onEvent(ev: FeedEvent): void;
}

/** What the controllers read through: the in-process feed (shared watch caches) or a remote one (list/watch over HTTP). */
export interface Feed {
  subscribe(l: FeedListener): void;
  start(): Promise<void>;
  /**
   * Resolves once every change up to `rev` has been delivered (so listeners' indexes include it), or on stop;
   * `objs`, the written objects, let a feed of several watches wait on their kinds' watches only.
   */
  caughtUp(rev: number, objs?: readonly ({ apiVersion?: string; kind?: string } | undefined)[]): Promise<void>;
  stop(): void;
}

/** Where a key lives: group ('' for core), plural, namespace ('' for cluster-scoped) and name. */
export function parseKey(key: string): { group: string; plural: string; namespace: string; name: string } | undefined {
  if (!key.startsWith(REGISTRY_PREFIX)) return undefined;
  const parts = key.slice(REGISTRY_PREFIX.length).split('/');
  if (parts.length === 3) return { group: parts[0] === 'core' ? '' : parts[0]!, plural: parts[1]!, namespace: '', name: parts[2]! };
  if (parts.length === 4) return { group: parts[0] === 'core' ? '' : parts[0]!, plural: parts[1]!, namespace: parts[2]!, name: parts[3]! };
  return undefined;
}

/** The watch caches the feed reads (the API server's). */
export interface SharedCaches {
  caches: WatchCacheSet;
  types: TypeRegistry;
}

/** One type's cache as the feed follows it. */
interface Stream {
  prefix: string;
  /** Every change up to here was delivered (events, or the cache's progress). */
  rev: number;
  unwatch?: () => void;
}

/** Deep-freezes shared objects when PERISCOPE_FREEZE_SHARED=1 (tests: a listener writing into one throws). */
const FREEZE = process.env['PERISCOPE_FREEZE_SHARED'] === '1';
function freeze<T>(o: T): T {
  if (!FREEZE || o === null || typeof o !== 'object' || Object.isFrozen(o)) return o;
  Object.freeze(o);
  for (const v of Object.values(o as object)) freeze(v);
  return o;
}

export class ObjectFeed implements Feed {
  private listeners: FeedListener[] = [];
  private streams = new Map<string, Stream>();
  private stopped = false;
  private retry?: NodeJS.Timeout;
  private waiters: { rev: number; resolve: () => void }[] = [];
  /** Events that arrived while listeners were still taking the snapshot (delivered right after). */
  private pending?: FeedEvent[];
  private generation = 0;
  private offTypes?: () => void;

  constructor(
    private shared: SharedCaches,
    private log: (l: string) => void = () => {},
    signal?: AbortSignal,
  ) {
    if (signal?.aborted) this.stopped = true;
    else signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  subscribe(l: FeedListener): void {
    this.listeners.push(l);
  }

  private prefixes(): Set<string> {
    return new Set(this.shared.types.all().map((t) => typePrefix(t)));
  }

  async start(): Promise<void> {
    const gen = ++this.generation;
    for (const s of this.streams.values()) s.unwatch?.();
    this.streams.clear();
    const prefixes = [...this.prefixes()];
    // the server starts every cache before it is ready; a cache still loading (a CRD's) is waited for
    await Promise.all(prefixes.map((p) => this.shared.caches.get(p).start()));
    // a freshly loaded cache decodes its stored bytes in the background, a few ms a turn; iterating it now would
    // decode the rest in one turn (3 s for 100k pods, with every request waiting behind it): wait for the pass
    while (!this.stopped && gen === this.generation && prefixes.some((p) => this.shared.caches.get(p).objects.pending > 0)) await new Promise((r) => setTimeout(r, 10));
    if (this.stopped || gen !== this.generation) return;
    // the snapshot and the watch registration in one turn: nothing falls between them
    const items: FeedItem[] = [];
    // an undecorated type's cache (Events) holds stored bytes: taken now, decoded below a few ms a turn (an
    // hour of Events decoded at once held the event loop for seconds after a restart)
    const stored: [string, KeyValue][] = [];
    this.pending = [];
    for (const p of prefixes) {
      const cache = this.shared.caches.get(p);
      if (cache.objects.retain) for (const [key, obj] of cache.objects) items.push({ key, obj: freeze(obj) });
      else for (const e of cache.objects.raw) stored.push(e);
      this.follow(p, cache.revision, gen, false);
    }
    for (let i = 0; i < stored.length; ) {
      const end = performance.now() + SNAPSHOT_SLICE_MS;
      for (; i < stored.length && (i & 15 || performance.now() < end); i++) {
        const [key, kv] = stored[i]!;
        let obj: KubeObject | undefined;
        try {
          obj = freeze(decodeFromStorage(kv));
        } catch {
          obj = undefined; // undecodable: listed without an object, as FeedItem says
        }
        items.push({ key, obj });
      }
      if (i < stored.length) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.stopped || gen !== this.generation) return;
      }
    }
    for (const l of this.listeners) {
      l.onSync(items);
      await new Promise<void>((resolve) => setImmediate(resolve)); // each controller's indexing in its own turn
      if (this.stopped || gen !== this.generation) return;
    }
    const queued = this.pending;
    this.pending = undefined;
    for (const ev of queued) this.deliver(ev);
    this.offTypes ??= this.shared.types.onChange(() => this.typesChanged());
    this.wake();
  }

  /** Follows one type's cache from `rev` (its events after the snapshot). */
  private follow(prefix: string, rev: number, gen: number, late: boolean): void {
    const cache = this.shared.caches.get(prefix);
    const stream: Stream = { prefix, rev };
    this.streams.set(prefix, stream);
    stream.unwatch = cache.watch(prefix, rev, {
      internal: true,
      push: (ev: CacheEvent) => {
        if (gen !== this.generation) return true;
        const fe: FeedEvent =
          ev.type === 'DELETED'
            ? { type: 'delete', key: ev.key, obj: freeze(ev.obj), created: false }
            : { type: 'put', key: ev.key, obj: freeze(ev.obj), created: ev.type === 'ADDED' || late, prev: freeze(ev.prevObj) };
        if (this.pending) this.pending.push(fe);
        else this.deliver(fe);
        if (ev.revision > stream.rev) stream.rev = ev.revision;
        this.wake();
        return true;
      },
      progress: (r) => {
        if (r > stream.rev) stream.rev = r;
        this.wake();
      },
      onClose: (reason) => {
        if (this.stopped || gen !== this.generation || this.streams.get(prefix) !== stream) return;
        this.streams.delete(prefix);
        // a type removed (CRD deleted) just ends; a cache that reloaded needs everything listed again
        if (!this.prefixes().has(prefix)) return this.wake();
        this.log(`object feed: watch of ${prefix} ended (${reason}); re-listing`);
        this.scheduleRestart();
      },
    });
  }

  private deliver(ev: FeedEvent): void {
    for (const l of this.listeners) l.onEvent(ev);
  }

  /** A type served later (a CRD established): its objects arrive as creates, then its changes. */
  private typesChanged(): void {
    if (this.stopped || this.pending) return;
    const gen = this.generation;
    for (const p of this.prefixes()) {
      if (this.streams.has(p)) continue;
      const cache = this.shared.caches.get(p);
      this.streams.set(p, { prefix: p, rev: 0 }); // reserved while the cache loads
      void cache
        .start()
        .then(() => {
          if (this.stopped || gen !== this.generation) return;
          for (const [key, obj] of cache.objects) this.deliver({ type: 'put', key, obj: freeze(obj), created: true });
          this.follow(p, cache.revision, gen, true);
          this.wake();
        })
        .catch((e) => {
          this.streams.delete(p);
          this.log(`object feed: ${p}: ${(e as Error).message}`);
        });
    }
  }

  private scheduleRestart(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.stopped) return;
      this.start().catch((e) => {
        this.log(`object feed: re-list failed: ${(e as Error).message}`);
        this.scheduleRestart();
      });
    }, 500);
    this.retry.unref();
  }

  private delivered(): number {
    if (this.pending) return 0;
    let min = Infinity;
    for (const s of this.streams.values()) if (s.rev < min) min = s.rev;
    return min === Infinity ? 0 : min;
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const rev = this.delivered();
    const still = this.waiters.filter((w) => w.rev > rev);
    for (const w of this.waiters) if (w.rev <= rev) w.resolve();
    this.waiters = still;
  }

  caughtUp(rev: number): Promise<void> {
    if (this.stopped || rev <= this.delivered()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ rev, resolve }));
  }

  stop(): void {
    this.stopped = true;
    this.offTypes?.();
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
    if (this.retry) clearTimeout(this.retry);
    for (const s of this.streams.values()) s.unwatch?.();
    this.streams.clear();
  }
}
