// What the signed-in user may do, for hiding or disabling actions: one SelfSubjectRulesReview per
// namespace (cached), matched like RBAC matches rules; when the server says the rules are incomplete
// (a webhook decides too) the verbs of the type in view are asked one by one with
// SelfSubjectAccessReviews (cached per type and namespace). Unknown answers never hide anything: the
// server still decides, and its 403 is shown.
import { useQuery } from '@tanstack/react-query';
import { canonicalGroup, upstreamGroup } from '../../server/registry/names.js';
import { api } from '../api.js';
import type { ApiResource } from '../../client/index.js';
import { useDiscovery } from './discovery.js';
import { apiVersionFor, groupVersionPath, servedResource } from './groups.js';
import { keys } from './keys.js';

export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface RulesReviewStatus {
  resourceRules?: ResourceRule[];
  nonResourceRules?: { verbs: string[]; nonResourceURLs?: string[] }[];
  incomplete?: boolean;
  evaluationError?: string;
}

const STALE_MS = 30_000;
/** Verbs whose buttons the explorer shows. */
export const ACTION_VERBS = ['create', 'update', 'patch', 'delete'] as const;

/** The rule allows verb on group/resource[/subresource] [name] (upstream RBAC RuleAllows). */
export function ruleAllows(r: ResourceRule, verb: string, group: string, resource: string, subresource = '', name = ''): boolean {
  const has = (list: string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));
  if (!has(r.verbs, verb)) return false;
  const g = canonicalGroup(group);
  if (!(r.apiGroups ?? []).some((x) => x === '*' || canonicalGroup(x) === g)) return false;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  if (!(r.resources ?? []).some((x) => x === '*' || x === combined || (subresource !== '' && x === `*/${subresource}`))) return false;
  return !r.resourceNames?.length || (name !== '' && r.resourceNames.includes(name));
}

/** The review types as this server serves them (authorization.k8s.io on a real cluster). */
type ReviewType = Pick<ApiResource, 'group' | 'version'>;

export async function rulesReview(t: ReviewType, namespace: string): Promise<RulesReviewStatus> {
  const r = await api.request<{ status?: RulesReviewStatus }>('POST', `${groupVersionPath(t)}/selfsubjectrulesreviews`, {
    body: { apiVersion: apiVersionFor(t), kind: 'SelfSubjectRulesReview', spec: { namespace } },
  });
  return r.body.status ?? {};
}

export async function accessReview(t: ReviewType, verb: string, group: string, resource: string, namespace: string, name = '', subresource = ''): Promise<boolean> {
  const r = await api.request<{ status?: { allowed?: boolean } }>('POST', `${groupVersionPath(t)}/selfsubjectaccessreviews`, {
    body: { apiVersion: apiVersionFor(t), kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb, group: upstreamGroup(group), resource, subresource, namespace, name } } },
  });
  return r.body.status?.allowed === true;
}

export interface Access {
  /** true / false, or undefined while unknown (loading, or the server cannot tell). */
  can(verb: string, opts?: { name?: string; subresource?: string }): boolean | undefined;
  /** Tooltip text for a disabled action. */
  missing(verb: string, opts?: { name?: string; subresource?: string }): string;
}

/** Access of the current user to one type in one namespace ('' = cluster scope / all namespaces). */
export function useAccess(type: { group: string; resource: string } | undefined, namespace: string | undefined): Access {
  const ns = namespace ?? '';
  const discovery = useDiscovery().data;
  const rulesType = servedResource(discovery, 'authorization.k8s.io', 'selfsubjectrulesreviews');
  const accessType = servedResource(discovery, 'authorization.k8s.io', 'selfsubjectaccessreviews');
  const rules = useQuery({ queryKey: keys.accessRules(ns), queryFn: () => rulesReview(rulesType!, ns), staleTime: STALE_MS, retry: false, enabled: !!type && !!rulesType });
  const incomplete = rules.data?.incomplete === true;
  const verbs = useQuery({
    queryKey: keys.accessVerbs(type?.group, type?.resource, ns),
    queryFn: async () => Object.fromEntries(await Promise.all(ACTION_VERBS.map(async (v) => [v, await accessReview(accessType!, v, type!.group, type!.resource, ns)] as const))),
    staleTime: STALE_MS,
    retry: false,
    enabled: !!type && incomplete && !!accessType,
  });
  const where = ns ? `in namespace "${ns}"` : 'at the cluster scope';
  return {
    can(verb, opts = {}) {
      if (!type || !rules.data) return undefined;
      const allowed = (rules.data.resourceRules ?? []).some((r) => ruleAllows(r, verb, type.group, type.resource, opts.subresource, opts.name));
      if (allowed) return true;
      if (!incomplete) return false;
      const asked = verbs.data?.[verb];
      return asked === undefined ? undefined : asked;
    },
    missing(verb, opts = {}) {
      if (!type) return '';
      const res = opts.subresource ? `${type.resource}/${opts.subresource}` : type.resource;
      const group = type.group ? ` in API group "${type.group}"` : '';
      return `You cannot do this: it needs the "${verb}" permission on ${res}${opts.name ? ` "${opts.name}"` : ''}${group} ${where}`;
    },
  };
}
