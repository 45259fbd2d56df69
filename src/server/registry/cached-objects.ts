// The watch cache's decoded objects as the registry sees them, so reads for writes decode no version a second
// time. The watch layer sits above the registry (it imports the registry's decoder), so it registers its caches
// here per store rather than the registry importing it. Upstream: the Cacher hands its current object to
// GuaranteedUpdate as `cachedExistingObject` (staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go), and the
// etcd3 store reads storage only when an update from it fails (storage/etcd3/store.go GuaranteedUpdate).
import type { RevisionedStore } from '../storage/types.js';
import type { KubeObject } from './types.js';

/** One type's cache, read-only. */
export interface CachedObjectSource {
  /** Loaded and following the store (its objects are the type's state at `revision`). */
  readonly ready: boolean;
  /** Revision up to which the cache has applied every change of its type. */
  readonly revision: number;
  /** The cached object of `key` now (shared, read-only; may be older than storage). */
  current(key: string): KubeObject | undefined;
  /** The cached object of `key` if it is exactly stored version `modRevision` (shared, read-only). */
  objectAt(key: string, modRevision: number): KubeObject | undefined;
  /** Resolves once the cache has applied `rev` (rejects after `timeoutMs`). */
  waitFresh(rev: number, timeoutMs: number): Promise<void>;
}

/** The caches over one store, by type prefix (undefined: no cache for it, nothing is started). */
export type CachedObjectSources = (typePrefix: string) => CachedObjectSource | undefined;

const byStore = new WeakMap<RevisionedStore, CachedObjectSources>();

/** Registers the watch caches kept over `store` (the last registration wins). */
export function provideCachedObjects(store: RevisionedStore, sources: CachedObjectSources): void {
  byStore.set(store, sources);
}

/** The watch cache of a type prefix over `store`, when one is loaded. */
export function cachedObjects(store: RevisionedStore, typePrefix: string): CachedObjectSource | undefined {
  const c = byStore.get(store)?.(typePrefix);
  return c?.ready ? c : undefined;
}

/**
 * How long a read waits for the watch cache to reach a version storage already returned, before decoding it
 * itself: the local stores' caches catch up within an event-loop turn, etcd's within its watch latency; a cache
 * further behind costs a decode, never more delay than this.
 */
export const CACHE_CATCH_UP_MS = 50;

/** Deep-freezes shared objects handed to writers when PERISCOPE_FREEZE_SHARED=1 (tests: a write into one throws). */
const FREEZE = process.env['PERISCOPE_FREEZE_SHARED'] === '1';
export function freezeShared<T>(o: T): T {
  if (!FREEZE || o === null || typeof o !== 'object' || Object.isFrozen(o)) return o;
  Object.freeze(o);
  for (const v of Object.values(o as object)) freezeShared(v);
  return o;
}
