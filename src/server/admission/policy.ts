// ValidatingAdmissionPolicy: CEL validations of policies applied through their bindings, with params,
// validationActions Deny/Warn/Audit, failurePolicy, matchConditions and messageExpression
// (upstream k8s.io/apiserver/pkg/admission/plugin/policy/validating).
import { failure, type StatusError } from '../../api/status.js';
import { arr, obj, selectorMatches, str } from '../registry/builtin-helpers.js';
import { collectionPrefix, objectKey } from '../registry/keys.js';
import { canonicalApiVersion } from '../registry/names.js';
import { decodeFromStorage } from '../registry/resource-store.js';
import { ADMISSION_GROUP } from '../registry/builtin-admission.js';
import type { TypeRegistry } from '../registry/registry.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../http/admission.js';
import { CelCostError, CostBudget, RUNTIME_CEL_COST_BUDGET, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS } from '../cel/cost.js';
import { allowAllAuthorizer, celAuthorizer, compileAdmissionCel, evalCel, fromCel, toCel, type AdmissionAuthorizer } from './cel.js';
import { labelsOf, matchResources, namespaceObjectOf } from './matching.js';
import { admissionView, reviewRequest } from './webhooks.js';
import { inSpan } from '../tracing.js';
import { configCache } from './config-cache.js';

export interface PolicyPluginDeps {
  store: RevisionedStore;
  types: TypeRegistry;
  authorizer?: AdmissionAuthorizer;
}

type Obj = Record<string, unknown>;

const POLICIES = { group: ADMISSION_GROUP, plural: 'validatingadmissionpolicies', scope: 'Cluster' as const };
const BINDINGS = { group: ADMISSION_GROUP, plural: 'validatingadmissionpolicybindings', scope: 'Cluster' as const };

/** upstream reasonToCode */
const REASON_CODES: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

/** Policies and bindings in name order, from their watch-kept caches (upstream reads informers). */
function list(store: RevisionedStore, t: typeof POLICIES): Promise<readonly KubeObject[]> {
  return configCache(store, collectionPrefix(t)).list();
}

interface Denial {
  policy: string;
  binding: string;
  message: string;
  reason: string;
}

class ParamError extends Error {}

export function validatingAdmissionPolicyPlugin(deps: PolicyPluginDeps): AdmissionPlugin {
  return {
    name: 'ValidatingAdmissionPolicy',
    async validate(a) {
      // the policy kinds themselves are exempt, as for webhooks
      if (a.type.group === ADMISSION_GROUP) return;
      const bindings = await list(deps.store, BINDINGS);
      if (bindings.length === 0) return;
      const policies = new Map((await list(deps.store, POLICIES)).map((p) => [str(p.metadata?.name), p]));
      let ns: Promise<KubeObject | undefined> | undefined;
      const nsObj = () => (ns ??= namespaceObjectOf(deps.store, a));
      const denials: Denial[] = [];
      for (const b of bindings) {
        const bspec = obj(b.spec);
        const policy = policies.get(str(bspec.policyName));
        if (!policy) continue;
        const pspec = obj(policy.spec);
        if (!(await matchResources(pspec.matchConstraints, a, nsObj))) continue;
        if (bspec.matchResources && !(await matchResources(bspec.matchResources, a, nsObj))) continue;
        const pname = str(policy.metadata?.name);
        const bname = str(b.metadata?.name);
        await inSpan(`ValidatingAdmissionPolicy ${pname}`, { 'policy.name': pname, 'binding.name': bname }, async () => {
          const decisions = await evaluate(deps, a, policy, b, await nsObj());
          const actions = arr(bspec.validationActions).map(str);
          for (const d of decisions) {
            if (actions.includes('Deny')) denials.push({ policy: pname, binding: bname, message: d.message, reason: d.reason });
            if (actions.includes('Warn')) a.warnings?.push(`Validation failed for ValidatingAdmissionPolicy '${pname}' with binding '${bname}': ${d.message}`);
            // Audit: recorded as an audit annotation upstream; this server keeps no audit log.
          }
        });
      }
      if (denials.length) throw denied(a, denials[0]!);
    },
  };
}

