// A per-type cache fed by one store watch: the current objects, a bounded event history,
// and the fan-out of changes to every API watcher of the type.
import { errors } from '../../api/status.js';
import { provideCachedObjects, type CachedObjectSource } from '../registry/cached-objects.js';
import { decodeFromStorage } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import { StoreError, type KeyValue, type RevisionedStore, type StoreEvent, type StoreWatch } from '../storage/types.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Types whose caches hold stored bytes, not decoded objects (see CacheOptions.undecorated). */
export const UNDECORATED_PREFIXES: readonly string[] = ['/registry/core/events/'];

/** Time the background decoding of a loaded cache takes per event-loop turn. */
const BACKGROUND_SLICE_MS = 4;

/** One change, shared (read-only) by every watcher; encodings of it are cached on it. */
export interface CacheEvent {
  type: EventType;
  key: string;
  obj: KubeObject;
  prevObj?: KubeObject;
  revision: number;
  /** Encoded forms keyed by encoder identity (encode once, write to many). */
  encoded?: Map<string, Buffer>;
}

export interface CacheWatcherSink {
  /** An in-process follower (the controllers' object feed), not a client's watch: not in watcherCount. */
  internal?: boolean;
  /** Returns false when the watcher cannot keep up (it is then removed and `onClose` follows). */
  push(ev: CacheEvent): boolean;
  /**
   * Retained history after the start revision, handed over at registration instead of one push per
   * event, so the watcher can send it paced by its client (upstream replays it from the watcher's own
   * goroutine, blocking on the client) without it counting against its live-event bound.
   */
  replay?(evs: CacheEvent[]): void;
  /** The cache advanced to `revision` (progress; used for bookmarks). */
  progress?(revision: number): void;
  onClose(reason: 'slow' | 'expired' | 'stopped'): void;
}

export interface CacheOptions {
  /** History kept at least this long (upstream: 75s). */
  historyMs?: number;
  /** Hard cap on retained events. */
  maxHistory?: number;
  /**
   * Type prefixes whose cache keeps the stored bytes of the current objects and decodes on every read, instead of
   * holding decoded objects (default: Events). Upstream serves Events from etcd without a watch cache at all
   * ("switching on Cacher for events will lead to too high memory consumption", registry/core/event/storage):
   * a living cluster writes several per pod and keeps them an hour (--event-ttl).
   */
  undecorated?: readonly string[];
  log?: (l: string) => void;
}

/**
 * One retained change: the store's key-values, not decoded objects. The store holds these bytes anyway (the
 * memory store shares its frozen KeyValues; etcd's and SQLite's are a third of a decoded object's size), while a
 * decoded version kept for the history window cost about three times its bytes, per version of every object
 * written in the last 75 s (most of a living cluster's heap). The live fan-out still hands every watcher the one
 * decoded object; a watch starting from a past revision decodes the versions it replays that are no longer current.
 */
interface HistoryEntry {
  type: EventType;
  key: string;
  revision: number;
  kv: KeyValue;
  /** The version before (puts that changed a key, deletes); decoded only if a replaying watcher asks. */
  prevKv?: KeyValue;
  /** The decoded previous version when the store's event carried no prevKv. */
  prevObj?: KubeObject;
  at: number;
}

interface Registered {
  prefix: string;
  sink: CacheWatcherSink;
}

export class WatchCache implements CachedObjectSource {
  /** key → current object (decoded once, on first read at the latest; shared read-only). */
  readonly objects: LazyObjects;
  private sortedKeys: string[] | undefined;
  /** Retained changes from `historyHead` on (entries before it are cut; the array is compacted now and then). */
  private history: HistoryEntry[] = [];
  private historyHead = 0;
  /** Events with revision <= historyFloor are not in history. */
  private historyFloor = 0;
  private rev = 0;
  /** Revision of the last change applied to this type (the snapshot is valid from here to `rev`). */
  private lastChange = 0;
  /** Keys whose stored bytes could not be decoded: the cache is then not an exact copy of the store. */
  private readonly corrupt = new Set<string>();
  private watchers = new Set<Registered>();
  private storeWatch?: StoreWatch;
  private waiters: { rev: number; resolve: () => void }[] = [];
  private started?: Promise<void>;
  private stopped = false;
  private readonly historyMs: number;
  private readonly maxHistory: number;

