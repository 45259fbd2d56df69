// Walks a SubjectAccessReview through an AuthorizationConfiguration's chain: for each authorizer in
// order, whether it sees the request (webhook match conditions evaluated with the same CEL
// environment validation uses) and what that means for the chain. In-process authorizers that
// depend on cluster state (RBAC, Node, ABAC) are reported as consulted, not decided.

import { child, index } from '../problems.js';
import { asList, asObject, asString, isPlainObject } from '../structural.js';
import { evaluateCel, showValue } from './cel-eval.js';

export interface SarNormalization {
  /** The v1 SubjectAccessReview spec match conditions see as `request`. */
  spec: Record<string, unknown>;
  problems: string[];
}

const SAR_KINDS = new Set(['SubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectAccessReview']);

/**
 * Accepts a whole SubjectAccessReview (v1 or v1beta1) or just its spec. v1beta1 spells the group
 * list `group`; it is converted to v1 (`groups`), as the server does before evaluating conditions.
 */
export function normalizeSubjectAccessReview(input: unknown): SarNormalization {
  const problems: string[] = [];
  if (!isPlainObject(input)) return { spec: {}, problems: ['the review must be an object: a SubjectAccessReview or its spec'] };
  let spec: Record<string, unknown> = input;
  let v1beta1 = false;
  if (typeof input.kind === 'string' || 'spec' in input) {
    if (typeof input.kind === 'string' && !SAR_KINDS.has(input.kind)) problems.push(`kind ${input.kind} is not a SubjectAccessReview`);
    spec = asObject(input.spec) ?? {};
    v1beta1 = typeof input.apiVersion === 'string' && input.apiVersion.endsWith('/v1beta1');
  }
  spec = structuredClone(spec);
  if (v1beta1 && 'group' in spec) {
    spec.groups = spec.group;
    delete spec.group;
  }
  const hasRes = isPlainObject(spec.resourceAttributes);
  const hasNonRes = isPlainObject(spec.nonResourceAttributes);
  if (hasRes && hasNonRes) problems.push('set only one of resourceAttributes and nonResourceAttributes');
  if (!hasRes && !hasNonRes) problems.push('set resourceAttributes or nonResourceAttributes');
  if (!asString(spec.user) && asList(spec.groups).length === 0) problems.push('set user or groups');
  return { spec, problems };
}

export interface ConditionResult {
  path: string;
  expression: string;
  status: 'true' | 'false' | 'error';
  detail: string;
}

export type AuthorizerVerdict =
  /** AlwaysAllow / AlwaysDeny: decides and ends the chain. */
  | 'allow'
  | 'deny'
  /** The webhook is called; its answer decides or passes the request on. */
  | 'sent'
  /** The match conditions do not select the request: no opinion, the chain continues. */
  | 'skipped'
  /** A condition failed to evaluate: the failure policy decides. */
  | 'error-deny'
  | 'error-no-opinion'
  /** An in-process authorizer decides from cluster state, which the playground does not have. */
  | 'consulted'
  /** Never reached: an earlier authorizer ended the chain. */
  | 'unreached';

export interface AuthorizerStep {
  index: number;
  path: string;
  name: string;
  type: string;
  verdict: AuthorizerVerdict;
  conditions: ConditionResult[];
  detail: string;
}

export interface AuthorizationEvaluation {
  request: Record<string, unknown>;
  requestProblems: string[];
  steps: AuthorizerStep[];
  /** Names of the authorizers that would be asked, in order, until one ends the chain. */
  consulted: string[];
  summary: string;
}

function evaluateConditions(conditions: unknown, request: Record<string, unknown>, path: string): ConditionResult[] {
  return asList(conditions).map((item, i) => {
    const expression = asString(asObject(item)?.expression) ?? '';
    const p = child(index(child(path, 'matchConditions'), i), 'expression');
    if (expression === '') return { path: p, expression, status: 'error', detail: 'empty expression' };
    const r = evaluateCel('matchCondition', expression, { request });
    if (!r.ok) return { path: p, expression, status: 'error', detail: r.error };
    if (r.value === true) return { path: p, expression, status: 'true', detail: 'true' };
    if (r.value === false) return { path: p, expression, status: 'false', detail: 'false' };
    return { path: p, expression, status: 'error', detail: `the expression produced ${showValue(r.value)}, not a bool` };
  });
}

