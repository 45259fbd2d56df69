// The garbage collector over HTTP: Background, Foreground and Orphan propagation, blockOwnerDeletion,
// uid-checked owner references, dangling dependents, and custom resources as owners and dependents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { cm, dropFinalizers, eventually, gone, ns, ownerRef, type Api } from './support.js';
import { simpleCrd } from '../helpers/crd.js';

let server: ApiServer;
let api: Api;
const NS = 'gc';
const cms = `/api/v1/namespaces/${NS}/configmaps`;
const secrets = `/api/v1/namespaces/${NS}/secrets`;

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  expect((await api.post('/api/v1/namespaces', ns(NS))).status).toBe(201);
});
afterAll(() => server.close());

async function owner(name: string, meta: Record<string, unknown> = {}) {
  const r = await api.post(cms, cm(name, meta));
  expect(r.status).toBe(201);
  return r.body;
}

async function dependent(name: string, refs: unknown[], meta: Record<string, unknown> = {}) {
  const r = await api.post(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name, ownerReferences: refs, ...meta } });
  expect(r.status).toBe(201);
  return r.body;
}

describe('background propagation (the default)', () => {
  it('removes the owner at once, then its dependents', async () => {
    const o = await owner('bg-owner');
    await dependent('bg-a', [ownerRef(o)]);
    await dependent('bg-b', [ownerRef(o, { controller: true, blockOwnerDeletion: true })]);
    const d = await api.del(`${cms}/bg-owner`, { propagationPolicy: 'Background' });
    expect(d.status).toBe(200);
    expect((await api.get(`${cms}/bg-owner`)).status).toBe(404);
    await gone(api, `${secrets}/bg-a`);
    await gone(api, `${secrets}/bg-b`);
  });

  it('cascades through several levels', async () => {
    const top = await owner('lvl-top');
    const mid = await api.post(cms, cm('lvl-mid', { ownerReferences: [ownerRef(top)] }));
    await dependent('lvl-leaf', [ownerRef(mid.body)]);
    await api.del(`${cms}/lvl-top`);
    await gone(api, `${cms}/lvl-mid`);
    await gone(api, `${secrets}/lvl-leaf`);
  });

  it('keeps a dependent that still has another owner, dropping only the reference to the gone one', async () => {
    const a = await owner('two-a');
    const b = await owner('two-b');
    await dependent('two-dep', [ownerRef(a), ownerRef(b)]);
    await api.del(`${cms}/two-a`);
    const dep = await eventually(async () => {
      const g = await api.get(`${secrets}/two-dep`);
      expect(g.body.metadata.ownerReferences.map((r: any) => r.name)).toEqual(['two-b']);
      return g.body;
    });
    expect(dep.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('owner references are checked by uid', () => {
  it('collects dependents whose owner does not exist or has another uid', async () => {
    await dependent('dangling-none', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-existed', uid: '00000000-0000-0000-0000-000000000001' }]);
    await owner('reborn');
    await dependent('dangling-uid', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'reborn', uid: '00000000-0000-0000-0000-000000000002' }]);
    await gone(api, `${secrets}/dangling-none`);
    await gone(api, `${secrets}/dangling-uid`);
    expect((await api.get(`${cms}/reborn`)).status).toBe(200);
  });

  it('leaves alone dependents of owners of kinds it cannot resolve', async () => {
    await dependent('unknown-kind', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: '00000000-0000-0000-0000-000000000003' }]);
    const marker = await dependent('marker', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nope', uid: '00000000-0000-0000-0000-000000000004' }]);
    await gone(api, `${secrets}/marker`);
    expect(marker.metadata.name).toBe('marker');
    expect((await api.get(`${secrets}/unknown-kind`)).status).toBe(200);
  });

  it('treats a namespaced owner of a cluster-scoped dependent as absent', async () => {
    const o = await owner('ns-owner');
    const pv = await api.post('/api/v1/persistentvolumes', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'gc-pv', ownerReferences: [ownerRef(o)] },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } },
    });
    expect(pv.status).toBe(201);
    await gone(api, '/api/v1/persistentvolumes/gc-pv');
  });
});

