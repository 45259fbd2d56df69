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

describe('discovery', () => {
  it('/api lists the core version', async () => {
    const r = await api.get('/api');
    expect(r.body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
  });

  it('/apis (APIGroupList, no spelling hint) lists built-in groups in both spellings', async () => {
    const r = await api.get('/apis');
    expect(r.body.kind).toBe('APIGroupList');
    const names = r.body.groups.map((g: any) => g.name);
    for (const g of ['apps', 'batch', 'policy', 'coordination.service.io', 'coordination.k8s.io', 'rbac.authorization.service.io', 'rbac.authorization.k8s.io', 'apiextensions.service.io', 'apiextensions.k8s.io'])
      expect(names).toContain(g);
    const apps = r.body.groups.find((g: any) => g.name === 'apps');
    expect(apps.preferredVersion).toEqual({ groupVersion: 'apps/v1', version: 'v1' });
  });

  it('/api/v1 lists resources with verbs, short names and sub-resources', async () => {
    const r = await api.get('/api/v1');
    expect(r.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    const pods = r.body.resources.find((x: any) => x.name === 'pods');
    expect(pods).toMatchObject({ singularName: 'pod', namespaced: true, kind: 'Pod', shortNames: ['po'] });
    expect(pods.verbs).toEqual(expect.arrayContaining(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']));
    expect(r.body.resources.some((x: any) => x.name === 'pods/status')).toBe(true);
    const ns = r.body.resources.find((x: any) => x.name === 'namespaces');
    expect(ns.namespaced).toBe(false);
  });

  it('/apis/apps/v1 lists deployments with scale', async () => {
    const r = await api.get('/apis/apps/v1');
    const names = r.body.resources.map((x: any) => x.name);
    expect(names).toEqual(expect.arrayContaining(['deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'statefulsets', 'daemonsets']));
    const scale = r.body.resources.find((x: any) => x.name === 'deployments/scale');
    expect(scale).toMatchObject({ kind: 'Scale', group: 'autoscaling', version: 'v1' });
  });

  it('serves aggregated discovery when asked for it, in the requested spelling', async () => {
    const r = await api.get('/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' });
    expect(r.headers.get('content-type')).toContain('as=APIGroupDiscoveryList');
    expect(r.body).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
    const apps = r.body.items.find((i: any) => i.metadata.name === 'apps');
    const deploy = apps.versions[0].resources.find((x: any) => x.resource === 'deployments');
    expect(deploy).toMatchObject({ scope: 'Namespaced', singularResource: 'deployment', responseKind: { kind: 'Deployment' } });
    expect(deploy.subresources.map((s: any) => s.subresource).sort()).toEqual(['scale', 'status']);
    const core = await api.get('/api', { Accept: 'application/json;g=apidiscovery.service.io;v=v2;as=APIGroupDiscoveryList' });
    expect(core.body.apiVersion).toBe('apidiscovery.service.io/v2');
    expect(core.body.items[0].metadata.name).toBe('');
  });
});

describe('openapi', () => {
  it('serves a v3 index and per group-version documents with field validation parameters', async () => {
    const idx = await api.get('/openapi/v3');
    expect(idx.status).toBe(200);
    expect(Object.keys(idx.body.paths)).toEqual(expect.arrayContaining(['api/v1', 'apis/apps/v1']));
    const url = idx.body.paths['apis/apps/v1'].serverRelativeURL;
    const doc = await api.get(url);
    expect(doc.status).toBe(200);
    const schemas = doc.body.components.schemas;
    const deployment = Object.entries(schemas).find(([, s]: any) => s['x-kubernetes-group-version-kind']?.some((g: any) => g.kind === 'Deployment' && g.group === 'apps'));
    expect(deployment).toBeTruthy();
    const text = JSON.stringify(doc.body.paths);
    expect(text).toContain('fieldValidation');
  });

  it('serves /openapi/v2', async () => {
    const r = await api.get('/openapi/v2');
    expect(r.status).toBe(200);
    expect(r.body.swagger).toBe('2.0');
    expect(Object.keys(r.body.definitions).length).toBeGreaterThan(50);
  });

  it('lists alias spellings without short names or categories, so each resolves once', async () => {
    const canonical = await api.get('/apis/apiextensions.service.io/v1');
    const alias = await api.get('/apis/apiextensions.k8s.io/v1');
    const crd = (r: any) => r.body.resources.find((x: any) => x.name === 'customresourcedefinitions');
    expect(crd(canonical)).toMatchObject({ shortNames: ['crd', 'crds'], categories: ['api-extensions'] });
    expect(crd(alias).shortNames).toBeUndefined();
    expect(crd(alias).categories).toBeUndefined();
  });

  it('lists each aliased group once in aggregated discovery, in the negotiated spelling, with its short names', async () => {
    const names = (r: any) => r.body.items.map((i: any) => i.metadata.name);
    const ingresses = (r: any, g: string) => r.body.items.find((i: any) => i.metadata.name === g).versions[0].resources.find((x: any) => x.resource === 'ingresses');
    for (const v of ['v2', 'v2beta1']) {
      const upstream = await api.get('/apis', { Accept: `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList` });
      expect(upstream.body.apiVersion).toBe(`apidiscovery.k8s.io/${v}`);
      expect(upstream.headers.get('content-type')).toBe(`application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`);
      expect(names(upstream)).toEqual(expect.arrayContaining(['apps', 'rbac.authorization.k8s.io', 'apiextensions.k8s.io', 'networking.k8s.io']));
      expect(names(upstream).filter((n: string) => n.endsWith('.service.io'))).toEqual([]);
      expect(new Set(names(upstream)).size).toBe(names(upstream).length);
      expect(ingresses(upstream, 'networking.k8s.io').shortNames).toEqual(['ing']);
    }
    const service = await api.get('/apis', { Accept: 'application/json;g=apidiscovery.service.io;v=v2;as=APIGroupDiscoveryList' });
    expect(names(service)).toEqual(expect.arrayContaining(['apps', 'rbac.authorization.service.io', 'networking.service.io']));
    expect(names(service).filter((n: string) => n.endsWith('.k8s.io'))).toEqual([]);
    expect(ingresses(service, 'networking.service.io')).toMatchObject({ shortNames: ['ing'] });
  });

  it('gives each aggregated discovery form its own ETag and answers a matching If-None-Match with 304', async () => {
    const accept = (g: string) => ({ Accept: `application/json;g=${g};v=v2;as=APIGroupDiscoveryList` });
    const upstream = await api.get('/apis', accept('apidiscovery.k8s.io'));
    const service = await api.get('/apis', accept('apidiscovery.service.io'));
    const etag = upstream.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9A-F]+"$/);
    expect(upstream.headers.get('vary')).toBe('Accept');
    expect(service.headers.get('etag')).not.toBe(etag);
    expect((await api.get('/apis', { ...accept('apidiscovery.k8s.io'), 'If-None-Match': etag })).status).toBe(304);
    expect((await api.get('/apis', { ...accept('apidiscovery.service.io'), 'If-None-Match': etag })).status).toBe(200);
  });
});
