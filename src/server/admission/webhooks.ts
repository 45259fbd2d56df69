// MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the webhook configurations stored in the
// admissionregistration group, matched and called as upstream's admission/plugin/webhook (mutating in name order
// with one reinvocation round for IfNeeded webhooks, validating in parallel).
import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import jsonpatch from 'fast-json-patch';
import { errors, failure, StatusError } from '../../api/status.js';
import { arr, obj, str } from '../registry/builtin-helpers.js';
import { collectionPrefix } from '../registry/keys.js';
import { canonicalApiVersion, inUpstreamSpelling, upstreamGroup } from '../registry/names.js';
import { ADMISSION_GROUP } from '../registry/builtin-admission.js';
import type { KubeObject } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../http/admission.js';
import { CostBudget, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS } from '../cel/cost.js';
import { allowAllAuthorizer, celAuthorizer, compileAdmissionCel, evalCel, toCel, type AdmissionAuthorizer } from './cel.js';
import { namespaceObjectOf, namespaceSelectorMatches, objectSelectorMatches, ruleMatches } from './matching.js';
import { postReview, resolveTarget, WebhookCredentials } from './webhook-client.js';
import { TRACER_NAME } from '../tracing.js';
import { configCache, type ConfigCache } from './config-cache.js';

export interface WebhookPluginDeps {
  store: RevisionedStore;
  authorizer?: AdmissionAuthorizer;
  /** AdmissionConfiguration's WebhookAdmissionConfiguration kubeConfigFile, for webhook credentials. */
  kubeConfigFile?: string;
}

type Obj = Record<string, unknown>;
type Phase = 'mutating' | 'validating';

const KINDS: Record<Phase, { plural: string; group: string; scope: 'Cluster' }> = {
  mutating: { group: ADMISSION_GROUP, plural: 'mutatingwebhookconfigurations', scope: 'Cluster' },
  validating: { group: ADMISSION_GROUP, plural: 'validatingwebhookconfigurations', scope: 'Cluster' },
};

/** Requests on admission configuration objects never go to webhooks (upstream IsExemptAdmissionConfigurationResource). */
export function isAdmissionConfigResource(a: AdmissionAttributes): boolean {
  return a.type.group === ADMISSION_GROUP;
}

type Hooks = readonly { config: string; hook: Obj }[];
const hookLists = new WeakMap<ConfigCache, { generation: number; hooks: Hooks }>();

/**
 * Webhooks of every configuration, in upstream's order: configurations by name, then list order. Read from
 * the configurations' watch-kept cache (upstream's webhook configuration manager reads an informer).
 */
async function webhooksOf(store: RevisionedStore, phase: Phase): Promise<Hooks> {
  const cache = configCache(store, collectionPrefix(KINDS[phase]));
  const configs = await cache.list();
  const known = hookLists.get(cache);
  if (known && known.generation === cache.generation) return known.hooks;
  const hooks: { config: string; hook: Obj }[] = [];
  for (const c of configs) for (const h of arr(c.webhooks)) hooks.push({ config: str(c.metadata?.name), hook: obj(h) });
  hookLists.set(cache, { generation: cache.generation, hooks });
  return hooks;
}

interface Ctx {
  deps: WebhookPluginDeps;
  credentials: WebhookCredentials;
  ns?: Promise<KubeObject | undefined>;
}

/** An object as webhooks and admission policies see it: apiVersion in upstream's spelling (null when absent). */
export function admissionView(o: KubeObject | undefined): KubeObject | null {
  return o ? inUpstreamSpelling(o) : null;
}

function userInfo(a: AdmissionAttributes): NonNullable<AdmissionAttributes['userInfo']> {
  return a.userInfo ?? { username: a.user };
}

/**
 * The AdmissionReview request (v1 and v1beta1 share this shape). Webhooks and policies see one spelling whatever
 * the request used: upstream's (`rbac.authorization.k8s.io`), in kind, resource and the objects' apiVersion.
 */
export function reviewRequest(a: AdmissionAttributes, uid: string): Obj {
  const group = upstreamGroup(a.type.group);
  const kind = a.kind ? { group: upstreamGroup(a.kind.group), version: a.kind.version, kind: a.kind.kind } : { group, version: a.type.version, kind: a.type.kind };
  const resource = { group, version: a.type.version, resource: a.type.plural };
  const req: Obj = {
    uid,
    kind,
    resource,
    requestKind: kind,
    requestResource: resource,
    name: a.name,
    namespace: a.namespace || undefined,
    operation: a.operation,
    userInfo: userInfo(a),
    object: admissionView(a.object),
    oldObject: admissionView(a.oldObject),
    dryRun: a.dryRun,
    options: a.options ? inUpstreamSpelling(a.options) : null,
  };
  if (a.subresource) {
    req.subResource = a.subresource;
    req.requestSubResource = a.subresource;
  }
  return req;
}