  constructor(
    readonly prefix: string,
    private store: RevisionedStore,
    private opts: CacheOptions = {},
  ) {
    this.historyMs = opts.historyMs ?? 75_000;
    this.maxHistory = opts.maxHistory ?? 100 * 1024;
    this.objects = new LazyObjects((key) => this.dropCorrupt(key), !(opts.undecorated ?? UNDECORATED_PREFIXES).includes(prefix));
  }

  /** Revision up to which every change of this type has been applied. */
  get revision(): number {
    return this.rev;
  }

  /** True when the cached objects are exactly the type's state at `revision` (no change in between). */
  holdsStateAt(revision: number): boolean {
    return this.started !== undefined && this.corrupt.size === 0 && this.objects.pending === 0 && this.lastChange > 0 && this.lastChange <= revision && revision <= this.rev;
  }

  /** Oldest revision a watch may start from (events after it are all retained). */
  get oldestWatchable(): number {
    return this.historyFloor;
  }

  /** Clients' watches registered on the cache (in-process followers excluded). */
  get watcherCount(): number {
    let n = 0;
    for (const w of this.watchers) if (!w.sink.internal) n++;
    return n;
  }

  private loaded = false;

  /** Loaded and following the store (not stopped, not reloading). */
  get ready(): boolean {
    return this.loaded && !this.stopped;
  }

