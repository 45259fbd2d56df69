// Collection reads against the revisioned store: consistent snapshots, paging, selectors, and
// the resourceVersion semantics (Most Recent, Any, Not older than, Exact, Continuation).
import { encodeContinue } from '../../api/continue-token.js';
import { errors, StatusError } from '../../api/status.js';
import { StoreError, type RevisionedStore } from '../storage/types.js';
import type { ListOptions } from '../http/rest/list-options.js';
import { matchesSelectors } from '../http/rest/list-options.js';
import { mapStoreError, sharedOrDecoded, type ResourceStore } from './resource-store.js';
import { typePrefix } from './keys.js';
import type { KubeObject } from './types.js';
import { lowerBound, type WatchCache } from '../watch/watch-cache.js';

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Waits (briefly) until the store has reached `rv`; 504 "Too large resource version" otherwise. */
export async function waitForRevision(store: RevisionedStore, rv: number, timeoutMs = 3000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const cur = await store.currentRevision();
    if (cur >= rv) return cur;
    if (Date.now() >= deadline)
      throw errors.timeout(`Too large resource version: ${rv}, current: ${cur}`, 1, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The "Too large resource version" timeout of a cache that did not catch up in time. */
function isTooLargeResourceVersion(e: unknown): boolean {
  return e instanceof StatusError && e.code === 504 && !!e.status.details?.causes?.some((c) => c.reason === 'ResourceVersionTooLarge');
}

/**
 * Waits for the cache to hold the store's current state; false when it did not catch up within the
 * timeout (a burst of writes still being applied): upstream's cacher then serves the consistent list
 * from storage instead (cacher delegator, "fall back to etcd", apiserver_watch_cache_consistent_read_total{fallback="true"}).
 */
async function consistentInCache(cache: WatchCache): Promise<boolean> {
  try {
    await cache.waitConsistent();
    return true;
  } catch (e) {
    if (isTooLargeResourceVersion(e)) return false;
    throw e;
  }
}

const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** Most Recent, Any and Not older than are served from the watch cache; Exact and Continuation from the store. */
export async function listObjects(rs: ResourceStore, namespace: string | undefined, o: ListOptions, cache?: WatchCache): Promise<ListResult> {
  if (cache && (o.mode.kind === 'MostRecent' || o.mode.kind === 'Any' || o.mode.kind === 'NotOlderThan')) {
    let fromCache = true;
    if (o.mode.kind === 'MostRecent') fromCache = await consistentInCache(cache);
    else if (o.mode.kind === 'NotOlderThan') await cache.waitFresh(o.mode.rv);
    else await cache.start();
    if (fromCache) return listFromCache(rs, cache, namespace, o);
  }
  // Exact and Continuation reads at a version the cache still holds unchanged come from its snapshot
  if (cache && o.mode.kind === 'Continuation' && cache.holdsStateAt(o.mode.token.rv)) {
    const start = rs.prefix() + o.mode.token.start;
    if (!start.startsWith(rs.prefix(namespace))) throw errors.badRequest('continue key is not valid: it does not belong to this collection');
    return listFromCache(rs, cache, namespace, o, start, o.mode.token.rv);
  }
  if (cache && o.mode.kind === 'Exact' && cache.holdsStateAt(o.mode.rv)) return listFromCache(rs, cache, namespace, o, undefined, o.mode.rv);
  const store = rs.store;
  const prefix = rs.prefix(namespace);
  const typeRoot = rs.prefix();
  let revision: number | undefined;
  let startKey: string | undefined;
  switch (o.mode.kind) {
    case 'MostRecent':
    case 'Any':
      revision = undefined;
      break;
    case 'NotOlderThan':
      await waitForRevision(store, o.mode.rv);
      revision = undefined;
      break;
    case 'Exact':
      await waitForRevision(store, o.mode.rv);
      revision = o.mode.rv;
      break;
    case 'Continuation': {
      const t = o.mode.token;
      startKey = typeRoot + t.start;
      if (!startKey.startsWith(prefix)) throw errors.badRequest('continue key is not valid: it does not belong to this collection');
      revision = t.rv > 0 ? t.rv : undefined;
      break;
    }
  }
  const filtered = !o.labelSelector.empty || !o.fieldSelector.empty;
  const items: KubeObject[] = [];
  let readAt = 0;
  let more = false;
  let lastKey: string | undefined;
  let remaining: number | undefined;
  try {
    for (;;) {
      const want = o.limit > 0 ? o.limit - items.length : 0;
      const page = await store.range({ prefix, startKey, limit: want > 0 ? Math.max(want, filtered ? 100 : want) : undefined, revision });
      readAt = page.revision;
      revision = page.revision; // later pages at the same snapshot
      let taken = 0;
      for (const kv of page.kvs) {
        taken++;
        lastKey = kv.key;
        // the watch cache's copy when it holds this version (an object unchanged since the list's revision)
        const obj = sharedOrDecoded(store, typePrefix(rs.type), kv);
        if (filtered && !matchesSelectors(rs.type, obj, o.labelSelector, o.fieldSelector)) continue;
        items.push(obj);
        if (o.limit > 0 && items.length >= o.limit) break;
      }
      const leftInPage = page.kvs.length - taken;
      more = page.more || leftInPage > 0;
      if (!filtered) remaining = page.count - taken;
      if (!more || (o.limit > 0 && items.length >= o.limit) || o.limit === 0) break;
      startKey = lastKey + '\u0000';
    }
  } catch (e) {
    if (e instanceof StoreError && e.code === 'Compacted') {
      if (o.mode.kind === 'Continuation') {
        const err = errors.expired(EXPIRED_CONTINUE);
        err.status.metadata.continue = encodeContinue(o.mode.token.start.replace(/\u0000$/, ''), -1);
        throw err;
      }
      throw errors.expired('The resourceVersion for the provided list is too old.');
    }
    // undecryptable or undecodable objects: upstream's corrupt-object StorageError naming them
    if (e instanceof StoreError && e.code === 'Corrupt') throw mapStoreError(e, rs.target());
    // a forged token from the future: client input, not a server fault
    if (e instanceof StoreError && e.code === 'FutureRevision' && o.mode.kind === 'Continuation')
      throw errors.badRequest('continue key is not valid: its resource version is newer than the server');
    throw e;
  }
  const result: ListResult = { items, resourceVersion: String(readAt) };
  if (o.limit > 0 && more && lastKey !== undefined) {
    result.continue = encodeContinue(lastKey.slice(typeRoot.length), readAt);
    if (!filtered && remaining !== undefined && remaining > 0) result.remainingItemCount = remaining;
  }
  return result;
}

/** A synchronous read of the cache: one consistent snapshot at cache.revision. */
function listFromCache(rs: ResourceStore, cache: WatchCache, namespace: string | undefined, o: ListOptions, startKey?: string, atRevision?: number): ListResult {
  const typeRoot = rs.prefix();
  const { keys, from, to } = cache.keyRange(rs.prefix(namespace));
  const filtered = !o.labelSelector.empty || !o.fieldSelector.empty;
  const items: KubeObject[] = [];
  let i = startKey === undefined ? from : Math.max(from, lowerBound(keys, startKey, from));
  for (; i < to; i++) {
    if (o.limit > 0 && items.length >= o.limit) break;
    const obj = cache.objects.get(keys[i]!);
    if (obj === undefined) continue; // found undecodable on this read (the cache decodes lazily)
    if (filtered && !matchesSelectors(rs.type, obj, o.labelSelector, o.fieldSelector)) continue;
    items.push(obj);
  }
  const rev = atRevision ?? cache.revision;
  const result: ListResult = { items, resourceVersion: String(rev) };
  if (o.limit > 0 && i < to) {
    result.continue = encodeContinue(keys[i - 1]!.slice(typeRoot.length), rev);
    if (!filtered) result.remainingItemCount = to - i;
  }
  return result;
}

