// The APIService objects of the group-versions this server serves itself, created at each start as upstream's
// autoregister controller does (kube-apiserver pkg/controlplane/apiserver/aggregator.go): named `version.group`
// (`v1.` for the core group), without spec.service (Local), Available with reason Local.
import type { ApiDeps } from '../http/api-handler.js';
import { canonicalGroup, groupSpellings, upstreamGroup } from '../registry/names.js';
import type { KubeObject } from '../registry/types.js';
import { typeForResource } from './controller-support.js';
import { ensureCreated, ensureUpdated } from './internal-writer.js';

const MANAGER = 'kube-apiserver';

/** Upstream apiVersionPriorities (group priority minimum, version priority) by upstream group/version. */
const PRIORITIES: Record<string, [number, number]> = {
  'v1': [18000, 1],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
  // metrics-server's APIService (its manifest's priorities)
  'metrics.k8s.io/v1beta1': [100, 100],
};

/** Built-in group-versions other than these are not listed (upstream skips them too). */
const NOT_LISTED = new Set(['meta.service.io', 'apidiscovery.service.io']);

const AVAILABLE = { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' };

/** One APIService per served built-in group-version, in each spelling the server answers. */
export function localAPIServices(groups: Map<string, Map<string, { custom: boolean }[]>>): KubeObject[] {
  const out: KubeObject[] = [];
  for (const [group, versions] of groups) {
    if (NOT_LISTED.has(canonicalGroup(group))) continue;
    for (const [version, types] of versions) {
      if (types.every((t) => t.custom)) continue;
      const up = upstreamGroup(group);
      const [gpm, vp] = PRIORITIES[up ? `${up}/${version}` : version] ?? [1000, 15];
      for (const g of groupSpellings(group))
        out.push({
          apiVersion: 'apiregistration.service.io/v1',
          kind: 'APIService',
          metadata: { name: `${version}.${g}`, labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
          spec: { ...(g ? { group: g } : {}), version, groupPriorityMinimum: gpm, versionPriority: vp },
        });
    }
  }
  return out;
}

/** Creates the local APIServices and marks them Available (idempotent). */
export async function registerLocalAPIServices(deps: ApiDeps, signal: AbortSignal): Promise<void> {
  const type = typeForResource(deps.types, canonicalGroup('apiregistration.k8s.io'), 'apiservices');
  if (!type) return;
  for (const svc of localAPIServices(deps.types.groups())) {
    await ensureCreated(deps, type, svc, MANAGER, signal);
    await ensureUpdated(deps, type, undefined, svc.metadata!.name!, MANAGER, (o) => {
      const conds = ((o.status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions ?? []).filter((c) => c.type === 'Available');
      if (conds.length === 1 && conds[0]!.status === 'True' && conds[0]!.reason === 'Local') return false;
      o.status = { conditions: [{ ...AVAILABLE, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] };
      return true;
    }, { subresource: 'status', signal });
  }
}
