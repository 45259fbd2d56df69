// ValidatingAdmissionPolicy: CEL validations through bindings, params, validationActions, failurePolicy,
// matchConditions, messageExpression, namespaceObject and authorizer.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import type { AuthorizerAttributes } from '../../src/server/admission/cel.js';
import { client } from '../helpers/server.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { startServer } from '../../src/server/app.js';
import { AR } from '../helpers/webhook.js';

let api: ApiServer;
let c: ReturnType<typeof client>;
const checks: AuthorizerAttributes[] = [];

beforeAll(async () => {
  // the authorizer seam: allow everything but "delete" on secrets
  api = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 },
    {
      authorizer: async (a) => {
        checks.push(a);
        return a.resource === 'secrets' && a.verb === 'delete' ? { decision: 'deny', reason: 'no secrets deletion' } : { decision: 'allow', reason: '' };
      },
    },
  );
  c = client(api.url);
  // the bootstrap `default` namespace exists: label it as the policy below expects
  await c.patch('/api/v1/namespaces/default', { metadata: { labels: { env: 'prod' } } }, 'application/merge-patch+json');
});
afterAll(() => api.close());
afterEach(async () => {
  await c.del(`${AR}/validatingadmissionpolicybindings`);
  await c.del(`${AR}/validatingadmissionpolicies`);
});