  /** The current object of `key` (shared, read-only; what storage held at `revision` at the latest). */
  current(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  /** How many objects the type holds, once loaded (undefined while loading or reloading). */
  get objectCount(): number | undefined {
    return this.loaded ? this.objects.size : undefined;
  }

  start(): Promise<void> {
    // a failed load (store down) must be retried by the next caller, not cached
    this.started ??= this.load().catch((e) => {
      this.started = undefined;
      throw e;
    });
    return this.started.then(() => this.noteCompaction());
  }

  /**
   * The store's compacted revision as last seen: a watch from before it is answered by the store
   * (410 Expired), as it was when caches loaded on first use, though a cache loaded at startup
   * still holds events from then.
   */
  private compactedSeen = 0;

  private async noteCompaction(): Promise<void> {
    const c = await this.store.compactedRevision();
    if (c > this.compactedSeen) this.compactedSeen = c;
  }

  private async load(): Promise<void> {
    this.loaded = false;
    this.objects.clear();
    this.corrupt.clear();
    this.sortedKeys = undefined;
    let startKey: string | undefined;
    let revision: number | undefined;
    // pages come in key order: the sorted key index is built as they arrive (checked below), so the
    // first list after a cold start does not sort every key of the type
    const sorted: string[] = [];
    for (;;) {
      const page = await this.store.range({ prefix: this.prefix, startKey, limit: 10_000, revision, lenient: true, count: false });
      revision = page.revision;
      // stored bytes are decoded on first read or by the background pass after the load (a large
      // type's decode made most of a cold start); corrupt ones are dropped when found
      for (const kv of page.kvs) {
        if (kv.value.length === 0) {
          this.corrupt.add(kv.key); // undecryptable (lenient range): never cached, direct reads report it
          continue;
        }
        this.objects.raw.set(kv.key, kv);
        sorted.push(kv.key);
      }
      if (!page.more) break;
      startKey = page.kvs[page.kvs.length - 1]!.key + '\u0000';
    }
    // a store's byte order can differ from JavaScript's UTF-16 order (keys beyond the BMP): then sort
    let inOrder = true;
    for (let i = 1; i < sorted.length && inOrder; i++) inOrder = sorted[i - 1]! < sorted[i]!;
    this.sortedKeys = inOrder ? sorted : undefined;
    this.decodeInBackground();
    this.rev = revision!;
    this.lastChange = revision!;
    this.historyFloor = revision!;
    this.history = [];
    this.historyHead = 0;
    this.loaded = true;
    this.storeWatch = this.store.watch(this.prefix, revision!, {
      onEvents: (evs) => this.apply(evs),
      onProgress: (r) => this.advance(r),
      onError: (err) => this.restart(err),
    });
  }

  /**
   * Decodes what the load left undecoded, a few milliseconds per event-loop turn, so requests run in
   * between (a fixed 500 objects took 10-20 ms a turn on a loaded machine: the first page after
   * ready waited behind several of them).
   */
  private decodeInBackground(): void {
    const step = () => {
      if (this.stopped || this.objects.pending === 0) return;
      this.objects.decodeFor(BACKGROUND_SLICE_MS);
      if (this.objects.pending > 0) setImmediate(step);
    };
    if (this.objects.pending > 0) setImmediate(step);
  }

  /** A stored object found undecodable after the load: not cached (direct reads report it). */
  private dropCorrupt(key: string): void {
    this.corrupt.add(key);
    const keys = this.sortedKeys;
    if (!keys) return;
    const i = lowerBound(keys, key);
    if (keys[i] === key) keys.splice(i, 1);
  }

  private restart(err: StoreError): void {
    if (this.stopped) return;
    this.opts.log?.(`watch cache ${this.prefix}: store watch ended (${err.code}: ${err.message}); reloading`);
    // every API watcher must relist: their history is gone
    for (const w of [...this.watchers]) this.drop(w, 'expired');
    this.started = undefined;
    this.loaded = false;
    setTimeout(() => {
      if (!this.stopped) void this.start().catch((e) => this.opts.log?.(`watch cache ${this.prefix}: reload failed: ${e}`));
    }, 200).unref();
  }

  stop(): void {
    this.stopped = true;
    this.storeWatch?.stop();
    for (const w of [...this.watchers]) this.drop(w, 'stopped');
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  private apply(evs: StoreEvent[]): void {
    const now = Date.now();
    const retain = this.objects.retain;
    for (const se of evs) {
      let ev: CacheEvent;
      const key = se.kv.key;
      // an undecorated cache decodes no previous version unless a watcher reads it (selectors)
      const prev = retain ? this.objects.get(key) : undefined;
      const prevKv = retain ? se.prevKv : (se.prevKv ?? this.objects.raw.get(key));
      const existed = retain ? prev !== undefined : this.objects.has(key);
      if (se.type === 'delete') this.corrupt.delete(key);
      try {
        if (se.type === 'delete') {
          const last = decodeFromStorage(se.kv);
          this.objects.delete(key);
          this.sortedKeys = undefined;
          ev = retain ? { type: 'DELETED', key, obj: last, prevObj: prev, revision: se.revision } : withLazyPrev('DELETED', key, last, se.revision, prevKv);
        } else {
          const obj = decodeFromStorage(se.kv);
          if (!existed) this.sortedKeys = undefined;
          if (retain) this.objects.set(key, obj);
          else this.objects.setStored(key, se.kv);
          this.corrupt.delete(key);
          const type = existed ? 'MODIFIED' : 'ADDED';
          ev = retain ? { type, key, obj, prevObj: prev, revision: se.revision } : withLazyPrev(type, key, obj, se.revision, existed ? prevKv : undefined);
        }
      } catch {
        this.objects.delete(key);
        if (se.type === 'put') this.corrupt.add(key);
        this.sortedKeys = undefined;
        this.rev = this.lastChange = se.revision;
        continue;
      }
      this.rev = this.lastChange = se.revision;
      this.history.push(prevKv || !prev ? { type: ev.type, key, revision: ev.revision, kv: se.kv, prevKv: existed || se.type === 'delete' ? prevKv : undefined, at: now } : { type: ev.type, key, revision: ev.revision, kv: se.kv, prevObj: prev, at: now });
      for (const w of this.watchers) {
        if (!ev.key.startsWith(w.prefix)) continue;
        if (!w.sink.push(ev)) this.drop(w, 'slow');
      }
    }
    this.trim(now);
    this.wake();
  }

  private advance(r: number): void {
    if (r <= this.rev) return;
    this.rev = r;
    for (const w of this.watchers) w.sink.progress?.(r);
    this.wake();
  }

  /**
   * Cuts what left the window. The cut entries are cleared in place and the array compacted once they are half of
   * it: a copy of the rest per cut (once the window was full, every batch of changes) copied up to 100k entries
   * per apply, 1.5% of a 10,000-pod roll.
   */
  private trim(now: number): void {
    const h = this.history;
    let cut = this.historyHead;
    while (cut < h.length && (h.length - cut > this.maxHistory || now - h[cut]!.at > this.historyMs)) cut++;
    if (cut === this.historyHead) return;
    this.historyFloor = h[cut - 1]!.revision;
    for (let i = this.historyHead; i < cut; i++) h[i] = undefined!;
    this.historyHead = cut;
    if (cut >= 1024 && cut * 2 >= h.length) {
      this.history = h.slice(cut);
      this.historyHead = 0;
    }
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) (w.rev <= this.rev ? w.resolve() : still.push(w));
    this.waiters = still;
  }

  /** Resolves once the cache has applied everything up to `rev`; 504 "Too large resource version" after the timeout. */
  async waitFresh(rev: number, timeoutMs = 3000): Promise<void> {
    await this.start();
    if (this.rev >= rev) return;
    await new Promise<void>((resolve, reject) => {
      const entry = { rev, resolve: () => (clearTimeout(t), resolve()) };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== entry);
        reject(
          errors.timeout(`Too large resource version: ${rev}, current: ${this.rev}`, 1, [
            { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
          ]),
        );
      }, timeoutMs);
      this.waiters.push(entry);
    });
  }

  /** Waits until the cache holds everything the store had when called (consistent read from cache). */
  async waitConsistent(timeoutMs = 3000): Promise<void> {
    await this.start();
    const current = await this.store.currentRevision();
    await this.waitFresh(current, timeoutMs);
  }

  /**
   * The cached object of `key` if it is exactly the stored version `modRevision` (shared, read-only;
   * its encodings are cached on it), else undefined.
   */
  objectAt(key: string, modRevision: number): KubeObject | undefined {
    const o = this.objects.get(key);
    return o !== undefined && o.metadata?.resourceVersion === String(modRevision) ? o : undefined;
  }

  /** The sorted key array and the index range [from, to) of the keys under a prefix (no copy). */
  keyRange(prefix: string): { keys: string[]; from: number; to: number } {
    // the keys of undecoded entries too, without decoding them (a read decodes, or drops, each)
    this.sortedKeys ??= this.objects.allKeys().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const keys = this.sortedKeys;
    if (prefix === this.prefix) return { keys, from: 0, to: keys.length };
    const from = lowerBound(keys, prefix);
    // every key under the prefix sorts before prefix + U+FFFF
    const to = lowerBound(keys, prefix + '\uffff', from);
    return { keys, from, to };
  }

  /** Keys under a prefix in key order. */
  keysUnder(prefix: string): string[] {
    const { keys, from, to } = this.keyRange(prefix);
    return from === 0 && to === keys.length ? keys : keys.slice(from, to);
  }

  /**
   * Registers a watcher for changes under `prefix` after `fromRevision`, replaying retained history first.
   * Must be called synchronously after reading any snapshot it should continue from.
   */
  watch(prefix: string, fromRevision: number, sink: CacheWatcherSink): () => void {
    if (fromRevision < this.historyFloor || fromRevision < this.compactedSeen) return this.watchFromStore(prefix, fromRevision, sink);
    const reg: Registered = { prefix, sink };
    const replay: CacheEvent[] = [];
    for (let i = firstAfter(this.history, fromRevision, this.historyHead); i < this.history.length; i++) {
      const h = this.history[i]!;
      if (!h.key.startsWith(prefix)) continue;
      const ev = this.replayed(h);
      if (ev) replay.push(ev);
    }
    if (sink.replay) sink.replay(replay);
    else
      for (const ev of replay)
        if (!sink.push(ev)) {
          sink.onClose('slow');
          return () => {};
        }
    this.watchers.add(reg);
    return () => {
      if (this.watchers.delete(reg)) sink.onClose('stopped');
    };
  }

  /**
   * The event of a retained change: the cached object when it is still the current version (shared, no decode),
   * else the stored version decoded; the previous version is decoded only if a watcher reads it (selectors).
   */
  private replayed(h: HistoryEntry): CacheEvent | undefined {
    let obj: KubeObject;
    try {
      obj = (h.type !== 'DELETED' && this.objects.retain ? this.objectAt(h.key, h.revision) : undefined) ?? decodeFromStorage(h.kv);
    } catch {
      return undefined;
    }
    const { type, key, revision, prevKv } = h;
    if (!prevKv) return { type, key, obj, prevObj: h.prevObj, revision };
    return withLazyPrev(type, key, obj, revision, prevKv);
  }

  /**
   * A start older than the cache's history is served by a store watch of its own (the store keeps
   * history until compaction); a compacted start ends it with 'expired' (410).
   */
  private watchFromStore(prefix: string, fromRevision: number, sink: CacheWatcherSink): () => void {
    let done = false;
    const close = (reason: 'slow' | 'expired' | 'stopped') => {
      if (done) return;
      done = true;
      w.stop();
      if (reason === 'slow') this.opts.log?.(`Forcing ${this.prefix} watcher close due to unresponsiveness`);
      sink.onClose(reason);
    };
    const w = this.store.watch(prefix, fromRevision, {
      onEvents: (evs) => {
        for (const se of evs) {
          if (done) return;
          let ev: CacheEvent;
          try {
            const obj = decodeFromStorage(se.kv);
            const prevObj = se.prevKv ? decodeFromStorage(se.prevKv) : undefined;
            const type: EventType = se.type === 'delete' ? 'DELETED' : se.kv.createRevision === se.kv.modRevision ? 'ADDED' : 'MODIFIED';
            ev = { type, key: se.kv.key, obj, prevObj, revision: se.revision };
          } catch {
            continue;
          }
          if (!sink.push(ev)) return close('slow');
        }
      },
      onProgress: (r) => sink.progress?.(r),
      onError: (err) => close(err.code === 'Compacted' ? 'expired' : 'stopped'),
    });
    return () => close('stopped');
  }

  private drop(w: Registered, reason: 'slow' | 'expired' | 'stopped'): void {
    if (!this.watchers.delete(w)) return;
    if (reason === 'slow') this.opts.log?.(`Forcing ${this.prefix} watcher close due to unresponsiveness`);
    w.sink.onClose(reason);
  }
}

