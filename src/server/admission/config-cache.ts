// Admission configuration (webhook configurations, policies and bindings, quotas) read from informer-style
// caches: one list at first use, then kept current by a store watch, as upstream's admission plugins read
// their configuration from shared informers instead of listing storage on every write.
//
// Freshness: a change is applied when the store's watch delivers it. The local stores (memory, SQLite)
// deliver a committed change before the process handles its next I/O, so a configuration created, changed
// or deleted takes effect on the next request; on etcd it takes effect within the watch's latency, as
// upstream's informers do.
import { sharedOrDecoded } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import type { RevisionedStore, StoreEvent, StoreWatch } from '../storage/types.js';

/** The objects under one store prefix, decoded once per stored version; shared and read-only. */
export class ConfigCache {
  private readonly objects = new Map<string, KubeObject>();
  private sorted: readonly KubeObject[] | undefined;
  private ready: Promise<void> | undefined;
  private watch: StoreWatch | undefined;
  /** Bumped on every applied change (for derived values cached by users). */
  private version = 0;
  /** Store range reads made to (re)load the cache: one per start, none per write. */
  loads = 0;

  constructor(
    private readonly store: RevisionedStore,
    readonly prefix: string,
  ) {}

  /** The objects in name order (upstream sorts configurations by name); do not modify. */
  async list(): Promise<readonly KubeObject[]> {
    await (this.ready ??= this.load());
    return (this.sorted ??= [...this.objects.values()].sort((x, y) => (x.metadata?.name ?? '').localeCompare(y.metadata?.name ?? '')));
  }

  /** The object stored under `key`, as last delivered by the watch. */
  async get(key: string): Promise<KubeObject | undefined> {
    await (this.ready ??= this.load());
    return this.objects.get(key);
  }

  /** True when some object's key starts with `prefix` (e.g. a namespace's quotas exist). */
  async hasUnder(prefix: string): Promise<boolean> {
    await (this.ready ??= this.load());
    for (const k of this.objects.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }

  /** A number that changes whenever the cached objects change. */
  get generation(): number {
    return this.version;
  }

  stop(): void {
    this.watch?.stop();
    this.watch = undefined;
    this.ready = undefined;
  }

  private async load(): Promise<void> {
    try {
      this.loads++;
      this.objects.clear();
      let startKey: string | undefined;
      let revision: number | undefined;
      for (;;) {
        const page = await this.store.range({ prefix: this.prefix, startKey, revision, limit: 1000 });
        revision = page.revision;
        for (const kv of page.kvs) this.objects.set(kv.key, sharedOrDecoded(this.store, this.prefix, kv));
        if (!page.more || page.kvs.length === 0) break;
        startKey = page.kvs[page.kvs.length - 1]!.key + '\0';
      }
      this.changed();
      this.watch = this.store.watch(this.prefix, revision, {
        onEvents: (events) => this.apply(events),
        // store closed or history compacted past us: the next reader lists again
        onError: () => this.reset(),
      });
    } catch (e) {
      this.ready = undefined;
      throw e;
    }
  }

  private apply(events: StoreEvent[]): void {
    try {
      for (const ev of events) {
        if (ev.type === 'delete') this.objects.delete(ev.kv.key);
        // the watch cache's copy of the version when it has applied it already (its watch was registered first)
        else this.objects.set(ev.kv.key, sharedOrDecoded(this.store, this.prefix, ev.kv));
      }
    } catch {
      // a value that does not decode: the next reader lists again (and meets the error as a store read would)
      this.reset();
      return;
    }
    this.changed();
  }

  private changed(): void {
    this.sorted = undefined;
    this.version++;
  }

  private reset(): void {
    this.stop();
    this.objects.clear();
    this.changed();
  }
}

const caches = new WeakMap<RevisionedStore, Map<string, ConfigCache>>();

/** The one cache of `prefix` on `store` (shared by the plugins of a server). */
export function configCache(store: RevisionedStore, prefix: string): ConfigCache {
  let byPrefix = caches.get(store);
  if (!byPrefix) caches.set(store, (byPrefix = new Map()));
  let c = byPrefix.get(prefix);
  if (!c) byPrefix.set(prefix, (c = new ConfigCache(store, prefix)));
  return c;
}
