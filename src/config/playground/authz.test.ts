import { describe, expect, test } from 'vitest';
import { API_VERSION } from '../test-support.js';
import { explainAuthorization, normalizeSubjectAccessReview, SAMPLE_SUBJECT_ACCESS_REVIEW } from './authz.js';

const webhook = (matchConditions: string[], failurePolicy = 'NoOpinion') => ({
  timeout: '3s',
  authorizedTTL: '5m',
  unauthorizedTTL: '30s',
  subjectAccessReviewVersion: 'v1',
  matchConditionSubjectAccessReviewVersion: 'v1',
  failurePolicy,
  connectionInfo: { type: 'InClusterConfig' },
  matchConditions: matchConditions.map((expression) => ({ expression })),
});

const config = {
  apiVersion: API_VERSION,
  kind: 'AuthorizationConfiguration',
  authorizers: [
    { type: 'Webhook', name: 'system-crd', webhook: webhook(["has(request.resourceAttributes)", "request.resourceAttributes.namespace == 'kube-system'"]) },
    { type: 'Webhook', name: 'not-masters', webhook: webhook(["!('system:masters' in request.groups)"], 'Deny') },
    { type: 'Node', name: 'node' },
    { type: 'RBAC', name: 'rbac' },
  ],
};

describe('explainAuthorization', () => {
  test('the sample review is selected by both webhooks, then node and rbac are consulted', () => {
    const r = explainAuthorization(config, SAMPLE_SUBJECT_ACCESS_REVIEW);
    expect(r.requestProblems).toEqual([]);
    expect(r.steps.map((s) => [s.name, s.verdict])).toEqual([
      ['system-crd', 'sent'],
      ['not-masters', 'sent'],
      ['node', 'consulted'],
      ['rbac', 'consulted'],
    ]);
    expect(r.steps[0]!.conditions).toEqual([
      { path: 'authorizers[0].webhook.matchConditions[0].expression', expression: 'has(request.resourceAttributes)', status: 'true', detail: 'true' },
      { path: 'authorizers[0].webhook.matchConditions[1].expression', expression: "request.resourceAttributes.namespace == 'kube-system'", status: 'true', detail: 'true' },
    ]);
    expect(r.summary).toBe('asked in order: system-crd → not-masters → node → rbac; the first to allow or deny decides, otherwise the request is denied');
  });

  test('a false condition skips the webhook even when another condition errors', () => {
    const review = { user: 'bob', groups: ['dev'], nonResourceAttributes: { path: '/healthz', verb: 'get' } };
    const r = explainAuthorization(config, review);
    expect(r.steps[0]).toMatchObject({ verdict: 'skipped', detail: 'not selected: has(request.resourceAttributes) is false; no opinion, the next authorizer is asked' });
    expect(r.steps[0]!.conditions.map((c) => c.status)).toEqual(['false', 'error']);
    expect(r.consulted).toEqual(['not-masters', 'node', 'rbac']);
  });

  test('an erroring condition applies the failure policy: Deny ends the chain', () => {
    const review = { user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods' } }; // no groups: the condition errors
    const r = explainAuthorization(config, review);
    expect(r.steps[1]).toMatchObject({ verdict: 'error-deny', detail: 'a match condition failed (evaluation failed: No such key: groups); failurePolicy Deny denies the request' });
    expect(r.steps.slice(2).map((s) => s.verdict)).toEqual(['unreached', 'unreached']);
    expect(r.summary).toBe('denied by not-masters: a match condition failed and failurePolicy is Deny');
  });

  test('NoOpinion on errors passes the request on', () => {
    const c = { authorizers: [{ type: 'Webhook', name: 'w', webhook: webhook(['request.user.startsWith(request.resourceAttributes.name)']) }, { type: 'RBAC', name: 'rbac' }] };
    const r = explainAuthorization(c, { user: 'bob', nonResourceAttributes: { path: '/x', verb: 'get' } });
    expect(r.steps.map((s) => s.verdict)).toEqual(['error-no-opinion', 'consulted']);
    expect(r.consulted).toEqual(['rbac']);
  });

  test('AlwaysAllow and AlwaysDeny end the chain; no conditions means every request', () => {
    const c = { authorizers: [{ type: 'Webhook', name: 'all', webhook: webhook([]) }, { type: 'AlwaysAllow', name: 'yes' }, { type: 'AlwaysDeny', name: 'no' }] };
    const r = explainAuthorization(c, SAMPLE_SUBJECT_ACCESS_REVIEW.spec);
    expect(r.steps.map((s) => s.verdict)).toEqual(['sent', 'allow', 'unreached']);
    expect(r.summary).toBe('allowed by yes (AlwaysAllow)');
  });

  test('a request no authorizer selects', () => {
    const c = { authorizers: [{ type: 'Webhook', name: 'w', webhook: webhook(['false']) }] };
    expect(explainAuthorization(c, SAMPLE_SUBJECT_ACCESS_REVIEW).summary).toBe('no authorizer selects this request: it is denied (no opinion from every authorizer)');
  });
});

describe('normalizeSubjectAccessReview', () => {
  test('v1beta1 group becomes groups', () => {
    const r = normalizeSubjectAccessReview({ apiVersion: 'authorization.k8s.io/v1beta1', kind: 'SubjectAccessReview', spec: { user: 'u', group: ['g'], nonResourceAttributes: { path: '/', verb: 'get' } } });
    expect(r).toEqual({ spec: { user: 'u', groups: ['g'], nonResourceAttributes: { path: '/', verb: 'get' } }, problems: [] });
  });

  test('problems with the review are listed', () => {
    expect(normalizeSubjectAccessReview({ kind: 'Pod', spec: {} }).problems).toEqual([
      'kind Pod is not a SubjectAccessReview',
      'set resourceAttributes or nonResourceAttributes',
      'set user or groups',
    ]);
    expect(normalizeSubjectAccessReview('x').problems).toEqual(['the review must be an object: a SubjectAccessReview or its spec']);
  });
});
