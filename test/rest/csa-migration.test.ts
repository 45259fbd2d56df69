// Client-side → server-side apply migration (upstream lastAppliedManager): kubectl's first server-side apply may
// take over fields its client-side apply set (per kubectl.kubernetes.io/last-applied-configuration) when they still
// hold that value; other managers, and fields someone else changed since, still conflict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

const APPLY = 'application/apply-patch+yaml';
let server: ApiServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
});
afterAll(() => server.close());

const manifest = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'default' }, data });

async function clientSideCreate(name: string, data: Record<string, string>) {
  const m = { ...manifest(data), metadata: { name, namespace: 'default' } };
  const body = { ...m, metadata: { ...m.metadata, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(m) } } };
  const r = await api.post('/api/v1/namespaces/default/configmaps?fieldManager=kubectl-client-side-apply', body);
  expect(r.status).toBe(201);
}

describe('client-side to server-side apply migration', () => {
  it('lets kubectl take over a field its client-side apply set', async () => {
    await clientSideCreate('m1', { a: '1', b: '2' });
    const r = await api.patch('/api/v1/namespaces/default/configmaps/m1?fieldManager=kubectl', { ...manifest({ a: 'changed', b: '2' }), metadata: { name: 'm1' } }, APPLY);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ a: 'changed', b: '2' });
    const kubectlEntry = r.body.metadata.managedFields.find((m: any) => m.manager === 'kubectl');
    expect(kubectlEntry.operation).toBe('Apply');
    expect(kubectlEntry.fieldsV1['f:data']).toEqual({ 'f:a': {}, 'f:b': {} });
  });

  it('keeps the conflict for another field manager', async () => {
    await clientSideCreate('m2', { a: '1' });
    const r = await api.patch('/api/v1/namespaces/default/configmaps/m2?fieldManager=helm', { ...manifest({ a: 'changed' }), metadata: { name: 'm2' } }, APPLY);
    expect(r.status).toBe(409);
    expect(r.body.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.a' }]);
  });

  it('keeps the conflict on a field changed since the client-side apply', async () => {
    await clientSideCreate('m3', { a: '1' });
    expect((await api.patch('/api/v1/namespaces/default/configmaps/m3?fieldManager=editor', { data: { a: 'edited' } }, 'application/merge-patch+json')).status).toBe(200);
    const r = await api.patch('/api/v1/namespaces/default/configmaps/m3?fieldManager=kubectl', { ...manifest({ a: 'mine' }), metadata: { name: 'm3' } }, APPLY);
    expect(r.status).toBe(409);
    expect(r.body.details.causes.map((c: any) => c.field)).toEqual(['.data.a']);
  });
});

describe('RBAC subject defaults', () => {
  it('defaults User/Group apiGroup and leaves ServiceAccount subjects without one', async () => {
    const r = await api.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
        { kind: 'ServiceAccount', name: 'other', namespace: 'default', apiGroup: '' },
        { kind: 'User', name: 'jane' },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
      { kind: 'ServiceAccount', name: 'other', namespace: 'default' },
      { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.service.io' },
    ]);
  });
});
