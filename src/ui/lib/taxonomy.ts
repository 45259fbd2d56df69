// Kinds sorted by what a person came to do (as Headlamp and Lens group them), not by API group: the
// navigation's sections, the overview's counts and search's ranking all read this one table. Groups are
// matched in either spelling (apps, networking.k8s.io / networking.service.io); a group not built in is a
// custom resource group (CRDs and aggregated APIs), listed under its own name.
import type { ApiResource } from '../../client/index.js';

export type TaskId = 'workloads' | 'network' | 'config' | 'access' | 'cluster' | 'custom';

export const TASKS: { id: TaskId; label: string }[] = [
  { id: 'workloads', label: 'Workloads' },
  { id: 'network', label: 'Network' },
  { id: 'config', label: 'Config and storage' },
  { id: 'access', label: 'Access control' },
  { id: 'cluster', label: 'Cluster' },
  { id: 'custom', label: 'Custom resources' },
];

/** The group's name with the vendor part neutral, so either spelling compares equal. */
export function neutralGroup(g: string): string {
  return g.endsWith('.k8s.io') ? `${g.slice(0, -'.k8s.io'.length)}.service.io` : g;
}

// neutral group -> resource -> [task, order within the task]; '*' places every other resource of the group
const PLACES: Record<string, Record<string, [TaskId, number]>> = {
  '': {
    pods: ['workloads', 10],
    replicationcontrollers: ['workloads', 70],
    services: ['network', 10],
    endpoints: ['network', 40],
    configmaps: ['config', 10],
    secrets: ['config', 20],
    persistentvolumeclaims: ['config', 30],
    persistentvolumes: ['config', 40],
    serviceaccounts: ['access', 10],
    nodes: ['cluster', 10],
    namespaces: ['cluster', 20],
    events: ['cluster', 30],
    resourcequotas: ['config', 60],
    limitranges: ['config', 70],
    '*': ['cluster', 90],
  },
  apps: { deployments: ['workloads', 20], statefulsets: ['workloads', 30], daemonsets: ['workloads', 40], replicasets: ['workloads', 50], '*': ['workloads', 90] },
  batch: { jobs: ['workloads', 60], cronjobs: ['workloads', 65] },
  autoscaling: { '*': ['workloads', 80] },
  policy: { '*': ['workloads', 85] },
  'networking.service.io': { ingresses: ['network', 20], ingressclasses: ['network', 30], networkpolicies: ['network', 50], '*': ['network', 60] },
  'discovery.service.io': { '*': ['network', 35] },
  'storage.service.io': { storageclasses: ['config', 50], '*': ['config', 80] },
  'resource.service.io': { '*': ['config', 90] },
  'rbac.authorization.service.io': { roles: ['access', 20], rolebindings: ['access', 30], clusterroles: ['access', 40], clusterrolebindings: ['access', 50] },
  'certificates.service.io': { '*': ['access', 60] },
  'authentication.service.io': { '*': ['access', 70] },
  'authorization.service.io': { '*': ['access', 80] },
  'admissionregistration.service.io': { '*': ['access', 90] },
  'events.service.io': { '*': ['cluster', 30] },
  'scheduling.service.io': { '*': ['cluster', 40] },
  'node.service.io': { '*': ['cluster', 50] },
  'coordination.service.io': { '*': ['cluster', 60] },
  'apiextensions.service.io': { '*': ['cluster', 70] },
  'apiregistration.service.io': { '*': ['cluster', 75] },
  'flowcontrol.apiserver.service.io': { '*': ['cluster', 80] },
  'internal.apiserver.service.io': { '*': ['cluster', 85] },
  'storagemigration.service.io': { '*': ['cluster', 86] },
  'metrics.service.io': { '*': ['cluster', 95] },
};

export interface Placement {
  task: TaskId;
  order: number;
}

/** Where a kind belongs: a built-in group's task, or 'custom' for any other group. */
export function placeOf(r: Pick<ApiResource, 'group' | 'resource'>): Placement {
  const byGroup = PLACES[neutralGroup(r.group)];
  const p = byGroup?.[r.resource] ?? byGroup?.['*'];
  return p ? { task: p[0], order: p[1] } : { task: 'custom', order: 100 };
}

export interface TaskSection {
  id: TaskId;
  label: string;
  /** For built-in tasks: the kinds in task order. Custom resources: grouped by their API group. */
  groups: { group: string; resources: ApiResource[] }[];
}

/**
 * The navigation's sections: every listable kind once. A kind served by two groups (Event in core and
 * events.k8s.io) is listed once, the first placed (core's); custom resources grouped by group, by name.
 */
export function taskSections(resources: readonly ApiResource[]): TaskSection[] {
  const placed = resources.map((r) => ({ r, p: placeOf(r) }));
  const out: TaskSection[] = [];
  for (const t of TASKS) {
    const mine = placed.filter((x) => x.p.task === t.id);
    if (t.id === 'custom') {
      const by = new Map<string, ApiResource[]>();
      for (const { r } of mine) by.set(r.group, [...(by.get(r.group) ?? []), r]);
      const groups = [...by.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([group, rs]) => ({ group, resources: rs.sort((a, b) => a.kind.localeCompare(b.kind)) }));
      if (groups.length) out.push({ ...t, groups });
      continue;
    }
    const seen = new Set<string>();
    const rs = mine
      .sort((a, b) => a.p.order - b.p.order || (a.r.group === '' ? -1 : b.r.group === '' ? 1 : 0) || a.r.kind.localeCompare(b.r.kind))
      .filter(({ r }) => (seen.has(r.kind) ? false : (seen.add(r.kind), true)))
      .map((x) => x.r);
    if (rs.length) out.push({ ...t, groups: [{ group: '', resources: rs }] });
  }
  return out;
}

/**
 * Search and overview weight of a kind (higher first): workloads and services before configuration,
 * cluster objects after, Events last of all.
 */
// the objects people name things after come first: controllers a team owns, then their Services and
// Ingresses, then the Pods and ReplicaSets those create (whose names start with the controller's)
const FIRST: Record<string, number> = {
  'apps/deployments': 1000,
  'apps/statefulsets': 990,
  'apps/daemonsets': 980,
  'batch/cronjobs': 970,
  'batch/jobs': 960,
  '/services': 950,
  'networking.service.io/ingresses': 940,
  '/pods': 930,
  'apps/replicasets': 920,
};

export function kindWeight(r: Pick<ApiResource, 'group' | 'resource'>): number {
  if (r.resource === 'events') return 0;
  const first = FIRST[`${neutralGroup(r.group)}/${r.resource}`];
  if (first) return first;
  const p = placeOf(r);
  const base: Record<TaskId, number> = { workloads: 600, network: 500, config: 400, custom: 300, access: 200, cluster: 100 };
  return base[p.task] - p.order;
}