/**
 * The cache's objects: decoded entries plus stored bytes not decoded yet (`raw`), decoded on first
 * read. Iterating decodes everything first. A value that does not decode is dropped (onCorrupt).
 * Without `retain` (an undecorated type) every entry stays stored bytes: each read decodes a copy of its own,
 * and nothing decoded is kept.
 */
export class LazyObjects extends Map<string, KubeObject> {
  readonly raw = new Map<string, KeyValue>();

  constructor(
    private readonly onCorrupt: (key: string) => void,
    readonly retain = true,
  ) {
    super();
  }

  /** Entries still to decode (a retaining map's background pass; never for an undecorated one). */
  get pending(): number {
    return this.retain ? this.raw.size : 0;
  }

  override get(key: string): KubeObject | undefined {
    const o = super.get(key);
    return o !== undefined || this.raw.size === 0 ? o : this.decode(key);
  }

  override has(key: string): boolean {
    return super.has(key) || this.raw.has(key);
  }

  override set(key: string, value: KubeObject): this {
    if (this.raw.size > 0) this.raw.delete(key);
    return super.set(key, value);
  }

  /** Holds a stored version as bytes (an undecorated type's write). */
  setStored(key: string, kv: KeyValue): void {
    super.delete(key);
    this.raw.set(key, kv);
  }

