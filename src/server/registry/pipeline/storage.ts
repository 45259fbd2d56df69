// The pipeline's last step: the only code that writes objects to storage (create, compare-and-swap update,
// removal). Everything that changes an object reaches here through registry/pipeline (create.ts, update.ts,
// delete.ts, binding.ts); test/hardening/write-paths.test.ts fails when a store write appears elsewhere.
import { errors } from '../../../api/status.js';
import { StoreError } from '../../storage/types.js';
import {
  bytesEqual,
  checkStoredSize,
  encodeForStorage,
  generateNameSuffix,
  mapStoreError,
  sameObject,
  shouldDeleteDuringUpdate,
  type ResourceStore,
  type StoredObject,
  type WriteOptions,
} from '../resource-store.js';
import type { KubeObject } from '../types.js';

/** Stores a prepared, validated object. Resolves generateName with retries on collision. */
export async function storeCreate(rs: ResourceStore, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
  const meta = obj.metadata!;
  const generate = !meta.name && !!meta.generateName;
  for (let attempt = 0; ; attempt++) {
    if (generate) meta.name = `${meta.generateName}${generateNameSuffix()}`;
    const key = rs.key(meta.namespace, meta.name!);
    const bytes = encodeForStorage(rs.stored(obj));
    checkStoredSize(bytes);
    if (opts.dryRun) {
      const existing = await rs.store.get(key);
      if (existing.kv) {
        if (generate && attempt < 8) continue;
        throw errors.alreadyExists(rs.target(meta.name));
      }
      return obj;
    }
    try {
      const kv = await rs.store.create(key, bytes);
      meta.resourceVersion = String(kv.modRevision);
      return obj;
    } catch (e) {
      if (e instanceof StoreError && e.code === 'KeyExists') {
        if (generate && attempt < 8) continue;
        throw errors.alreadyExists(rs.target(meta.name));
      }
      throw mapStoreError(e, rs.target(meta.name));
    }
  }
}

/**
 * Writes `next` over the stored revision `modRevision`. A no-op write returns the old object unchanged.
 * An object in deletion whose last finalizer goes away is removed instead.
 */
export async function storeUpdate(rs: ResourceStore, key: string, next: KubeObject, old: StoredObject, opts: WriteOptions): Promise<{ obj: KubeObject; deleted: boolean }> {
  delete next.metadata!.resourceVersion;
  const bytes = encodeForStorage(rs.stored(next));
  const oldBytes = encodeForStorage(old.obj);
  // upstream GuaranteedUpdate skips unchanged writes unless the stored value is stale (older key); unchanged
  // against the watch cache's object proves nothing until storage confirms that version is current
  if ((bytesEqual(bytes, oldBytes) || sameObject(rs.stored(next), old.obj)) && !old.stale) {
    if (old.suggested) await confirmCurrent(rs, key, old);
    return { obj: old.obj, deleted: false };
  }
  const finalizing = shouldDeleteDuringUpdate(rs.type, next, old.obj);
  if (!finalizing) checkStoredSize(bytes);
  if (opts.dryRun) {
    next.metadata!.resourceVersion = old.obj.metadata!.resourceVersion;
    return { obj: next, deleted: finalizing };
  }
  try {
    if (finalizing) {
      const kv = await rs.store.delete(key, old.modRevision);
      old.suggested = false;
      next.metadata!.resourceVersion = String(kv.modRevision);
      return { obj: next, deleted: true };
    }
    const kv = await rs.store.update(key, bytes, old.modRevision);
    old.suggested = false;
    next.metadata!.resourceVersion = String(kv.modRevision);
    return { obj: next, deleted: false };
  } catch (e) {
    throw mapStoreError(e, rs.target(next.metadata!.name));
  }
}

/**
 * A no-op update decided on the watch cache's object (`suggested`): storage must still hold that version, unless
 * re-encrypted (stale), else the write is retried on the stored one (409, as a failed CAS).
 */
async function confirmCurrent(rs: ResourceStore, key: string, old: StoredObject): Promise<void> {
  const { kv } = await rs.store.get(key);
  if (!kv || kv.modRevision !== old.modRevision || kv.stale) throw errors.conflict(rs.target(old.obj.metadata?.name));
  old.suggested = false;
}

/** Removes the object now (CAS on the revision read); `cur.obj` may be shared: the result is a copy of its top. */
export async function storeRemove(rs: ResourceStore, cur: StoredObject, opts: WriteOptions): Promise<KubeObject> {
  if (opts.dryRun) return cur.obj;
  try {
    const kv = await rs.store.delete(cur.key, cur.modRevision);
    cur.suggested = false;
    return { ...cur.obj, metadata: { ...cur.obj.metadata, resourceVersion: String(kv.modRevision) } };
  } catch (e) {
    throw mapStoreError(e, rs.target(cur.obj.metadata?.name));
  }
}
