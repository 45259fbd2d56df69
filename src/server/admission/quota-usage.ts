// What objects use against a ResourceQuota (pkg/quota/v1/evaluator/core upstream): object counts
// (`pods`, `services`, `count/<resource>[.<group>]`, ...), pod compute resources and PVC storage, and the
// pod scopes (Terminating, NotTerminating, BestEffort, NotBestEffort). Amounts are nano-units (bigint).
import { arr, obj, str, type Obj } from '../registry/builtin-helpers.js';
import { sharedOrDecodedPage } from '../registry/resource-store.js';
import { typePrefix } from '../registry/keys.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { quantityNanos } from '../registry/schema/quantity.js';
import type { RevisionedStore } from '../storage/types.js';

export type Usage = Map<string, bigint>;

const ONE = 10n ** 9n;

/** The legacy object-count names upstream keeps beside `count/<resource>`. */
const LEGACY_COUNT: Record<string, string> = {
  pods: 'pods',
  services: 'services',
  secrets: 'secrets',
  configmaps: 'configmaps',
  persistentvolumeclaims: 'persistentvolumeclaims',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
};

const countName = (group: string, plural: string) => `count/${plural}${group ? '.' + group : ''}`;

const add = (u: Usage, k: string, n: bigint) => u.set(k, (u.get(k) ?? 0n) + n);

/** A pod counts until it reaches a terminal phase (upstream QuotaV1Pod). */
export function podCounts(pod: KubeObject): boolean {
  const phase = str(obj(pod.status).phase);
  return phase !== 'Succeeded' && phase !== 'Failed';
}

/** Pod requests / limits: sum over app containers, at least the largest init container, plus overhead. */
function podResources(spec: Obj, field: 'requests' | 'limits'): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const c of arr(spec.containers).map(obj))
    for (const [k, v] of Object.entries(obj(obj(c.resources)[field]))) out.set(k, (out.get(k) ?? 0n) + (quantityNanos(v) ?? 0n));
  for (const c of arr(spec.initContainers).map(obj))
    for (const [k, v] of Object.entries(obj(obj(c.resources)[field]))) {
      const n = quantityNanos(v) ?? 0n;
      if (n > (out.get(k) ?? 0n)) out.set(k, n);
    }
  for (const [k, v] of Object.entries(obj(spec.overhead))) if (out.has(k)) out.set(k, out.get(k)! + (quantityNanos(v) ?? 0n));
  return out;
}

/** What one object of this type uses (empty for a pod in a terminal phase). */
export function usageOf(type: Pick<ResourceType, 'group' | 'plural'>, o: KubeObject): Usage {
  const u: Usage = new Map();
  if (type.group === '' && type.plural === 'pods' && !podCounts(o)) return u;
  u.set(countName(type.group, type.plural), ONE);
  if (type.group !== '') return u;
  const legacy = LEGACY_COUNT[type.plural];
  if (legacy) u.set(legacy, ONE);
  const spec = obj(o.spec);
  if (type.plural === 'pods') {
    for (const [k, v] of podResources(spec, 'requests')) {
      add(u, `requests.${k}`, v);
      if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage') add(u, k, v);
    }
    for (const [k, v] of podResources(spec, 'limits')) add(u, `limits.${k}`, v);
  } else if (type.plural === 'services') {
    const t = str(spec.type);
    if (t === 'LoadBalancer') u.set('services.loadbalancers', ONE);
    if (t === 'NodePort' || t === 'LoadBalancer') u.set('services.nodeports', BigInt(arr(spec.ports).length) * ONE);
  } else if (type.plural === 'persistentvolumeclaims') {
    const storage = quantityNanos(obj(obj(spec.resources).requests).storage) ?? 0n;
    u.set('requests.storage', storage);
    const sc = str(spec.storageClassName);
    if (sc) {
      u.set(`${sc}.storageclass.storage.k8s.io/requests.storage`, storage);
      u.set(`${sc}.storageclass.storage.k8s.io/persistentvolumeclaims`, ONE);
    }
  }
  return u;
}

