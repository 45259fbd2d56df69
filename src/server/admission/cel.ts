// The CEL environment of admission (webhook matchConditions and ValidatingAdmissionPolicy): the variables
// object, oldObject, request, params, namespaceObject, variables and authorizer, as upstream's
// k8s.io/apiserver/pkg/admission/plugin/cel. Integers are CEL ints (bigint) as in upstream's conversion.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import { installKubernetesLibraries } from '../cel/library.js';
import { currentRequestDeadline } from '../http/deadline-context.js';
import { evaluateMeteredAsync, installAsyncMeterContext, type MeterOptions } from '../cel/cost.js';

// the cost meter follows an evaluation across the awaits of authorizer checks
installAsyncMeterContext(new AsyncLocalStorage());

/** Attributes an authorizer decides on (a SubjectAccessReview's resource or non-resource attributes). */
export interface AuthorizerAttributes {
  user: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  verb: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
}

export interface AuthorizerDecision {
  decision: 'allow' | 'deny' | 'no-opinion';
  reason: string;
  error?: string;
}

/** The authorizer CEL checks call; the lead wires the server's authorizer chain here (default: allow all). */
export type AdmissionAuthorizer = (attrs: AuthorizerAttributes) => Promise<AuthorizerDecision>;

export const allowAllAuthorizer: AdmissionAuthorizer = async () => ({ decision: 'allow', reason: '' });

class CelAuthorizer {
  constructor(
    readonly fn: AdmissionAuthorizer,
    readonly user: AuthorizerAttributes['user'],
    readonly requestResource: ResourceCheck,
  ) {}
}
class GroupCheck {
  constructor(readonly fn: AdmissionAuthorizer, readonly user: AuthorizerAttributes['user'], readonly group: string) {}
}
class ResourceCheck {
  constructor(readonly fn: AdmissionAuthorizer, readonly attrs: Omit<AuthorizerAttributes, 'verb'>) {}
  with(extra: Partial<AuthorizerAttributes>): ResourceCheck {
    return new ResourceCheck(this.fn, { ...this.attrs, ...extra });
  }
}
class PathCheck {
  constructor(readonly fn: AdmissionAuthorizer, readonly user: AuthorizerAttributes['user'], readonly path: string) {}
}
class Decision {
  constructor(readonly d: AuthorizerDecision) {}
}

export function celAuthorizer(fn: AdmissionAuthorizer, user: AuthorizerAttributes['user'], req: Omit<AuthorizerAttributes, 'verb' | 'user'>): unknown {
  return new CelAuthorizer(fn, user, new ResourceCheck(fn, { ...req, user }));
}

export interface CelScope {
  /** `params` is declared (policies; bound to null when the policy has no paramKind). */
  params?: boolean;
  authorizer?: boolean;
  /** `variables` (policy spec.variables) is declared. */
  variables?: boolean;
}

let shared: Environment | undefined;
let base: Environment | undefined;

function environment(): Environment {
  if (shared) return shared;
  shared = baseEnvironment().clone();
  shared.registerVariable('object', 'dyn');
  shared.registerVariable('oldObject', 'dyn');
  return shared;
}