  override delete(key: string): boolean {
    const pending = this.raw.delete(key);
    return super.delete(key) || pending;
  }

  override clear(): void {
    this.raw.clear();
    super.clear();
  }

  override get size(): number {
    return super.size + this.raw.size;
  }

  override keys(): MapIterator<string> {
    if (!this.retain) return this.allKeys()[Symbol.iterator]() as MapIterator<string>;
    this.decodeSome(Infinity);
    return super.keys();
  }

  override values(): MapIterator<KubeObject> {
    if (!this.retain) return this.decodedCopies((_, o) => o) as unknown as MapIterator<KubeObject>;
    this.decodeSome(Infinity);
    return super.values();
  }

  override entries(): MapIterator<[string, KubeObject]> {
    if (!this.retain) return this.decodedCopies((k, o): [string, KubeObject] => [k, o]) as unknown as MapIterator<[string, KubeObject]>;
    this.decodeSome(Infinity);
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, KubeObject]> {
    return this.entries();
  }

  override forEach(fn: (value: KubeObject, key: string, map: Map<string, KubeObject>) => void, thisArg?: unknown): void {
    if (!this.retain) {
      for (const [k, o] of this.entries()) fn.call(thisArg, o, k, this);
      return;
    }
    this.decodeSome(Infinity);
    super.forEach(fn, thisArg);
  }

