// One etcd Watch stream carrying several watchers, re-established after etcd restarts.
//
// Creates are sent one at a time (etcd answers them in order, so each "created" reply
// belongs to the oldest create in flight). Each watcher remembers the next revision it
// wants; when the stream breaks every watcher is created again from there, so a
// reconnect neither loses nor repeats events (etcd never splits one revision's events
// across responses). Compaction ends a watcher with the compacted revision, which
// etcd reports in the cancel response (the etcd3 npm client drops it).
import type { ClientDuplexStream } from '@grpc/grpc-js';
import { grpcMessage, isConnectionError, type EtcdClient, type PbEvent, type PbWatchRequest, type PbWatchResponse } from './etcd-rpc.js';

export interface WatcherSpec {
  key: Buffer;
  rangeEnd: Buffer;
  /** First revision wanted; 0 = from now on. Advanced past each delivered event. */
  nextRevision: number;
  /** Called with the revision etcd reports on each (re)creation. */
  onCreated?(headerRevision: number): void;
  /** Events in revision order. */
  onEvents(events: PbEvent[]): void;
  /** Terminal: history before the start revision is gone. */
  onCompacted(compactRevision: number): void;
  /** Terminal: etcd refused or cancelled the watch for another reason. */
  onCanceled(reason: string): void;
}

interface Watcher {
  spec: WatcherSpec;
  id: number | undefined;
  canceled: boolean;
}

const MIN_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1000;
/** How long one wait for the connection to come back lasts before trying the next endpoint. */
const READY_WAIT_MS = 1000;

export class EtcdWatchStream {
  private readonly watchers = new Set<Watcher>();
  private readonly byId = new Map<number, Watcher>();
  /** Watchers waiting to be created, in order; the head is in flight when creating is set. */
  private queue: Watcher[] = [];
  private creating: Watcher | undefined;
  private stream: ClientDuplexStream<PbWatchRequest, PbWatchResponse> | undefined;
  private connectedNow = false;
  private everConnected = false;
  private backoff = MIN_BACKOFF_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private lastError = '';

  constructor(
    private readonly client: EtcdClient,
    private readonly hooks: { onDisconnect?(reason: string): void; onReconnect?(): void } = {},
  ) {}

  /** True while the stream is up and has answered at least one create since it was (re)opened. */
  get connected(): boolean {
    return this.connectedNow;
  }

  get error(): string {
    return this.lastError;
  }

  add(spec: WatcherSpec): { cancel(): void } {
    const w: Watcher = { spec, id: undefined, canceled: false };
    this.watchers.add(w);
    this.queue.push(w);
    this.pump();
    return { cancel: () => this.cancel(w) };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.watchers.clear();
    this.byId.clear();
    this.queue = [];
    const s = this.stream;
    this.stream = undefined;
    s?.removeAllListeners();
    s?.on('error', () => {});
    s?.cancel();
  }

  private cancel(w: Watcher): void {
    if (w.canceled) return;
    w.canceled = true;
    this.watchers.delete(w);
    this.queue = this.queue.filter((q) => q !== w);
    if (w.id !== undefined) {
      this.byId.delete(w.id);
      this.stream?.write({ cancel_request: { watch_id: w.id } });
    }
    // An in-flight create is cancelled when its reply arrives.
  }

  private pump(): void {
    if (this.closed || this.retryTimer) return;
    if (!this.stream) this.open();
    if (this.creating || !this.stream) return;
    const next = this.queue[0];
    if (!next) return;
    this.creating = next;
    const s = next.spec;
    this.stream.write({ create_request: { key: s.key, range_end: s.rangeEnd, start_revision: s.nextRevision, prev_kv: true } });
  }

  private open(): void {
    const ep = this.client.endpoint;
    const call = (ep.watch as unknown as { Watch(): ClientDuplexStream<PbWatchRequest, PbWatchResponse> }).Watch();
    this.stream = call;
    call.on('data', (res: PbWatchResponse) => {
      if (this.stream === call) this.onResponse(res);
    });
    const broken = (err?: unknown) => {
      if (this.stream !== call) return;
      if (err && isConnectionError(err as { code?: number })) this.client.failover(ep);
      this.reconnect(err ? grpcMessage(err) : 'watch stream ended');
    };
    call.on('error', broken);
    call.on('end', () => broken());
  }

  private reconnect(reason: string): void {
    const s = this.stream;
    this.stream = undefined;
    s?.removeAllListeners();
    s?.on('error', () => {});
    s?.cancel();
    const wasConnected = this.connectedNow;
    this.connectedNow = false;
    this.lastError = reason;
    this.creating = undefined;
    this.byId.clear();
    if (this.closed) return;
    // Every live watcher is created again, in its original order, from its next revision.
    this.queue = [...this.watchers];
    for (const w of this.queue) w.id = undefined;
    if (wasConnected) this.hooks.onDisconnect?.(reason);
    const delay = this.backoff;
    this.backoff = Math.min(MAX_BACKOFF_MS, this.backoff * 2);
    this.retryTimer = setTimeout(() => this.whenReady(), delay);
    this.retryTimer.unref();
  }

  /** Waits for the channel to connect (grpc reconnects on its own) before opening a new stream. */
  private whenReady(): void {
    const ep = this.client.endpoint;
    ep.watch.waitForReady(Date.now() + READY_WAIT_MS, (err) => {
      if (this.closed) return;
      if (err) {
        this.client.failover(ep);
        this.whenReady();
        return;
      }
      this.retryTimer = undefined;
      this.pump();
    });
  }

  private onResponse(res: PbWatchResponse): void {
    if (res.created) {
      const w = this.creating;
      this.creating = undefined;
      if (w && this.queue[0] === w) this.queue.shift();
      if (!this.connectedNow) {
        this.connectedNow = true;
        this.backoff = MIN_BACKOFF_MS;
        this.lastError = '';
        if (this.everConnected) this.hooks.onReconnect?.();
        this.everConnected = true;
      }
      if (!w) return;
      if (w.canceled) {
        if (!res.canceled) this.stream?.write({ cancel_request: { watch_id: res.watch_id } });
      } else if (res.canceled) {
        this.finish(w);
        if (res.compact_revision > 0) w.spec.onCompacted(res.compact_revision);
        else w.spec.onCanceled(res.cancel_reason || 'watch refused by etcd');
      } else {
        w.id = res.watch_id;
        this.byId.set(res.watch_id, w);
        const rev = res.header?.revision ?? 0;
        if (w.spec.nextRevision === 0) w.spec.nextRevision = rev + 1;
        w.spec.onCreated?.(rev);
      }
      this.pump();
      return;
    }
    const w = this.byId.get(res.watch_id);
    if (!w) return; // progress reports (-1) or a watcher we cancelled
    if (res.events.length > 0) {
      // Defensive: drop anything already delivered before a re-create.
      const from = w.spec.nextRevision;
      const events = res.events[0]!.kv.mod_revision >= from ? res.events : res.events.filter((e) => e.kv.mod_revision >= from);
      if (events.length > 0) {
        w.spec.nextRevision = events[events.length - 1]!.kv.mod_revision + 1;
        w.spec.onEvents(events);
      }
    }
    if (res.canceled) {
      this.finish(w);
      if (res.compact_revision > 0) w.spec.onCompacted(res.compact_revision);
      else w.spec.onCanceled(res.cancel_reason || 'watch cancelled by etcd');
    }
  }

  private finish(w: Watcher): void {
    w.canceled = true;
    this.watchers.delete(w);
    if (w.id !== undefined) this.byId.delete(w.id);
  }
}
