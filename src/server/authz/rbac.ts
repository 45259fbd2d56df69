// RBAC (upstream plugin/pkg/auth/authorizer/rbac): ClusterRoleBindings grant everywhere, RoleBindings
// in their namespace; a request is allowed when one rule of one bound role covers it. RBAC never
// denies: without a matching rule it has no opinion and the next authorizer decides.
import type { UserInfo } from '../auth/user.js';
import { canonicalGroup } from '../registry/names.js';
import type { KubeObject } from '../registry/types.js';
import { allow, noOpinion, type Attributes, type AuthorizationResult, type Authorizer } from './attributes.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

/** Read access to the stored RBAC objects (kept fresh by the caller). */
export interface RbacSource {
  /** Waits until reads reflect every write made so far (read-your-writes for bindings just created). */
  sync(): Promise<void>;
  clusterRoleBindings(): Iterable<KubeObject>;
  roleBindings(namespace: string): Iterable<KubeObject>;
  clusterRole(name: string): KubeObject | undefined;
  role(namespace: string, name: string): KubeObject | undefined;
}

const SA_PREFIX = 'system:serviceaccount:';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The rules of a stored Role/ClusterRole, tolerant of odd shapes. */
export function rulesOf(role: KubeObject | undefined): PolicyRule[] {
  const rules = (role as { rules?: unknown } | undefined)?.rules;
  if (!Array.isArray(rules)) return [];
  return rules
    .filter((r): r is Record<string, unknown> => !!r && typeof r === 'object')
    .map((r) => ({
      verbs: strings(r.verbs),
      apiGroups: strings(r.apiGroups),
      resources: strings(r.resources),
      resourceNames: strings(r.resourceNames),
      nonResourceURLs: strings(r.nonResourceURLs),
    }));
}

export function subjectsOf(binding: KubeObject): Subject[] {
  const s = (binding as { subjects?: unknown }).subjects;
  return Array.isArray(s) ? s.filter((x): x is Subject => !!x && typeof x === 'object' && typeof x.kind === 'string' && typeof x.name === 'string') : [];
}

export function roleRefOf(binding: KubeObject): { kind: string; name: string } {
  const r = ((binding as { roleRef?: unknown }).roleRef ?? {}) as Record<string, unknown>;
  return { kind: typeof r.kind === 'string' ? r.kind : '', name: typeof r.name === 'string' ? r.name : '' };
}

