// ResourceQuota admission (apiserver/pkg/admission/plugin/resourcequota upstream): a create or update that
// would take a namespace's usage past a quota's hard limit is Forbidden with upstream's
// "exceeded quota: <name>, requested: ..., used: ..., limited: ..." message, and pods must state the
// requests / limits a quota constrains. Usage is read from storage at admission time (upstream reads the
// quota's status.used, which the resourcequota-controller keeps; reading live needs no "status unknown" wait).
import { errors } from '../../api/status.js';
import { arr, obj, str } from '../registry/builtin-helpers.js';
import { sharedOrDecodedPage } from '../registry/resource-store.js';
import { collectionPrefix, typePrefix } from '../registry/keys.js';
import type { KubeObject } from '../registry/types.js';
import type { TypeRegistry } from '../registry/registry.js';
import { formatNanos, isBinaryQuantity, quantityNanos } from '../registry/schema/quantity.js';
import type { RevisionedStore } from '../storage/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../http/admission.js';
import { configCache } from './config-cache.js';
import { namespaceUsage, quotaMatches, usageOf, type Usage } from './quota-usage.js';

const QUOTAS = { group: '', plural: 'resourcequotas', scope: 'Namespaced' as const };

/** Pod resources a quota makes every container state (the pod evaluator's Constraints). */
const CONSTRAINED = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/** The storage group of a type when it differs from its API group. */
export function storageGroupLookup(types: TypeRegistry | undefined) {
  return (group: string, plural: string) => types?.all().find((t) => t.group === group && t.plural === plural)?.storageGroup;
}

/** prettyPrint upstream: sorted `name=quantity` pairs joined by commas. */
function prettyPrint(u: Usage, binary: (k: string) => boolean): string {
  return [...u.keys()]
    .sort()
    .map((k) => `${k}=${formatNanos(u.get(k)!, binary(k))}`)
    .join(',');
}

function missingConstraints(pod: KubeObject, required: string[]): string {
  const spec = obj(pod.spec);
  const missing = new Map<string, string[]>();
  for (const c of [...arr(spec.initContainers), ...arr(spec.containers)].map(obj)) {
    const req = obj(obj(c.resources).requests);
    const lim = obj(obj(c.resources).limits);
    const have = new Set<string>();
    for (const k of Object.keys(req)) have.add(`requests.${k}`).add(k);
    for (const k of Object.keys(lim)) have.add(`limits.${k}`);
    for (const r of required) if (!have.has(r)) missing.set(r, [...(missing.get(r) ?? []), str(c.name)]);
  }
  return [...missing.keys()]
    .sort()
    .map((r) => `${r} for: ${missing.get(r)!.join(',')}`)
    .join('; ');
}

export async function quotasIn(store: RevisionedStore, namespace: string): Promise<KubeObject[]> {
  // most namespaces have no quota: the watch-kept cache of quota keys answers that without a store read;
  // a namespace with quotas reads them from storage, current to this write
  if (!(await configCache(store, collectionPrefix(QUOTAS)).hasUnder(collectionPrefix(QUOTAS, namespace)))) return [];
  const page = await store.range({ prefix: collectionPrefix(QUOTAS, namespace) });
  return (await sharedOrDecodedPage(store, typePrefix(QUOTAS), page.kvs)).sort((x, y) => (x.metadata?.name ?? '').localeCompare(y.metadata?.name ?? ''));
}

export function resourceQuota(deps: { store: RevisionedStore; types?: TypeRegistry }): AdmissionPlugin {
  const storageGroupOf = storageGroupLookup(deps.types);
  const check = async (a: AdmissionAttributes) => {
    if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || a.subresource !== '' || !a.object || !a.namespace || a.type.scope !== 'Namespaced') return;
    const quotas = await quotasIn(deps.store, a.namespace);
    if (!quotas.length) return;
    const target = { group: '', resource: a.type.plural, name: a.name || a.object.metadata?.name };
    if (a.type.group) target.group = a.type.group;
    const isPod = a.type.group === '' && a.type.plural === 'pods';
    for (const q of quotas) {
      if (!quotaMatches(q, a.type, a.object)) continue;
      const hard = obj(obj(q.spec).hard);
      const names = Object.keys(hard);
      if (isPod && a.operation === 'CREATE') {
        const required = names.filter((n) => CONSTRAINED.includes(n));
        const missing = required.length ? missingConstraints(a.object, required) : '';
        if (missing) throw errors.forbidden(target, `failed quota: ${q.metadata?.name}: must specify ${missing}`);
      }
      // the change this write makes to each tracked resource; only increases are checked (upstream Mask + RemoveZeros)
      const delta = usageOf(a.type, a.object);
      if (a.operation === 'UPDATE' && a.oldObject && quotaMatches(q, a.type, a.oldObject))
        for (const [k, v] of usageOf(a.type, a.oldObject)) delta.set(k, (delta.get(k) ?? 0n) - v);
      const requested: Usage = new Map([...delta].filter(([k, v]) => k in hard && v > 0n));
      if (!requested.size) continue;
      const used = await namespaceUsage(deps.store, q, [...requested.keys()], storageGroupOf);
      const exceeded = [...requested.keys()].filter((k) => used.get(k)! + requested.get(k)! > (quantityNanos(hard[k]) ?? 0n));
      if (!exceeded.length) continue;
      const mask = (u: Usage) => new Map(exceeded.map((k) => [k, u.get(k) ?? 0n]));
      const limited: Usage = new Map(exceeded.map((k) => [k, quantityNanos(hard[k]) ?? 0n]));
      const binary = (k: string) => isBinaryQuantity(hard[k]);
      throw errors.forbidden(
        target,
        `exceeded quota: ${q.metadata?.name}, requested: ${prettyPrint(mask(requested), binary)}, used: ${prettyPrint(mask(used), binary)}, limited: ${prettyPrint(limited, binary)}`,
      );
    }
  };
  return { name: 'ResourceQuota', validate: check };
}
