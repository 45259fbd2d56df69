// One store watch over every object of every type, decoded once and shared by the deletion controllers
// (garbage collector, namespace controller, pod grace periods). Starts with a consistent listing of the whole
// store and re-lists (onSync again) whenever the watch breaks, so consumers rebuild their state from the store.
import { decodeFromStorage } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import type { KeyValue, RevisionedStore, StoreError, StoreEvent, StoreWatch } from '../storage/types.js';

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
  /** For a put: the state before (undefined for a create); decoded on first use. */
  readonly prev?: KubeObject;
}

export interface FeedListener {
  /** The complete current state (at start and after every re-list). */
  onSync(items: FeedItem[]): void;
  onEvent(ev: FeedEvent): void;
}

/** Where a key lives: group ('' for core), plural, namespace ('' for cluster-scoped) and name. */
export function parseKey(key: string): { group: string; plural: string; namespace: string; name: string } | undefined {
  if (!key.startsWith(REGISTRY_PREFIX)) return undefined;
  const parts = key.slice(REGISTRY_PREFIX.length).split('/');
  if (parts.length === 3) return { group: parts[0] === 'core' ? '' : parts[0]!, plural: parts[1]!, namespace: '', name: parts[2]! };
  if (parts.length === 4) return { group: parts[0] === 'core' ? '' : parts[0]!, plural: parts[1]!, namespace: parts[2]!, name: parts[3]! };
  return undefined;
}

function decode(kv: KeyValue | undefined): KubeObject | undefined {
  if (!kv || kv.value.length === 0) return undefined;
  try {
    return decodeFromStorage(kv);
  } catch {
    return undefined;
  }
}

function putEvent(e: StoreEvent): FeedEvent {
  let prev: KubeObject | undefined;
  let decoded = false;
  return {
    type: 'put',
    key: e.kv.key,
    obj: decode(e.kv),
    created: e.kv.createRevision === e.kv.modRevision,
    get prev() {
      if (!decoded) {
        prev = decode(e.prevKv);
        decoded = true;
      }
      return prev;
    },
  };
}

export class ObjectFeed {
  private listeners: FeedListener[] = [];
  private watch?: StoreWatch;
  private stopped = false;
  private retry?: NodeJS.Timeout;
  private rev = 0;
  private waiters: { rev: number; resolve: () => void }[] = [];

  constructor(
    private store: RevisionedStore,
    private log: (l: string) => void = () => {},
    signal?: AbortSignal,
  ) {
    // a shutdown during the start-up scan of a large store ends it at the next page (close() waits for
    // the scan's end: at 1M objects SIGTERM otherwise took minutes)
    if (signal?.aborted) this.stopped = true;
    else signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  subscribe(l: FeedListener): void {
    this.listeners.push(l);
  }

  async start(): Promise<void> {
    const items: FeedItem[] = [];
    let startKey: string | undefined;
    let revision: number | undefined;
    for (;;) {
      const page = await this.store.range({ prefix: REGISTRY_PREFIX, startKey, limit: 500, revision, lenient: true, count: false });
      if (this.stopped) return;
      revision = page.revision;
      for (const kv of page.kvs) items.push({ key: kv.key, obj: decode(kv) });
      if (!page.more || page.kvs.length === 0) break;
      startKey = page.kvs[page.kvs.length - 1]!.key + '\u0000';
      // a page at a time, so requests are served while a large store is listed (an in-process
      // store's range resolves without ever yielding to the event loop)
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (this.stopped) return;
    for (const l of this.listeners) {
      l.onSync(items);
      await new Promise<void>((resolve) => setImmediate(resolve)); // each controller's indexing in its own turn
      if (this.stopped) return;
    }
    this.advance(revision!);
    this.watch = this.store.watch(REGISTRY_PREFIX, revision!, {
      onEvents: (evs: StoreEvent[]) => {
        for (const e of evs) {
          const ev = e.type === 'delete' ? { type: 'delete' as const, key: e.kv.key, obj: decode(e.kv), created: false } : putEvent(e);
          for (const l of this.listeners) l.onEvent(ev);
        }
        if (evs.length > 0) this.advance(evs[evs.length - 1]!.revision);
      },
      onProgress: (r) => this.advance(r),
      onError: (err: StoreError) => {
        if (this.stopped) return;
        this.log(`object feed: watch ended (${err.message}); re-listing`);
        this.scheduleRestart();
      },
    });
  }

  private scheduleRestart(): void {
    this.retry = setTimeout(() => {
      if (this.stopped) return;
      this.start().catch((e) => {
        this.log(`object feed: re-list failed: ${(e as Error).message}`);
        this.scheduleRestart();
      });
    }, 500);
    this.retry.unref();
  }

  private advance(rev: number): void {
    if (rev <= this.rev) return;
    this.rev = rev;
    const still = this.waiters.filter((w) => w.rev > rev);
    for (const w of this.waiters) if (w.rev <= rev) w.resolve();
    this.waiters = still;
  }

  /** Resolves once every change up to `rev` has been delivered (so listeners' indexes include it), or on stop. */
  caughtUp(rev: number): Promise<void> {
    if (rev <= this.rev || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ rev, resolve }));
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
    if (this.retry) clearTimeout(this.retry);
    this.watch?.stop();
  }
}
