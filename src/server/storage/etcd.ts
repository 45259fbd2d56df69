// Revisioned store on etcd v3: revisions are etcd's, writes are transactions comparing the
// key's create/mod revision, reads at past revisions are etcd ranges at that revision.
//
// Watches: one etcd watcher over the whole keyspace ("the feed") fills an in-memory log
// of recent events under our prefix, and the shared WatchHub serves every store watch
// from it. Watching everything, not just our prefix, is deliberate: every etcd revision
// then arrives as an event, so the feed's position is an exact progress mark (which
// etcd 3.4's RequestProgress is not: its reply can overtake queued events) and watchers
// get onProgress as the memory store gives it. A watch starting before the log's oldest
// event gets an etcd watcher of its own (replay from etcd history, no progress reports).
//
// The feed also sees the compare-and-swap key the replicas' compactors write
// (etcd-compaction.ts), which tells this replica about a compaction done by another.
import { checkReadRevision, compactedError, conflictError, keyExistsError, keyNotFoundError, unavailableError } from './errors.js';
import { EtcdKeyMapping } from './etcd-keys.js';
import {
  CompareResult,
  CompareTarget,
  EtcdClient,
  EVENT_DELETE,
  keyBytes,
  toStoreError,
  type PbCompare,
  type PbEvent,
  type PbKeyValue,
  type PbRangeResponse,
} from './etcd-rpc.js';
import { EtcdWatchStream } from './etcd-watch.js';
import { StoreError, type GetResult, type KeyValue, type RangeOptions, type RangeResult, type RevisionedStore, type StoreEvent, type StoreWatch, type WatchHandlers } from './types.js';
import { WatchHub, type EventBatch } from './watch-hub.js';

export interface EtcdStoreOptions {
  /** etcd client URLs (http://host:port); calls move to the next one when one is unreachable. */
  servers: string[];
  /** etcd key prefix standing in for keyRoot (default /registry). */
  prefix?: string;
  /** Root of our keys that the prefix replaces (default /registry; '' prepends the prefix to every key). */
  keyRoot?: string;
  /** Deadline of one etcd call (default 10 s). */
  requestTimeoutMs?: number;
  /** Events under the prefix kept in memory for watchers (default 10000). */
  recentEvents?: number;
  /** The key the replicas' compactors compare-and-swap (default compact_rev_key, as upstream). */
  compactKey?: string;
  log?: (line: string) => void;
}

export const DEFAULT_COMPACT_KEY = 'compact_rev_key';

/** Events scanned per readEvents call before returning a partial batch. */
const MAX_SCAN = 10_000;

interface HubWatcher {
  /** Highest revision this watcher has been given (event or progress). */
  seen: number;
}

export class EtcdStore implements RevisionedStore {
  readonly name = 'etcd';
  readonly keys: EtcdKeyMapping;
  readonly compactKey: string;
  private readonly compactKeyBytes: Buffer;
  private readonly opts: Required<Pick<EtcdStoreOptions, 'requestTimeoutMs' | 'recentEvents'>> & EtcdStoreOptions;
  private state: 'new' | 'opening' | 'open' | 'closed' = 'new';
  private client: EtcdClient | undefined;
  private watches: EtcdWatchStream | undefined;
  private feedCancel: (() => void) | undefined;
  private hub: WatchHub | undefined;
  /** Events under our prefix with revision > floor, in revision order. */
  private log: StoreEvent[] = [];
  private floor = 0;
  /** Revision the feed has delivered everything up to. */
  private head = 0;
  /** Compacted revision as far as this replica knows (own compactions, compactions announced on compactKey). */
  private knownCompacted = 0;
  private readonly hubWatchers = new Set<HubWatcher>();
  private readonly replays = new Set<ReplayWatch>();

  constructor(options: EtcdStoreOptions) {
    this.opts = { requestTimeoutMs: 10_000, recentEvents: 10_000, ...options };
    const prefix = (options.prefix ?? '/registry').replace(/\/+$/, '');
    this.keys = new EtcdKeyMapping(options.keyRoot ?? '/registry', prefix);
    this.compactKey = options.compactKey ?? DEFAULT_COMPACT_KEY;
    this.compactKeyBytes = keyBytes(this.compactKey);
  }

  /** False while the watch connection to etcd is down (readiness). */
  get connected(): boolean {
    return this.state === 'open' && (this.watches?.connected ?? false);
  }

