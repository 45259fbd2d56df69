// Every write goes through one pipeline (issue 31), so admission webhooks see them all, in upstream's order:
// pods/binding and pods/eviction creates, eviction's PodDisruptionBudget status update (as the API server's
// loopback user), controller writes (as the component's user), deletes (with the user and the DeleteOptions),
// and the RBAC reconciliation at start. Mutating webhooks' changes are stored on those writes; what upstream's
// PrepareForCreate decides (status on create) is applied after mutating admission.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../deletion/support.js';
import { API_SERVER_CONTROLLERS, client, testServer } from '../helpers/server.js';
import { AR, allow, hook, patch, useWebhookFixture, type WebhookFixture } from '../helpers/webhook.js';

const f = useWebhookFixture({ flags: { controllers: [...API_SERVER_CONTROLLERS, 'replicaset-controller'] } });
let c: WebhookFixture['c'];
let me: string;
beforeAll(async () => {
  c = f.c;
  // the user this test's requests act as
  const who = await c.post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  me = who.body.status.userInfo.username;
});

const NS = 'default';
const pods = `/api/v1/namespaces/${NS}/pods`;
const pdbs = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;
type Rule = { operations: string[]; apiGroups: string[]; apiVersions?: string[]; resources: string[] };
const rule = (operations: string[], apiGroups: string[], resources: string[]): Rule => ({ operations, apiGroups, apiVersions: ['*'], resources });

async function webhooks(kind: 'validating' | 'mutating', path: string, rules: Rule[]) {
  const plural = kind === 'validating' ? 'validatingwebhookconfigurations' : 'mutatingwebhookconfigurations';
  const Kind = kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
  const r = await c.post(`${AR}/${plural}`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: Kind, metadata: { name: `${kind}${path.replace(/\//g, '-')}` }, webhooks: [hook(`${path.slice(1)}.${kind}.example.com`, f.wh.url(path), f.caBundle, { rules })] });
  expect(r.status, r.text).toBe(201);
}

const requests = (path: string, pred: (req: any) => boolean = () => true) => f.wh.reviewsFor(path).map((r) => r.request).filter(pred);

const pod = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

