// Informer: a local cache of one collection kept current by list+watch, with batched change notifications.
//
// Start: a streaming list (watch with sendInitialEvents) when the server supports it, else list-then-watch.
// In lazy mode only the first chunk is listed before the watch starts; later chunks load on demand while
// the watch runs, and events for keys past the loaded range wait in an overlay until their chunk arrives
// (chunks are read at the first chunk's snapshot, so the overlay holds what changed since).
// Disconnects resume from the last resourceVersion (bookmarks advance it) with backoff; 410 relists.
import { Backoff, sleep } from './backoff.js';
import { ApiError, NetworkError, isAbort, isExpired } from './errors.js';
import type { ApiClient } from './http.js';
import { formOf, type Form, type Representation } from './media.js';
import { listPages, type ListChunk } from './pager.js';
import { objectKey, type ResourceRef } from './paths.js';
import { rowFromObject, rowKey } from './table.js';
import type { ColumnDefinition, KubeObject, Table, TableRow, WatchEvent } from './types.js';
import { eventResourceVersion, isInitialEventsEnd, openWatch } from './watch.js';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'stale' | 'error' | 'stopped';

export interface InformerOptions<T> {
  client: ApiClient;
  /** The collection (namespace set = one namespace; unset = all). */
  ref: ResourceRef;
  representation?: Representation;
  labelSelector?: string;
  fieldSelector?: string;
  includeObject?: 'Metadata' | 'Object';
  /** auto: streaming list, falling back to list-then-watch when the server rejects it. */
  initial?: 'auto' | 'stream' | 'list';
  /** List mode: load the first chunk, the rest on demand (ensureLoaded / loadAll). */
  lazy?: boolean;
  /** Chunk size (default 500); chunks while loading everything use bulkPageSize (default 2000). */
  pageSize?: number;
  firstPageSize?: number;
  bulkPageSize?: number;
  /** Applied to every item before it is cached (e.g. to drop managedFields). */
  transform?: (item: T) => T;
  /** Coalesce notifications over this many ms (0: one per microtask). */
  batchMs?: number;
  /** Disconnected this long without getting back: state becomes stale (default 10 s). */
  staleAfterMs?: number;
  backoffMs?: { initial: number; max: number };
  encoding?: 'json' | 'cbor';
  /** Server-side watch timeout; connections are renewed after it (default 5-10 min). */
  watchTimeoutSeconds?: number;
}

export interface InformerChange<T> {
  /** The whole content was replaced (first sync, relist). */
  reset: boolean;
  added: T[];
  modified: T[];
  deleted: T[];
}

export interface InformerSnapshot<T> {
  /** Loaded items in key order (namespace/name). Updated in place between structure changes: watch `version`. */
  items: readonly T[];
  version: number;
  /** Bumps when items were added, removed or reordered. */
  structureVersion: number;
  columns?: ColumnDefinition[];
  form: Form;
  resourceVersion: string;
  loaded: number;
  complete: boolean;
  /** What the server said was left after the last chunk. */
  remaining?: number;
  loading: boolean;
  state: ConnectionState;
  error?: Error;
  synced: boolean;
  relists: number;
  lastRelistReason?: string;
  /** Time (ms since epoch) the watch was last known to be connected. */
  liveAt?: number;
}

type Listener<T> = (change: InformerChange<T>, snap: InformerSnapshot<T>) => void;

/** Answers meaning the server does not do streaming lists (as opposed to failing). */
const STREAM_REJECTED = new Set([400, 405, 422, 501]);

class RelistRequested extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export class Informer<T = KubeObject> {
  private readonly opts: InformerOptions<T>;
  private readonly rep: Representation;
  private items = new Map<string, T>();
  private order: string[] = [];
  private rows: T[] = [];
  /** Positions in rows of order[0, indexed): built on first need, as loading appends without it. */
  private index = new Map<string, number>();
  private indexed = 0;
  private pendingAdds = new Set<string>();
  private pendingDeletes = new Set<string>();
  private overlay = new Map<string, T | null>();
  /** Last key of the loaded range while incomplete. */
  private frontier: string | undefined;
  private complete = false;
  private remaining: number | undefined;
  private columns: ColumnDefinition[] | undefined;
  private form: Form = 'unknown';
  private rv = '';
  private gen = 0;
  private demand = 0;
  private pages: AsyncGenerator<ListChunk> | undefined;
  private pumping = false;
  private pageError: Error | undefined;

