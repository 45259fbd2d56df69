// The remote transport's informers: list and watch, over HTTP with src/client, each kind the components' cache
// holds (ClusterCache.kinds()), delivered to the same listeners as the in-process feed. Items get the keys the
// in-process feed uses (/registry/<group|core>/<plural>/[<ns>/]<name>). A watch that expires (410) or a list that
// fails re-lists everything (onSync), as the in-process feed does when a cache reloads; a kind served later
// (a CRD, EndpointSlice) is picked up by a periodic look at discovery.
import { setMaxListeners } from 'node:events';
import { ApiClient, ApiError, openWatch, type ApiResource, type KubeObject as WireObject } from '../../client/index.js';
import { canonicalGroup } from '../registry/names.js';
import type { KubeObject } from '../registry/types.js';
import type { Feed, FeedItem, FeedListener } from './object-feed.js';
import type { RemoteDiscovery } from './remote-client.js';

interface Stream {
  kind: string;
  res: ApiResource;
  rev: number;
}

const LATE_KINDS_MS = 10_000;

export class RemoteFeed implements Feed {
  private listeners: FeedListener[] = [];
  private streams = new Map<string, Stream>();
  private waiters: { kinds?: Map<string, number>; rev: number; resolve: () => void }[] = [];
  private ac = new AbortController();
  private stopped = false;
  private generation = 0;
  private retry?: NodeJS.Timeout;
  private late?: NodeJS.Timeout;