/** Everything but `object` and `oldObject`, which the type checker declares with the matched kind's schema. */
export function baseEnvironment(): Environment {
  if (base) return base;
  const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  // upstream's base environment (the same libraries as CRD rules), plus the authorizer library of admission
  installKubernetesLibraries(env);
  env.registerType('Authorizer', { ctor: CelAuthorizer, fields: { requestResource: 'ResourceCheck' } });
  env.registerType('GroupCheck', { ctor: GroupCheck, fields: {} });
  env.registerType('ResourceCheck', { ctor: ResourceCheck, fields: {} });
  env.registerType('PathCheck', { ctor: PathCheck, fields: {} });
  env.registerType('Decision', { ctor: Decision, fields: {} });
  for (const v of ['request', 'params', 'namespaceObject', 'variables']) env.registerVariable(v, 'dyn');
  env.registerVariable('authorizer', 'Authorizer');
  const fn = (name: string, receiverType: string, returnType: string, params: string[], handler: (...a: any[]) => unknown) =>
    env.registerFunction({ name, receiverType, returnType, params: params.map((type, i) => ({ name: `a${i}`, type })), handler });
  fn('group', 'Authorizer', 'GroupCheck', ['string'], (a: CelAuthorizer, g: string) => new GroupCheck(a.fn, a.user, g));
  fn('path', 'Authorizer', 'PathCheck', ['string'], (a: CelAuthorizer, p: string) => new PathCheck(a.fn, a.user, p));
  fn('serviceAccount', 'Authorizer', 'Authorizer', ['string', 'string'], (a: CelAuthorizer, ns: string, name: string) => {
    const user = { username: `system:serviceaccount:${ns}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] };
    return new CelAuthorizer(a.fn, user, new ResourceCheck(a.fn, { ...a.requestResource.attrs, user }));
  });
  fn('resource', 'GroupCheck', 'ResourceCheck', ['string'], (g: GroupCheck, r: string) => new ResourceCheck(g.fn, { user: g.user, group: g.group, resource: r }));
  fn('subresource', 'ResourceCheck', 'ResourceCheck', ['string'], (r: ResourceCheck, s: string) => r.with({ subresource: s }));
  fn('namespace', 'ResourceCheck', 'ResourceCheck', ['string'], (r: ResourceCheck, s: string) => r.with({ namespace: s }));
  fn('name', 'ResourceCheck', 'ResourceCheck', ['string'], (r: ResourceCheck, s: string) => r.with({ name: s }));
  fn('check', 'ResourceCheck', 'Decision', ['string'], async (r: ResourceCheck, verb: string) => new Decision(await safeDecide(r.fn, { ...r.attrs, verb })));
  fn('check', 'PathCheck', 'Decision', ['string'], async (p: PathCheck, verb: string) => new Decision(await safeDecide(p.fn, { user: p.user, path: p.path, verb })));
  fn('allowed', 'Decision', 'bool', [], (d: Decision) => d.d.decision === 'allow');
  fn('reason', 'Decision', 'string', [], (d: Decision) => d.d.reason);
  fn('errored', 'Decision', 'bool', [], (d: Decision) => d.d.error !== undefined);
  fn('error', 'Decision', 'string', [], (d: Decision) => d.d.error ?? '');
  base = env;
  return env;
}

async function safeDecide(fn: AdmissionAuthorizer, attrs: AuthorizerAttributes): Promise<AuthorizerDecision> {
  try {
    return await fn(attrs);
  } catch (e) {
    return { decision: 'no-opinion', reason: '', error: (e as Error).message };
  }
}

export type AdmissionCelResult = { ok: true; program: ParseResult; type: string } | { ok: false; message: string };

const UNSCOPED = ['params', 'authorizer', 'variables'] as const;

/** Parses and type-checks an expression; variables outside the scope are refused as upstream's "undeclared reference". */
export function compileAdmissionCel(expression: string, scope: CelScope = {}): AdmissionCelResult {
  let program: ParseResult;
  try {
    program = environment().parse(expression);
  } catch (e) {
    return { ok: false, message: `compilation failed: ERROR: <input>: ${firstLine(e)}` };
  }
  const checked = program.check();
  if (!checked.valid) return { ok: false, message: `compilation failed: ERROR: <input>: ${firstLine(checked.error)}` };
  for (const v of UNSCOPED) {
    if (scope[v]) continue;
    if (new RegExp(`(^|[^.\\w])${v}\\b`).test(stripStrings(expression)))
      return { ok: false, message: `compilation failed: ERROR: <input>: undeclared reference to '${v}'` };
  }
  return { ok: true, program, type: checked.type ?? 'dyn' };
}

function stripStrings(expr: string): string {
  return expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
}

function firstLine(e: unknown): string {
  const err = (e ?? {}) as { summary?: string; message?: string };
  return (err.summary ?? String(err.message ?? e)).split('\n')[0]!;
}

/** JSON value → CEL value: integral numbers become ints (bigint), everything else keeps its shape. */
export function toCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCel);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toCel(x);
    return out;
  }
  return v;
}

/** CEL value → JSON-friendly value (ints back to numbers) for messages and annotations. */
export function fromCel(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(fromCel);
  if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), fromCel(x)]));
  if (v && typeof v === 'object' && v.constructor === Object) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromCel(x)]));
  return v;
}

/** Evaluates a compiled program under its cost limit (default: upstream's per-call limit); rejects with the evaluation error. */
export async function evalCel(program: ParseResult, ctx: Record<string, unknown>, limits: MeterOptions = {}): Promise<unknown> {
  // upstream evaluates with the request's context: its deadline (--request-timeout, ?timeout=) interrupts evaluation
  return (await evaluateMeteredAsync(program, ctx, { deadline: currentRequestDeadline(), ...limits })).value;
}
