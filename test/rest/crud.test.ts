import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  expect((await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } })).status).toBe(201);
});
afterAll(() => server.close());

const cm = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('health and version', () => {
  it('serves /healthz, /livez, /readyz and /version', async () => {
    for (const p of ['/healthz', '/livez', '/readyz']) expect((await api.get(p)).status).toBe(200);
    const v = await api.get('/version');
    expect(v.body.major).toBe('1');
    expect(v.body.minor).toBe('33');
    expect(v.body.gitVersion).toMatch(/^v1\.33\.\d+/);
  });
});

describe('create, get, list, update, delete', () => {
  it('creates with server-owned metadata and reads it back', async () => {
    const r = await api.post('/api/v1/namespaces/team-a/configmaps', cm('one'));
    expect(r.status).toBe(201);
    const m = r.body.metadata;
    expect(m.namespace).toBe('team-a');
    expect(m.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(m.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(typeof m.resourceVersion).toBe('string');
    const g = await api.get('/api/v1/namespaces/team-a/configmaps/one');
    expect(g.status).toBe(200);
    expect(g.body.data).toEqual({ a: '1' });
    expect(g.body.metadata.resourceVersion).toBe(m.resourceVersion);
  });

  it('rejects a duplicate with 409 AlreadyExists', async () => {
    await api.post('/api/v1/namespaces/team-a/configmaps', cm('dup'));
    const r = await api.post('/api/v1/namespaces/team-a/configmaps', cm('dup'));
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'AlreadyExists', code: 409, message: 'configmaps "dup" already exists' });
    expect(r.body.details).toMatchObject({ name: 'dup', kind: 'configmaps' });
  });

  it('generates names from generateName', async () => {
    const r = await api.post('/api/v1/namespaces/team-a/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });

  it('requires a name', async () => {
    const r = await api.post('/api/v1/namespaces/team-a/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.details.causes[0]).toMatchObject({ reason: 'FieldValueRequired', field: 'metadata.name' });
  });

  it('validates names as DNS-1123 subdomains', async () => {
    const r = await api.post('/api/v1/namespaces/team-a/configmaps', cm('Bad_Name'));
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"');
  });

  it('detects lost updates with 409 Conflict and bumps resourceVersion on update', async () => {
    const created = (await api.post('/api/v1/namespaces/team-a/configmaps', cm('upd'))).body;
    const u1 = await api.put('/api/v1/namespaces/team-a/configmaps/upd', { ...created, data: { a: '2' } });
    expect(u1.status).toBe(200);
    expect(u1.body.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    const stale = await api.put('/api/v1/namespaces/team-a/configmaps/upd', { ...created, data: { a: '3' } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toContain('the object has been modified');
    expect((await api.get('/api/v1/namespaces/team-a/configmaps/upd')).body.data).toEqual({ a: '2' });
  });

  it('keeps immutable metadata and checks the URL name', async () => {
    const created = (await api.post('/api/v1/namespaces/team-a/configmaps', cm('imm'))).body;
    const mismatch = await api.put('/api/v1/namespaces/team-a/configmaps/imm', { ...created, metadata: { ...created.metadata, name: 'other' } });
    expect(mismatch.status).toBe(400);
    const r = await api.put('/api/v1/namespaces/team-a/configmaps/imm', { ...created, metadata: { ...created.metadata, creationTimestamp: '2000-01-01T00:00:00Z' } });
    expect(r.status).toBe(200);
    expect(r.body.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
    expect(r.body.metadata.uid).toBe(created.metadata.uid);
  });

  it('rejects a body of another kind or version with 400', async () => {
    const r = await api.post('/api/v1/namespaces/team-a/configmaps', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
    expect(r.status).toBe(400);
    const r2 = await api.post('/api/v1/namespaces/team-a/configmaps', { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    expect(r2.status).toBe(400);
  });

  it('lists a namespace and across namespaces', async () => {
    await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } });
    await api.post('/api/v1/namespaces/team-b/configmaps', cm('in-b'));
    const inB = await api.get('/api/v1/namespaces/team-b/configmaps');
    expect(inB.body.kind).toBe('ConfigMapList');
    expect(inB.body.apiVersion).toBe('v1');
    expect(inB.body.items.map((i: any) => i.metadata.name)).toEqual(['in-b']);
    const all = await api.get('/api/v1/configmaps');
    const names = all.body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`);
    expect(names).toContain('team-b/in-b');
    expect(names).toContain('team-a/one');
    expect(typeof all.body.metadata.resourceVersion).toBe('string');
  });

  it('deletes and then reports 404', async () => {
    await api.post('/api/v1/namespaces/team-a/configmaps', cm('gone'));
    const d = await api.del('/api/v1/namespaces/team-a/configmaps/gone');
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'gone', kind: 'configmaps' } });
    const g = await api.get('/api/v1/namespaces/team-a/configmaps/gone');
    expect(g.status).toBe(404);
    expect(g.body).toMatchObject({ reason: 'NotFound', code: 404, message: 'configmaps "gone" not found' });
  });

  it('deletecollection removes the matching objects only', async () => {
    await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-dc' } });
    for (const [n, app] of [['x1', 'x'], ['x2', 'x'], ['y1', 'y']])
      await api.post('/api/v1/namespaces/team-dc/configmaps', { ...cm(n), metadata: { name: n, labels: { app } } });
    const d = await api.del('/api/v1/namespaces/team-dc/configmaps?labelSelector=app%3Dx');
    expect(d.status).toBe(200);
    const left = await api.get('/api/v1/namespaces/team-dc/configmaps');
    expect(left.body.items.map((i: any) => i.metadata.name)).toEqual(['y1']);
  });
});

describe('namespaces', () => {
  it('needs an existing namespace for namespaced objects', async () => {
    const r = await api.post('/api/v1/namespaces/nope/configmaps', cm('x'));
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('namespaces "nope" not found');
  });

  it('refuses new objects in a terminating namespace with 403', async () => {
    await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ending' } });
    // content held by a finalizer keeps the namespace Terminating until it is released
    await api.post('/api/v1/namespaces/ending/configmaps', { ...cm('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const d = await api.del('/api/v1/namespaces/ending');
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
    const ns = await api.get('/api/v1/namespaces/ending');
    expect(ns.status).toBe(200);
    expect(ns.body.metadata.deletionTimestamp).toBeTruthy();
    const r = await api.post('/api/v1/namespaces/ending/configmaps', cm('x'));
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('Forbidden');
    expect(r.body.message).toContain('because it is being terminated');
    // the namespace controller is writing the object too: a patch re-applies on conflicts, a PUT would race
    const release = await api.patch('/api/v1/namespaces/ending/configmaps/held', { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect(release.status).toBe(200);
  });

  it('validates namespace names as DNS-1123 labels', async () => {
    const r = await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } });
    expect(r.status).toBe(422);
  });
});

describe('errors for bad requests', () => {
  it('malformed JSON gets 400 and stores nothing', async () => {
    const r = await api.call('POST', '/api/v1/namespaces/team-a/configmaps', '{"kind": ', { 'Content-Type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.kind).toBe('Status');
  });

  it('bodies over 3 MiB get 413', async () => {
    const big = cm('big', { blob: 'x'.repeat(3 * 1024 * 1024 + 10) });
    const r = await api.post('/api/v1/namespaces/team-a/configmaps', big);
    expect(r.status).toBe(413);
    expect(r.body.reason).toBe('RequestEntityTooLarge');
  });

  it('unknown resources and paths get 404 Status', async () => {
    const r = await api.get('/api/v1/widgets');
    expect(r.status).toBe(404);
    expect(r.body.kind).toBe('Status');
    expect((await api.get('/apis/nope.example.com/v1/things')).status).toBe(404);
  });

  it('unsupported methods get 405', async () => {
    const r = await api.post('/api/v1/namespaces/team-a/configmaps/one', cm('one'));
    expect(r.status).toBe(405);
    expect(r.body.reason).toBe('MethodNotAllowed');
  });

  it('unknown body media types get 415', async () => {
    const r = await api.call('POST', '/api/v1/namespaces/team-a/configmaps', 'a=b', { 'Content-Type': 'text/plain' });
    expect(r.status).toBe(415);
  });

  it('accepts YAML bodies', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n';
    const r = await api.call('POST', '/api/v1/namespaces/team-a/configmaps', yaml, { 'Content-Type': 'application/yaml' });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({ k: 'v' });
  });
});

describe('sub-resources and generation', () => {
  const deploy = (name: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    status: { replicas: 99 },
  });

  it('ignores status on create and main-resource updates, changes only status through /status', async () => {
    const c = await api.post('/apis/apps/v1/namespaces/team-a/deployments', deploy('web'));
    expect(c.status).toBe(201);
    expect(c.body.metadata.generation).toBe(1);
    expect(c.body.status?.replicas).not.toBe(99);
    const s = await api.put('/apis/apps/v1/namespaces/team-a/deployments/web/status', { ...c.body, spec: { ...c.body.spec, replicas: 7 }, status: { replicas: 2 } });
    expect(s.status).toBe(200);
    expect(s.body.status.replicas).toBe(2);
    expect(s.body.spec.replicas).toBe(2);
    expect(s.body.metadata.generation).toBe(1);
    const u = await api.put('/apis/apps/v1/namespaces/team-a/deployments/web', { ...s.body, spec: { ...s.body.spec, replicas: 3 }, status: { replicas: 50 } });
    expect(u.status).toBe(200);
    expect(u.body.status.replicas).toBe(2);
    expect(u.body.metadata.generation).toBe(2);
  });

  it('serves the scale sub-resource', async () => {
    await api.post('/apis/apps/v1/namespaces/team-a/deployments', deploy('scaled'));
    const g = await api.get('/apis/apps/v1/namespaces/team-a/deployments/scaled/scale');
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 }, status: { selector: 'app=scaled' } });
    const p = await api.put('/apis/apps/v1/namespaces/team-a/deployments/scaled/scale', { ...g.body, spec: { replicas: 5 } });
    expect(p.status).toBe(200);
    expect(p.body.spec.replicas).toBe(5);
    expect((await api.get('/apis/apps/v1/namespaces/team-a/deployments/scaled')).body.spec.replicas).toBe(5);
  });
});

describe('group aliases', () => {
  it('serves the upstream spelling of a group from the same storage, answering in that spelling', async () => {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    const c = await api.post('/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles', role);
    expect(c.status).toBe(201);
    expect(c.body.apiVersion).toBe('rbac.authorization.k8s.io/v1');
    const canon = await api.get('/apis/rbac.authorization.service.io/v1/namespaces/team-a/roles/reader');
    expect(canon.status).toBe(200);
    expect(canon.body.apiVersion).toBe('rbac.authorization.service.io/v1');
    const list = await api.get('/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles');
    expect(list.body.apiVersion).toBe('rbac.authorization.k8s.io/v1');
    expect(list.body.items[0].apiVersion).toBe('rbac.authorization.k8s.io/v1');
  });
});