/** Upstream appliesToUser: User by name, Group by membership, ServiceAccount by its user name. */
export function subjectMatches(s: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return user.name === s.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns !== '' && user.name === `${SA_PREFIX}${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

const verbMatches = (r: PolicyRule, verb: string) => r.verbs.includes('*') || r.verbs.includes(verb);

function groupMatches(r: PolicyRule, group: string): boolean {
  const g = canonicalGroup(group);
  return (r.apiGroups ?? []).some((x) => x === '*' || canonicalGroup(x) === g);
}

// `*`, exact `resource/subresource`, or `*/subresource` for any resource (upstream ResourceMatches)
function resourceMatches(r: PolicyRule, combined: string, subresource: string): boolean {
  for (const x of r.resources ?? []) {
    if (x === '*' || x === combined) return true;
    if (subresource && x === `*/${subresource}`) return true;
  }
  return false;
}

const nameMatches = (r: PolicyRule, name: string) => !r.resourceNames?.length || r.resourceNames.includes(name);

/** `*`, exact path, or a trailing-`*` prefix (upstream NonResourceURLMatches). */
function urlMatches(r: PolicyRule, path: string): boolean {
  for (const u of r.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Upstream RuleAllows. */
export function ruleAllows(a: Attributes, r: PolicyRule): boolean {
  if (!a.resourceRequest) return verbMatches(r, a.verb) && urlMatches(r, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return verbMatches(r, a.verb) && groupMatches(r, a.apiGroup) && resourceMatches(r, combined, a.subresource) && nameMatches(r, a.name);
}

/** One bound role and where it applies ('' = cluster-wide). */
export interface Grant {
  binding: { kind: 'ClusterRoleBinding' | 'RoleBinding'; name: string; namespace: string };
  role: { kind: string; name: string };
  rules: PolicyRule[];
  /** The role is missing (RBAC reports it; the binding grants nothing). */
  missing?: boolean;
  /** The subject of the binding that named the user. */
  subject: Subject;
}

/** Every grant that applies to the user in a namespace ('' = cluster-wide grants only), in upstream's visiting order. */
export function grantsFor(src: RbacSource, user: UserInfo, namespace: string): Grant[] {
  const out: Grant[] = [];
  for (const b of src.clusterRoleBindings()) {
    const subject = subjectsOf(b).find((s) => subjectMatches(s, user, ''));
    if (!subject) continue;
    const ref = roleRefOf(b);
    const role = ref.kind === 'ClusterRole' ? src.clusterRole(ref.name) : undefined;
    out.push({ binding: { kind: 'ClusterRoleBinding', name: b.metadata?.name ?? '', namespace: '' }, role: ref, rules: rulesOf(role), missing: !role, subject });
  }
  if (namespace) {
    for (const b of src.roleBindings(namespace)) {
      const subject = subjectsOf(b).find((s) => subjectMatches(s, user, namespace));
      if (!subject) continue;
      const ref = roleRefOf(b);
      const role = ref.kind === 'ClusterRole' ? src.clusterRole(ref.name) : ref.kind === 'Role' ? src.role(namespace, ref.name) : undefined;
      out.push({ binding: { kind: 'RoleBinding', name: b.metadata?.name ?? '', namespace }, role: ref, rules: rulesOf(role), missing: !role, subject });
    }
  }
  return out;
}

/** `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to Group "z"` (upstream reason text). */
function allowedReason(g: Grant): string {
  const where = g.binding.namespace ? ` in namespace "${g.binding.namespace}"` : '';
  const s = g.subject;
  const who = s.kind === 'ServiceAccount' ? `${s.name}/${s.namespace || g.binding.namespace}` : s.name;
  return `RBAC: allowed by ${g.binding.kind} "${g.binding.name}"${where} of ${g.role.kind} "${g.role.name}" to ${s.kind} "${who}"`;
}

export class RbacAuthorizer implements Authorizer {
  readonly name = 'rbac';
  constructor(readonly source: RbacSource) {}
  private get src(): RbacSource {
    return this.source;
  }

  async authorize(a: Attributes): Promise<AuthorizationResult> {
    await this.src.sync();
    const missing: string[] = [];
    for (const g of grantsFor(this.src, a.user, a.namespace)) {
      if (g.missing) missing.push(`${g.role.kind.toLowerCase()}.rbac.authorization.k8s.io "${g.role.name}" not found`);
      if (g.rules.some((r) => ruleAllows(a, r))) return allow(allowedReason(g));
    }
    // upstream aggregates the errors: one is printed bare, several in brackets
    return noOpinion(missing.length ? `RBAC: ${missing.length === 1 ? missing[0] : `[${missing.join(', ')}]`}` : '');
  }

  /** The rules a user holds in a namespace (cluster-wide ones included): SelfSubjectRulesReview and escalation checks. */
  async rulesFor(user: UserInfo, namespace: string): Promise<{ rules: PolicyRule[]; incomplete: boolean; error: string }> {
    await this.src.sync();
    const grants = grantsFor(this.src, user, namespace);
    const missing = grants.filter((g) => g.missing).map((g) => `${g.role.kind.toLowerCase()}.rbac.authorization.k8s.io "${g.role.name}" not found`);
    return { rules: grants.flatMap((g) => g.rules), incomplete: missing.length > 0, error: missing.join(', ') };
  }
}

/** True when `held` covers `wanted` (upstream validation.Covers, one rule broken into single-permission pieces). */
export function covers(held: PolicyRule[], wanted: PolicyRule): boolean {
  return missingPieces(held, [wanted]).length === 0;
}

/** The single-permission pieces of `wanted` that `held` does not cover (upstream Covers' missing rights). */
export function missingPieces(held: PolicyRule[], wanted: PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdown).filter((piece) => !held.some((h) => pieceCovered(h, piece)));
}

/** Merges pieces that differ only in verb (upstream CompactRules on simple resource rules). */
export function compactRules(pieces: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const byKey = new Map<string, PolicyRule>();
  for (const p of pieces) {
    if (p.nonResourceURLs?.length) {
      out.push(p);
      continue;
    }
    const key = JSON.stringify([p.apiGroups, p.resources, p.resourceNames ?? []]);
    const cur = byKey.get(key);
    if (cur) {
      for (const v of p.verbs) if (!cur.verbs.includes(v)) cur.verbs.push(v);
    } else {
      const c = { ...p, verbs: [...p.verbs] };
      byKey.set(key, c);
      out.push(c);
    }
  }
  return out;
}

function breakdown(r: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  if (r.nonResourceURLs?.length) {
    for (const u of r.nonResourceURLs) for (const v of r.verbs) out.push({ verbs: [v], nonResourceURLs: [u] });
    return out;
  }
  const names = r.resourceNames?.length ? r.resourceNames : [undefined];
  for (const g of r.apiGroups ?? [])
    for (const res of r.resources ?? [])
      for (const v of r.verbs) for (const n of names) out.push({ verbs: [v], apiGroups: [g], resources: [res], resourceNames: n === undefined ? [] : [n] });
  return out;
}

/** Upstream ruleCovers for a single-permission piece. */
function pieceCovered(h: PolicyRule, p: PolicyRule): boolean {
  const has = (list: string[] | undefined, v: string) => (list ?? []).includes('*') || (list ?? []).includes(v);
  if (!has(h.verbs, p.verbs[0]!)) return false;
  if (p.nonResourceURLs?.length) {
    const u = p.nonResourceURLs[0]!;
    return (h.nonResourceURLs ?? []).some((x) => x === '*' || x === u || (x.endsWith('*') && u.startsWith(x.slice(0, -1))));
  }
  const g = p.apiGroups![0]!;
  if (!(h.apiGroups ?? []).some((x) => x === '*' || canonicalGroup(x) === canonicalGroup(g))) return false;
  const res = p.resources![0]!;
  const resOk = (h.resources ?? []).some((x) => {
    if (x === '*' || x === res) return true;
    // `*/scale` held covers `deployments/scale` wanted (upstream resourceCoversAll)
    const slash = res.indexOf('/');
    return x.startsWith('*/') && slash > 0 && x.slice(1) === res.slice(slash);
  });
  if (!resOk) return false;
  if (!h.resourceNames?.length) return true;
  return p.resourceNames?.length === 1 && h.resourceNames.includes(p.resourceNames[0]!);
}

