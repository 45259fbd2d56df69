// Admission webhooks against real local HTTPS servers: allow, deny, JSONPatch, timeouts, warnings, dry-run and
// side effects, selectors and match conditions, Service references, review versions.
import { beforeAll, describe, expect, it } from 'vitest';
import { objectKey } from '../../src/server/registry/keys.js';
import { encodeForStorage } from '../../src/server/registry/resource-store.js';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { AR, allow, deny, hook, makeCert, patch, WebhookServer, useWebhookFixture, type WebhookFixture } from '../helpers/webhook.js';

const f = useWebhookFixture({ san: 'IP:127.0.0.1,DNS:hook.default.svc' });
let api: ApiServer;
let c: WebhookFixture['c'];
let wh: WebhookServer;
let caBundle: string;
beforeAll(() => {
  ({ api, c, wh, caBundle } = f);
});
let n = 0;

const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1' } });
const validating = (name: string, webhooks: unknown[]) => c.post(`${AR}/validatingwebhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks });
const mutating = (name: string, webhooks: unknown[]) => c.post(`${AR}/mutatingwebhookconfigurations`, { apiVersion: 'admissionregistration.service.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name }, webhooks });
const unique = () => `cm-${++n}`;

describe('webhook configurations', () => {
  it('are served with upstream defaults under both group spellings', async () => {
    const r = await validating('defaults', [hook('a.example.com', wh.url('/a'), caBundle)]);
    expect(r.status).toBe(201);
    const h = r.body.webhooks[0];
    expect(h).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 5 });
    expect(h.rules[0].scope).toBe('*');
    const up = await c.get('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/defaults');
    expect(up.status).toBe(200);
    expect(up.body.apiVersion).toBe('admissionregistration.k8s.io/v1');
  });

  it('are validated as upstream', async () => {
    const r = await validating('bad', [
      hook('short', 'http://127.0.0.1:1/x', caBundle, { timeoutSeconds: 31, sideEffects: 'Some', admissionReviewVersions: ['v2'] }),
    ]);
    expect(r.status).toBe(422);
    const fields = r.body.details.causes.map((x: any) => x.field);
    expect(fields).toEqual(expect.arrayContaining(['webhooks[0].name', 'webhooks[0].clientConfig.url', 'webhooks[0].timeoutSeconds', 'webhooks[0].sideEffects', 'webhooks[0].admissionReviewVersions']));
    expect(r.body.message).toContain("'https' is the only allowed URL scheme");
    expect(r.body.message).toContain('the timeout value must be between 1 and 30 seconds');
  });
});

describe('calls', () => {
  it('allows, and sends an AdmissionReview v1 with the request', async () => {
    await validating('allow', [hook('allow.example.com', wh.url('/allow'), caBundle)]);
    const name = unique();
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(name));
    expect(r.status).toBe(201);
    const [review] = wh.reviewsFor('/allow');
    expect(review.apiVersion).toBe('admission.k8s.io/v1'); // webhooks see upstream's spelling
    expect(review.request).toMatchObject({ operation: 'CREATE', name, namespace: 'default', dryRun: false, kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { resource: 'configmaps' } });
    expect(review.request.object.data).toEqual({ a: '1' });
  });

  it('denies with the webhook message and status code', async () => {
    await validating('deny', [hook('deny.example.com', wh.url('/deny'), caBundle)]);
    wh.reply = (r) => deny(r, { code: 403, reason: 'Forbidden', message: 'configmaps are not welcome' });
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(unique()));
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Forbidden', message: 'admission webhook "deny.example.com" denied the request: configmaps are not welcome' });
    wh.reply = (rv) => deny(rv, {});
    const r2 = await c.post('/api/v1/namespaces/default/configmaps', cm(unique()));
    expect(r2.status).toBe(400);
    expect(r2.body.message).toBe('admission webhook "deny.example.com" denied the request without explanation');
  });

  it('mutates by JSONPatch, before schema validation', async () => {
    await mutating('mutate', [hook('mutate.example.com', wh.url('/mutate'), caBundle)]);
    wh.reply = (r) => patch(r, [{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }, { op: 'replace', path: '/data/a', value: 'patched' }]);
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(unique(), { keep: 'me' }));
    expect(r.status).toBe(201);
    expect(r.body.metadata.labels).toEqual({ keep: 'me', mutated: 'yes' });
    expect(r.body.data).toEqual({ a: 'patched' });
  });

  it('re-invokes IfNeeded webhooks when a later webhook changed the object', async () => {
    await mutating('reinvoke', [
      hook('first.example.com', wh.url('/first'), caBundle, { reinvocationPolicy: 'IfNeeded' }),
      hook('second.example.com', wh.url('/second'), caBundle),
    ]);
    wh.reply = (r, path) => (path === '/second' && !r.request.object.metadata.labels?.second ? patch(r, [{ op: 'add', path: '/metadata/labels', value: { second: 'x' } }]) : allow(r));
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(unique()));
    expect(r.status).toBe(201);
    expect(wh.reviewsFor('/first')).toHaveLength(2);
    expect(wh.reviewsFor('/second')).toHaveLength(1);
    expect(wh.reviewsFor('/first')[1].request.object.metadata.labels).toEqual({ second: 'x' });
  });

  it('times out: Fail rejects, Ignore admits', async () => {
    wh.reply = (r) => new Promise((res) => setTimeout(() => res(allow(r)), 3000));
    await validating('slow', [hook('slow.example.com', wh.url('/slow'), caBundle, { timeoutSeconds: 1 })]);
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(unique()));
    expect(r.status).toBe(500);
    expect(r.body.message).toMatch(/failed calling webhook "slow.example.com": failed to call webhook: Post "https:\/\/127.0.0.1:\d+\/slow\?timeout=1s": context deadline exceeded/);
    await c.del(`${AR}/validatingwebhookconfigurations/slow`);
    await validating('slow-ignore', [hook('slow.example.com', wh.url('/slow'), caBundle, { timeoutSeconds: 1, failurePolicy: 'Ignore' })]);
    expect((await c.post('/api/v1/namespaces/default/configmaps', cm(unique()))).status).toBe(201);
  });

  it('fails closed on a certificate the caBundle does not trust', async () => {
    const other = makeCert('IP:127.0.0.1');
    await validating('untrusted', [hook('untrusted.example.com', wh.url('/u'), other.cert.caBundle)]);
    other.cleanup();
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(unique()));
    expect(r.status).toBe(500);
    expect(r.body.message).toContain('failed calling webhook "untrusted.example.com"');
    expect(wh.reviewsFor('/u')).toHaveLength(0);
  });

  it('surfaces warnings as Warning headers, shown by kubectl', async () => {
    await validating('warn', [hook('warn.example.com', wh.url('/warn'), caBundle)]);
    wh.reply = (r) => allow(r, { warnings: ['this configmap is deprecated'] });
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(unique()));
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toContain('this configmap is deprecated');
    const kc = kubeconfigFor(api.url);
    const k = await kubectl(kc, ['create', 'configmap', unique()]);
    expect(k.code).toBe(0);
    expect(k.stderr).toContain('Warning: this configmap is deprecated');
  });

  it('reaches a webhook through a Service and its Endpoints', async () => {
    await c.post('/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { ports: [{ port: 443, targetPort: wh.port }] } });
    await c.post('/api/v1/namespaces/default/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hook' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: wh.port }] }] });
    await validating('svc', [{ ...hook('svc.example.com', '', caBundle), clientConfig: { service: { namespace: 'default', name: 'hook', path: '/via-service' }, caBundle } }]);
    wh.reply = (r) => deny(r, { message: 'via service' });
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(unique()));
    expect(r.body.message).toBe('admission webhook "svc.example.com" denied the request: via service');
    expect(wh.reviewsFor('/via-service')).toHaveLength(1);
  });

  it('sends v1beta1 reviews to webhooks that only list v1beta1', async () => {
    await validating('beta', [hook('beta.example.com', wh.url('/beta'), caBundle, { admissionReviewVersions: ['v1beta1'] })]);
    expect((await c.post('/api/v1/namespaces/default/configmaps', cm(unique()))).status).toBe(201);
    expect(wh.reviewsFor('/beta')[0].apiVersion).toBe('admission.k8s.io/v1beta1');
  });
});

describe('what a mutating webhook may not change (checked once after mutating admission, as upstream)', () => {
  it('a namespace changed on create is 400 and nothing is stored in the other namespace', async () => {
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other-ns' } });
    await mutating('move', [hook('move.example.com', wh.url('/move'), caBundle)]);
    wh.reply = (r) => patch(r, [{ op: 'replace', path: '/metadata/namespace', value: 'other-ns' }]);
    const name = unique();
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(name));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
    expect((await c.get(`/api/v1/namespaces/other-ns/configmaps/${name}`)).status).toBe(404);
  });

  it('system fields a webhook sets on create are assigned by the server', async () => {
    await mutating('uid', [hook('uid.example.com', wh.url('/uid'), caBundle)]);
    const fixed = '11111111-2222-3333-4444-555555555555';
    wh.reply = (r) =>
      patch(r, [
        { op: 'add', path: '/metadata/uid', value: fixed },
        { op: 'add', path: '/metadata/creationTimestamp', value: '2001-01-01T00:00:00Z' },
        { op: 'add', path: '/metadata/deletionTimestamp', value: '2001-01-01T00:00:00Z' },
        { op: 'add', path: '/metadata/resourceVersion', value: '42' },
      ]);
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(unique()));
    expect(r.status).toBe(201);
    expect(r.body.metadata.uid).not.toBe(fixed);
    expect(r.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.metadata.creationTimestamp).not.toBe('2001-01-01T00:00:00Z');
    expect(r.body.metadata.deletionTimestamp).toBeUndefined();
    expect(r.body.metadata.resourceVersion).not.toBe('42');
  });

  it('a name changed on create is refused; a name for a generateName create is allowed', async () => {
    await mutating('rename', [hook('rename.example.com', wh.url('/rename'), caBundle)]);
    wh.reply = (r) => patch(r, [{ op: 'replace', path: '/metadata/name', value: 'renamed-by-hook' }]);
    const name = unique();
    const r = await c.post('/api/v1/namespaces/default/configmaps', cm(name));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(`the name of the object (renamed-by-hook) does not match the name on the request (${name})`);
    expect((await c.get('/api/v1/namespaces/default/configmaps/renamed-by-hook')).status).toBe(404);
    wh.reply = (r) => patch(r, [{ op: 'add', path: '/metadata/name', value: `gen-${name}` }]);
    const gen = await c.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'g-' } });
    expect(gen.status).toBe(201);
    expect(gen.body.metadata.name).toBe(`gen-${name}`);
  });

  it('on update (PUT, PATCH, apply) the name is immutable (422) and the namespace must match (400)', async () => {
    const name = unique();
    const created = (await c.post('/api/v1/namespaces/default/configmaps', cm(name))).body;
    await mutating('upd', [hook('upd.example.com', wh.url('/upd'), caBundle)]);
    wh.reply = (r) => patch(r, [{ op: 'replace', path: '/metadata/name', value: 'other-name' }]);
    const path = `/api/v1/namespaces/default/configmaps/${name}`;
    const put = await c.put(path, { ...created, data: { a: '2' } });
    expect(put.status).toBe(422);
    expect(put.body.details.causes[0]).toMatchObject({ field: 'metadata.name', message: 'Invalid value: "other-name": field is immutable' });
    const merge = await c.patch(path, { data: { a: '3' } }, 'application/merge-patch+json');
    expect(merge.status).toBe(422);
    const apply = await c.patch(`${path}?fieldManager=t&force=true`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '4' } }, 'application/apply-patch+yaml');
    expect(apply.status).toBe(422);
    wh.reply = (r) => patch(r, [{ op: 'replace', path: '/metadata/namespace', value: 'kube-system' }]);
    expect((await c.patch(path, { data: { a: '5' } }, 'application/merge-patch+json')).status).toBe(400);
    wh.reply = (r) => patch(r, [{ op: 'replace', path: '/metadata/uid', value: 'changed' }]);
    expect((await c.patch(path, { data: { a: '6' } }, 'application/merge-patch+json')).status).toBe(422);
    const stored = (await c.get(path)).body;
    expect(stored.metadata).toMatchObject({ name, namespace: 'default', uid: created.metadata.uid });
    expect(stored.data).toEqual({ a: '1' });
    expect((await c.get('/api/v1/namespaces/default/configmaps/other-name')).status).toBe(404);
  });
});

describe('dry-run and side effects', () => {
  it('None and NoneOnDryRun webhooks are called with dryRun: true; nothing is stored', async () => {
    await validating('dry', [
      hook('none.example.com', wh.url('/none'), caBundle, { sideEffects: 'None' }),
      hook('noneondryrun.example.com', wh.url('/nodry'), caBundle, { sideEffects: 'NoneOnDryRun' }),
    ]);
    const name = unique();
    const r = await c.post('/api/v1/namespaces/default/configmaps?dryRun=All', cm(name));
    expect(r.status).toBe(201);
    expect(wh.reviewsFor('/none')[0].request.dryRun).toBe(true);
    expect(wh.reviewsFor('/nodry')[0].request.dryRun).toBe(true);
    expect((await c.get(`/api/v1/namespaces/default/configmaps/${name}`)).status).toBe(404);
  });

  it('a dry-run request that would call a webhook with side effects Some or Unknown fails (stored v1beta1-era objects)', async () => {
    // v1 refuses Some/Unknown (see the validation test); an object stored by an older server can still hold them.
    for (const sideEffects of ['Some', 'Unknown']) {
      const name = `legacy-${sideEffects.toLowerCase()}`;
      const obj = {
        apiVersion: 'admissionregistration.service.io/v1', kind: 'ValidatingWebhookConfiguration',
        metadata: { name, uid: `uid-${name}`, creationTimestamp: new Date().toISOString() },
        webhooks: [{ ...hook(`${sideEffects.toLowerCase()}.example.com`, wh.url('/se'), caBundle), sideEffects, failurePolicy: 'Fail', matchPolicy: 'Equivalent' }],
      };
      await api.store.create(objectKey({ group: 'admissionregistration.service.io', plural: 'validatingwebhookconfigurations', scope: 'Cluster' }, undefined, name), encodeForStorage(obj as never));
      const calls = wh.reviewsFor('/se').length;
      const dry = await c.post('/api/v1/namespaces/default/configmaps?dryRun=All', cm(unique()));
      expect(dry.status).toBe(400);
      expect(dry.body.message).toBe(`admission webhook "${sideEffects.toLowerCase()}.example.com" does not support dry run`);
      expect(wh.reviewsFor('/se')).toHaveLength(calls);
      // the real request calls it
      expect((await c.post('/api/v1/namespaces/default/configmaps', cm(unique()))).status).toBe(201);
      await c.del(`${AR}/validatingwebhookconfigurations/${name}`);
    }
    expect(wh.reviewsFor('/se')).toHaveLength(2);
  });
});

describe('matching', () => {
  it('objectSelector, namespaceSelector and CEL matchConditions pick the requests a webhook sees', async () => {
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched', labels: { team: 'a' } } });
    await validating('sel', [
      hook('objsel.example.com', wh.url('/objsel'), caBundle, { objectSelector: { matchLabels: { check: 'yes' } } }),
      hook('nssel.example.com', wh.url('/nssel'), caBundle, { namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] } }),
      hook('cel.example.com', wh.url('/cel'), caBundle, { matchConditions: [{ name: 'not-skipped', expression: "!('skip' in object.data)" }, { name: 'creates', expression: "request.operation == 'CREATE'" }] }),
    ]);
    await c.post('/api/v1/namespaces/default/configmaps', cm(unique(), { check: 'yes' }));
    await c.post('/api/v1/namespaces/watched/configmaps', cm(unique()));
    await c.post('/api/v1/namespaces/default/configmaps', { ...cm(unique()), data: { skip: '1' } });
    expect(wh.reviewsFor('/objsel')).toHaveLength(1);
    expect(wh.reviewsFor('/nssel')).toHaveLength(1);
    expect(wh.reviewsFor('/nssel')[0].request.namespace).toBe('watched');
    expect(wh.reviewsFor('/cel')).toHaveLength(2);
  });

  it('rules match sub-resources and scope; the webhook configurations themselves are exempt', async () => {
    await validating('rules', [
      hook('sub.example.com', wh.url('/sub'), caBundle, { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/status'], scope: 'Namespaced' }] }),
      hook('all.example.com', wh.url('/all'), caBundle, { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Cluster' }] }),
    ]);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'x' }] } };
    const created = await c.post('/api/v1/namespaces/default/pods', pod);
    expect(created.status).toBe(201);
    expect(wh.reviewsFor('/sub')).toHaveLength(0);
    const st = await c.put('/api/v1/namespaces/default/pods/p1/status', { ...created.body, status: { phase: 'Running' } });
    expect(st.status).toBe(200);
    expect(wh.reviewsFor('/sub')).toHaveLength(1);
    expect(wh.reviewsFor('/sub')[0].request.subResource).toBe('status');
    expect(wh.reviewsFor('/all')).toHaveLength(0);
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cluster-scoped' } });
    expect(wh.reviewsFor('/all').map((r) => r.request.resource.resource)).toEqual(['namespaces']);
    await validating('exempt', [hook('exempt.example.com', wh.url('/all'), caBundle)]);
    expect(wh.reviewsFor('/all')).toHaveLength(1);
  });
});

describe('kubectl', () => {
  it('applies a ValidatingWebhookConfiguration that then changes what the server admits', async () => {
    const kc = kubeconfigFor(api.url);
    wh.reply = (r) => deny(r, { message: 'no configmaps today' });
    const manifest = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: kubectl-applied
webhooks:
- name: kubectl.example.com
  clientConfig:
    url: ${wh.url('/kubectl')}
    caBundle: ${caBundle}
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
  sideEffects: None
  admissionReviewVersions: ["v1"]
`;
    const applied = await kubectl(kc, ['apply', '-f', '-'], manifest);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('validatingwebhookconfiguration.admissionregistration.k8s.io/kubectl-applied created');
    const denied = await kubectl(kc, ['create', 'configmap', unique()]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('admission webhook "kubectl.example.com" denied the request: no configmaps today');
  });
});