function denied(a: AdmissionAttributes, d: Denial): StatusError {
  const message = `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
  const reason = d.reason || 'Invalid';
  const gr = a.type.group ? `${a.type.plural}.${a.type.group}` : a.type.plural;
  const full = `${gr} "${a.name}" is forbidden: ${message}`;
  return failure(REASON_CODES[reason] ?? 422, reason as never, full, { name: a.name, group: a.type.group, kind: a.type.plural, causes: [{ message }] });
}

/** The failed validations of one policy through one binding (each param object evaluated separately). */
async function evaluate(deps: PolicyPluginDeps, a: AdmissionAttributes, policy: KubeObject, binding: KubeObject, nsObj: KubeObject | undefined): Promise<{ message: string; reason: string }[]> {
  const pspec = obj(policy.spec);
  const failOpen = str(pspec.failurePolicy) === 'Ignore';
  const failed = (message: string) => (failOpen ? [] : [{ message, reason: 'Invalid' }]);
  let params: (KubeObject | null)[];
  try {
    params = await paramsFor(deps, a, pspec, obj(binding.spec));
  } catch (e) {
    return failed((e as Error).message);
  }
  if (params.length === 0) return [];
  const base: Record<string, unknown> = {
    // the objects and request as webhooks see them: upstream's spelling of the group, whatever the request used
    object: toCel(admissionView(a.object)),
    oldObject: toCel(admissionView(a.oldObject)),
    request: toCel(reviewRequest(a, '')),
    namespaceObject: toCel(nsObj ?? null),
    authorizer: celAuthorizer(deps.authorizer ?? allowAllAuthorizer, a.userInfo ?? { username: a.user }, {
      group: a.type.group, version: a.type.version, resource: a.type.plural, subresource: a.subresource, namespace: a.namespace, name: a.name,
    }),
  };
  const scope = { params: !!pspec.paramKind, authorizer: true, variables: true };
  const out: { message: string; reason: string }[] = [];
  for (const p of params) {
    const vars: Record<string, unknown> = { ...base, params: toCel(p ? admissionView(p) : null) };
    // upstream: each (policy, binding, param) evaluation has its own budget; matchConditions have theirs
    const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET);
    const matchBudget = new CostBudget(RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS);
    // variables: evaluated in order, later ones may use earlier ones (upstream composition)
    const variables: Record<string, unknown> = {};
    vars.variables = variables;
    try {
      for (const v of arr(pspec.variables).map(obj)) {
        const c = compileAdmissionCel(str(v.expression), scope);
        if (!c.ok) throw new Error(c.message);
        variables[str(v.name)] = await evalCel(c.program, vars, { budget });
      }
    } catch (e) {
      if (e instanceof CelCostError && e.outOfBudget) {
        out.push(...failed(e.message));
        continue;
      }
      out.push(...failed(`variable evaluation failed: ${(e as Error).message.split('\n')[0]}`));
      continue;
    }
    // matchConditions: all true to apply; an error follows failurePolicy
    let skip = false;
    for (const m of arr(pspec.matchConditions).map(obj)) {
      const c = compileAdmissionCel(str(m.expression), scope);
      try {
        if (!c.ok) throw new Error(c.message);
        const r = await evalCel(c.program, vars, { budget: matchBudget });
        if (r === false) skip = true;
        else if (r !== true) throw new Error('no such overload');
      } catch (e) {
        out.push(...failed(`expression '${str(m.name)}' resulted in error: ${(e as Error).message.split('\n')[0]}`));
        skip = true;
      }
      if (skip) break;
    }
    if (skip) continue;
    for (const v of arr(pspec.validations).map(obj)) {
      const expr = str(v.expression);
      const c = compileAdmissionCel(expr, scope);
      let result: unknown;
      try {
        if (!c.ok) throw new Error(c.message);
        result = await evalCel(c.program, vars, { budget });
      } catch (e) {
        if (e instanceof CelCostError && e.outOfBudget) {
          // upstream: no further validation rules are run
          out.push(...failed(e.message));
          break;
        }
        out.push(...failed(`expression '${expr}' resulted in error: ${(e as Error).message.split('\n')[0]}`));
        continue;
      }
      if (result === true) continue;
      if (result !== false) {
        out.push(...failed(`expression '${expr}' resulted in error: no such overload`));
        continue;
      }
      out.push({ message: await messageOf(v, vars, scope, budget), reason: str(v.reason) || 'Invalid' });
    }
  }
  return out;
}

/** messageExpression (a non-empty single-line string) wins over message; else "failed expression: <expr>". */
async function messageOf(v: Obj, vars: Record<string, unknown>, scope: { params: boolean }, budget: CostBudget): Promise<string> {
  const fallback = str(v.message) || `failed expression: ${str(v.expression).trim()}`;
  const me = str(v.messageExpression);
  if (!me.trim()) return fallback;
  const c = compileAdmissionCel(me, { ...scope, authorizer: true, variables: true });
  if (!c.ok) return fallback;
  try {
    const r = fromCel(await evalCel(c.program, vars, { budget }));
    if (typeof r === 'string' && r.trim() !== '' && !r.includes('\n') && r.length <= 5000) return r;
  } catch {
    /* upstream falls back to message when messageExpression fails */
  }
  return fallback;
}

/** The params objects of a binding: [null] without paramKind; [] when none found and the action is Allow. */
async function paramsFor(deps: PolicyPluginDeps, a: AdmissionAttributes, pspec: Obj, bspec: Obj): Promise<(KubeObject | null)[]> {
  if (!pspec.paramKind) return [null];
  const pk = obj(pspec.paramKind);
  const ref = bspec.paramRef ? obj(bspec.paramRef) : undefined;
  if (!ref) throw new ParamError(`policy has paramKind ${str(pk.apiVersion)}/${str(pk.kind)} but the binding sets no paramRef`);
  const type = paramType(deps.types, str(pk.apiVersion), str(pk.kind));
  if (!type) throw new ParamError(`failed to configure binding: paramKind ${str(pk.apiVersion)}, Kind=${str(pk.kind)} is not found`);
  let ns: string | undefined;
  if (type.scope === 'Namespaced') {
    ns = str(ref.namespace) || a.namespace;
    if (!ns) throw new ParamError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  }
  let found: KubeObject[];
  if (ref.name !== undefined) {
    const got = await deps.store.get(objectKey(type, ns, str(ref.name)));
    found = got.kv ? [decodeFromStorage(got.kv)] : [];
  } else {
    const page = await deps.store.range({ prefix: collectionPrefix(type, ns) });
    found = page.kvs.map((kv) => decodeFromStorage(kv)).filter((o) => selectorMatches(ref.selector, labelsOf(o)));
  }
  if (found.length === 0) {
    if (str(ref.parameterNotFoundAction) === 'Allow') return [];
    throw new ParamError('no params found for policy binding with `Deny` parameterNotFoundAction');
  }
  return found;
}

function paramType(types: TypeRegistry, apiVersion: string, kind: string): ResourceType | undefined {
  const canon = canonicalApiVersion(apiVersion);
  const slash = canon.indexOf('/');
  const group = slash < 0 ? '' : canon.slice(0, slash);
  const version = slash < 0 ? canon : canon.slice(slash + 1);
  return types.all().find((t) => t.group === group && t.version === version && t.kind === kind);
}
