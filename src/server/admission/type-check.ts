// ValidatingAdmissionPolicy type checking (upstream validating/typechecking.go): the policy's expressions are
// checked against the schema of each kind its matchConstraints name explicitly; problems become
// status.typeChecking.expressionWarnings, written by a small controller.
import type { Environment } from '@marcbachmann/cel-js';
import { arr, obj, str } from '../registry/builtin-helpers.js';
import { collectionPrefix } from '../registry/keys.js';
import { canonicalGroup } from '../registry/names.js';
import { ResourceStore } from '../registry/resource-store.js';
import type { AdmissionChain } from '../http/admission.js';
import { APISERVER_MANAGER, APISERVER_USER, componentContext } from '../registry/pipeline/context.js';
import { updateObject } from '../registry/pipeline/update.js';
import { builtinSchemas } from '../registry/schema/registry.js';
import type { SchemaNode } from '../registry/schema/types.js';
import type { TypeRegistry } from '../registry/registry.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { RevisionedStore, StoreEvent, StoreWatch } from '../storage/types.js';
import { ADMISSION_GROUP } from '../registry/builtin-admission.js';
import { baseEnvironment } from './cel.js';

/** upstream maxTypesToCheck */
const MAX_TYPES_TO_CHECK = 10;
/** Deeper schema levels are `dyn` (keeps recursive schemas finite). */
const MAX_DEPTH = 12;

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

const envs = new WeakMap<ResourceType, Environment>();

function typedEnvironment(t: ResourceType): Environment {
  let env = envs.get(t);
  if (env) return env;
  env = baseEnvironment().clone();
  let n = 0;
  const named = new Map<SchemaNode, string>();
  const typeOf = (node: SchemaNode | undefined, depth: number): string => {
    if (!node || depth > MAX_DEPTH) return 'dyn';
    if (node.$ref) return typeOf(builtinSchemas.get(node.$ref), depth);
    if (node['x-kubernetes-int-or-string'] || node['x-kubernetes-preserve-unknown-fields']) return 'dyn';
    switch (node.type) {
      case 'string':
        return 'string';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'array':
        return `list<${typeOf(node.items, depth + 1)}>`;
      case 'object': {
        if (!node.properties) {
          const ap = node.additionalProperties;
          return typeof ap === 'object' ? `map<string, ${typeOf(ap, depth + 1)}>` : 'dyn';
        }
        const hit = named.get(node);
        if (hit) return hit;
        const name = `Schema${++n}`;
        named.set(node, name);
        const fields: Record<string, string> = {};
        for (const [k, v] of Object.entries(node.properties)) fields[k] = typeOf(v, depth + 1);
        env!.registerType(name, { fields });
        return name;
      }
      default:
        return 'dyn';
    }
  };
  const root = typeOf(t.schema, 0);
  env.registerVariable('object', root);
  env.registerVariable('oldObject', root);
  envs.set(t, env);
  return env;
}

/** The kinds a policy's matchConstraints name without wildcards. */
function typesToCheck(policy: KubeObject, types: TypeRegistry): ResourceType[] {
  const out: ResourceType[] = [];
  for (const r of arr(obj(obj(policy.spec).matchConstraints).resourceRules).map(obj)) {
    for (const g of arr(r.apiGroups).map(str))
      for (const v of arr(r.apiVersions).map(str))
        for (const res of arr(r.resources).map(str)) {
          if (g === '*' || v === '*' || res.includes('*') || res.includes('/')) continue;
          const t = types.all().find((x) => x.group === canonicalGroup(g) && x.version === v && x.plural === res);
          if (t && t.schema && !out.includes(t)) out.push(t);
        }
  }
  return out.slice(0, MAX_TYPES_TO_CHECK);
}

