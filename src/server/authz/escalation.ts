// RBAC escalation prevention (upstream pkg/registry/rbac/*/policybased): writing a Role or ClusterRole
// needs every permission it grants, unless the writer may `escalate` it; writing a binding needs every
// permission of the referenced role, unless the writer may `bind` it. Members of system:masters may do
// anything. Runs as a validating admission step so dry-run writes are checked the same way.
import { failure } from '../../api/status.js';
import { SYSTEM_MASTERS } from '../auth/user.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../http/admission.js';
import { currentRequest } from '../request/context.js';
import type { Attributes, AuthorizationResult } from './attributes.js';
import type { RbacAuthorizer } from './rbac.js';
import { RBAC_GROUP } from '../registry/builtin-cluster.js';
import type { KubeObject } from '../registry/types.js';
import { compactRules, missingPieces, roleRefOf, rulesOf, type PolicyRule } from './rbac.js';

const ROLE_KINDS = new Set(['Role', 'ClusterRole']);
const BINDING_KINDS = new Set(['RoleBinding', 'ClusterRoleBinding']);
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const list = (name: string, v: string[] | undefined) => (v?.length ? `${name}:[${v.map((x) => JSON.stringify(x)).join(', ')}]` : '');

/** Upstream's compact rule text: {APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}. */
export function compactRule(r: PolicyRule): string {
  const parts = [list('APIGroups', r.apiGroups), list('Resources', r.resources), list('ResourceNames', r.resourceNames), list('NonResourceURLs', r.nonResourceURLs), list('Verbs', r.verbs)];
  return `{${parts.filter(Boolean).join(', ')}}`;
}

/** What the escalation checks ask of the server's authorization (http/authorization.ts provides it). */
export interface EscalationAuthorizer {
  readonly rbacEnabled: boolean;
  readonly rbac: RbacAuthorizer;
  authorize(a: Attributes): Promise<AuthorizationResult>;
}

export function escalationCheck(z: EscalationAuthorizer): AdmissionPlugin {
  return {
    name: 'RBACEscalation',
    async validate(a: AdmissionAttributes) {
      if (a.type.group !== RBAC_GROUP || (a.operation !== 'CREATE' && a.operation !== 'UPDATE') || !a.object || a.subresource) return;
      const isRole = ROLE_KINDS.has(a.type.kind);
      if (!isRole && !BINDING_KINDS.has(a.type.kind)) return;
      const ctx = currentRequest();
      if (!ctx || !z.rbacEnabled || ctx.auth.user.groups.includes(SYSTEM_MASTERS)) return;
      const group = ctx.attrs?.apiGroup ?? RBAC_GROUP;
      const namespace = a.type.scope === 'Namespaced' ? a.namespace : '';
      const target = { user: ctx.auth.user, resourceRequest: true, path: '', apiGroup: group, apiVersion: 'v1', subresource: '', namespace };
      const deny = (msg: string) => {
        const gr = `${a.type.plural}.${group}`;
        return failure(403, 'Forbidden', `${gr} ${JSON.stringify(a.name)} is forbidden: ${msg}`, { name: a.name, group, kind: a.type.plural });
      };
      let wanted: PolicyRule[];
      if (isRole) {
        // upstream RoleEscalationAuthorized: `escalate` on this role
        const r = await z.authorize({ ...target, verb: 'escalate', resource: a.type.plural, name: a.name });
        if (r.decision === 'Allow') return;
        wanted = rulesOf(a.object);
        const agg = (a.object as { aggregationRule?: unknown }).aggregationRule;
        const oldAgg = (a.oldObject as { aggregationRule?: unknown } | undefined)?.aggregationRule;
        // setting an aggregation rule can gather any permission: it needs full authority (upstream)
        if (agg && JSON.stringify(agg) !== JSON.stringify(oldAgg)) wanted = FULL_AUTHORITY;
      } else {
        const ref = roleRefOf(a.object);
        const refResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
        // upstream BindingAuthorized: `bind` on the referenced role
        const r = await z.authorize({ ...target, verb: 'bind', resource: refResource, name: ref.name, namespace: ref.kind === 'ClusterRole' ? '' : namespace });
        if (r.decision === 'Allow') return;
        await z.rbac.rulesFor(ctx.auth.user, namespace); // syncs the RBAC caches
        const role = roleObject(z, ref.kind, namespace, ref.name);
        if (!role) throw deny(`${refResource}.${group} ${JSON.stringify(ref.name)} not found`);
        wanted = rulesOf(role);
      }
      const held = await z.rbac.rulesFor(ctx.auth.user, namespace);
      const missing = missingPieces(held.rules, wanted);
      if (missing.length === 0) return;
      const groups = `[${ctx.auth.user.groups.map((g) => JSON.stringify(g)).join(' ')}]`;
      // upstream lists the compacted missing rules sorted as strings
      const lines = [...new Set(compactRules(missing).map(compactRule))].sort();
      let msg = `user ${JSON.stringify(ctx.auth.user.name)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
      if (held.incomplete) msg += `; resolution errors: [${held.error}]`;
      throw deny(msg);
    },
  };
}

function roleObject(z: EscalationAuthorizer, kind: string, namespace: string, name: string): KubeObject | undefined {
  return kind === 'ClusterRole' ? z.rbac.source.clusterRole(name) : kind === 'Role' ? z.rbac.source.role(namespace, name) : undefined;
}
