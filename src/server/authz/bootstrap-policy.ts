// Upstream's bootstrap RBAC policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, policy.go and
// controller_policy.go, the user-facing part): our own table of the same roles and bindings, created at
// start and reconciled like upstream (missing permissions and subjects are added back unless the object
// is annotated rbac.authorization.kubernetes.io/autoupdate=false).
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, SYSTEM_MASTERS } from '../auth/user.js';
import { mutateObject } from '../controllers/controller-support.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { AdmissionChain } from '../http/admission.js';
import { APISERVER_MANAGER, APISERVER_USER, componentContext } from '../registry/pipeline/context.js';
import { createObject } from '../registry/pipeline/create.js';
import type { KubeObject } from '../registry/types.js';
import { covers, rulesOf, subjectsOf, type PolicyRule, type Subject } from './rbac.js';
import { NODE_RULES } from './node-rules.js';

export const RBAC_API_VERSION = 'rbac.authorization.service.io/v1';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
const BOOTSTRAP_LABEL = 'kubernetes.io/bootstrapping';
export const AGGREGATE_TO = (role: 'admin' | 'edit' | 'view') => `rbac.authorization.k8s.io/aggregate-to-${role}`;

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const RW = [...READ, ...WRITE];

const rule = (verbs: string[], groups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups: groups, resources });
const urls = (verbs: string[], paths: string[]): PolicyRule => ({ verbs, nonResourceURLs: paths });

const CORE = '';
const APPS = 'apps';
const BATCH = 'batch';
const AUTOSCALING = 'autoscaling';
const POLICY = 'policy';
const COORDINATION = 'coordination.service.io';
const RBAC = 'rbac.authorization.service.io';
const AUTHZ = 'authorization.service.io';
const AUTHN = 'authentication.service.io';
const EVENTS = 'events.service.io';
const STORAGE = 'storage.service.io';
const DISCOVERY = 'discovery.service.io';
const NETWORKING = 'networking.service.io';
const METRICS = 'metrics.service.io';

/** bootstrappolicy eventsRule(): what every component needs to record Events. */
const eventsRule = (): PolicyRule => rule(['create', 'update', 'patch'], [CORE, EVENTS], ['events']);
const named = (verbs: string[], groups: string[], resources: string[], names: string[]): PolicyRule => ({ verbs, apiGroups: groups, resources, resourceNames: names });

interface BootstrapRole {
  name: string;
  rules: PolicyRule[];
  labels?: Record<string, string>;
  /** ClusterRole aggregation: label selectors (matchLabels) whose roles' rules this one holds. */
  aggregateFrom?: string[];
}

const DISCOVERY_URLS = ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'];
const PUBLIC_INFO_URLS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

