// Every stored object under a prefix, read page by page from storage (the few server-side readers that need the
// store's current state rather than a cache's: admission checks, the allocator, the start-up repair).
import type { RevisionedStore } from '../storage/types.js';
import { decodeFromStorage } from './resource-store.js';
import type { KubeObject } from './types.js';

/** The objects under `prefix`, in key order; a corrupt one holds nothing readable and is skipped. */
export async function readAllStored(store: RevisionedStore, prefix: string, pageSize = 500): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  let startKey: string | undefined;
  for (;;) {
    const page = await store.range({ prefix, startKey, limit: pageSize, lenient: true });
    for (const kv of page.kvs) {
      try {
        out.push(decodeFromStorage(kv));
      } catch {
        // unreadable bytes (a wrong encryption key): nothing to act on
      }
    }
    if (!page.more || page.kvs.length === 0) return out;
    startKey = page.kvs[page.kvs.length - 1]!.key + '\u0000';
  }
}
