// Where every update starts: upstream's GuaranteedUpdate loop with the Cacher's cachedExistingObject
// (apiserver storage/etcd3/store.go). The first attempt runs on the watch cache's decoded object, so a write
// decodes nothing of its own; only when that attempt fails is storage read, and the attempt runs again if storage
// holds a newer version (the failure stands when the suggestion was current). The CAS on the revision an attempt
// started from is what rules out a lost update: a stale suggestion costs a retry, never a write over a newer one.
import type { ResourceStore, StoredObject } from '../resource-store.js';

/**
 * Runs `attempt` on the object to update (undefined: there is none) until it succeeds or fails on the stored
 * version. `attempt` must not write into `cur.obj` (shared with the watch cache): it copies first.
 */
export async function fromCurrent<T>(
  rs: ResourceStore,
  namespace: string | undefined,
  name: string,
  dryRun: boolean,
  attempt: (cur: StoredObject | undefined) => Promise<T>,
): Promise<T> {
  let cur = await rs.readForUpdate(namespace, name, dryRun);
  for (;;) {
    try {
      return await attempt(cur);
    } catch (e) {
      // a write that succeeded cleared `suggested`: what failed after it is no reason to write again
      if (!cur?.suggested) throw e;
      const fresh = await rs.readShared(namespace, name);
      if (fresh && fresh.modRevision === cur.modRevision && !fresh.stale) throw e;
      cur = fresh;
    }
  }
}