let n = 0;
const cm = (data: Record<string, string>, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${++n}`, labels }, data });
const cmRules = { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };

async function policy(name: string, spec: Record<string, unknown>) {
  const r = await c.post(`${AR}/validatingadmissionpolicies`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints: cmRules, ...spec } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}
async function binding(name: string, spec: Record<string, unknown>) {
  const r = await c.post(`${AR}/validatingadmissionpolicybindings`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}
const create = (o: unknown) => c.post('/api/v1/namespaces/default/configmaps', o);

describe('ValidatingAdmissionPolicy', () => {
  it('validates and defaults policies and bindings as upstream', async () => {
    const bad = await c.post(`${AR}/validatingadmissionpolicies`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'bad' }, spec: { validations: [{ expression: 'object.data.size() <' }, { expression: 'params.x == 1' }] } });
    expect(bad.status).toBe(422);
    const fields = bad.body.details.causes.map((x: any) => x.field);
    expect(fields).toEqual(expect.arrayContaining(['spec.matchConstraints', 'spec.validations[0].expression', 'spec.validations[1].expression']));
    expect(bad.body.message).toContain("undeclared reference to 'params'");
    const b = await c.post(`${AR}/validatingadmissionpolicybindings`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny', 'Warn'] } });
    expect(b.status).toBe(422);
    expect(b.body.message).toContain('must not contain both Deny and Warn');
    const p = await policy('defaults', { validations: [{ expression: 'true' }] });
    expect(p.spec.failurePolicy).toBe('Fail');
    expect(p.spec.matchConstraints).toMatchObject({ matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
    expect(p.spec.matchConstraints.resourceRules[0].scope).toBe('*');
  });

  it('Deny rejects with upstream status; message, messageExpression and reason', async () => {
    await policy('small', {
      validations: [
        { expression: "size(object.data) <= 2", message: 'too many keys' },
        { expression: "!('forbidden' in object.data)", messageExpression: "'key forbidden in ' + object.metadata.name", reason: 'Forbidden' },
        { expression: "!('bad' in object.data)" },
      ],
    });
    await binding('small-binding', { policyName: 'small', validationActions: ['Deny'] });
    expect((await create(cm({ a: '1' }))).status).toBe(201);
    const many = await create(cm({ a: '1', b: '2', c: '3' }));
    expect(many.status).toBe(422);
    expect(many.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
    expect(many.body.message).toBe(`configmaps "cm-${n}" is forbidden: ValidatingAdmissionPolicy 'small' with binding 'small-binding' denied request: too many keys`);
    const forb = await create(cm({ forbidden: 'x' }));
    expect(forb.status).toBe(403);
    expect(forb.body.message).toContain(`denied request: key forbidden in cm-${n}`);
    const plain = await create(cm({ bad: 'x' }));
    expect(plain.body.message).toContain("denied request: failed expression: !('bad' in object.data)");
  });

  it('Warn adds a warning and admits; Audit admits silently', async () => {
    await policy('warned', { validations: [{ expression: "!('old' in object.data)", message: 'old is deprecated' }] });
    await binding('warned-binding', { policyName: 'warned', validationActions: ['Warn', 'Audit'] });
    const r = await create(cm({ old: '1' }));
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toContain("Validation failed for ValidatingAdmissionPolicy 'warned' with binding 'warned-binding': old is deprecated");
    const k = await kubectl(kubeconfigFor(api.url), ['create', 'configmap', 'kubectl-warned', '--from-literal=old=1']);
    expect(k.code).toBe(0);
    expect(k.stderr).toContain('old is deprecated');
  });

  it('params through paramRef by name and selector, with parameterNotFoundAction', async () => {
    await c.post('/api/v1/namespaces/default/configmaps', cm({ max: '1' }, { limits: 'yes' }));
    const paramName = `cm-${n}`;
    await policy('limits', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'size(object.data) <= int(params.data.max)', messageExpression: "'at most ' + params.data.max + ' keys'" }],
      // the params object itself is not checked
      matchConditions: [{ name: 'not-params', expression: "!has(object.metadata.labels) || !('limits' in object.metadata.labels)" }],
    });
    await binding('by-name', { policyName: 'limits', validationActions: ['Deny'], paramRef: { name: paramName, namespace: 'default' } });
    expect((await create(cm({ a: '1' }))).status).toBe(201);
    const over = await create(cm({ a: '1', b: '2' }));
    expect(over.status).toBe(422);
    expect(over.body.message).toContain('denied request: at most 1 keys');
    await c.del(`${AR}/validatingadmissionpolicybindings/by-name`);
    await binding('missing', { policyName: 'limits', validationActions: ['Deny'], paramRef: { name: 'nope', parameterNotFoundAction: 'Deny' } });
    const missing = await create(cm({ a: '1' }));
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain('no params found for policy binding with `Deny` parameterNotFoundAction');
    await c.del(`${AR}/validatingadmissionpolicybindings/missing`);
    await binding('allow-missing', { policyName: 'limits', validationActions: ['Deny'], paramRef: { name: 'nope', parameterNotFoundAction: 'Allow' } });
    expect((await create(cm({ a: '1', b: '2' }))).status).toBe(201);
    await c.del(`${AR}/validatingadmissionpolicybindings/allow-missing`);
    await binding('by-selector', { policyName: 'limits', validationActions: ['Deny'], paramRef: { selector: { matchLabels: { limits: 'yes' } }, parameterNotFoundAction: 'Deny' } });
    expect((await create(cm({ a: '1', b: '2' }))).status).toBe(422);
  });

  it('failurePolicy decides on evaluation errors; namespaceObject, request and authorizer are available', async () => {
    await policy('errors', { failurePolicy: 'Ignore', validations: [{ expression: "object.data.missing == 'x'" }] });
    await binding('errors-binding', { policyName: 'errors', validationActions: ['Deny'] });
    expect((await create(cm({ a: '1' }))).status).toBe(201);
    await c.del(`${AR}/validatingadmissionpolicies/errors`);
    await policy('errors', { validations: [{ expression: "object.data.missing == 'x'" }] });
    const failed = await create(cm({ a: '1' }));
    expect(failed.status).toBe(422);
    expect(failed.body.message).toContain("expression 'object.data.missing == 'x'' resulted in error");
    await c.del(`${AR}/validatingadmissionpolicies/errors`);

    await policy('context', {
      validations: [
        { expression: "namespaceObject.metadata.labels.env == 'prod' && request.operation == 'CREATE' && request.userInfo.username != ''" },
        { expression: "authorizer.group('').resource('secrets').namespace('default').check('delete').allowed()", message: 'user may not delete secrets' },
      ],
    });
    await binding('context-binding', { policyName: 'context', validationActions: ['Deny'] });
    const r = await create(cm({ a: '1' }));
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('user may not delete secrets');
    expect(checks.some((a) => a.resource === 'secrets' && a.verb === 'delete' && a.namespace === 'default')).toBe(true);
  });

  it('binding matchResources narrows the policy; dry-run requests are checked too', async () => {
    await policy('narrow', { validations: [{ expression: 'false', message: 'never' }] });
    await binding('narrow-binding', { policyName: 'narrow', validationActions: ['Deny'], matchResources: { objectSelector: { matchLabels: { strict: 'yes' } } } });
    expect((await create(cm({ a: '1' }))).status).toBe(201);
    const strict = await c.post('/api/v1/namespaces/default/configmaps?dryRun=All', cm({ a: '1' }, { strict: 'yes' }));
    expect(strict.status).toBe(422);
    expect(strict.body.message).toContain('denied request: never');
  });

  it('type-checks expressions against the matched kinds and reports warnings in status', async () => {
    await policy('typed', {
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] },
      validations: [
        { expression: 'object.spec.replicas <= 5' },
        { expression: 'object.spec.replica <= 5' },
        { expression: "object.spec.replicas == 'three'" },
        { expression: 'object.spec.template.spec.containers.all(c, c.image.startsWith("registry/"))' },
      ],
    });
    let status: any;
    for (let i = 0; i < 200 && !status?.typeChecking; i++) {
      status = (await c.get(`${AR}/validatingadmissionpolicies/typed`)).body.status;
      if (!status?.typeChecking) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status.observedGeneration).toBe(1);
    const warnings = status.typeChecking.expressionWarnings;
    expect(warnings.map((w: any) => w.fieldRef)).toEqual(['spec.validations[1].expression', 'spec.validations[2].expression']);
    expect(warnings[0].warning).toMatch(/^apps\/v1, Kind=Deployment: ERROR: <input>: .*replica/);
  });

  it('kubectl applies (and re-applies) a policy and its binding, which then change what the server admits', async () => {
    const kc = kubeconfigFor(api.url);
    const manifest = (max: number) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: kubectl-policy
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["configmaps"]
  validations:
  - expression: "!has(object.data) || size(object.data) <= ${max}"
    message: "at most ${max} keys"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: kubectl-binding
spec:
  policyName: kubectl-policy
  validationActions: [Deny]
`;
    const first = await kubectl(kc, ['apply', '-f', '-'], manifest(1));
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain('validatingadmissionpolicy.admissionregistration.k8s.io/kubectl-policy created');
    expect(first.stdout).toContain('validatingadmissionpolicybinding.admissionregistration.k8s.io/kubectl-binding created');
    const denied = await kubectl(kc, ['create', 'configmap', 'two-keys', '--from-literal=a=1', '--from-literal=b=2']);
    expect(denied.stderr).toContain("ValidatingAdmissionPolicy 'kubectl-policy' with binding 'kubectl-binding' denied request: at most 1 keys");
    const again = await kubectl(kc, ['apply', '-f', '-'], manifest(2));
    expect(again.stderr).toBe('');
    expect(again.stdout).toContain('validatingadmissionpolicy.admissionregistration.k8s.io/kubectl-policy configured');
    expect((await kubectl(kc, ['create', 'configmap', 'two-keys', '--from-literal=a=1', '--from-literal=b=2'])).code).toBe(0);
  });
});
