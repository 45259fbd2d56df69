// Compaction with several API servers on one etcd: every replica runs the usual compactor
// (compactor.ts), but through this view of the store its compact() first takes part in
// upstream's election — a compare-and-swap on the version of compact_rev_key — and only
// the replica whose swap succeeds compacts. A replica that loses learns the key's new
// version and competes again on its next tick, so history is compacted once per interval.
import type { EtcdStore } from './etcd.js';
import { TransformingStore } from './transform.js';
import type { GetResult, KeyValue, RangeOptions, RangeResult, RevisionedStore, StoreWatch, WatchHandlers } from './types.js';

export class ElectedCompactionStore implements RevisionedStore {
  /** Version of the compaction key as this replica last saw it. */
  private seenVersion = 0;
  /** Compactions this replica performed (tests, metrics). */
  compactions = 0;

  constructor(readonly inner: EtcdStore) {}

  get name(): string {
    return this.inner.name;
  }

  async compact(revision: number): Promise<void> {
    const r = await this.inner.compactIfElected(this.seenVersion, revision);
    this.seenVersion = r.version;
    if (r.compacted) this.compactions++;
  }

  open(): Promise<void> {
    return this.inner.open();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  create(key: string, value: Uint8Array): Promise<KeyValue> {
    return this.inner.create(key, value);
  }
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    return this.inner.update(key, value, expectedModRevision);
  }
  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.inner.delete(key, expectedModRevision);
  }
  get(key: string, revision?: number): Promise<GetResult> {
    return this.inner.get(key, revision);
  }
  range(opts: RangeOptions): Promise<RangeResult> {
    return this.inner.range(opts);
  }
  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }
  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): StoreWatch {
    return this.inner.watch(prefix, afterRevision, handlers);
  }
}

/** The EtcdStore under a store (possibly wrapped for encryption at rest), if it is one. */
export function etcdStoreOf(store: RevisionedStore): EtcdStore | undefined {
  let s: RevisionedStore = store;
  while (s instanceof TransformingStore) s = s.inner;
  return s.name === 'etcd' && 'compactIfElected' in s ? (s as EtcdStore) : undefined;
}

/** What the compactor should run against: the elected view for etcd, the store itself otherwise. */
export function compactionTarget(store: RevisionedStore): RevisionedStore {
  const etcd = etcdStoreOf(store);
  return etcd ? new ElectedCompactionStore(etcd) : store;
}