/** Whether a pod falls in a quota scope; non-pod objects only match quotas without scopes. */
function inScope(scope: string, pod: KubeObject): boolean {
  const spec = obj(pod.spec);
  const bestEffort = [...arr(spec.initContainers), ...arr(spec.containers)]
    .map(obj)
    .every((c) => !Object.keys(obj(obj(c.resources).requests)).length && !Object.keys(obj(obj(c.resources).limits)).length);
  switch (scope) {
    case 'Terminating':
      return spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null;
    case 'NotTerminating':
      return spec.activeDeadlineSeconds === undefined || spec.activeDeadlineSeconds === null;
    case 'BestEffort':
      return bestEffort;
    case 'NotBestEffort':
      return !bestEffort;
    default:
      return false; // CrossNamespacePodAffinity is not implemented
  }
}

interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values: string[];
}

/** spec.scopes (each an Exists requirement, as upstream's getScopeSelectorsFromQuota) and spec.scopeSelector. */
export function quotaScopes(quota: KubeObject): ScopeRequirement[] {
  const spec = obj(quota.spec);
  return [
    ...arr(spec.scopes).map((s) => ({ scopeName: String(s), operator: 'Exists', values: [] })),
    ...arr(obj(spec.scopeSelector).matchExpressions).map((e) => ({ scopeName: str(obj(e).scopeName), operator: str(obj(e).operator), values: arr(obj(e).values).map(String) })),
  ];
}

/** upstream podMatchesScopeFunc: PriorityClass compares the pod's spec.priorityClassName with the requirement. */
function matchesScope(r: ScopeRequirement, pod: KubeObject): boolean {
  if (r.scopeName !== 'PriorityClass') return inScope(r.scopeName, pod);
  const name = str(obj(pod.spec).priorityClassName);
  switch (r.operator) {
    case 'In':
      return r.values.includes(name);
    case 'NotIn':
      return !r.values.includes(name);
    case 'Exists':
      return name !== '';
    case 'DoesNotExist':
      return name === '';
    default:
      return false;
  }
}

/** Whether a quota tracks this object: every scope must match, and scopes only match pods. */
export function quotaMatches(quota: KubeObject, type: Pick<ResourceType, 'group' | 'plural'>, o: KubeObject): boolean {
  const scopes = quotaScopes(quota);
  if (!scopes.length) return true;
  if (type.group !== '' || type.plural !== 'pods') return false;
  return scopes.every((s) => matchesScope(s, o));
}

/** The type (group, plural) a quota resource name counts; undefined for compute / storage names, which pods and PVCs carry. */
function countedType(name: string): { group: string; plural: string } | undefined {
  if (LEGACY_COUNT[name]) return { group: '', plural: name };
  if (name === 'services.loadbalancers' || name === 'services.nodeports') return { group: '', plural: 'services' };
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', plural: rest } : { group: rest.slice(dot + 1), plural: rest.slice(0, dot) };
}

const POD = { group: '', plural: 'pods' };
const PVC = { group: '', plural: 'persistentvolumeclaims' };

/** The types whose objects make up a quota's usage of these resource names. */
function typesFor(names: string[]): { group: string; plural: string }[] {
  const out = new Map<string, { group: string; plural: string }>();
  for (const n of names) {
    const t = countedType(n) ?? (n === 'requests.storage' || n.includes('.storageclass.storage.k8s.io/') ? PVC : POD);
    out.set(`${t.group}/${t.plural}`, t);
  }
  return [...out.values()];
}

/** Current usage of a quota's hard resources in its namespace, read from storage. */
export async function namespaceUsage(
  store: RevisionedStore,
  quota: KubeObject,
  names: string[],
  storageGroupOf: (group: string, plural: string) => string | undefined = () => undefined,
): Promise<Usage> {
  const ns = quota.metadata?.namespace ?? '';
  const used: Usage = new Map(names.map((n) => [n, 0n]));
  for (const t of typesFor(names)) {
    const prefix = typePrefix({ ...t, storageGroup: storageGroupOf(t.group, t.plural) });
    const page = await store.range({ prefix: `${prefix}${ns}/` });
    // the watch cache's copies of the versions read (every create in the namespace counts them all again)
    for (const o of await sharedOrDecodedPage(store, prefix, page.kvs)) {
      if (!quotaMatches(quota, t, o)) continue;
      for (const [k, v] of usageOf(t, o)) if (used.has(k)) used.set(k, used.get(k)! + v);
    }
  }
  return used;
}