  private version = 0;
  private structureVersion = 0;
  private state: ConnectionState = 'connecting';
  private error: Error | undefined;
  private synced = false;
  private relists = 0;
  private lastRelistReason: string | undefined;
  private liveAt: number | undefined;
  private streamSupported: boolean | undefined;
  private needList = true;

  private listeners = new Set<Listener<T>>();
  private change: InformerChange<T> = { reset: false, added: [], modified: [], deleted: [] };
  private flushScheduled = false;
  private stopped = false;
  private started = false;
  private stopper = new AbortController();
  private current: AbortController | undefined;
  private relistReason: string | undefined;
  private staleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly backoff: Backoff;
  private syncWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  constructor(opts: InformerOptions<T>) {
    this.opts = opts;
    this.rep = opts.representation ?? 'object';
    this.backoff = new Backoff(opts.backoffMs?.initial ?? 500, opts.backoffMs?.max ?? 30_000);
    if (opts.initial === 'list') this.streamSupported = false;
    if (opts.lazy) this.streamSupported = false;
  }

  start(): this {
    if (this.started) return this;
    this.started = true;
    this.setState('connecting');
    this.demand = this.opts.lazy ? this.opts.firstPageSize ?? this.opts.pageSize ?? 500 : Infinity;
    void this.run();
    return this;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopper.abort();
    this.current?.abort();
    void this.pages?.return(undefined);
    if (this.staleTimer) clearTimeout(this.staleTimer);
    this.setState('stopped');
    for (const w of this.syncWaiters) w.reject(new Error('informer stopped'));
    this.syncWaiters = [];
    this.listeners.clear();
  }