async function runningPod(name: string, labels: Record<string, string>) {
  const made = await c.post(pods, pod(name, labels));
  expect(made.status, made.text).toBe(201);
  const s = await c.put(`${pods}/${name}/status`, { ...made.body, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
  expect(s.status, s.text).toBe(200);
}

describe('admission webhooks see every write path', () => {
  it('pods/binding: a CREATE of kind v1 Binding by the requester; a mutating webhook annotation reaches the pod', async () => {
    await webhooks('validating', '/bind-v', [rule(['CREATE'], [''], ['pods/binding'])]);
    await webhooks('mutating', '/bind-m', [rule(['CREATE'], [''], ['pods/binding'])]);
    f.wh.reply = (r, path) => (path === '/bind-m' ? patch(r, [{ op: 'add', path: '/metadata/annotations', value: { 'mutated-by': 'webhook' } }]) : allow(r));
    expect((await c.post(pods, pod('bound'))).status).toBe(201);
    const b = await c.post(`${pods}/bound/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound' }, target: { kind: 'Node', name: 'node-1' } });
    expect(b.status, b.text).toBe(201);
    const [seen] = requests('/bind-v');
    expect(seen).toMatchObject({ operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'Binding' }, resource: { resource: 'pods' }, subResource: 'binding', name: 'bound', namespace: NS });
    expect(seen.userInfo.username).toBe(me);
    expect(seen.object).toMatchObject({ kind: 'Binding', target: { name: 'node-1' }, metadata: { annotations: { 'mutated-by': 'webhook' } } });
    const got = await c.get(`${pods}/bound`);
    expect(got.body.spec.nodeName).toBe('node-1');
    expect(got.body.metadata.annotations).toMatchObject({ 'mutated-by': 'webhook' });
  });

  it('pods/binding: a validating webhook can refuse it, and the pod stays unbound', async () => {
    await webhooks('validating', '/bind-deny', [rule(['CREATE'], [''], ['pods/binding'])]);
    f.wh.reply = (r) => ({ apiVersion: r.apiVersion, kind: 'AdmissionReview', response: { uid: r.request.uid, allowed: false, status: { code: 403, message: 'no binding today' } } });
    expect((await c.post(pods, pod('unbound'))).status).toBe(201);
    const b = await c.post(`${pods}/unbound/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'unbound' }, target: { kind: 'Node', name: 'node-1' } });
    expect(b.status).toBe(403);
    expect(b.body.message).toContain('no binding today');
    expect((await c.get(`${pods}/unbound`)).body.spec.nodeName).toBeUndefined();
  });

  it("eviction: the Eviction create and the PodDisruptionBudget's status update (disruptionsAllowed decremented, as system:apiserver)", async () => {
    for (const n of ['ev-1', 'ev-2']) await runningPod(n, { app: 'ev' });
    expect((await c.post(pdbs, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'ev' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'ev' } } } })).status).toBe(201);
    await eventually(async () => {
      const g = await c.get(`${pdbs}/ev`);
      expect(g.body.status?.observedGeneration).toBe(g.body.metadata.generation);
      expect(g.body.status.disruptionsAllowed).toBe(1);
    });
    await webhooks('validating', '/evict', [rule(['CREATE'], [''], ['pods/eviction']), rule(['UPDATE'], ['policy'], ['poddisruptionbudgets/status'])]);
    const r = await c.post(`${pods}/ev-1/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'ev-1', namespace: NS } });
    expect(r.status, r.text).toBe(201);
    const [evict] = requests('/evict', (q) => q.subResource === 'eviction');
    expect(evict).toMatchObject({ operation: 'CREATE', kind: { group: 'policy', version: 'v1', kind: 'Eviction' }, name: 'ev-1', userInfo: { username: me } });
    const [budget] = requests('/evict', (q) => q.resource.resource === 'poddisruptionbudgets' && q.userInfo.username === 'system:apiserver');
    expect(budget).toMatchObject({ operation: 'UPDATE', subResource: 'status', name: 'ev' });
    expect(budget.oldObject.status.disruptionsAllowed).toBe(1);
    expect(budget.object.status.disruptionsAllowed).toBe(0);
    expect(Object.keys(budget.object.status.disruptedPods)).toEqual(['ev-1']);
    expect(budget.options).toMatchObject({ kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
  });

  it('a controller write: the ReplicaSet controller creates pods as its service account (--use-service-account-credentials), mutated by the webhook', async () => {
    await webhooks('validating', '/rs-v', [rule(['CREATE'], [''], ['pods'])]);
    await webhooks('mutating', '/rs-m', [rule(['CREATE'], [''], ['pods'])]);
    f.wh.reply = (r, path) => (path === '/rs-m' ? patch(r, [{ op: 'add', path: '/metadata/labels/admitted', value: 'yes' }]) : allow(r));
    const rs = await c.post(`/apis/apps/v1/namespaces/${NS}/replicasets`, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    expect(rs.status, rs.text).toBe(201);
    const created = await eventually(async () => {
      const l = await c.get(`${pods}?labelSelector=app%3Dweb`);
      expect(l.body.items).toHaveLength(1);
      return l.body.items[0];
    });
    expect(created.metadata.labels).toMatchObject({ app: 'web', admitted: 'yes' });
    const seen = requests('/rs-v', (q) => q.object.metadata.labels?.app === 'web');
    expect(seen).toHaveLength(1);
    expect(seen[0].userInfo.username).toBe('system:serviceaccount:kube-system:replicaset-controller');
    expect(seen[0].object.metadata.labels.admitted).toBe('yes');
    expect(created.metadata.managedFields.map((m: any) => m.manager)).toContain('kube-controller-manager');
  });

  it("controllers' read-modify-writes: the namespace controller's status and finalize updates, as its service account", async () => {
    expect((await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'short-lived' } })).status).toBe(201);
    await webhooks('validating', '/ns', [rule(['UPDATE'], [''], ['namespaces/status', 'namespaces/finalize'])]);
    expect((await c.del('/api/v1/namespaces/short-lived')).status).toBe(200);
    await eventually(async () => expect((await c.get('/api/v1/namespaces/short-lived')).status).toBe(404));
    const seen = requests('/ns', (q) => q.name === 'short-lived');
    expect(seen.map((q) => q.subResource)).toEqual(expect.arrayContaining(['status', 'finalize']));
    for (const q of seen) expect(q.userInfo.username).toBe('system:serviceaccount:kube-system:namespace-controller');
    const fin = seen.find((q) => q.subResource === 'finalize');
    expect(fin.oldObject.spec.finalizers).toEqual(['kubernetes']);
    expect(fin.object.spec.finalizers ?? []).toEqual([]);
  });

  it("the CRD controller's Established status write goes through admission as system:apiserver", async () => {
    await webhooks('validating', '/crd', [rule(['UPDATE'], ['apiextensions.k8s.io'], ['customresourcedefinitions/status'])]);
    const crd = await c.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.pipeline.example.com' },
      spec: { group: 'pipeline.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    });
    expect(crd.status, crd.text).toBe(201);
    const seen = await eventually(async () => {
      const s = requests('/crd', (q) => q.name === 'widgets.pipeline.example.com');
      expect(s.length).toBeGreaterThan(0);
      return s;
    });
    expect(seen[0].userInfo.username).toBe('system:apiserver');
    expect(seen[0].object.status.conditions.map((x: any) => x.type)).toContain('Established');
  });

  it('creates that store nothing: TokenRequest, TokenReview and SubjectAccessReview are admitted (and can be refused)', async () => {
    await webhooks('validating', '/virtual', [
      rule(['CREATE'], [''], ['serviceaccounts/token']),
      rule(['CREATE'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['CREATE'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    ]);
    expect((await c.post(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } })).status).toBe(201);
    const token = await c.post(`/api/v1/namespaces/${NS}/serviceaccounts/robot/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    expect(token.status, token.text).toBe(201);
    const review = await c.post('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: token.body.status.token } });
    expect(review.status, review.text).toBe(201);
    const sar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'someone', resourceAttributes: { verb: 'get', resource: 'pods' } } };
    expect((await c.post('/apis/authorization.k8s.io/v1/subjectaccessreviews', sar)).status).toBe(201);
    const seen = requests('/virtual');
    expect(seen.map((q) => `${q.kind.kind} ${q.resource.resource}${q.subResource ? `/${q.subResource}` : ''}`)).toEqual([
      'TokenRequest serviceaccounts/token',
      'TokenReview tokenreviews',
      'SubjectAccessReview subjectaccessreviews',
    ]);
    for (const q of seen) expect(q).toMatchObject({ operation: 'CREATE', userInfo: { username: me } });
    expect(seen[0]).toMatchObject({ name: 'robot', namespace: NS, kind: { group: 'authentication.k8s.io', version: 'v1' } });
    f.wh.reply = (r) => ({ apiVersion: r.apiVersion, kind: 'AdmissionReview', response: { uid: r.request.uid, allowed: false, status: { code: 403, message: 'not now' } } });
    const refused = await c.post('/apis/authorization.k8s.io/v1/subjectaccessreviews', sar);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('not now');
  });

  it('a delete: the user and the DeleteOptions as the review options', async () => {
    expect((await c.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'doomed' } })).status).toBe(201);
    await webhooks('validating', '/del', [rule(['DELETE'], [''], ['configmaps'])]);
    const d = await c.del(`/api/v1/namespaces/${NS}/configmaps/doomed`, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', gracePeriodSeconds: 0 });
    expect(d.status, d.text).toBe(200);
    const [seen] = requests('/del');
    expect(seen).toMatchObject({ operation: 'DELETE', name: 'doomed', namespace: NS, userInfo: { username: me }, object: null });
    expect(seen.oldObject.metadata.name).toBe('doomed');
    expect(seen.options).toMatchObject({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background', gracePeriodSeconds: 0 });
  });

  it('a create: status set by a mutating webhook is dropped, as upstream PrepareForCreate runs after mutating admission', async () => {
    await webhooks('mutating', '/status', [rule(['CREATE'], ['apps'], ['deployments'])]);
    f.wh.reply = (r) => patch(r, [{ op: 'add', path: '/status', value: { replicas: 7, readyReplicas: 7 } }]);
    const d = await c.post(`/apis/apps/v1/namespaces/${NS}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'no-status' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'ns' } }, template: { metadata: { labels: { app: 'ns' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    expect(d.status, d.text).toBe(201);
    expect(requests('/status')).toHaveLength(1);
    expect(d.body.status?.replicas).toBeUndefined();
    expect((await c.get(`/apis/apps/v1/namespaces/${NS}/deployments/no-status`)).body.status?.readyReplicas).toBeUndefined();
  });
});

describe('after mutating admission', () => {
  it('validates what the webhook made of a generateName create (its metadata included)', async () => {
    await webhooks('mutating', '/bad-label', [rule(['CREATE'], [''], ['configmaps'])]);
    f.wh.reply = (r) => patch(r, [{ op: 'add', path: '/metadata/labels', value: { 'bad label!': 'x' } }]);
    const r = await c.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } });
    expect(r.status, r.text).toBe(422);
    expect(r.body.details.causes.map((x: any) => x.field)).toContain('metadata.labels');
  });
});

describe('RBAC reconciliation at start', () => {
  it('puts back a bootstrap role, a FlowSchema status and an APIService status through admission, as system:apiserver, with the mutating webhook applied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-pipeline-'));
    try {
      const flags = { store: 'sqlite' as const, dataDir: dir, controllers: [] };
      const first = await testServer(flags);
      const a = client(first.url);
      const role = '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:discovery';
      const cur = await a.get(role);
      expect(cur.status).toBe(200);
      expect((await a.put(role, { ...cur.body, rules: [] })).status).toBe(200);
      // the flow control and APIService bootstrap write these statuses again at start
      const fs = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/catch-all';
      const fsCur = await a.get(fs);
      expect(fsCur.status).toBe(200);
      expect((await a.put(`${fs}/status`, { ...fsCur.body, status: {} })).status).toBe(200);
      const svc = '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps';
      const svcCur = await a.get(svc);
      expect(svcCur.status).toBe(200);
      expect((await a.put(`${svc}/status`, { ...svcCur.body, status: {} })).status).toBe(200);
      const rules = [
        rule(['UPDATE'], ['rbac.authorization.k8s.io'], ['clusterroles']),
        rule(['UPDATE'], ['flowcontrol.apiserver.k8s.io'], ['flowschemas/status']),
        rule(['UPDATE'], ['apiregistration.k8s.io'], ['apiservices/status']),
      ];
      for (const [kind, path] of [['validating', '/rbac-v'], ['mutating', '/rbac-m']] as const) {
        const plural = kind === 'validating' ? 'validatingwebhookconfigurations' : 'mutatingwebhookconfigurations';
        const Kind = kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
        const r = await a.post(`${AR}/${plural}`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: Kind, metadata: { name: `rbac-${kind}` }, webhooks: [hook(`rbac.${kind}.example.com`, f.wh.url(path), f.caBundle, { rules })] });
        expect(r.status, r.text).toBe(201);
      }
      await first.close();
      f.wh.reply = (r, path) => {
        if (path !== '/rbac-m') return allow(r);
        const labels = r.request.object.metadata.labels;
        return patch(r, [labels ? { op: 'add', path: '/metadata/labels/reconciled', value: 'admitted' } : { op: 'add', path: '/metadata/labels', value: { reconciled: 'admitted' } }]);
      };
      const second = await testServer(flags);
      try {
        const seen = requests('/rbac-v', (q: any) => q.name === 'system:discovery');
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatchObject({ operation: 'UPDATE', userInfo: { username: 'system:apiserver' } });
        expect(seen[0].oldObject.rules).toEqual([]);
        expect(seen[0].object.rules.length).toBeGreaterThan(0);
        const [flow] = requests('/rbac-v', (q: any) => q.name === 'catch-all');
        expect(flow).toMatchObject({ operation: 'UPDATE', subResource: 'status', userInfo: { username: 'system:apiserver' } });
        expect(flow.object.status.conditions[0].type).toBe('Dangling');
        const [registered] = requests('/rbac-v', (q: any) => q.name === 'v1.apps');
        expect(registered).toMatchObject({ operation: 'UPDATE', subResource: 'status', userInfo: { username: 'system:apiserver' } });
        expect(registered.object.status.conditions[0]).toMatchObject({ type: 'Available', status: 'True' });
        const after = (await client(second.url).get(role)).body;
        expect(after.rules.length).toBeGreaterThan(0);
        expect(after.metadata.labels.reconciled).toBe('admitted');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
