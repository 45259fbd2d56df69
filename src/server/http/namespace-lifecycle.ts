// NamespaceLifecycle admission: namespaced objects need an existing namespace that is not terminating, and the
// immortal namespaces cannot be deleted.
import { errors, failure } from '../../api/status.js';
import { decodeFromStorage } from '../registry/resource-store.js';
import { objectKey } from '../registry/keys.js';
import type { AdmissionPlugin } from './admission.js';
import type { ApiDeps } from './api-handler.js';

const NAMESPACES = { group: '', plural: 'namespaces', scope: 'Cluster' as const };

/** Namespaces the server relies on (upstream's immortal namespaces). */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

export function namespaceLifecycle(deps: Pick<ApiDeps, 'store'>): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async validate(a) {
      if (a.operation === 'DELETE' && a.type.group === '' && a.type.plural === 'namespaces' && IMMORTAL_NAMESPACES.has(a.name))
        throw errors.forbidden({ group: '', resource: 'namespaces', name: a.name }, 'this namespace may not be deleted');
      if (a.operation !== 'CREATE' || a.type.scope !== 'Namespaced' || !a.namespace) return;
      const got = await deps.store.get(objectKey(NAMESPACES, undefined, a.namespace));
      if (!got.kv) throw errors.notFound({ group: '', resource: 'namespaces', name: a.namespace });
      const ns = decodeFromStorage(got.kv);
      const phase = (ns.status as { phase?: string } | undefined)?.phase;
      if (phase === 'Terminating' || ns.metadata?.deletionTimestamp) {
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