  /** Resolves at the first sync; rejects if an error comes first (the informer keeps retrying). */
  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => this.syncWaiters.push({ resolve, reject }));
  }

  subscribe(fn: Listener<T>): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    this.flushStructure();
    return this.rows.slice();
  }

  get size(): number {
    return this.items.size;
  }

  snapshot(): InformerSnapshot<T> {
    this.flushStructure();
    return {
      items: this.rows,
      version: this.version,
      structureVersion: this.structureVersion,
      columns: this.columns,
      form: this.form,
      resourceVersion: this.rv,
      loaded: this.items.size,
      complete: this.complete,
      remaining: this.complete ? undefined : this.remaining,
      loading: !this.complete && (this.pumping || !this.synced),
      state: this.state,
      error: this.error ?? this.pageError,
      synced: this.synced,
      relists: this.relists,
      lastRelistReason: this.lastRelistReason,
      liveAt: this.liveAt,
    };
  }

  /** Lazy mode: make sure at least `count` items are loaded (chunks are fetched in order). */
  ensureLoaded(count: number): void {
    if (this.complete || count <= this.demand) return;
    this.demand = count;
    this.pageError = undefined;
    void this.pump();
  }

  loadAll(): void {
    this.ensureLoaded(Infinity);
  }

  /** The key an item is cached under. */
  keyOf(item: T): string {
    return this.rep === 'table' ? rowKey(item as TableRow) : objectKey((item as KubeObject).metadata);
  }

  // ---- the list/watch loop ----

  private async run(): Promise<void> {
    this.needList = true;
    while (!this.stopped) {
      if (this.relistReason) {
        this.noteRelist(this.relistReason);
        this.relistReason = undefined;
        this.needList = true;
      }
      const ac = new AbortController();
      this.current = ac;
      const onStop = () => ac.abort();
      this.stopper.signal.addEventListener('abort', onStop, { once: true });
      try {
        if (this.needList && this.streamSupported !== false) {
          const rejected = await this.streamingList(ac.signal);
          if (rejected) {
            this.streamSupported = false;
            continue;
          }
        } else {
          if (this.needList) {
            await this.listInitial(ac.signal);
            this.needList = false;
          }
          await this.watch(ac.signal);
        }
        // an abort may end a stream quietly rather than with an error
        if (ac.signal.aborted) throw ac.signal.reason ?? new RelistRequested('aborted');
        // the server closed the watch (timeout): resume at once
      } catch (e) {
        if (this.stopped) return;
        if (e instanceof RelistRequested || (isAbort(e) && this.relistReason)) {
          this.noteRelist(this.relistReason ?? (e as Error).message);
          this.relistReason = undefined;
          this.needList = true;
          continue;
        }
        if (isExpired(e)) {
          this.noteRelist((e as Error).message || '410 Expired');
          this.needList = true;
          continue;
        }
        const fatal = e instanceof ApiError && !(e.code === 429 || e.code >= 500);
        this.fail(e as Error, fatal);
        try {
          await sleep(this.backoff.next(), this.stopper.signal);
        } catch {
          return;
        }
      } finally {
        this.stopper.signal.removeEventListener('abort', onStop);
      }
    }
  }

  private noteRelist(reason: string): void {
    this.relists++;
    this.lastRelistReason = reason;
  }

  private fail(e: Error, fatal: boolean): void {
    this.error = e;
    if (!this.synced) {
      for (const w of this.syncWaiters) w.reject(e);
      this.syncWaiters = [];
    }
    this.setState(fatal ? 'error' : this.state === 'stale' ? 'stale' : 'reconnecting');
  }

  private setState(s: ConnectionState): void {
    if (s === 'live') {
      this.liveAt = Date.now();
      this.error = undefined;
      if (this.staleTimer) clearTimeout(this.staleTimer);
      this.staleTimer = undefined;
    } else if ((s === 'reconnecting' || s === 'connecting') && !this.staleTimer && !this.stopped && this.state !== 'stale') {
      this.staleTimer = setTimeout(() => {
        this.staleTimer = undefined;
        if (this.state === 'reconnecting' || this.state === 'connecting') this.setState('stale');
      }, this.opts.staleAfterMs ?? 10_000);
    }
    if (this.state === s && s !== 'connecting') return;
    this.state = s;
    this.scheduleFlush();
  }

  /** Watch with sendInitialEvents; resolves true when the server rejected the request itself. */
  private async streamingList(signal: AbortSignal): Promise<boolean> {
    let conn;
    try {
      conn = await openWatch(this.opts.client, this.opts.ref, {
        ...this.watchOpts(signal),
        sendInitialEvents: true,
        allowWatchBookmarks: true,
      });
    } catch (e) {
      if (e instanceof ApiError && STREAM_REJECTED.has(e.code)) return true;
      throw e;
    }
    const fresh = new Map<string, T>();
    let done = false;
    for await (const ev of conn.events) {
      if (done) {
        this.onEvent(ev);
        continue;
      }
      if (ev.type === 'ERROR') throw this.eventError(ev);
      if (ev.type === 'BOOKMARK') {
        const rv = eventResourceVersion(ev);
        if (rv) this.rv = rv;
        if (isInitialEventsEnd(ev)) {
          done = true;
          this.commit(fresh, { complete: true, frontier: undefined });
          this.needList = false;
          this.setState('live');
          this.backoff.reset();
        }
        continue;
      }
      const item = this.itemOf(ev);
      if (!item) continue;
      const key = this.keyOf(item);
      if (ev.type === 'DELETED') fresh.delete(key);
      else fresh.set(key, item);
      const rv = eventResourceVersion(ev);
      if (rv) this.rv = rv;
    }
    if (!done) throw new NetworkError('watch ended before the initial events were complete');
    return false;
  }

  /** Lists (the first chunk(s) in lazy mode, everything otherwise) into a fresh state and swaps it in. */
  private async listInitial(signal: AbortSignal): Promise<void> {
    void this.pages?.return(undefined);
    this.pages = undefined;
    const gen = ++this.gen;
    const base = this.opts.pageSize ?? 500;
    const target = this.opts.lazy ? Math.max(this.opts.firstPageSize ?? base, Math.min(this.demand, this.items.size)) : Infinity;
    let first = true;
    // far behind the demand (load all, a jump to the end): big chunks, the next one asked for early
    const bulk = () => this.demand - this.items.size > 4 * base;
    const pages = listPages(this.opts.client, this.opts.ref, {
      representation: this.rep,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      includeObject: this.opts.includeObject,
      signal: this.stopper.signal,
      // a lazy list cannot restart on its own: its watch runs from the first chunk's snapshot
      maxRestarts: this.opts.lazy ? 0 : 3,
      limit: () => {
        if (first) {
          first = false;
          return this.opts.firstPageSize ?? base;
        }
        return bulk() ? (this.opts.bulkPageSize ?? 2000) : base;
      },
      prefetch: bulk,
    });
    const fresh = new Map<string, T>();
    let frontier: string | undefined;
    let complete = false;
    let rv = '';
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const r = await pages.next();
      if (r.done) {
        complete = true;
        break;
      }
      const c = r.value;
      if (c.restarted) fresh.clear();
      this.noteChunk(c);
      rv = c.resourceVersion;
      for (const item of this.chunkItems(c)) {
        const k = this.keyOf(item);
        fresh.set(k, item);
        frontier = k;
      }
      if (c.last) {
        complete = true;
        break;
      }
      if (fresh.size >= target) break;
    }
    if (gen !== this.gen) throw new RelistRequested('superseded');
    this.rv = rv;
    this.pages = complete ? undefined : pages;
    this.commit(fresh, { complete, frontier: complete ? undefined : frontier });
  }

  private noteChunk(c: ListChunk): void {
    this.form = c.form;
    if (c.columns?.length) this.columns = c.columns;
    this.remaining = c.progress.remainingItemCount;
  }

  private chunkItems(c: ListChunk): T[] {
    const raw = (this.rep === 'table' ? c.rows : c.items) as unknown as T[];
    const tf = this.opts.transform;
    return tf ? raw.map(tf) : raw;
  }

  /** Loads chunks while the demand exceeds what is loaded (runs beside the watch). */
  private async pump(): Promise<void> {
    if (this.pumping || !this.pages) return;
    this.pumping = true;
    this.scheduleFlush();
    const gen = this.gen;
    try {
      while (!this.stopped && !this.complete && this.pages && gen === this.gen && this.items.size < this.demand) {
        let r: IteratorResult<ListChunk>;
        try {
          r = await this.pages.next();
        } catch (e) {
          if (gen !== this.gen || this.stopped || isAbort(e)) return;
          if (isExpired(e)) {
            // the snapshot behind the continue token is gone: start over from a fresh list
            this.requestRelist('continue token expired (410)');
            return;
          }
          this.pageError = e as Error;
          this.pages = undefined;
          // the generator is finished after an error; the next relist builds a new one
          this.requestRelist(`list chunk failed: ${(e as Error).message}`);
          return;
        }
        if (gen !== this.gen) return;
        if (r.done) {
          this.finishRange();
          break;
        }
        this.mergeChunk(r.value);
      }
    } finally {
      this.pumping = false;
      this.scheduleFlush();
    }
  }

  private requestRelist(reason: string): void {
    this.relistReason = reason;
    this.current?.abort(new RelistRequested(reason));
  }

  private mergeChunk(c: ListChunk): void {
    this.noteChunk(c);
    let last: string | undefined;
    const overlaid = this.overlay.size > 0;
    for (const item of this.chunkItems(c)) {
      const k = this.keyOf(item);
      last = k;
      let v: T | null = item;
      if (overlaid && this.overlay.has(k)) {
        v = this.overlay.get(k)!;
        this.overlay.delete(k);
      }
      if (v === null || this.items.has(k)) continue;
      this.items.set(k, v);
      this.order.push(k);
      this.rows.push(v);
    }
    this.structureVersion++;
    this.version++;
    this.frontier = last ?? this.frontier;
    if (c.last) this.finishRange();
    else this.releaseOverlay((k) => this.frontier !== undefined && k <= this.frontier);
    this.scheduleFlush();
  }

  private finishRange(): void {
    this.complete = true;
    this.frontier = undefined;
    this.pages = undefined;
    this.releaseOverlay(() => true);
    this.version++;
    this.scheduleFlush();
  }

  /** Overlay entries now inside the loaded range become cache changes. */
  private releaseOverlay(inRange: (k: string) => boolean): void {
    for (const [k, v] of this.overlay) {
      if (!inRange(k)) continue;
      this.overlay.delete(k);
      if (v === null) this.remove(k);
      else this.upsert(k, v);
    }
  }

  private async watch(signal: AbortSignal): Promise<void> {
    const conn = await openWatch(this.opts.client, this.opts.ref, { ...this.watchOpts(signal), resourceVersion: this.rv || undefined, allowWatchBookmarks: true });
    this.setState('live');
    let n = 0;
    const opened = Date.now();
    for await (const ev of conn.events) {
      this.onEvent(ev);
      if (++n === 1 || Date.now() - opened > 5000) this.backoff.reset();
    }
    if (Date.now() - opened > 5000) this.backoff.reset();
  }

  private watchOpts(signal: AbortSignal) {
    return {
      representation: this.rep,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      includeObject: this.opts.includeObject,
      encoding: this.opts.encoding,
      timeoutSeconds: this.opts.watchTimeoutSeconds ?? Math.round(300 + Math.random() * 300),
      signal,
    };
  }

  private eventError(ev: WatchEvent): ApiError {
    const st = ev.object as { code?: number };
    return ApiError.from(typeof st?.code === 'number' ? st.code : 500, ev.object);
  }

  private itemOf(ev: WatchEvent): T | undefined {
    let item: unknown = ev.object;
    if (this.rep === 'table') {
      if (formOf(ev.object) === 'Table') {
        const t = ev.object as Table;
        if (t.columnDefinitions?.length) this.columns = t.columnDefinitions;
        item = t.rows?.[0];
        if (!item) return undefined;
        if (this.form === 'unknown') this.form = 'Table';
      } else item = rowFromObject(ev.object as KubeObject);
    } else if (this.form === 'unknown') this.form = formOf(ev.object) === 'PartialObjectMetadata' ? 'PartialObjectMetadataList' : 'list';
    const tf = this.opts.transform;
    return tf ? tf(item as T) : (item as T);
  }

  private onEvent(ev: WatchEvent): void {
    if (ev.type === 'ERROR') throw this.eventError(ev);
    const rv = eventResourceVersion(ev);
    if (ev.type === 'BOOKMARK') {
      if (rv) this.rv = rv;
      return;
    }
    const item = this.itemOf(ev);
    if (rv) this.rv = rv;
    if (!item) return;
    const key = this.keyOf(item);
    if (!this.complete && this.frontier !== undefined && key > this.frontier) {
      this.overlay.set(key, ev.type === 'DELETED' ? null : item);
      return;
    }
    if (ev.type === 'DELETED') this.remove(key);
    else this.upsert(key, item);
  }

  // ---- the cache ----

  private upsert(key: string, item: T): void {
    const had = this.items.has(key);
    this.items.set(key, item);
    this.version++;
    if (had || this.pendingDeletes.has(key)) {
      this.pendingDeletes.delete(key);
      const i = this.positionOf(key);
      if (i !== undefined) this.rows[i] = item;
      (had ? this.change.modified : this.change.added).push(item);
    } else {
      this.pendingAdds.add(key);
      this.change.added.push(item);
    }
    this.scheduleFlush();
  }

  private positionOf(key: string): number | undefined {
    const i = this.index.get(key);
    if (i !== undefined || this.indexed === this.order.length) return i;
    for (let j = this.indexed; j < this.order.length; j++) this.index.set(this.order[j]!, j);
    this.indexed = this.order.length;
    return this.index.get(key);
  }

  private remove(key: string): void {
    const item = this.items.get(key);
    if (item === undefined) return;
    this.items.delete(key);
    this.version++;
    if (this.pendingAdds.has(key)) this.pendingAdds.delete(key);
    else this.pendingDeletes.add(key);
    this.change.deleted.push(item);
    this.scheduleFlush();
  }

  private commit(fresh: Map<string, T>, range: { complete: boolean; frontier: string | undefined }): void {
    this.items = fresh;
    this.order = [...fresh.keys()].sort();
    this.rows = this.order.map((k) => fresh.get(k)!);
    this.index = new Map();
    this.indexed = 0;
    this.pendingAdds.clear();
    this.pendingDeletes.clear();
    this.overlay.clear();
    this.complete = range.complete;
    this.frontier = range.frontier;
    if (range.complete) this.remaining = undefined;
    this.version++;
    this.structureVersion++;
    this.change = { reset: true, added: [], modified: [], deleted: [] };
    this.pageError = undefined;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters) w.resolve();
      this.syncWaiters = [];
    }
    this.scheduleFlush();
    if (this.opts.lazy && this.items.size < this.demand) void this.pump();
  }

  /** Folds pending adds and deletes into the ordered arrays. */
  private flushStructure(): void {
    if (!this.pendingAdds.size && !this.pendingDeletes.size) return;
    let order = this.order;
    if (this.pendingDeletes.size) order = order.filter((k) => !this.pendingDeletes.has(k));
    if (this.pendingAdds.size) {
      const adds = [...this.pendingAdds].sort();
      const merged: string[] = new Array(order.length + adds.length);
      let i = 0;
      let j = 0;
      let m = 0;
      while (i < order.length && j < adds.length) merged[m++] = order[i]! < adds[j]! ? order[i++]! : adds[j++]!;
      while (i < order.length) merged[m++] = order[i++]!;
      while (j < adds.length) merged[m++] = adds[j++]!;
      order = merged;
    }
    this.order = order;
    this.rows = order.map((k) => this.items.get(k)!);
    this.index = new Map();
    this.indexed = 0;
    this.pendingAdds.clear();
    this.pendingDeletes.clear();
    this.structureVersion++;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.stopped) return;
    this.flushScheduled = true;
    const ms = this.opts.batchMs ?? 0;
    if (ms > 0) setTimeout(() => this.flush(), ms);
    else queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.stopped) return;
    const change = this.change;
    this.change = { reset: false, added: [], modified: [], deleted: [] };
    const snap = this.snapshot();
    for (const l of this.listeners) l(change, snap);
  }
}