function webhookStep(webhook: Record<string, unknown>, request: Record<string, unknown>, path: string): Pick<AuthorizerStep, 'verdict' | 'conditions' | 'detail'> {
  const conditions = evaluateConditions(webhook.matchConditions, request, path);
  if (conditions.length === 0) return { verdict: 'sent', conditions, detail: 'no match conditions: every request is sent to the webhook' };
  // Any false condition means "no match", even when another one errors.
  const falseOne = conditions.find((c) => c.status === 'false');
  if (falseOne) return { verdict: 'skipped', conditions, detail: `not selected: ${falseOne.expression} is false; no opinion, the next authorizer is asked` };
  const errored = conditions.find((c) => c.status === 'error');
  if (errored) {
    const deny = asString(webhook.failurePolicy) === 'Deny';
    return {
      verdict: deny ? 'error-deny' : 'error-no-opinion',
      conditions,
      detail: `a match condition failed (${errored.detail}); failurePolicy ${deny ? 'Deny denies the request' : 'NoOpinion passes it to the next authorizer'}`,
    };
  }
  return { verdict: 'sent', conditions, detail: 'all match conditions are true: the request is sent to the webhook' };
}

const ASKED = new Set<AuthorizerVerdict>(['allow', 'deny', 'sent', 'consulted', 'error-deny']);

/** Evaluates a review (a SubjectAccessReview or its spec) against the authorizer chain. */
export function explainAuthorization(config: unknown, review: unknown): AuthorizationEvaluation {
  const { spec: request, problems } = normalizeSubjectAccessReview(review);
  const steps: AuthorizerStep[] = [];
  let endedBy: AuthorizerStep | undefined;
  asList(asObject(config)?.authorizers).forEach((item, i) => {
    const a = asObject(item) ?? {};
    const path = index('authorizers', i);
    const type = asString(a.type) ?? '';
    const name = asString(a.name) ?? '';
    const base = { index: i, path, name, type, conditions: [] as ConditionResult[] };
    if (endedBy) {
      steps.push({ ...base, verdict: 'unreached', detail: `not reached: ${endedBy.name || endedBy.type} already decided` });
      return;
    }
    let step: AuthorizerStep;
    switch (type) {
      case 'AlwaysAllow':
        step = { ...base, verdict: 'allow', detail: 'allows every request; the chain ends here' };
        break;
      case 'AlwaysDeny':
        step = { ...base, verdict: 'deny', detail: 'denies every request; the chain ends here' };
        break;
      case 'Webhook':
        step = { ...base, ...webhookStep(asObject(a.webhook) ?? {}, request, child(path, 'webhook')) };
        break;
      default:
        step = { ...base, verdict: 'consulted', detail: `${type || 'this authorizer'} decides from cluster state (not simulated); with no opinion the next authorizer is asked` };
    }
    steps.push(step);
    if (step.verdict === 'allow' || step.verdict === 'deny' || step.verdict === 'error-deny') endedBy = step;
  });
  const consulted = steps.filter((s) => ASKED.has(s.verdict)).map((s) => s.name || s.type);
  let summary: string;
  if (steps.length === 0) summary = 'the configuration has no authorizers';
  else if (endedBy?.verdict === 'allow') summary = `allowed by ${endedBy.name} (AlwaysAllow)`;
  else if (endedBy?.verdict === 'deny') summary = `denied by ${endedBy.name} (AlwaysDeny)`;
  else if (endedBy?.verdict === 'error-deny') summary = `denied by ${endedBy.name}: a match condition failed and failurePolicy is Deny`;
  else if (consulted.length === 0) summary = 'no authorizer selects this request: it is denied (no opinion from every authorizer)';
  else summary = `asked in order: ${consulted.join(' → ')}; the first to allow or deny decides, otherwise the request is denied`;
  return { request, requestProblems: problems, steps, consulted, summary };
}

/** A sample review the playground starts from. */
export const SAMPLE_SUBJECT_ACCESS_REVIEW = {
  apiVersion: 'authorization.service.io/v1',
  kind: 'SubjectAccessReview',
  spec: {
    user: 'jane@example.com',
    groups: ['developers', 'system:authenticated'],
    resourceAttributes: { namespace: 'kube-system', verb: 'get', group: '', version: 'v1', resource: 'secrets', name: 'db-password' },
  },
};