  constructor(
    private api: ApiClient,
    private discovery: RemoteDiscovery,
    private kinds: () => string[],
    private log: (l: string) => void = () => {},
    signal?: AbortSignal,
  ) {
    setMaxListeners(0, this.ac.signal); // one per watch and list
    if (signal?.aborted) this.stopped = true;
    else signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  subscribe(l: FeedListener): void {
    this.listeners.push(l);
  }

  private resourceOf(kind: string): ApiResource | undefined {
    const i = kind.indexOf('/');
    const group = kind.slice(0, i);
    return this.discovery.resource(group === 'core' ? '' : group, kind.slice(i + 1));
  }

  private static keyOf(kind: string, o: KubeObject): string {
    const ns = o.metadata?.namespace;
    return `/registry/${kind}/${ns ? `${ns}/` : ''}${o.metadata?.name ?? ''}`;
  }

  /** Every item of a kind (paged), with apiVersion and kind filled in as the in-process objects have them. */
  private async list(res: ApiResource): Promise<{ items: KubeObject[]; rev: number }> {
    const items: KubeObject[] = [];
    let cont: string | undefined;
    let rev = 0;
    const apiVersion = res.group ? `${res.group}/${res.version}` : res.version;
    for (;;) {
      const r = await this.api.request<{ metadata?: { resourceVersion?: string; continue?: string }; items?: KubeObject[] }>('GET', listPath(res), { query: { limit: 500, continue: cont }, signal: this.ac.signal });
      for (const o of r.body.items ?? []) items.push({ ...o, apiVersion, kind: res.kind });
      cont = r.body.metadata?.continue || undefined;
      if (!cont) {
        rev = Number(r.body.metadata?.resourceVersion ?? 0);
        break;
      }
    }
    return { items, rev };
  }

  /** Lists (retrying every second while the server cannot answer, as informers do), then watches. */
  async start(): Promise<void> {
    for (;;) {
      try {
        return await this.startOnce();
      } catch (e) {
        if (this.stopped) return;
        this.log(`remote feed: listing failed: ${(e as Error).message}; retrying`);
        await new Promise((r) => setTimeout(r, 1_000).unref());
      }
    }
  }

  private async startOnce(): Promise<void> {
    if (this.stopped) return;
    const gen = ++this.generation;
    this.streams.clear();
    await this.discovery.refresh();
    const items: FeedItem[] = [];
    const streams: Stream[] = [];
    for (const kind of this.kinds()) {
      const res = this.resourceOf(kind);
      if (!res) continue;
      const { items: objs, rev } = await this.list(res);
      if (this.stopped || gen !== this.generation) return;
      for (const obj of objs) items.push({ key: RemoteFeed.keyOf(kind, obj), obj });
      streams.push({ kind, res, rev });
    }
    for (const l of this.listeners) l.onSync(items);
    for (const s of streams) {
      this.streams.set(s.kind, s);
      void this.watch(s, gen);
    }
    this.wake();
    this.late ??= setInterval(() => void this.addLateKinds(), LATE_KINDS_MS);
    this.late.unref();
  }

  private async addLateKinds(): Promise<void> {
    if (this.stopped) return;
    const gen = this.generation;
    const missing = this.kinds().filter((k) => !this.streams.has(k));
    if (missing.length === 0) return;
    await this.discovery.refresh().catch(() => {});
    for (const kind of missing) {
      const res = this.resourceOf(kind);
      if (!res || this.streams.has(kind)) continue;
      try {
        const { items, rev } = await this.list(res);
        if (this.stopped || gen !== this.generation || this.streams.has(kind)) return;
        for (const obj of items) for (const l of this.listeners) l.onEvent({ type: 'put', key: RemoteFeed.keyOf(kind, obj), obj, created: true });
        const s = { kind, res, rev };
        this.streams.set(kind, s);
        void this.watch(s, gen);
      } catch (e) {
        this.log(`remote feed: listing ${kind}: ${(e as Error).message}`);
      }
    }
  }

  private async watch(s: Stream, gen: number): Promise<void> {
    while (!this.stopped && gen === this.generation) {
      try {
        const conn = await openWatch(this.api, { group: s.res.group, version: s.res.version, resource: s.res.resource }, { resourceVersion: String(s.rev), allowWatchBookmarks: true, timeoutSeconds: 300, signal: this.ac.signal });
        for await (const ev of conn.events) {
          if (this.stopped || gen !== this.generation) return;
          const obj = ev.object as KubeObject & WireObject;
          if (ev.type === 'ERROR') {
            const code = (ev.object as { code?: number }).code;
            if (code === 410) return this.relist(`watch of ${s.kind} expired`);
            throw new Error(`watch of ${s.kind}: ${(ev.object as { message?: string }).message ?? 'error'}`);
          }
          const rev = Number(obj?.metadata?.resourceVersion ?? 0);
          if (ev.type !== 'BOOKMARK') {
            const key = RemoteFeed.keyOf(s.kind, obj);
            for (const l of this.listeners)
              l.onEvent(ev.type === 'DELETED' ? { type: 'delete', key, obj, created: false } : { type: 'put', key, obj, created: ev.type === 'ADDED' });
          }
          if (rev > s.rev) s.rev = rev;
          this.wake();
        }
      } catch (e) {
        if (this.stopped || gen !== this.generation) return;
        if (e instanceof ApiError && e.code === 410) return this.relist(`watch of ${s.kind} expired`);
        this.log(`remote feed: watch of ${s.kind}: ${(e as Error).message}; resuming`);
        await new Promise((r) => setTimeout(r, 1_000).unref());
      }
    }
  }

  private relist(why: string): void {
    if (this.stopped || this.retry) return;
    this.log(`remote feed: ${why}; re-listing`);
    this.generation++;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.start();
    }, 500);
    this.retry.unref();
  }

  /** The kinds (stream ids) of written objects; undefined = every stream. */
  private kindsOf(objs: readonly ({ apiVersion?: string; kind?: string; metadata?: { resourceVersion?: string } } | undefined)[] | undefined): Map<string, number> | undefined {
    if (!objs) return undefined;
    const out = new Map<string, number>();
    for (const o of objs) {
      const r = o && this.discovery.forObject(o);
      if (!r) continue;
      const kind = `${canonicalGroup(r.group) || 'core'}/${r.resource}`;
      const rv = Number((o as KubeObject).metadata?.resourceVersion ?? 0);
      if (this.streams.has(kind)) out.set(kind, Math.max(out.get(kind) ?? 0, rv));
    }
    return out;
  }

  private done(w: { kinds?: Map<string, number>; rev: number }): boolean {
    if (this.stopped) return true;
    if (w.kinds) {
      for (const [kind, rv] of w.kinds) if ((this.streams.get(kind)?.rev ?? Infinity) < rv) return false;
      return true;
    }
    for (const s of this.streams.values()) if (s.rev < w.rev) return false;
    return true;
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const still = this.waiters.filter((w) => !this.done(w));
    for (const w of this.waiters) if (!still.includes(w)) w.resolve();
    this.waiters = still;
  }

  caughtUp(rev: number, objs?: readonly ({ apiVersion?: string; kind?: string } | undefined)[]): Promise<void> {
    const w = { kinds: this.kindsOf(objs), rev, resolve: () => {} };
    if (this.done(w)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ ...w, resolve }));
  }

  stop(): void {
    this.stopped = true;
    this.ac.abort();
    if (this.retry) clearTimeout(this.retry);
    if (this.late) clearInterval(this.late);
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }
}

function listPath(r: ApiResource): string {
  return r.group ? `/apis/${r.group}/${r.version}/${r.resource}` : `/api/${r.version}/${r.resource}`;
}