export const BOOTSTRAP_CLUSTER_ROLES: BootstrapRole[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  { name: 'system:discovery', rules: [urls(['get'], DISCOVERY_URLS)] },
  { name: 'system:public-info-viewer', rules: [urls(['get'], PUBLIC_INFO_URLS)] },
  {
    name: 'system:basic-user',
    rules: [rule(['create'], [AUTHN], ['selfsubjectreviews']), rule(['create'], [AUTHZ], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'])],
  },
  { name: 'system:monitoring', rules: [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/readyz', '/readyz/*', '/metrics', '/metrics/slis'])] },
  { name: 'system:auth-delegator', rules: [rule(['create'], [AUTHN], ['tokenreviews']), rule(['create'], [AUTHZ], ['subjectaccessreviews'])] },
  { name: 'admin', rules: [], labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, aggregateFrom: [AGGREGATE_TO('admin')] },
  { name: 'edit', rules: [], labels: { [AGGREGATE_TO('admin')]: 'true' }, aggregateFrom: [AGGREGATE_TO('edit')] },
  { name: 'view', rules: [], labels: { [AGGREGATE_TO('edit')]: 'true' }, aggregateFrom: [AGGREGATE_TO('view')] },
  {
    name: 'system:aggregate-to-admin',
    labels: { [AGGREGATE_TO('admin')]: 'true' },
    rules: [rule(['create'], [AUTHZ], ['localsubjectaccessreviews']), rule(RW, [RBAC], ['roles', 'rolebindings'])],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: { [AGGREGATE_TO('edit')]: 'true' },
    rules: [
      rule(READ, [CORE], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
      rule(['impersonate'], [CORE], ['serviceaccounts']),
      rule(WRITE, [CORE], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], [CORE], ['pods/eviction']),
      rule(WRITE, [CORE], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
      rule(['create'], [CORE], ['serviceaccounts/token']),
      rule(WRITE, [APPS], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
      rule(WRITE, [AUTOSCALING], ['horizontalpodautoscalers']),
      rule(WRITE, [BATCH], ['jobs', 'cronjobs']),
      rule(WRITE, [POLICY], ['poddisruptionbudgets']),
      rule(RW, [COORDINATION], ['leases']),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: { [AGGREGATE_TO('view')]: 'true' },
    rules: [
      rule(READ, [CORE], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      rule(READ, [CORE], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
      rule(READ, [CORE], ['namespaces']),
      rule(READ, [APPS], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
      rule(READ, [AUTOSCALING], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, [BATCH], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      rule(READ, [POLICY], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
    ],
  },
  {
    // the controller manager's own identity (its informers, leader election, the service accounts and tokens
    // of --use-service-account-credentials); the controllers' writes need their own roles on top
    name: 'system:kube-controller-manager',
    rules: [
      eventsRule(),
      rule(['create'], [COORDINATION], ['leases']),
      named(['get', 'update'], [COORDINATION], ['leases'], ['kube-controller-manager']),
      rule(['create'], [CORE], ['secrets', 'serviceaccounts']),
      rule(['delete'], [CORE], ['secrets']),
      rule(['get'], [CORE], ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
      rule(['update'], [CORE], ['secrets', 'serviceaccounts']),
      rule(['create'], [AUTHN], ['tokenreviews']),
      rule(['create'], [AUTHZ], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [CORE], ['serviceaccounts/token']),
    ],
  },
  {
    name: 'system:kube-scheduler',
    rules: [
      eventsRule(),
      rule(['create'], [COORDINATION], ['leases']),
      named(['get', 'update'], [COORDINATION], ['leases'], ['kube-scheduler']),
      rule(READ, [CORE], ['nodes']),
      rule(['get', 'list', 'watch', 'delete'], [CORE], ['pods']),
      rule(['create'], [CORE], ['pods/binding', 'bindings']),
      rule(['patch', 'update'], [CORE], ['pods/status']),
      rule(READ, [CORE], ['services', 'replicationcontrollers']),
      rule(READ, [APPS], ['replicasets']),
      rule(READ, [APPS], ['statefulsets']),
      rule(READ, [POLICY], ['poddisruptionbudgets']),
      rule(READ, [CORE], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['create'], [AUTHN], ['tokenreviews']),
      rule(['create'], [AUTHZ], ['subjectaccessreviews']),
      rule(READ, [STORAGE], ['csinodes', 'csidrivers', 'csistoragecapacities']),
    ],
  },
  {
    // not upstream's bootstrap policy: this server serves metrics.k8s.io itself (with simulated nodes), so those who
    // may view a namespace may run `kubectl top` there. A name of our own: metrics-server's manifest creates its
    // system:aggregated-metrics-reader, which upstream 1.33 does not have (server-side applying it conflicted)
    name: 'system:periscope:aggregated-metrics-reader',
    labels: { [AGGREGATE_TO('view')]: 'true', [AGGREGATE_TO('edit')]: 'true', [AGGREGATE_TO('admin')]: 'true' },
    rules: [rule(READ, ['metrics.service.io'], ['pods', 'nodes'])],
  },
];

/** Prefix of the controllers' roles (upstream saRolePrefix); each is bound to the service account of its name in kube-system. */
export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

/**
 * Upstream's controller roles (controller_policy.go at 1.33) for the controllers this server runs, with the rules
 * on what its API serves (the extensions group is not served; the spelling of groups is our canonical one).
 */
export const CONTROLLER_ROLES: { name: string; rules: PolicyRule[] }[] = [
  { name: 'clusterrole-aggregation-controller', rules: [rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [RBAC], ['clusterroles'])] },
  {
    name: 'cronjob-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], [BATCH], ['cronjobs']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], [BATCH], ['jobs']),
      rule(['update'], [BATCH], ['cronjobs/status']),
      rule(['update'], [BATCH], ['cronjobs/finalizers']),
      rule(['list', 'watch', 'delete'], [CORE], ['pods']),
      eventsRule(),
    ],
  },
  {
    name: 'daemon-set-controller',
    rules: [
      rule(READ, [APPS], ['daemonsets']),
      rule(['update'], [APPS], ['daemonsets/status']),
      rule(['update'], [APPS], ['daemonsets/finalizers']),
      rule(['list', 'watch'], [CORE], ['nodes']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], [CORE], ['pods']),
      rule(['create'], [CORE], ['pods/binding']),
      rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], [APPS], ['controllerrevisions']),
      eventsRule(),
    ],
  },
  {
    name: 'deployment-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], [APPS], ['deployments']),
      rule(['update'], [APPS], ['deployments/status']),
      rule(['update'], [APPS], ['deployments/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [APPS], ['replicasets']),
      rule(['get', 'list', 'watch', 'update'], [CORE], ['pods']),
      eventsRule(),
    ],
  },
  {
    name: 'disruption-controller',
    rules: [
      rule(READ, [APPS], ['deployments']),
      rule(READ, [APPS], ['replicasets']),
      rule(READ, [CORE], ['replicationcontrollers']),
      rule(READ, [POLICY], ['poddisruptionbudgets']),
      rule(READ, [APPS], ['statefulsets']),
      rule(['update'], [POLICY], ['poddisruptionbudgets/status']),
      rule(['patch', 'update'], [CORE], ['pods/status']),
      rule(['get'], ['*'], ['*/scale']),
      eventsRule(),
    ],
  },
  {
    name: 'endpoint-controller',
    rules: [
      rule(READ, [CORE], ['services', 'pods']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], [CORE], ['endpoints']),
      rule(['create'], [CORE], ['endpoints/restricted']),
      eventsRule(),
    ],
  },
  {
    name: 'endpointslice-controller',
    rules: [
      rule(READ, [CORE], ['services', 'pods', 'nodes']),
      rule(['update'], [CORE], ['services/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], [DISCOVERY], ['endpointslices']),
      eventsRule(),
    ],
  },
  { name: 'generic-garbage-collector', rules: [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), eventsRule()] },
  {
    name: 'horizontal-pod-autoscaler',
    rules: [
      rule(READ, [AUTOSCALING], ['horizontalpodautoscalers']),
      rule(['update'], [AUTOSCALING], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(['list', 'watch'], [CORE], ['pods']),
      rule(['list', 'watch'], [METRICS], ['pods']),
      eventsRule(),
    ],
  },
  {
    name: 'job-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update', 'patch'], [BATCH], ['jobs']),
      rule(['update'], [BATCH], ['jobs/status']),
      rule(['update'], [BATCH], ['jobs/finalizers']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], [CORE], ['pods']),
      eventsRule(),
    ],
  },
  {
    name: 'namespace-controller',
    rules: [
      rule(['get', 'list', 'watch', 'delete'], [CORE], ['namespaces']),
      rule(['update'], [CORE], ['namespaces/finalize', 'namespaces/status']),
      rule(['get', 'list', 'watch', 'delete', 'deletecollection'], ['*'], ['*']),
    ],
  },
  {
    name: 'pod-garbage-collector',
    rules: [rule(['list', 'watch', 'delete'], [CORE], ['pods']), rule(READ, [CORE], ['nodes']), rule(['patch'], [CORE], ['pods/status'])],
  },
  {
    name: 'replicaset-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], [APPS], ['replicasets']),
      rule(['update'], [APPS], ['replicasets/status']),
      rule(['update'], [APPS], ['replicasets/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], [CORE], ['pods']),
      eventsRule(),
    ],
  },
  {
    name: 'replication-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], [CORE], ['replicationcontrollers']),
      rule(['update'], [CORE], ['replicationcontrollers/status']),
      rule(['update'], [CORE], ['replicationcontrollers/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], [CORE], ['pods']),
      eventsRule(),
    ],
  },
  { name: 'resourcequota-controller', rules: [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [CORE], ['resourcequotas/status']), eventsRule()] },
  { name: 'service-account-controller', rules: [rule(['create'], [CORE], ['serviceaccounts']), eventsRule()] },
  {
    name: 'service-cidrs-controller',
    rules: [
      rule(['get', 'list', 'watch', 'patch', 'update'], [NETWORKING], ['servicecidrs']),
      rule(['patch', 'update'], [NETWORKING], ['servicecidrs/finalizers']),
      rule(['patch', 'update'], [NETWORKING], ['servicecidrs/status']),
      rule(READ, [NETWORKING], ['ipaddresses']),
      eventsRule(),
    ],
  },
  {
    name: 'statefulset-controller',
    rules: [
      rule(['list', 'watch'], [CORE], ['pods']),
      rule(READ, [APPS], ['statefulsets']),
      rule(['update'], [APPS], ['statefulsets/status']),
      rule(['update'], [APPS], ['statefulsets/finalizers']),
      rule(['get', 'create', 'delete', 'update', 'patch'], [CORE], ['pods']),
      rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], [APPS], ['controllerrevisions']),
      rule(['get', 'create', 'list', 'watch'], [CORE], ['persistentvolumeclaims']),
      rule(['update', 'delete'], [CORE], ['persistentvolumeclaims']),
      rule(['update'], [CORE], ['pods/finalizers']),
      eventsRule(),
    ],
  },
  { name: 'ttl-after-finished-controller', rules: [rule(['get', 'list', 'watch', 'delete'], [BATCH], ['jobs']), eventsRule()] },
  { name: 'root-ca-cert-publisher', rules: [rule(['create', 'update'], [CORE], ['configmaps']), eventsRule()] },
];