  async open(): Promise<void> {
    if (this.state === 'open') return;
    if (this.state === 'closed') throw unavailableError('etcd store is closed');
    if (this.state === 'opening') throw unavailableError('etcd store is already opening');
    this.state = 'opening';
    const client = new EtcdClient(this.opts.servers, this.opts.requestTimeoutMs);
    try {
      // Fail fast (with a clear message) when etcd is not there.
      await client.range({ key: this.compactKeyBytes, count_only: true }, { timeoutMs: Math.min(5000, this.opts.requestTimeoutMs) }).catch(async (err) => {
        throw await toStoreError(err, this.opts.servers.join(','), { compacted: async () => 0, current: async () => 0 });
      });
      this.client = client;
      this.watches = new EtcdWatchStream(client, {
        onDisconnect: (reason) => this.opts.log?.(`etcd watch connection lost (${reason}); reconnecting`),
        onReconnect: () => this.opts.log?.('etcd watch connection re-established'),
      });
      await this.startFeed(0);
      if (this.state !== 'opening') throw unavailableError('etcd store closed while opening');
      this.state = 'open';
    } catch (err) {
      if (this.state === 'opening') this.state = 'new';
      this.feedCancel?.();
      this.watches?.close();
      this.watches = undefined;
      this.client = undefined;
      client.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.state !== 'open') {
      this.state = 'closed'; // an open() in progress notices and gives up
      return;
    }
    this.state = 'closed';
    this.feedCancel?.();
    this.hub?.closeAll(unavailableError('etcd store closed'));
    for (const r of [...this.replays]) r.fail(unavailableError('etcd store closed'));
    this.watches?.close();
    this.client?.close();
    this.log = [];
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    const client = this.checkOpen();
    const k = this.keys.toEtcd(key);
    const v = copyBytes(value);
    const res = await this.call(() =>
      client.txn({
        compare: [{ key: k, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
        success: [{ request_put: { key: k, value: v } }],
        failure: [],
      }),
    );
    if (!res.succeeded) throw keyExistsError(key);
    const rev = res.header.revision;
    return { key, value: view(v), createRevision: rev, modRevision: rev };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    const client = this.checkOpen();
    const k = this.keys.toEtcd(key);
    const v = copyBytes(value);
    const res = await this.call(() =>
      client.txn({
        compare: [
          { key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: expectedModRevision },
          { key: k, target: CompareTarget.Create, result: CompareResult.Greater, create_revision: 0 },
        ],
        // The keys-only range after the put returns the create revision without sending the value back.
        success: [{ request_put: { key: k, value: v } }, { request_range: { key: k, keys_only: true } }],
        failure: [{ request_range: { key: k, keys_only: true } }],
      }),
    );
    if (!res.succeeded) throw this.mismatch(key, expectedModRevision, res.responses[0]?.response_range);
    const after = res.responses[1]?.response_range?.kvs[0];
    const rev = res.header.revision;
    return { key, value: view(v), createRevision: after?.create_revision ?? rev, modRevision: rev };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const client = this.checkOpen();
    const k = this.keys.toEtcd(key);
    const compare: PbCompare[] = [{ key: k, target: CompareTarget.Create, result: CompareResult.Greater, create_revision: 0 }];
    if (expectedModRevision !== undefined) compare.push({ key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: expectedModRevision });
    const res = await this.call(() =>
      client.txn({
        compare,
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: [{ request_range: { key: k, keys_only: true } }],
      }),
    );
    if (!res.succeeded) throw this.mismatch(key, expectedModRevision ?? 0, res.responses[0]?.response_range);
    const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
    if (!prev) throw keyNotFoundError(key);
    return { ...this.kv(key, prev), modRevision: res.header.revision };
  }

  async get(key: string, revision?: number): Promise<GetResult> {
    const client = this.checkOpen();
    checkRevisionArg(revision);
    const k = this.keys.toEtcd(key);
    const res = await this.call(() => client.range({ key: k, revision: revision ?? 0 }));
    const pb = res.kvs[0];
    return pb ? { kv: this.kv(key, pb), revision: revision || res.header.revision } : { revision: revision || res.header.revision };
  }

  async range(opts: RangeOptions): Promise<RangeResult> {
    const client = this.checkOpen();
    checkRevisionArg(opts.revision);
    const r = this.keys.range(opts.prefix, opts.startKey);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    if (!r) {
      const rev = await this.currentRevision();
      checkReadRevision(opts.revision, rev, 0);
      return { kvs: [], revision: opts.revision || rev, more: false, count: 0 };
    }
    const res: PbRangeResponse = await this.call(() => client.range({ key: r.key, range_end: r.rangeEnd, limit, revision: opts.revision ?? 0 }));
    const kvs: KeyValue[] = new Array(res.kvs.length);
    for (let i = 0; i < kvs.length; i++) {
      const pb = res.kvs[i]!;
      kvs[i] = this.kv(this.keys.fromEtcd(pb.key) ?? pb.key.toString('utf8'), pb);
    }
    return { kvs, revision: opts.revision || res.header.revision, more: res.more, count: res.count };
  }

  async currentRevision(): Promise<number> {
    const client = this.checkOpen();
    const res = await this.call(() => client.range({ key: this.compactKeyBytes, count_only: true }));
    return res.header.revision;
  }

  /**
   * etcd does not report its compacted revision, so it is found as the oldest revision a read
   * still works at (a binary search, starting from what this replica already knows).
   */
  async compactedRevision(): Promise<number> {
    const client = this.checkOpen();
    const current = await this.currentRevision();
    const readable = async (rev: number): Promise<boolean> => {
      try {
        await client.range({ key: this.compactKeyBytes, count_only: true, revision: rev });
        return true;
      } catch (err) {
        const e = await toStoreError(err, '', { compacted: async () => 0, current: async () => 0 });
        if (e.code === 'Compacted') return false;
        if (e.code === 'FutureRevision') return true;
        throw await this.mapError(err);
      }
    };
    let lo = 0; // reads at lo fail (or lo is 0)
    let hi = current; // reads at hi work
    const hint = Math.min(this.knownCompacted, current);
    if (hint > 1) {
      if (await readable(hint)) hi = hint;
      else lo = hint;
      if (hi - 1 > lo) {
        if (await readable(hi - 1)) hi--;
        else lo = hi - 1;
      }
    }
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (await readable(mid)) hi = mid;
      else lo = mid;
    }
    const compacted = hi <= 1 ? 0 : hi;
    this.noteCompacted(compacted);
    return compacted;
  }

  async compact(revision: number): Promise<void> {
    const client = this.checkOpen();
    try {
      await client.compact(revision);
    } catch (err) {
      const e = await this.mapError(err);
      if (e.code === 'Compacted') return; // at or below the compacted revision: nothing to do
      throw e;
    }
    this.noteCompacted(revision);
  }

  /**
   * One round of the replicas' compaction election (upstream's scheme): the put on compactKey
   * only happens when its version is still the one this replica last saw, so of the replicas
   * ticking in one interval exactly one wins and compacts. Returns the key's version now.
   */
  async compactIfElected(seenVersion: number, revision: number): Promise<{ compacted: boolean; version: number }> {
    const client = this.checkOpen();
    const k = this.compactKeyBytes;
    const res = await this.call(() =>
      client.txn({
        compare: [{ key: k, target: CompareTarget.Version, result: CompareResult.Equal, version: seenVersion }],
        success: [{ request_put: { key: k, value: keyBytes(String(revision)) } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (!res.succeeded) return { compacted: false, version: res.responses[0]?.response_range?.kvs[0]?.version ?? 0 };
    if (revision > 0) await this.compact(revision);
    return { compacted: revision > 0, version: seenVersion + 1 };
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): StoreWatch {
    this.checkOpen();
    if (!Number.isSafeInteger(afterRevision) || afterRevision < 0) throw new RangeError(`invalid watch revision ${afterRevision}`);
    if (afterRevision < this.floor && afterRevision >= this.knownCompacted) return this.replay(prefix, afterRevision, handlers);
    const me: HubWatcher = { seen: afterRevision };
    this.hubWatchers.add(me);
    const w = this.hub!.watch(prefix, afterRevision, {
      onEvents: (events) => {
        me.seen = events[events.length - 1]!.revision;
        return handlers.onEvents(events);
      },
      onProgress: (rev) => {
        me.seen = rev;
        handlers.onProgress?.(rev);
      },
      onError: (err) => {
        this.hubWatchers.delete(me);
        handlers.onError(err);
      },
    });
    return {
      stop: () => {
        this.hubWatchers.delete(me);
        w.stop();
      },
    };
  }

  // ---- the feed: one whole-keyspace etcd watcher filling the log ----

  /** Starts the feed after fromRevision (0 = now) and resolves once etcd has created it. */
  private startFeed(fromRevision: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let first = true;
      const timer = setTimeout(() => {
        if (!first) return;
        first = false;
        reject(unavailableError(`etcd ${this.opts.servers.join(',')} did not answer the watch request (${this.watches?.error || 'timeout'})`));
      }, this.opts.requestTimeoutMs);
      const handle = this.watches!.add({
        key: Buffer.from([0]),
        rangeEnd: Buffer.from([0]),
        nextRevision: fromRevision === 0 ? 0 : fromRevision + 1,
        onCreated: (rev) => {
          if (!first) return;
          first = false;
          clearTimeout(timer);
          if (fromRevision === 0) this.resetLog(rev);
          resolve();
        },
        onEvents: (events) => this.onFeed(events),
        onCompacted: (rev) => this.onFeedLost(rev, `history before ${rev} was compacted while the watch was down`),
        onCanceled: (reason) => this.onFeedLost(0, reason),
      });
      this.feedCancel = () => handle.cancel();
    });
  }

  private resetLog(revision: number): void {
    this.log = [];
    this.floor = revision;
    this.head = revision;
    if (!this.hub) {
      this.hub = new WatchHub({ readEvents: (p, after, limit) => this.readEvents(p, after, limit), compactedRevision: () => Math.max(this.floor, this.knownCompacted) }, revision);
    } else {
      // Watchers behind the new floor now fail with Compacted and start over.
      this.hub.advance(revision);
    }
  }

  /** The feed cannot continue where it stopped: start a fresh one; watchers behind it get Compacted. */
  private onFeedLost(compacted: number, reason: string): void {
    if (this.state !== 'open') return;
    this.noteCompacted(compacted);
    this.opts.log?.(`etcd watch feed restarted: ${reason}`);
    void this.startFeed(0).catch(() => {
      // The watch stream keeps retrying the create; nothing more to do here.
    });
  }

  private onFeed(events: PbEvent[]): void {
    let last = this.head;
    for (const ev of events) {
      const rev = ev.kv.mod_revision;
      if (rev <= this.head) continue;
      last = rev;
      const key = this.keys.fromEtcd(ev.kv.key);
      if (key !== undefined) this.log.push(Object.freeze(this.toEvent(key, ev)));
      else if (ev.type !== EVENT_DELETE && ev.kv.key.equals(this.compactKeyBytes)) {
        // Another replica is about to compact here (it writes the key just before compacting).
        const announced = Number(ev.kv.value.toString('utf8'));
        if (Number.isSafeInteger(announced)) this.noteCompacted(announced);
      }
    }
    if (last > this.head) {
      this.head = last;
      this.trim();
      this.hub?.advance(last);
    }
  }

  private toEvent(key: string, ev: PbEvent): StoreEvent {
    const rev = ev.kv.mod_revision;
    const prevKv = ev.prev_kv ? this.kv(key, ev.prev_kv) : undefined;
    if (ev.type === EVENT_DELETE) {
      const kv = prevKv ? { ...prevKv, modRevision: rev } : { key, value: new Uint8Array(0), createRevision: 0, modRevision: rev };
      return { type: 'delete', kv, prevKv, revision: rev };
    }
    return { type: 'put', kv: this.kv(key, ev.kv), prevKv, revision: rev };
  }

  /** Drops old events nobody needs: beyond recentEvents and already seen by every watcher. */
  private trim(): void {
    const excess = this.log.length - this.opts.recentEvents;
    if (excess < Math.max(1000, this.opts.recentEvents / 10)) return;
    let limit = this.log[excess - 1]!.revision;
    for (const w of this.hubWatchers) if (w.seen < limit) limit = w.seen;
    let cut = 0;
    while (cut < this.log.length && this.log[cut]!.revision <= limit) cut++;
    // Never split one revision's events.
    while (cut > 0 && cut < this.log.length && this.log[cut]!.revision === this.log[cut - 1]!.revision) cut--;
    if (cut === 0) return;
    this.floor = this.log[cut - 1]!.revision;
    this.log = this.log.slice(cut);
  }

  private readEvents(prefix: string, after: number, limit: number): EventBatch {
    const compacted = Math.max(this.floor, this.knownCompacted);
    if (after < compacted) throw compactedError(compacted);
    const log = this.log;
    let lo = 0;
    let hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (log[mid]!.revision <= after) lo = mid + 1;
      else hi = mid;
    }
    const events: StoreEvent[] = [];
    const stop = Math.min(log.length, lo + MAX_SCAN);
    let i = lo;
    for (; i < stop; i++) {
      const ev = log[i]!;
      if (events.length >= limit && ev.revision !== events[events.length - 1]!.revision) break;
      if (ev.kv.key.startsWith(prefix)) events.push(ev);
    }
    while (i < log.length && i > lo && log[i]!.revision === log[i - 1]!.revision) {
      const ev = log[i++]!;
      if (ev.kv.key.startsWith(prefix)) events.push(ev);
    }
    const upTo = i >= log.length ? this.head : log[i - 1]?.revision ?? after;
    return { events, upTo };
  }

  // ---- watches older than the log: an etcd watcher of their own ----

  private replay(prefix: string, afterRevision: number, handlers: WatchHandlers): StoreWatch {
    const r = this.keys.range(prefix);
    const watch = new ReplayWatch(handlers, () => this.replays.delete(watch));
    this.replays.add(watch);
    if (!r) return watch; // nothing of ours can match: never any events
    const handle = this.watches!.add({
      key: r.key,
      rangeEnd: r.rangeEnd,
      nextRevision: afterRevision + 1,
      onEvents: (events) => {
        const out: StoreEvent[] = [];
        for (const ev of events) {
          const key = this.keys.fromEtcd(ev.kv.key);
          if (key !== undefined && key.startsWith(prefix)) out.push(this.toEvent(key, ev));
        }
        if (out.length > 0) watch.push(out);
      },
      onCompacted: (rev) => {
        this.noteCompacted(rev);
        watch.fail(compactedError(rev));
      },
      onCanceled: (reason) => watch.fail(unavailableError(`etcd cancelled the watch: ${reason}`)),
    });
    watch.onStop = () => handle.cancel();
    return watch;
  }

  // ---- helpers ----

  private noteCompacted(rev: number): void {
    if (rev > this.knownCompacted) this.knownCompacted = rev;
  }

  private kv(key: string, pb: PbKeyValue): KeyValue {
    return { key, value: view(pb.value), createRevision: pb.create_revision, modRevision: pb.mod_revision };
  }

  private mismatch(key: string, expected: number, current: PbRangeResponse | null | undefined): StoreError {
    const found = current?.kvs[0];
    if (!found) return keyNotFoundError(key);
    return conflictError(key, expected, found.mod_revision);
  }

  private checkOpen(): EtcdClient {
    if (this.state !== 'open' || !this.client) throw unavailableError(`etcd store is ${this.state === 'closed' ? 'closed' : 'not open'}`);
    return this.client;
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw await this.mapError(err);
    }
  }

  private mapError(err: unknown): Promise<StoreError> {
    const url = this.client?.endpoint.url ?? this.opts.servers.join(',');
    return toStoreError(err, url, {
      compacted: () => this.compactedRevision(),
      current: () => this.currentRevision(),
    });
  }
}

/** Delivers a replay watcher's batches one at a time, asynchronously, waiting for returned promises. */
class ReplayWatch implements StoreWatch {
  onStop: (() => void) | undefined;
  private queue: StoreEvent[][] = [];
  private running = false;
  private stopped = false;
  private failure: StoreError | undefined;

  constructor(
    private readonly handlers: WatchHandlers,
    private readonly onDone: () => void,
  ) {}

  push(events: StoreEvent[]): void {
    if (this.stopped) return;
    this.queue.push(events);
    this.kick();
  }

  fail(err: StoreError): void {
    if (this.stopped || this.failure) return;
    this.failure = err;
    this.kick();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue = [];
    this.onStop?.();
    this.onDone();
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopped && this.queue.length > 0) {
        const batch = this.queue.shift()!;
        const r = this.handlers.onEvents(batch);
        if (r && typeof (r as Promise<void>).then === 'function') await r;
      }
      if (!this.stopped && this.failure) {
        const err = this.failure;
        this.stop();
        this.handlers.onError(err);
      }
    } catch (err) {
      if (!this.stopped) {
        this.stop();
        this.handlers.onError(err instanceof StoreError ? err : unavailableError(`watch handler failed: ${(err as Error)?.message ?? err}`));
      }
    } finally {
      this.running = false;
    }
    if (!this.stopped && (this.queue.length > 0 || this.failure)) this.kick();
  }
}

function checkRevisionArg(revision: number | undefined): void {
  if (revision === undefined || revision === 0) return;
  if (!Number.isSafeInteger(revision) || revision < 0) throw new RangeError(`invalid revision ${revision}`);
}

function copyBytes(value: Uint8Array): Buffer {
  if (!(value instanceof Uint8Array)) throw new TypeError('store value must be a Uint8Array');
  return Buffer.from(value);
}

/** A plain Uint8Array over a Buffer's bytes (no copy). */
function view(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
