// Which requests a webhook or policy sees: rules (operations, groups, versions, resources with sub-resources,
// scope), namespaceSelector and objectSelector, as upstream's admission/plugin/webhook/predicates.
import { errors } from '../../api/status.js';
import { arr, isEmptySelector, obj, selectorMatches, str } from '../registry/builtin-helpers.js';
import { objectKey } from '../registry/keys.js';
import { canonicalGroup } from '../registry/names.js';
import { decodeFromStorage } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';
import type { AdmissionAttributes } from '../http/admission.js';

const NAMESPACES = { group: '', plural: 'namespaces', scope: 'Cluster' as const };

/** One rule (RuleWithOperations / NamedRuleWithOperations) against the request. */
export function ruleMatches(rule: unknown, a: AdmissionAttributes, exact: boolean): boolean {
  const r = obj(rule);
  const ops = arr(r.operations).map(str);
  if (!ops.includes('*') && !ops.includes(a.operation)) return false;
  const groups = arr(r.apiGroups).map(str);
  if (!groups.includes('*') && !groups.some((g) => canonicalGroup(g) === a.type.group)) return false;
  // Equivalent: the same resource in another version matches too; each resource is served in one version here.
  const versions = arr(r.apiVersions).map(str);
  if (exact && !versions.includes('*') && !versions.includes(a.type.version)) return false;
  const resources = arr(r.resources).map(str);
  if (!resources.some((res) => resourceMatches(res, a.type.plural, a.subresource))) return false;
  const names = arr(r.resourceNames).map(str);
  if (names.length > 0 && !names.includes(a.name)) return false;
  return scopeMatches(str(r.scope) || '*', a);
}

/** `pods`, `pods/status`, `pods/*`, `*`, `*\/status`, `*\/*`: `*` alone matches main resources only. */
function resourceMatches(entry: string, resource: string, sub: string): boolean {
  const [res, s = ''] = entry.split('/');
  if (res !== '*' && res !== resource) return false;
  return s === '*' || s === sub;
}

function scopeMatches(scope: string, a: AdmissionAttributes): boolean {
  if (scope === '*') return true;
  // upstream: namespaces are cluster-scoped for rule matching
  const namespaced = a.type.scope === 'Namespaced';
  return scope === 'Namespaced' ? namespaced : !namespaced;
}

export function labelsOf(o: KubeObject | undefined): Record<string, unknown> {
  return (o?.metadata?.labels as Record<string, unknown> | undefined) ?? {};
}

/** objectSelector: matches when the new or the old object's labels match (upstream matchObject). */
export function objectSelectorMatches(sel: unknown, a: AdmissionAttributes): boolean {
  if (sel === undefined || isEmptySelector(sel)) return true;
  return [a.object, a.oldObject].some((o) => o !== undefined && selectorMatches(sel, labelsOf(o)));
}

/** The namespace object of a namespaced request (or the namespace itself), undefined for cluster-scoped requests. */
export async function namespaceObjectOf(store: RevisionedStore, a: AdmissionAttributes): Promise<KubeObject | undefined> {
  if (a.type.group === '' && a.type.plural === 'namespaces') return a.object ?? a.oldObject;
  if (a.type.scope !== 'Namespaced' || !a.namespace) return undefined;
  const got = await store.get(objectKey(NAMESPACES, undefined, a.namespace));
  return got.kv ? decodeFromStorage(got.kv) : undefined;
}

/** namespaceSelector: cluster-scoped requests (other than namespaces) always match. */
export async function namespaceSelectorMatches(sel: unknown, a: AdmissionAttributes, ns: () => Promise<KubeObject | undefined>): Promise<boolean> {
  if (sel === undefined || isEmptySelector(sel)) return true;
  if (a.type.scope !== 'Namespaced' && !(a.type.group === '' && a.type.plural === 'namespaces')) return true;
  const nsObj = await ns();
  if (!nsObj) throw errors.notFound({ group: '', resource: 'namespaces', name: a.namespace });
  return selectorMatches(sel, labelsOf(nsObj));
}

/** MatchResources of a policy or binding: resourceRules minus excludeResourceRules, then the selectors. */
export async function matchResources(m: unknown, a: AdmissionAttributes, ns: () => Promise<KubeObject | undefined>): Promise<boolean> {
  const mr = obj(m);
  const exact = str(mr.matchPolicy) === 'Exact';
  if (mr.resourceRules !== undefined && !arr(mr.resourceRules).some((r) => ruleMatches(r, a, exact))) return false;
  if (arr(mr.excludeResourceRules).some((r) => ruleMatches(r, a, exact))) return false;
  if (!objectSelectorMatches(mr.objectSelector, a)) return false;
  return namespaceSelectorMatches(mr.namespaceSelector, a, ns);
}