/** Whether the request goes to this webhook (rules, selectors, match conditions); errors follow failurePolicy. */
async function matches(h: Obj, a: AdmissionAttributes, ctx: Ctx): Promise<boolean> {
  const exact = str(h.matchPolicy) === 'Exact';
  if (!arr(h.rules).some((r) => ruleMatches(r, a, exact))) return false;
  if (!objectSelectorMatches(h.objectSelector, a)) return false;
  const nsObj = () => (ctx.ns ??= namespaceObjectOf(ctx.deps.store, a));
  if (!(await namespaceSelectorMatches(h.namespaceSelector, a, nsObj))) return false;
  return matchConditions(arr(h.matchConditions).map(obj), a, ctx, str(h.name));
}

/** Every condition true → call; any false → skip; an error → failurePolicy (upstream matchconditions). */
async function matchConditions(conds: Obj[], a: AdmissionAttributes, ctx: Ctx, hook: string): Promise<boolean> {
  if (conds.length === 0) return true;
  const vars = celVars(a, ctx);
  const errs: string[] = [];
  // upstream: one budget for the matchConditions of one webhook and object
  const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS);
  for (const c of conds) {
    const compiled = compileAdmissionCel(str(c.expression), { authorizer: true });
    if (!compiled.ok) {
      errs.push(`expression '${str(c.name)}' resulted in error: ${compiled.message}`);
      continue;
    }
    try {
      const v = await evalCel(compiled.program, vars, { budget });
      if (v === false) return false;
      if (v !== true) errs.push(`expression '${str(c.name)}' resulted in error: no such overload`);
    } catch (e) {
      errs.push(`expression '${str(c.name)}' resulted in error: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  if (errs.length) throw new MatchConditionError(`failed to evaluate match conditions of webhook "${hook}": ${errs.join(', ')}`);
  return true;
}

class MatchConditionError extends Error {}

function celVars(a: AdmissionAttributes, ctx: Ctx): Record<string, unknown> {
  const user = userInfo(a);
  return {
    object: toCel(admissionView(a.object)),
    oldObject: toCel(admissionView(a.oldObject)),
    request: toCel(reviewRequest(a, '')),
    authorizer: celAuthorizer(ctx.deps.authorizer ?? allowAllAuthorizer, user, {
      group: a.type.group, version: a.type.version, resource: a.type.plural, subresource: a.subresource, namespace: a.namespace, name: a.name,
    }),
  };
}

/** Calls one webhook; returns its response, or undefined when the call failed and failurePolicy is Ignore. */
async function call(h: Obj, phase: Phase, a: AdmissionAttributes, ctx: Ctx): Promise<Obj | undefined> {
  const name = str(h.name);
  const ignore = str(h.failurePolicy) === 'Ignore';
  const span = trace.getActiveSpan();
  try {
    if (!(await matches(h, a, ctx))) return undefined;
  } catch (e) {
    if (e instanceof StatusError) throw e;
    if (ignore) return undefined;
    throw errors.internal((e as Error).message);
  }
  // Spec (dry-run): a dry-run request that would reach a webhook with side effects fails.
  const sideEffects = str(h.sideEffects);
  if (a.dryRun && sideEffects !== 'None' && sideEffects !== 'NoneOnDryRun')
    throw errors.badRequest(`admission webhook "${name}" does not support dry run`);
  const versions = arr(h.admissionReviewVersions).map(str);
  const version = versions.find((v) => v === 'v1' || v === 'v1beta1');
  const uid = randomUUID();
  // the review is in upstream's spelling, as everything a webhook sees (either spelling is accepted back)
  const review = {
    apiVersion: version === 'v1beta1' ? 'admission.k8s.io/v1beta1' : 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: reviewRequest(a, uid),
  };
  let body: unknown;
  try {
    const timeoutMs = (typeof h.timeoutSeconds === 'number' ? h.timeoutSeconds : 10) * 1000;
    const target = await resolveTarget(ctx.deps.store, h.clientConfig, timeoutMs);
    const cc = obj(h.clientConfig);
    body = await postReview(target, review, {
      webhook: name,
      phase,
      caBundle: cc.caBundle ? str(cc.caBundle) : undefined,
      timeoutMs,
      credentials: ctx.credentials.for(target.credentialHost, target.url.port || '443'),
    });
  } catch (e) {
    span?.addEvent('webhook call failed', { 'webhook.name': name, 'webhook.failurePolicy': ignore ? 'Ignore' : 'Fail' });
    if (ignore) return undefined;
    throw errors.internal(`failed calling webhook "${name}": failed to call webhook: ${(e as Error).message}`);
  }
  const resp = obj(obj(body).response);
  const apiVersion = str(obj(body).apiVersion);
  if (obj(body).kind !== 'AdmissionReview' || !['admission.service.io/v1', 'admission.k8s.io/v1', 'admission.k8s.io/v1beta1'].includes(apiVersion) || !obj(body).response) {
    if (ignore) return undefined;
    throw errors.internal(`failed calling webhook "${name}": received invalid webhook response: expected AdmissionReview with a response`);
  }
  if (version === 'v1' && str(resp.uid) !== uid) {
    if (ignore) return undefined;
    throw errors.internal(`failed calling webhook "${name}": expected response.uid="${uid}", got "${str(resp.uid)}"`);
  }
  for (const w of arr(resp.warnings)) if (typeof w === 'string' && w) a.warnings?.push(w);
  if (resp.allowed !== true) throw denial(name, resp.status);
  return resp;
}

/** A denial as upstream's webhookerrors.ToStatusErr: code ≥ 400, status Failure, "admission webhook ... denied the request". */
export function denial(webhook: string, raw: unknown): StatusError {
  const st = obj(raw);
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const code = typeof st.code === 'number' && st.code >= 400 && st.code <= 599 ? st.code : 400;
  const message = str(st.message) ? `${deniedBy}: ${str(st.message)}` : str(st.reason) ? `${deniedBy}: ${str(st.reason)}` : `${deniedBy} without explanation`;
  return failure(code, (str(st.reason) || '') as never, message, st.details as never);
}

/** Applies a JSONPatch response in place: the caller holds attrs.object by reference. */
function applyPatch(target: KubeObject, resp: Obj, webhook: string): boolean {
  if (resp.patch === undefined || resp.patch === null || resp.patch === '') return false;
  if (resp.patchType !== 'JSONPatch')
    throw errors.internal(`failed calling webhook "${webhook}": unsupported patch type "${str(resp.patchType)}"`);
  let ops: jsonpatch.Operation[];
  try {
    ops = JSON.parse(Buffer.from(str(resp.patch), 'base64').toString('utf8'));
    if (!Array.isArray(ops)) throw new Error('the patch is not a list of operations');
  } catch (e) {
    throw errors.internal(`failed calling webhook "${webhook}": received invalid webhook response: ${(e as Error).message}`);
  }
  const before = JSON.stringify(target);
  let next: KubeObject;
  try {
    // the patch is written against the object the webhook saw (upstream spelling); stored objects are canonical
    next = jsonpatch.applyPatch(structuredClone(admissionView(target)!), ops, true, false).newDocument as KubeObject;
  } catch (e) {
    throw errors.internal(`failed calling webhook "${webhook}": JSONPatch failed: ${(e as Error).message}`);
  }
  if (!next || typeof next !== 'object' || Array.isArray(next)) throw errors.internal(`failed calling webhook "${webhook}": the patched object is not an object`);
  if (typeof next.apiVersion === 'string') next.apiVersion = canonicalApiVersion(next.apiVersion);
  for (const k of Object.keys(target)) delete (target as Obj)[k];
  Object.assign(target, next);
  return JSON.stringify(target) !== before;
}

export function mutatingWebhookPlugin(deps: WebhookPluginDeps): AdmissionPlugin {
  const credentials = new WebhookCredentials(deps.kubeConfigFile);
  return {
    name: 'MutatingAdmissionWebhook',
    async admit(a) {
      if (isAdmissionConfigResource(a)) return;
      const hooks = await webhooksOf(deps.store, 'mutating');
      if (hooks.length === 0) return;
      const ctx: Ctx = { deps, credentials };
      const tracer = trace.getTracer(TRACER_NAME);
      // upstream reinvocation: IfNeeded webhooks called once are called again (once) when a later webhook changed the object.
      const invoked = new Set<Obj>();
      let changedAfter = new Map<Obj, boolean>();
      const run = async (list: readonly { hook: Obj }[]) => {
        for (const { hook } of list) {
          const resp = await tracer.startActiveSpan(`Admission webhook ${str(hook.name)}`, async (span) => {
            try {
              return await call(hook, 'mutating', a, ctx);
            } finally {
              span.end();
            }
          });
          if (!resp) continue;
          invoked.add(hook);
          changedAfter.set(hook, false);
          if (a.object && applyPatch(a.object, resp, str(hook.name))) for (const other of invoked) if (other !== hook) changedAfter.set(other, true);
        }
      };
      await run(hooks);
      const again = hooks.filter(({ hook }) => str(hook.reinvocationPolicy) === 'IfNeeded' && changedAfter.get(hook));
      changedAfter = new Map();
      if (again.length) await run(again);
    },
  };
}

export function validatingWebhookPlugin(deps: WebhookPluginDeps): AdmissionPlugin {
  const credentials = new WebhookCredentials(deps.kubeConfigFile);
  return {
    name: 'ValidatingAdmissionWebhook',
    async validate(a) {
      if (isAdmissionConfigResource(a)) return;
      const hooks = await webhooksOf(deps.store, 'validating');
      if (hooks.length === 0) return;
      const ctx: Ctx = { deps, credentials };
      const tracer = trace.getTracer(TRACER_NAME);
      // upstream calls validating webhooks in parallel; the first denial (in order) is returned
      const results = await Promise.allSettled(
        hooks.map(({ hook }) =>
          tracer.startActiveSpan(`Admission webhook ${str(hook.name)}`, async (span) => {
            try {
              return await call(hook, 'validating', a, ctx);
            } finally {
              span.end();
            }
          }),
        ),
      );
      for (const r of results) if (r.status === 'rejected') throw r.reason;
    },
  };
}