const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC, name });
const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC, name });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

// upstream's system:node role holds NodeRules (bound to nobody: the Node authorizer applies them to kubelets)
BOOTSTRAP_CLUSTER_ROLES.push({ name: 'system:node', rules: NODE_RULES });
for (const r of CONTROLLER_ROLES) BOOTSTRAP_CLUSTER_ROLES.push({ name: CONTROLLER_ROLE_PREFIX + r.name, rules: r.rules });

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: { name: string; role: string; subjects: Subject[] }[] = [
  { name: 'cluster-admin', role: 'cluster-admin', subjects: [group(SYSTEM_MASTERS)] },
  { name: 'system:discovery', role: 'system:discovery', subjects: [group(ALL_AUTHENTICATED)] },
  { name: 'system:basic-user', role: 'system:basic-user', subjects: [group(ALL_AUTHENTICATED)] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', subjects: [group(ALL_AUTHENTICATED), group(ALL_UNAUTHENTICATED)] },
  { name: 'system:monitoring', role: 'system:monitoring', subjects: [group('system:monitoring')] },
  { name: 'system:kube-controller-manager', role: 'system:kube-controller-manager', subjects: [user('system:kube-controller-manager')] },
  { name: 'system:kube-scheduler', role: 'system:kube-scheduler', subjects: [user('system:kube-scheduler')] },
  // upstream's system:node binding has no subjects since 1.8: nodes are authorized by the Node authorizer
  { name: 'system:node', role: 'system:node', subjects: [] },
  ...CONTROLLER_ROLES.map((r) => ({ name: CONTROLLER_ROLE_PREFIX + r.name, role: CONTROLLER_ROLE_PREFIX + r.name, subjects: [serviceAccount('kube-system', r.name)] })),
];

const bootstrapMeta = (name: string, labels: Record<string, string> = {}) => ({
  name,
  labels: { [BOOTSTRAP_LABEL]: 'rbac-defaults', ...labels },
  annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
});

export function bootstrapClusterRole(r: BootstrapRole): KubeObject {
  const o: Record<string, unknown> = { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: bootstrapMeta(r.name, r.labels), rules: r.rules.map((x) => structuredClone(x)) };
  if (r.aggregateFrom) o.aggregationRule = { clusterRoleSelectors: r.aggregateFrom.map((l) => ({ matchLabels: { [l]: 'true' } })) };
  return o as KubeObject;
}

export function bootstrapClusterRoleBinding(b: (typeof BOOTSTRAP_CLUSTER_ROLE_BINDINGS)[number]): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: bootstrapMeta(b.name),
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: b.role },
    subjects: b.subjects.map((s) => ({ ...s })),
  } as KubeObject;
}

