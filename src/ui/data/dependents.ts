// The objects that garbage collection would remove with an owner: found by listing every listable
// type (metadata only) and following ownerReferences by uid, level by level.
import { acceptFor, resourcePath, type ApiClient, type ApiResource, type Discovery, type KubeObject, type OwnerReference } from '../../client/index.js';
import { isAliasGroup } from './discovery.js';

export interface Dependent {
  type: ApiResource;
  name: string;
  namespace?: string;
  uid: string;
  /** How many ownerReferences away from the deleted object. */
  depth: number;
  /** Its owner in the chain (uid). */
  ownerUid: string;
  /** It has other owners that stay: garbage collection keeps it. */
  otherOwners: OwnerReference[];
  blocksOwnerDeletion: boolean;
}

interface MetaItem {
  metadata?: KubeObject['metadata'];
}

const MAX_DEPTH = 5;

/** Every listable type whose objects could be owned by something in `namespace` (or anywhere for cluster-scoped owners). */
function candidateTypes(d: Discovery): ApiResource[] {
  return d.resources.filter((r) => r.preferred && r.verbs.includes('list') && !isAliasGroup(d, r.group));
}

async function listMeta(client: ApiClient, type: ApiResource, namespace: string | undefined, signal?: AbortSignal): Promise<MetaItem[]> {
  const path = resourcePath({ group: type.group, version: type.version, resource: type.resource, namespace: type.namespaced ? namespace : undefined });
  const res = await client.request<{ items?: MetaItem[] }>('GET', path, { accept: acceptFor('metadata', { list: true }), signal });
  return res.body?.items ?? [];
}

/**
 * Dependents of an object, transitively. Namespaced owners only own objects in their namespace;
 * cluster-scoped owners can own objects anywhere. Types that fail to list (forbidden) are skipped and
 * reported.
 */
export async function findDependents(client: ApiClient, discovery: Discovery, owner: KubeObject, signal?: AbortSignal): Promise<{ dependents: Dependent[]; skipped: string[] }> {
  const uid = owner.metadata?.uid;
  if (!uid) return { dependents: [], skipped: [] };
  const namespace = owner.metadata?.namespace;
  const types = candidateTypes(discovery).filter((t) => !namespace || t.namespaced);
  const skipped: string[] = [];
  const all: { type: ApiResource; item: MetaItem }[] = [];
  // a few lists at a time: browsers hold six connections per host and live watches use some
  const queue = [...types];
  const worker = async () => {
    for (let t = queue.shift(); t; t = queue.shift()) {
      try {
        for (const item of await listMeta(client, t, namespace, signal)) if (item.metadata?.ownerReferences?.length) all.push({ type: t, item });
      } catch (e) {
        if ((e as Error)?.name === 'AbortError') throw e;
        skipped.push(t.group ? `${t.resource}.${t.group}` : t.resource);
      }
    }
  };
  await Promise.all(Array.from({ length: 3 }, worker));

  const found: Dependent[] = [];
  const seen = new Set<string>([uid]);
  let frontier = [uid];
  for (let depth = 1; depth <= MAX_DEPTH && frontier.length; depth++) {
    const next: string[] = [];
    for (const { type, item } of all) {
      const m = item.metadata!;
      if (!m.uid || seen.has(m.uid)) continue;
      const ref = m.ownerReferences!.find((o) => frontier.includes(o.uid));
      if (!ref) continue;
      seen.add(m.uid);
      const otherOwners = m.ownerReferences!.filter((o) => !seen.has(o.uid) && o.uid !== ref.uid);
      found.push({ type, name: m.name ?? '', namespace: m.namespace, uid: m.uid, depth, ownerUid: ref.uid, otherOwners, blocksOwnerDeletion: !!ref.blockOwnerDeletion });
      // an object that stays (other owners) protects its own dependents
      if (!otherOwners.length) next.push(m.uid);
    }
    frontier = next;
  }
  return { dependents: found, skipped };
}
