// Events as upstream's client-go recorder writes them: core/v1 Events (served as events.k8s.io/v1 too), with
// the recorder's aggregation of repeats (same object, reason, message and source → count and lastTimestamp
// bumped on one Event instead of a new one each time), and TTL cleanup (kube-apiserver --event-ttl, 1h).
import { nowTimestamp } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import { StoppedError } from './api-writer.js';
import type { ControllerClient } from './client.js';
import type { ClusterCache } from './cluster-cache.js';
import { nextTurn, overBudget } from './turn-budget.js';

export type EventType = 'Normal' | 'Warning';

let nextNano = Math.floor(Math.random() * 1_000_000);

/**
 * Events queued per recorder at most; later ones are dropped while it is full. client-go's broadcaster queues 1000
 * (maxQueuedEvents, DropIfChannelFull); this recorder keeps its earlier 10,000, so a busy cluster records the same
 * Events as before and the cluster bench measures the same work.
 */
const MAX_QUEUED_EVENTS = 10_000;

/** How many recent series the recorder remembers (client-go's LRU cache holds 4096). */
const SERIES_CACHE = 4096;

export class EventRecorder {
  private series = new Map<string, { name: string; namespace: string; count: number }>();
  /** Events to write, in order, from `head` on; written by one loop that shares the controllers' turn budget. */
  private backlog: (() => Promise<void>)[] = [];
  private head = 0;
  private draining?: Promise<void>;

  constructor(
    private writer: ControllerClient,
    private source: { component: string; host?: string },
    private log: (l: string) => void,
  ) {}

  /** Records an event about obj; never throws (events are best effort, as upstream). */
  event(obj: KubeObject, type: EventType, reason: string, message: string, fieldPath?: string): void {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace || 'default';
    const involved = {
      kind: obj.kind,
      namespace: meta.namespace,
      name: meta.name,
      uid: meta.uid,
      apiVersion: obj.apiVersion,
      resourceVersion: meta.resourceVersion,
      ...(fieldPath ? { fieldPath } : {}),
    };
    const seriesKey = [meta.uid, type, reason, message, fieldPath ?? '', this.source.component, this.source.host ?? ''].join('\u0000');
    // upstream's broadcaster drops events while its queue is full (see MAX_QUEUED_EVENTS)
    if (this.backlog.length - this.head >= MAX_QUEUED_EVENTS) return;
    // the queued write names what it needs, not obj: a backlog entry must not keep an object version alive
    const what = `${reason} for ${obj.kind} ${meta.namespace}/${meta.name}`;
    this.backlog.push(() =>
      this.write(namespace, seriesKey, involved, type, reason, message).catch((e) => {
        if (!(e instanceof StoppedError)) this.log(`event ${what}: ${(e as Error).message}`);
      }),
    );
    this.draining ??= this.drain();
  }

  /**
   * Writes the backlog in order. A promise chain of writes to the in-process store ran a whole backlog (thousands
   * of Events while pods start) in microtasks without letting a request in; this loop yields with the others.
   */
  private async drain(): Promise<void> {
    let ran = false;
    while (this.head < this.backlog.length) {
      if (overBudget()) {
        await nextTurn(ran);
        ran = false;
        continue;
      }
      ran = true;
      const write = this.backlog[this.head]!;
      this.backlog[this.head++] = undefined!;
      if (this.head > 1024 && this.head * 2 > this.backlog.length) {
        this.backlog = this.backlog.slice(this.head);
        this.head = 0;
      }
      await write();
    }
    this.backlog = [];
    this.head = 0;
    this.draining = undefined;
  }

  private async write(namespace: string, seriesKey: string, involved: Record<string, unknown>, type: EventType, reason: string, message: string): Promise<void> {
    const now = nowTimestamp();
    const known = this.series.get(seriesKey);
    if (known) {
      const updated = await this.writer.mutate('', 'events', known.namespace, known.name, (ev) => {
        ev['count'] = ((ev['count'] as number) ?? 1) + 1;
        ev['lastTimestamp'] = now;
        return true;
      });
      if (updated) {
        this.series.delete(seriesKey);
        this.series.set(seriesKey, known);
        return;
      }
    }
    // upstream names events `<object>.<unix nanoseconds in hex>`; a counter in the sub-millisecond part keeps them unique
    const name = `${String(involved['name'])}.${(BigInt(Date.now()) * 1_000_000n + BigInt(nextNano++ % 1_000_000)).toString(16)}`;
    const created = await this.writer.create('', 'events', namespace, {
      metadata: { name, namespace },
      involvedObject: involved,
      reason,
      message,
      type,
      source: { component: this.source.component, ...(this.source.host ? { host: this.source.host } : {}) },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      reportingComponent: this.source.component,
      reportingInstance: this.source.host ?? `${this.source.component}-periscope`,
    } as KubeObject);
    this.series.set(seriesKey, { name: created.metadata!.name!, namespace, count: 1 });
    if (this.series.size > SERIES_CACHE) this.series.delete(this.series.keys().next().value!);
  }

  /** Resolves once the events recorded so far are written. */
  flush(): Promise<void> {
    return this.draining ?? Promise.resolve();
  }
}

/** When an Event's TTL runs from: lastTimestamp, else eventTime, else its creation (ms; NaN when none parses). */
function eventTime(ev: KubeObject): number {
  return Date.parse(String(ev['lastTimestamp'] ?? ev['eventTime'] ?? ev.metadata?.creationTimestamp ?? ''));
}

/**
 * Deletes Events older than the TTL (by lastTimestamp, else eventTime or creation), as etcd leases do upstream.
 * It keeps each Event's name and time, not the Event: an hour of a living cluster's Events (several per pod)
 * held decoded was a third of its heap.
 */
export class EventTtl {
  private timer?: NodeJS.Timeout;
  private running = false;
  /** `namespace/name` → eventTime(); re-inserted on each change, so roughly oldest first. */
  private readonly times = new Map<string, number>();

  constructor(
    cache: ClusterCache,
    private writer: ControllerClient,
    private ttlMs: number,
    private now: () => number,
    private log: (l: string) => void,
  ) {
    cache.follow(
      'core/events',
      (ev) => {
        const id = `${ev.obj.metadata?.namespace ?? ''}/${ev.obj.metadata?.name ?? ''}`;
        this.times.delete(id);
        if (ev.type === 'put') this.times.set(id, eventTime(ev.obj));
      },
      () => this.times.clear(),
    );
  }

  start(): void {
    const every = Math.max(1000, Math.min(60_000, this.ttlMs / 10));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  async sweep(): Promise<void> {
    if (this.running || this.ttlMs <= 0) return;
    this.running = true;
    try {
      const cutoff = this.now() - this.ttlMs;
      const expired: string[] = [];
      for (const [id, at] of this.times) if (Number.isFinite(at) && at < cutoff) expired.push(id);
      for (const id of expired) {
        const slash = id.indexOf('/');
        await this.writer.delete('', 'events', id.slice(0, slash), id.slice(slash + 1)).catch((e) => this.log(`event ttl: ${(e as Error).message}`));
      }
    } finally {
      this.running = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