const autoupdate = (o: KubeObject) => o.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] !== 'false';

/** Adds what is missing from `meta` labels/annotations; true when something changed. */
function unionMeta(o: KubeObject, want: KubeObject): boolean {
  let changed = false;
  const meta = (o.metadata ??= {});
  for (const f of ['labels', 'annotations'] as const) {
    for (const [k, v] of Object.entries(want.metadata?.[f] ?? {})) {
      const m = (meta[f] ??= {});
      if (!(k in m)) {
        m[k] = v;
        changed = true;
      }
    }
  }
  return changed;
}

export interface BootstrapStores {
  clusterRoles: ResourceStore;
  clusterRoleBindings: ResourceStore;
  admission: AdmissionChain;
}

/** Creates missing bootstrap roles and bindings and puts back missing permissions/subjects (upstream reconciliation). */
export async function reconcileBootstrapPolicy(s: BootstrapStores, log: (l: string) => void): Promise<void> {
  // upstream's RBAC post-start hook reconciles through the loopback client (system:apiserver)
  const ctx = () => componentContext(APISERVER_USER, APISERVER_MANAGER);
  const ensure = async (rs: ResourceStore, want: KubeObject, repair: (cur: KubeObject) => boolean) => {
    const name = want.metadata!.name!;
    const cur = await rs.read(undefined, name);
    if (!cur) {
      try {
        await createObject({ rs, admission: s.admission }, ctx(), structuredClone(want), undefined);
      } catch (e) {
        if ((e as { code?: number }).code !== 409) throw e;
      }
      return;
    }
    if (!autoupdate(cur.obj)) return;
    await mutateObject({ rs, admission: s.admission }, ctx(), undefined, name, undefined, (o) => unionMeta(o, want) || repair(o));
  };
  for (const r of BOOTSTRAP_CLUSTER_ROLES) {
    const want = bootstrapClusterRole(r);
    await ensure(s.clusterRoles, want, (o) => {
      const rec = o as Record<string, unknown>;
      let changed = false;
      if (r.aggregateFrom) {
        // aggregated roles: the controller owns the rules; keep the selectors
        if (!rec.aggregationRule) (rec.aggregationRule = want.aggregationRule), (changed = true);
        return changed;
      }
      const have = rulesOf(o);
      const missing = r.rules.filter((x) => !covers(have, x));
      if (missing.length) rec.rules = [...(Array.isArray(rec.rules) ? rec.rules : []), ...missing.map((x) => structuredClone(x))];
      return missing.length > 0;
    });
  }
  for (const b of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) {
    const want = bootstrapClusterRoleBinding(b);
    await ensure(s.clusterRoleBindings, want, (o) => {
      const have = subjectsOf(o);
      const missing = b.subjects.filter((x) => !have.some((h) => h.kind === x.kind && h.name === x.name));
      if (missing.length) (o as Record<string, unknown>).subjects = [...have, ...missing.map((x) => ({ ...x }))];
      return missing.length > 0;
    });
  }
  log(`rbac: bootstrap policy reconciled (${BOOTSTRAP_CLUSTER_ROLES.length} cluster roles, ${BOOTSTRAP_CLUSTER_ROLE_BINDINGS.length} bindings)`);
}
