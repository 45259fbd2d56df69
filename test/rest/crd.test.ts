import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(() => server.close());

const widgetCRD = (scope = 'Namespaced') => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope,
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        additionalPrinterColumns: [{ name: 'Size', type: 'string', jsonPath: '.spec.size' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'string', enum: ['S', 'M', 'L'] },
                  replicas: { type: 'integer', minimum: 0 },
                  port: { 'x-kubernetes-int-or-string': true },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      },
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    ],
  },
});

async function waitServed(path: string) {
  for (let i = 0; i < 100; i++) {
    const r = await api.get(path);
    if (r.status === 200) return r;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`${path} never served`);
}

describe('custom resource definitions', () => {
  it('serves a new CRD within a second, lists it in discovery and validates objects with its schema', async () => {
    const c = await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCRD());
    expect(c.status).toBe(201);
    // held from creation on, so even an immediate delete waits for the custom objects' cleanup
    expect(c.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.service.io']);
    const t0 = Date.now();
    await waitServed('/apis/example.com/v1/namespaces/default/widgets');
    expect(Date.now() - t0).toBeLessThan(1000);
    const disc = await api.get('/apis/example.com/v1');
    expect(disc.body.resources.map((r: any) => r.name)).toEqual(expect.arrayContaining(['widgets', 'widgets/status', 'widgets/scale']));
    const crd = await api.get('/apis/apiextensions.service.io/v1/customresourcedefinitions/widgets.example.com');
    expect(crd.body.status.conditions.find((x: any) => x.type === 'Established').status).toBe('True');

    const ok = await api.post('/apis/example.com/v1/namespaces/default/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { size: 'M', replicas: 1, port: 'http', free: { anything: { goes: 1 } }, dropped: true },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.spec.free).toEqual({ anything: { goes: 1 } });
    expect(ok.body.spec.dropped).toBeUndefined();
    expect(ok.headers.get('warning')).toContain('unknown field \\"spec.dropped\\"');

    const bad = await api.post('/apis/example.com/v1/namespaces/default/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w2' },
      spec: { size: 'XL', replicas: -1 },
    });
    expect(bad.status).toBe(422);
    const fields = bad.body.details.causes.map((c: any) => c.field);
    expect(fields).toEqual(expect.arrayContaining(['spec.size', 'spec.replicas']));

    const missing = await api.post('/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w3' }, spec: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.details.causes[0].field).toBe('spec.size');
  });

  it('serves every served version from the storage version', async () => {
    const r = await api.get('/apis/example.com/v1beta1/namespaces/default/widgets/w1');
    expect(r.status).toBe(200);
    expect(r.body.apiVersion).toBe('example.com/v1beta1');
  });

  it('requires resourceVersion on custom resource updates and supports status and scale', async () => {
    const cur = (await api.get('/apis/example.com/v1/namespaces/default/widgets/w1')).body;
    const { resourceVersion: _rv, ...metaNoRv } = cur.metadata;
    const noRv = await api.put('/apis/example.com/v1/namespaces/default/widgets/w1', { ...cur, metadata: metaNoRv });
    expect(noRv.status).toBe(422);
    const st = await api.put('/apis/example.com/v1/namespaces/default/widgets/w1/status', { ...cur, status: { replicas: 1 } });
    expect(st.status).toBe(200);
    expect(st.body.status.replicas).toBe(1);
    const scale = await api.get('/apis/example.com/v1/namespaces/default/widgets/w1/scale');
    expect(scale.body).toMatchObject({ kind: 'Scale', spec: { replicas: 1 }, status: { replicas: 1 } });
  });

  it('rejects invalid CRDs with 422 and causes', async () => {
    const bad = widgetCRD();
    bad.metadata.name = 'wrong.example.com';
    const r = await api.post('/apis/apiextensions.service.io/v1/customresourcedefinitions', bad);
    expect(r.status).toBe(422);
    expect(r.body.details.causes.length).toBeGreaterThan(0);
  });

  it('deleting the CRD removes its objects and endpoints', async () => {
    const d = await api.del('/apis/apiextensions.service.io/v1/customresourcedefinitions/widgets.example.com');
    expect(d.status).toBe(200);
    for (let i = 0; i < 100; i++) {
      const g = await api.get('/apis/apiextensions.service.io/v1/customresourcedefinitions/widgets.example.com');
      if (g.status === 404) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect((await api.get('/apis/apiextensions.service.io/v1/customresourcedefinitions/widgets.example.com')).status).toBe(404);
    expect((await api.get('/apis/example.com/v1/namespaces/default/widgets')).status).toBe(404);
    // recreated: the old objects are gone
    await api.post('/apis/apiextensions.service.io/v1/customresourcedefinitions', { ...widgetCRD(), apiVersion: 'apiextensions.service.io/v1' });
    const list = await waitServed('/apis/example.com/v1/namespaces/default/widgets');
    expect(list.body.items).toEqual([]);
  });
});

describe('deprecated CRD versions', () => {
  it('warn on every request to them: the deprecationWarning, or upstream default naming the version to use', async () => {
    const version = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      served: true,
      storage: name === 'v1',
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      ...extra,
    });
    const r = await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gitrepositories.source.example.io' },
      spec: {
        group: 'source.example.io',
        scope: 'Namespaced',
        names: { plural: 'gitrepositories', singular: 'gitrepository', kind: 'GitRepository' },
        versions: [version('v1'), version('v1beta2', { deprecated: true, deprecationWarning: 'v1beta2 GitRepository is deprecated, upgrade to v1' }), version('v1beta1', { deprecated: true })],
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const P = (v: string) => `/apis/source.example.io/${v}/namespaces/default/gitrepositories`;
    await waitServed(P('v1beta1'));
    const custom = await api.get(P('v1beta2'));
    expect(custom.headers.get('warning')).toBe('299 - "v1beta2 GitRepository is deprecated, upgrade to v1"');
    const created = await api.post(P('v1beta1'), { apiVersion: 'source.example.io/v1beta1', kind: 'GitRepository', metadata: { name: 'r' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('warning')).toBe('299 - "source.example.io/v1beta1 GitRepository is deprecated; use source.example.io/v1 GitRepository"');
    expect((await api.get(`${P('v1')}/r`)).headers.get('warning')).toBeNull();
  });
});
