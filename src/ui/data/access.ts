// Reads behind the "Access" tab: RBAC roles and bindings, "who can edit this" (SubjectAccessReviews per
// subject named in the bindings), and whether the server authorizes everything (AlwaysAllow). Groups
// come from discovery: a real cluster serves rbac.authorization.k8s.io only.
import { useQuery } from '@tanstack/react-query';
import type { Discovery, KubeObject, ResourceRef } from '../../client/index.js';
import { api } from '../api.js';
import { apiVersionFor, groupVersionPath, servedResource } from './groups.js';
import { keys } from './keys.js';

export interface Rule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}
export interface Binding extends KubeObject {
  roleRef?: { kind: string; name: string };
  subjects?: Subject[];
}

export const EDIT_VERBS = ['update', 'patch', 'delete'];

export const subjectLabel = (s: Subject) => (s.kind === 'ServiceAccount' ? `ServiceAccount ${s.namespace ?? ''}/${s.name}` : `${s.kind} ${s.name}`);

/** The served RBAC group/version path (either spelling), or an error naming what is missing. */
function rbacPath(d: Discovery | undefined): string {
  const r = servedResource(d, 'rbac.authorization.k8s.io', 'clusterrolebindings');
  if (!r) throw new Error('this server does not serve the RBAC API (rbac.authorization.k8s.io)');
  return groupVersionPath(r);
}

function reviewType(d: Discovery | undefined, resource: string) {
  const r = servedResource(d, 'authorization.k8s.io', resource);
  if (!r) throw new Error(`this server does not serve ${resource} (authorization.k8s.io)`);
  return r;
}

async function list<T>(path: string): Promise<T[]> {
  return (await api.request<{ items?: T[] }>('GET', path)).body.items ?? [];
}

/** ClusterRoleBindings plus the RoleBindings of a namespace ('' = none). */
async function bindings(d: Discovery | undefined, namespace: string): Promise<Binding[]> {
  const base = rbacPath(d);
  const [cluster, local] = await Promise.all([list<Binding>(`${base}/clusterrolebindings`), namespace ? list<Binding>(`${base}/namespaces/${encodeURIComponent(namespace)}/rolebindings`) : []]);
  return [...cluster, ...local];
}

/** Bindings that may name a role: a ClusterRole may be bound in any namespace. */
export function useRoleBindings(d: Discovery | undefined, role: KubeObject) {
  const ns = role.metadata?.namespace ?? '';
  const isCluster = role.kind === 'ClusterRole';
  return useQuery({
    queryKey: keys.accessRoleBindings(role.kind, ns, role.metadata?.name),
    enabled: !!d,
    queryFn: async () => (isCluster ? [...(await list<Binding>(`${rbacPath(d)}/clusterrolebindings`)), ...(await list<Binding>(`${rbacPath(d)}/rolebindings`))] : bindings(d, ns)),
    retry: false,
  });
}

/** The Role or ClusterRole a binding refers to. */
export function useBindingRole(d: Discovery | undefined, binding: Binding) {
  const ref = binding.roleRef;
  const ns = binding.metadata?.namespace ?? '';
  return useQuery({
    queryKey: keys.accessBindingRole(ref?.kind, ns, ref?.name),
    queryFn: async () =>
      (await api.request<KubeObject & { rules?: Rule[] }>('GET', ref?.kind === 'Role' ? `${rbacPath(d)}/namespaces/${encodeURIComponent(ns)}/roles/${encodeURIComponent(ref.name)}` : `${rbacPath(d)}/clusterroles/${encodeURIComponent(ref?.name ?? '')}`)).body,
    retry: false,
    enabled: !!ref && !!d,
  });
}

async function subjectAccessReview(d: Discovery | undefined, who: { user?: string; groups?: string[] }, attrs: Record<string, string>): Promise<{ allowed: boolean; reason?: string }> {
  const t = reviewType(d, 'subjectaccessreviews');
  const r = await api.request<{ status?: { allowed?: boolean; reason?: string } }>('POST', `${groupVersionPath(t)}/subjectaccessreviews`, {
    body: { apiVersion: apiVersionFor(t), kind: 'SubjectAccessReview', spec: { ...who, resourceAttributes: attrs } },
  });
  return { allowed: r.body.status?.allowed === true, reason: r.body.status?.reason };
}

/** Users and groups named in the bindings that apply here, each asked about each verb. */
async function whoCanEdit(d: Discovery | undefined, ref: ResourceRef): Promise<{ subject: Subject; verbs: Record<string, boolean> }[]> {
  const subjects = new Map<string, Subject>();
  for (const b of await bindings(d, ref.namespace ?? ''))
    for (const s of b.subjects ?? []) if (s.kind === 'User' || s.kind === 'Group' || s.kind === 'ServiceAccount') subjects.set(subjectLabel(s), s);
  // the review names the object's group as the server serves it to others: the upstream spelling is
  // what RBAC rules and webhooks of a real cluster know
  const group = servedResource(d, ref.group, ref.resource)?.group ?? ref.group;
  const out = [];
  for (const subject of [...subjects.values()].sort((a, b) => subjectLabel(a).localeCompare(subjectLabel(b)))) {
    const who = subject.kind === 'Group' ? { groups: [subject.name] } : { user: subject.kind === 'ServiceAccount' ? `system:serviceaccount:${subject.namespace}:${subject.name}` : subject.name };
    const verbs: Record<string, boolean> = {};
    await Promise.all(
      EDIT_VERBS.map(async (verb) => {
        verbs[verb] = (await subjectAccessReview(d, who, { verb, group, version: ref.version, resource: ref.resource, namespace: ref.namespace ?? '', name: ref.name ?? '' })).allowed;
      }),
    );
    if (EDIT_VERBS.some((v) => verbs[v])) out.push({ subject, verbs });
  }
  return out;
}

export function useWhoCanEdit(d: Discovery | undefined, ref: ResourceRef) {
  return useQuery({ queryKey: keys.accessWho(ref.group, ref.resource, ref.namespace ?? '', ref.name ?? ''), queryFn: () => whoCanEdit(d, ref), retry: false, staleTime: 30_000, enabled: !!d });
}

/**
 * Whether the server allows everything to everyone (kube-apiserver `--authorization-mode=AlwaysAllow`, or
 * rules that amount to it): a SubjectAccessReview for an unauthenticated caller asking a verb on a
 * resource that exist nowhere. No real authorizer grants that unless it grants everything. Unknown
 * (undefined) when we may not ask.
 */
export const PROBE = { verb: 'periscope-probe', group: 'probe.periscope.invalid', resource: 'nothings' };

export async function allowsEverything(d: Discovery | undefined): Promise<boolean> {
  const r = await subjectAccessReview(d, { user: 'system:anonymous', groups: ['system:unauthenticated'] }, { verb: PROBE.verb, group: PROBE.group, version: 'v1', resource: PROBE.resource, namespace: '', name: '' });
  return r.allowed;
}

export function useAllowsEverything(d: Discovery | undefined) {
  return useQuery({ queryKey: keys.authorizationMode(), queryFn: () => allowsEverything(d), retry: false, staleTime: 60_000, enabled: !!d });
}