export function typeCheckPolicy(policy: KubeObject, types: TypeRegistry): ExpressionWarning[] {
  const spec = obj(policy.spec);
  const exprs: { fieldRef: string; expr: string }[] = [];
  arr(spec.validations).map(obj).forEach((v, i) => {
    if (str(v.expression)) exprs.push({ fieldRef: `spec.validations[${i}].expression`, expr: str(v.expression) });
    if (str(v.messageExpression)) exprs.push({ fieldRef: `spec.validations[${i}].messageExpression`, expr: str(v.messageExpression) });
  });
  arr(spec.auditAnnotations).map(obj).forEach((a, i) => exprs.push({ fieldRef: `spec.auditAnnotations[${i}].valueExpression`, expr: str(a.valueExpression) }));
  arr(spec.matchConditions).map(obj).forEach((m, i) => exprs.push({ fieldRef: `spec.matchConditions[${i}].expression`, expr: str(m.expression) }));
  const kinds = typesToCheck(policy, types);
  const warnings: ExpressionWarning[] = [];
  for (const { fieldRef, expr } of exprs) {
    const problems: string[] = [];
    for (const t of kinds) {
      let message: string | undefined;
      try {
        const r = typedEnvironment(t).check(expr);
        if (!r.valid) message = String(r.error?.message ?? r.error).split('\n')[0];
      } catch (e) {
        message = String((e as Error).message).split('\n')[0];
      }
      if (message) problems.push(`${t.group ? `${t.group}/` : ''}${t.version}, Kind=${t.kind}: ERROR: <input>: ${message}`);
    }
    if (problems.length) warnings.push({ fieldRef, warning: problems.join('\n') });
  }
  return warnings;
}

const POLICIES = { group: ADMISSION_GROUP, plural: 'validatingadmissionpolicies', scope: 'Cluster' as const };

/** Writes status.typeChecking and status.observedGeneration of every policy as it changes. */
export class PolicyTypeChecker {
  private watch?: StoreWatch;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private deps: { store: RevisionedStore; types: TypeRegistry; admission: AdmissionChain; log: (l: string) => void }) {}

  async start(): Promise<void> {
    const prefix = collectionPrefix(POLICIES);
    const page = await this.deps.store.range({ prefix });
    for (const kv of page.kvs) this.enqueue(kv.key);
    this.watch = this.deps.store.watch(prefix, page.revision, {
      onEvents: (events: StoreEvent[]) => {
        for (const ev of events) if (ev.type !== 'delete') this.enqueue(ev.kv.key);
      },
      onError: (err) => {
        if (!this.stopped) this.deps.log(`policy type checker: watch ended (${err.message})`);
      },
    });
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
  }

  private enqueue(key: string): void {
    this.queue = this.queue.then(() => this.reconcile(key)).catch((e) => this.deps.log(`policy type checker: ${key}: ${(e as Error).message}`));
  }

  private async reconcile(key: string): Promise<void> {
    if (this.stopped) return;
    const type = this.deps.types.lookup(ADMISSION_GROUP, 'v1', 'validatingadmissionpolicies');
    if (!type) return;
    const rs = new ResourceStore(type, this.deps.store);
    const cur = await rs.read(undefined, key.slice(key.lastIndexOf('/') + 1));
    if (!cur) return;
    const policy = structuredClone(cur.obj);
    const status = obj(policy.status);
    const generation = policy.metadata?.generation ?? 1;
    const typeChecking = { expressionWarnings: typeCheckPolicy(policy, this.deps.types) };
    if (status.observedGeneration === generation && JSON.stringify(status.typeChecking) === JSON.stringify(typeChecking)) return;
    policy.status = { ...status, observedGeneration: generation, typeChecking };
    // UpdateStatus through the write pipeline as the API server's loopback client (upstream's type checking
    // controller); a concurrent write re-queues this key through the watch
    const ctx = componentContext(APISERVER_USER, APISERVER_MANAGER);
    await updateObject({ rs, admission: this.deps.admission }, ctx, policy, cur, 'status').catch(() => undefined);
  }
}
