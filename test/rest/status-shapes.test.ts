// Error and response shapes as upstream 1.33 writes them: Status keys in upstream's order with empty fields
// omitted (k8s.io/apimachinery metav1.Status, every field omitempty), errors and managedFields in the
// request's spelling of the group, strict-decoding errors with the decoder's prefix, roleRef.apiGroup defaulted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
});
afterAll(() => server.close());

describe('Status bodies', () => {
  it('keep upstream key order and omit empty fields (the Python client compares the text)', async () => {
    await api.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup' } });
    const r = await api.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup' } });
    expect(r.status).toBe(409);
    expect(r.text.trim()).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"dup\\" already exists","reason":"AlreadyExists","details":{"name":"dup","kind":"configmaps"},"code":409}',
    );
  });

  it('a 404 for a grouped resource carries the group after the name', async () => {
    const r = await api.get('/apis/apps/v1/namespaces/default/deployments/nope');
    expect(Object.keys(r.body)).toEqual(['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code']);
    expect(Object.keys(r.body.details)).toEqual(['name', 'group', 'kind']);
  });

  it('a 422 lists causes without empty keys', async () => {
    const r = await api.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body)).toEqual(['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code']);
    expect(r.body.details.group).toBeUndefined();
  });
});

describe("errors in the request's spelling", () => {
  it('404 for a k8s.io request names the k8s.io group', async () => {
    const r = await api.get('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/nope');
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('roles.rbac.authorization.k8s.io "nope" not found');
    expect(r.body.details.group).toBe('rbac.authorization.k8s.io');
  });

  it('the service.io spelling keeps its own', async () => {
    const r = await api.get('/apis/rbac.authorization.service.io/v1/namespaces/default/roles/nope');
    expect(r.body.message).toBe('roles.rbac.authorization.service.io "nope" not found');
    expect(r.body.details.group).toBe('rbac.authorization.service.io');
  });

  it('409 and 422 for k8s.io requests', async () => {
    const svc = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.apps' }, spec: { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 } };
    const dup = await api.post('/apis/apiregistration.k8s.io/v1/apiservices', svc);
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('apiservices.apiregistration.k8s.io "v1.apps" already exists');
    const crd = await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'bad' }, spec: {} });
    expect(crd.status).toBe(422);
    expect(crd.body.message).toMatch(/^CustomResourceDefinition\.apiextensions\.k8s\.io "bad" is invalid/);
    expect(crd.body.details.group).toBe('apiextensions.k8s.io');
  });

  it('a delete Status names the group as the request spelled it, without empty fields', async () => {
    const L = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    await api.post(L, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l1' } });
    const d = await api.del(`${L}/l1`);
    expect(d.status).toBe(200);
    expect(Object.keys(d.body)).toEqual(['kind', 'apiVersion', 'metadata', 'status', 'details']);
    expect(d.body.details).toMatchObject({ name: 'l1', group: 'coordination.k8s.io', kind: 'leases' });
  });

  it('managedFields carry the request spelling of the apiVersion (create, GET, list)', async () => {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'mf' }, rules: [] };
    const c = await api.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', role);
    expect(c.status).toBe(201);
    expect(c.body.metadata.managedFields[0].apiVersion).toBe('rbac.authorization.k8s.io/v1');
    const g = await api.get('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/mf');
    expect(g.body.metadata.managedFields[0].apiVersion).toBe('rbac.authorization.k8s.io/v1');
    const l = await api.get('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles');
    expect(l.body.items.find((i: any) => i.metadata.name === 'mf').metadata.managedFields[0].apiVersion).toBe('rbac.authorization.k8s.io/v1');
    const canon = await api.get('/apis/rbac.authorization.service.io/v1/namespaces/default/roles/mf');
    expect(canon.body.metadata.managedFields[0].apiVersion).toBe('rbac.authorization.service.io/v1');
  });

  it("an apply conflict names the other manager's apiVersion in the request's spelling", async () => {
    const R = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
    const role = (verbs: string[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'conflicted' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs }] });
    expect((await api.post(`${R}?fieldManager=editor`, role(['get']))).status).toBe(201);
    const r = await api.patch(`${R}/conflicted?fieldManager=kubectl`, role(['list']), 'application/apply-patch+yaml');
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('Apply failed with 1 conflict: conflict with "editor" using rbac.authorization.k8s.io/v1: .rules');
    expect(r.body.details.causes[0].message).toBe('conflict with "editor" using rbac.authorization.k8s.io/v1');
  });
});

