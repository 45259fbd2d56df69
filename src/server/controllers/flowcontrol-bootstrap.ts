// API Priority and Fairness configuration every cluster starts with: upstream's mandatory (exempt, catch-all) and
// suggested priority levels and flow schemas (k8s.io/apiserver pkg/apis/flowcontrol/bootstrap/default.go, v1
// values), created at each start when absent and marked with the auto-update annotation as upstream does.
// Admission of requests does not consult them: they are the objects clients and dashboards read.
import type { ApiDeps } from '../http/api-handler.js';
import { canonicalGroup } from '../registry/names.js';
import type { KubeObject } from '../registry/types.js';
import { typeForResource } from './controller-support.js';
import { ensureCreated, ensureUpdated } from './internal-writer.js';

const MANAGER = 'api-priority-and-fairness-config-producer-v1';
const AUTO_UPDATE = { 'apf.kubernetes.io/autoupdate-spec': 'true' };
const API_VERSION = 'flowcontrol.apiserver.service.io/v1';

type Subject = Record<string, unknown>;
const group = (name: string): Subject => ({ kind: 'Group', group: { name } });
const user = (name: string): Subject => ({ kind: 'User', user: { name } });
const sa = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', serviceAccount: { namespace, name } });
const AUTHENTICATED = [group('system:unauthenticated'), group('system:authenticated')];
const ALL_RESOURCES = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }];
const ALL_NON_RESOURCES = [{ verbs: ['*'], nonResourceURLs: ['*'] }];
const everything = (subjects: Subject[]) => [{ subjects, resourceRules: ALL_RESOURCES, nonResourceRules: ALL_NON_RESOURCES }];
const leases = { verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] };

const queued = (nominalConcurrencyShares: number, lendablePercent: number, queues: number, handSize: number) => ({
  type: 'Limited',
  limited: { nominalConcurrencyShares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
});

/** name -> spec of the bootstrap priority levels. */
export const BOOTSTRAP_PRIORITY_LEVELS: Record<string, Record<string, unknown>> = {
  exempt: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  'catch-all': { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
  system: queued(30, 33, 64, 6),
  'node-high': queued(40, 25, 64, 6),
  'leader-election': queued(10, 0, 16, 4),
  'workload-high': queued(40, 50, 128, 6),
  'workload-low': queued(100, 90, 128, 6),
  'global-default': queued(20, 50, 128, 6),
};

const schema = (pl: string, matchingPrecedence: number, distinguisher: string | undefined, rules: unknown[]) => ({
  priorityLevelConfiguration: { name: pl },
  matchingPrecedence,
  ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
  rules,
});

/** name -> spec of the bootstrap flow schemas. */
export const BOOTSTRAP_FLOW_SCHEMAS: Record<string, Record<string, unknown>> = {
  exempt: schema('exempt', 1, undefined, everything([group('system:masters')])),
  probes: schema('exempt', 2, undefined, [{ subjects: AUTHENTICATED, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }]),
  'system-leader-election': schema('leader-election', 100, 'ByUser', [
    { subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler')], resourceRules: [leases] },
  ]),
  'endpoint-controller': schema('workload-high', 150, 'ByUser', [
    {
      subjects: [user('system:kube-controller-manager'), sa('kube-system', 'endpoint-controller'), sa('kube-system', 'endpointslice-controller')],
      resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints'], namespaces: ['*'] }],
    },
  ]),
  'workload-leader-election': schema('leader-election', 200, 'ByUser', [{ subjects: [sa('kube-system', '*')], resourceRules: [leases] }]),
  'system-node-high': schema('node-high', 400, 'ByUser', [
    {
      subjects: [group('system:nodes')],
      resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true }, { ...leases, verbs: ['*'] }],
    },
  ]),
  'system-nodes': schema('system', 500, 'ByUser', everything([group('system:nodes')])),
  'kube-controller-manager': schema('workload-high', 800, 'ByNamespace', everything([user('system:kube-controller-manager')])),
  'kube-scheduler': schema('workload-high', 800, 'ByNamespace', everything([user('system:kube-scheduler')])),
  'kube-system-service-accounts': schema('workload-high', 900, 'ByNamespace', everything([sa('kube-system', '*')])),
  'service-accounts': schema('workload-low', 9000, 'ByUser', everything([group('system:serviceaccounts')])),
  'global-default': schema('global-default', 9900, 'ByUser', everything(AUTHENTICATED)),
  'catch-all': schema('catch-all', 10000, 'ByUser', everything(AUTHENTICATED)),
};

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** Creates the bootstrap configuration objects that are missing (existing ones are left as they are). */
export async function bootstrapFlowControl(deps: ApiDeps, signal: AbortSignal): Promise<void> {
  const g = canonicalGroup('flowcontrol.apiserver.k8s.io');
  const plType = typeForResource(deps.types, g, 'prioritylevelconfigurations');
  const fsType = typeForResource(deps.types, g, 'flowschemas');
  if (!plType || !fsType) return;
  for (const [name, spec] of Object.entries(BOOTSTRAP_PRIORITY_LEVELS))
    await ensureCreated(deps, plType, { apiVersion: API_VERSION, kind: 'PriorityLevelConfiguration', metadata: { name, annotations: AUTO_UPDATE }, spec } as KubeObject, MANAGER, signal);
  for (const [name, spec] of Object.entries(BOOTSTRAP_FLOW_SCHEMAS)) {
    await ensureCreated(deps, fsType, { apiVersion: API_VERSION, kind: 'FlowSchema', metadata: { name, annotations: AUTO_UPDATE }, spec } as KubeObject, MANAGER, signal);
    // upstream's APF controller reports whether the referenced priority level exists
    const pl = (spec.priorityLevelConfiguration as { name: string }).name;
    await ensureUpdated(deps, fsType, undefined, name, MANAGER, (o) => {
      const conds = ((o.status as { conditions?: { type?: string }[] } | undefined)?.conditions ?? []).filter((c) => c.type === 'Dangling');
      if (conds.length) return false;
      o.status = {
        conditions: [{ type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${pl}" and it exists`, lastTransitionTime: now() }],
      };
      return true;
    }, { subresource: 'status', signal });
  }
}