describe('foreground propagation', () => {
  it('keeps the owner (foregroundDeletion) until its blocking dependents are gone', async () => {
    const o = await owner('fg-owner');
    await dependent('fg-blocking', [ownerRef(o, { blockOwnerDeletion: true })], { finalizers: ['example.com/slow'] });
    await dependent('fg-free', [ownerRef(o)]);
    const d = await api.del(`${cms}/fg-owner`, { propagationPolicy: 'Foreground' });
    expect(d.status).toBe(200);
    expect(d.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(d.body.metadata.deletionTimestamp).toBeTruthy();
    // every dependent is deleted; the blocking one waits on its own finalizer and holds the owner
    await gone(api, `${secrets}/fg-free`);
    const blocking = await eventually(async () => {
      const g = await api.get(`${secrets}/fg-blocking`);
      expect(g.body.metadata.deletionTimestamp).toBeTruthy();
      return g.body;
    });
    expect(blocking.metadata.finalizers).toEqual(['example.com/slow']);
    const held = await api.get(`${cms}/fg-owner`);
    expect(held.status).toBe(200);
    expect(held.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await dropFinalizers(api, `${secrets}/fg-blocking`);
    await gone(api, `${cms}/fg-owner`);
  });

  it('does not wait for dependents that do not block', async () => {
    const o = await owner('fg-nb-owner');
    await dependent('fg-nb', [ownerRef(o, { blockOwnerDeletion: false })], { finalizers: ['example.com/slow'] });
    await api.del(`${cms}/fg-nb-owner`, { propagationPolicy: 'Foreground' });
    await gone(api, `${cms}/fg-nb-owner`);
    const dep = await api.get(`${secrets}/fg-nb`);
    expect(dep.body.metadata.deletionTimestamp).toBeTruthy();
    await dropFinalizers(api, `${secrets}/fg-nb`);
    await gone(api, `${secrets}/fg-nb`);
  });

  it('removes an owner without dependents', async () => {
    await owner('fg-alone');
    await api.del(`${cms}/fg-alone`, { propagationPolicy: 'Foreground' });
    await gone(api, `${cms}/fg-alone`);
  });

  it('deletes grand-children first when dependents have dependents', async () => {
    const top = await owner('fg3-top');
    const mid = (await api.post(cms, cm('fg3-mid', { ownerReferences: [ownerRef(top, { blockOwnerDeletion: true })] }))).body;
    await dependent('fg3-leaf', [ownerRef(mid, { blockOwnerDeletion: true })], { finalizers: ['example.com/slow'] });
    await api.del(`${cms}/fg3-top`, { propagationPolicy: 'Foreground' });
    const m = await eventually(async () => {
      const g = await api.get(`${cms}/fg3-mid`);
      expect(g.body.metadata.finalizers).toEqual(['foregroundDeletion']);
      return g.body;
    });
    expect(m.metadata.deletionTimestamp).toBeTruthy();
    expect((await api.get(`${cms}/fg3-top`)).status).toBe(200);
    await dropFinalizers(api, `${secrets}/fg3-leaf`);
    await gone(api, `${cms}/fg3-mid`);
    await gone(api, `${cms}/fg3-top`);
  });
});

describe('orphan propagation', () => {
  it('removes the owner and strips the references from its dependents, which stay', async () => {
    const o = await owner('or-owner');
    const other = await owner('or-other');
    await dependent('or-a', [ownerRef(o)]);
    await dependent('or-b', [ownerRef(o), ownerRef(other)]);
    const d = await api.del(`${cms}/or-owner`, { propagationPolicy: 'Orphan' });
    expect(d.status).toBe(200);
    expect(d.body.metadata.finalizers).toEqual(['orphan']);
    await gone(api, `${cms}/or-owner`);
    const a = await api.get(`${secrets}/or-a`);
    expect(a.status).toBe(200);
    expect(a.body.metadata.ownerReferences).toBeUndefined();
    const b = await api.get(`${secrets}/or-b`);
    expect(b.body.metadata.ownerReferences.map((r: any) => r.name)).toEqual(['or-other']);
  });

  it('takes orphanDependents=true as the deprecated spelling of Orphan', async () => {
    const o = await owner('od-owner');
    await dependent('od-a', [ownerRef(o)]);
    await api.del(`${cms}/od-owner`, { orphanDependents: true });
    await gone(api, `${cms}/od-owner`);
    expect((await api.get(`${secrets}/od-a`)).body.metadata.ownerReferences).toBeUndefined();
  });
});

describe('custom resources', () => {
  it('collects custom resources owned by built-ins and built-ins owned by custom resources', async () => {
    const crd = simpleCrd({ group: 'gc.example.com', plural: 'gadgets', kind: 'Gadget' });
    expect((await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    const gadgets = `/apis/gc.example.com/v1/namespaces/${NS}/gadgets`;
    const o = await owner('cr-owner');
    const g = await eventually(async () => {
      const r = await api.post(gadgets, { apiVersion: 'gc.example.com/v1', kind: 'Gadget', metadata: { name: 'g1', ownerReferences: [ownerRef(o)] } });
      expect(r.status).toBe(201);
      return r.body;
    });
    await dependent('owned-by-cr', [ownerRef(g)]);
    await api.del(`${cms}/cr-owner`);
    await gone(api, `${gadgets}/g1`);
    await gone(api, `${secrets}/owned-by-cr`);
  });
});