  /** An undecorated map's entries, each decoded as it is reached (nothing kept). */
  private *decodedCopies<T>(out: (key: string, o: KubeObject) => T): Generator<T, undefined> {
    for (const key of [...super.keys(), ...this.raw.keys()]) {
      const o = this.get(key);
      if (o !== undefined) yield out(key, o);
    }
    return undefined;
  }

  /** Every key, decoded or not, without decoding (an undecodable one is dropped when read). */
  allKeys(): string[] {
    const out = [...super.keys()];
    for (const k of this.raw.keys()) out.push(k);
    return out;
  }

  /** Decodes pending entries for about `ms` milliseconds (at least one). */
  decodeFor(ms: number): void {
    if (!this.retain) return;
    const end = performance.now() + ms;
    let n = 0;
    for (const key of this.raw.keys()) {
      this.decode(key);
      if ((++n & 15) === 0 && performance.now() >= end) return;
    }
  }

  /** Decodes up to n pending entries. */
  decodeSome(n: number): void {
    if (!this.retain) return;
    for (const key of this.raw.keys()) {
      if (n-- <= 0) return;
      this.decode(key);
    }
  }

  private decode(key: string): KubeObject | undefined {
    const kv = this.raw.get(key);
    if (kv === undefined) return undefined;
    try {
      const o = decodeFromStorage(kv);
      if (this.retain) {
        this.raw.delete(key);
        super.set(key, o);
      }
      return o;
    } catch {
      this.raw.delete(key);
      this.onCorrupt(key);
      return undefined;
    }
  }
}

/** One cache per type prefix, started on first use. */
export class WatchCacheSet {
  private caches = new Map<string, WatchCache>();
  constructor(
    private store: RevisionedStore,
    private opts: CacheOptions = {},
  ) {
    // reads for writes in the registry start from these caches' decoded objects (registry/cached-objects.ts)
    provideCachedObjects(store, (prefix) => this.caches.get(prefix)); // a lookup, never a new cache
  }

  get(prefix: string): WatchCache {
    let c = this.caches.get(prefix);
    if (!c) this.caches.set(prefix, (c = new WatchCache(prefix, this.store, this.opts)));
    return c;
  }

  /** Object counts of the loaded caches, by key prefix (creates no cache). */
  *objectCounts(): Iterable<[prefix: string, count: number]> {
    for (const [prefix, c] of this.caches) {
      const n = c.objectCount;
      if (n !== undefined) yield [prefix, n];
    }
  }

  /** Drops a type's cache (CRD removed). */
  remove(prefix: string): void {
    this.caches.get(prefix)?.stop();
    this.caches.delete(prefix);
  }

  stopAll(): void {
    for (const c of this.caches.values()) c.stop();
    this.caches.clear();
  }
}

/** An event whose previous version is decoded from its stored bytes when first read. */
function withLazyPrev(type: EventType, key: string, obj: KubeObject, revision: number, prevKv: KeyValue | undefined): CacheEvent {
  if (!prevKv) return { type, key, obj, revision };
  let prev: KubeObject | undefined | null = null;
  return {
    type,
    key,
    obj,
    revision,
    get prevObj() {
      if (prev === null) {
        try {
          prev = decodeFromStorage(prevKv);
        } catch {
          prev = undefined;
        }
      }
      return prev;
    },
  };
}

/** Index of the first history entry with a revision after `rev` (history is in revision order). */
function firstAfter(history: { revision: number }[], rev: number, lo: number): number {
  let hi = history.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (history[mid]!.revision <= rev) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first key >= k in a sorted array (from `lo`). */
export function lowerBound(keys: string[], k: string, lo = 0): number {
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
