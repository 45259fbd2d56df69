// NamespaceLifecycle admission: namespaced objects need an existing namespace that is not terminating, and the
// immortal namespaces cannot be deleted.
import { errors, failure } from '../../api/status.js';
import { decodeFromStorage } from '../registry/resource-store.js';
import { collectionPrefix, objectKey } from '../registry/keys.js';
import type { KubeObject } from '../registry/types.js';
import { configCache } from '../admission/config-cache.js';
import type { KeyValue } from '../storage/types.js';
import type { AdmissionPlugin } from './admission.js';
import type { ApiDeps } from './api-handler.js';

const NAMESPACES = { group: '', plural: 'namespaces', scope: 'Cluster' as const };

/** Namespaces the server relies on (upstream's immortal namespaces). */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/** Namespace key → whether the namespace at that modRevision is terminating (a revision names one content). */
type Seen = Map<string, { rev: number; terminating: boolean }>;
const SEEN_MAX = 4096;

function terminatingObject(ns: KubeObject): boolean {
  const phase = (ns.status as { phase?: string } | undefined)?.phase;
  return phase === 'Terminating' || !!ns.metadata?.deletionTimestamp;
}

/** Decodes a namespace only when its revision changed: every create into it asks. */
function terminating(seen: Seen, kv: KeyValue): boolean {
  const hit = seen.get(kv.key);
  if (hit && hit.rev === kv.modRevision) return hit.terminating;
  const t = terminatingObject(decodeFromStorage(kv));
  if (seen.size >= SEEN_MAX) seen.clear();
  seen.set(kv.key, { rev: kv.modRevision, terminating: t });
  return t;
}

export function namespaceLifecycle(deps: Pick<ApiDeps, 'store'>): AdmissionPlugin {
  // per store: revisions identify contents within one store only
  const seen: Seen = new Map();
  return {
    name: 'NamespaceLifecycle',
    async validate(a) {
      if (a.operation === 'DELETE' && a.type.group === '' && a.type.plural === 'namespaces' && IMMORTAL_NAMESPACES.has(a.name))
        throw errors.forbidden({ group: '', resource: 'namespaces', name: a.name }, 'this namespace may not be deleted');
      if (a.operation !== 'CREATE' || a.type.scope !== 'Namespaced' || !a.namespace) return;
      // upstream: access reviews are always allowed (a NotFound would tell which namespaces exist)
      if (a.type.plural === 'localsubjectaccessreviews') return;
      const key = objectKey(NAMESPACES, undefined, a.namespace);
      // the namespace from the watch-kept cache (upstream's lister); one the cache has not seen yet is looked
      // up live, as upstream does for a namespace created moments ago
      const cached = await configCache(deps.store, collectionPrefix(NAMESPACES)).get(key);
      let isTerminating: boolean;
      if (cached) isTerminating = terminatingObject(cached);
      else {
        const got = await deps.store.get(key);
        if (!got.kv) throw errors.notFound({ group: '', resource: 'namespaces', name: a.namespace });
        isTerminating = terminating(seen, got.kv);
      }
      if (isTerminating) {
        const gr = a.type.group ? `${a.type.plural}.${a.type.group}` : a.type.plural;
        throw failure(403, 'Forbidden', `${gr} "${a.name}" is forbidden: unable to create new content in namespace ${a.namespace} because it is being terminated`, {
          name: a.name,
          group: a.type.group,
          kind: a.type.plural,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
        });
      }
    },
  };
}