describe('strict decoding errors', () => {
  it("carry the decoder's prefix on create and update", async () => {
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'strict' },
      spec: { bogus: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    };
    const r = await api.post('/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict', dep);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.bogus"');
    const cm = await api.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict' } });
    expect(cm.status).toBe(201);
    const u = await api.put('/api/v1/namespaces/default/configmaps/strict?fieldValidation=Strict', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict' }, extra: 1 });
    expect(u.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "extra"');
  });
});

describe('strict decoding errors of patches (upstream handlers/patch.go, 1.33)', () => {
  const CM = '/api/v1/namespaces/default/configmaps';
  beforeAll(async () => {
    await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patched' }, data: { a: 'b' } });
  });

  it('a strategic merge patch: 422 on the field `patch`, the patch printed as Go prints a map', async () => {
    const r = await api.patch(`${CM}/patched?fieldValidation=Strict`, { extra: 1, data: { c: 'd' } }, 'application/strategic-merge-patch+json');
    expect(r.status).toBe(422);
    expect(r.text.trim()).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":" \\"\\" is invalid: patch: Invalid value: \\"map[data:map[c:d] extra:1]\\": strict decoding error: unknown field \\"extra\\"","reason":"Invalid","details":{"causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \\"map[data:map[c:d] extra:1]\\": strict decoding error: unknown field \\"extra\\"","field":"patch"}]},"code":422}',
    );
  });

  it('a JSON merge patch and a JSON patch: 422 on the field `patch`, the patched object as JSON', async () => {
    for (const [body, type] of [
      [{ extra: 1 }, 'application/merge-patch+json'],
      [[{ op: 'add', path: '/extra', value: 1 }], 'application/json-patch+json'],
    ] as const) {
      const r = await api.patch(`${CM}/patched?fieldValidation=Strict`, body, type);
      expect(r.status).toBe(422);
      expect(r.body.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",.*\\"extra\\":1,.*\}": strict decoding error: unknown field "extra"$/);
      expect(r.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: expect.stringContaining('strict decoding error: unknown field "extra"'), field: 'patch' }]);
      expect(r.body.details.kind).toBeUndefined();
    }
    // Warn: applied, the unknown field dropped with a warning
    const w = await api.patch(`${CM}/patched?fieldValidation=Warn`, { extra: 1 }, 'application/merge-patch+json');
    expect(w.status).toBe(200);
    expect(w.headers.get('warning')).toContain('unknown field \\"extra\\"');
  });

  it('server-side apply refuses a member the schema lacks, whatever the field validation (typed conversion)', async () => {
    for (const level of ['Strict', 'Ignore']) {
      const r = await api.patch(
        `${CM}/patched?fieldManager=t&fieldValidation=${level}`,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patched', namespace: 'default' }, extra: 1, data: { a: 'b', x: 'y' } },
        'application/apply-patch+yaml',
      );
      // upstream answers 500 for this client error (kubernetes#139253); its message, with a 400
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('failed to create typed patch object (default/patched; /v1, Kind=ConfigMap): .extra: field not declared in schema');
    }
    const two = await api.patch(
      `${CM}/patched?fieldManager=t`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patched', namespace: 'default', bogus: 1 }, extra: 1 },
      'application/apply-patch+yaml',
    );
    expect(two.body.message).toBe(
      'failed to create typed patch object (default/patched; /v1, Kind=ConfigMap): errors:\n  .extra: field not declared in schema\n  .metadata.bogus: field not declared in schema',
    );
  });
});

describe('RoleBinding roleRef.apiGroup', () => {
  it('is defaulted when absent (upstream SetDefaults_RoleBinding / ClusterRoleBinding)', async () => {
    const rb = await api.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'nogroup' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'jane' }],
    });
    expect(rb.status).toBe(201);
    expect(rb.body.roleRef.apiGroup).toMatch(/^rbac\.authorization\.(k8s|service)\.io$/);
    const crb = await api.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'nogroup' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'jane' }],
    });
    expect(crb.status).toBe(201);
  });
});
