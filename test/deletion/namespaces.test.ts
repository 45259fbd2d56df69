// Namespace lifecycle: delete → Terminating; the namespace controller deletes everything in it (custom resources
// included, finalizers respected), reports what it waits for in status.conditions, then removes the namespace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';
import { cm, dropFinalizers, eventually, gone, ns, pod, type Api } from './support.js';
import { simpleCrd } from '../helpers/crd.js';

let server: ApiServer;
let api: Api;

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  const crd = simpleCrd({ group: 'ns.example.com', plural: 'sprockets', kind: 'Sprocket' });
  expect((await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
});
afterAll(() => server.close());

const condition = (nsObj: any, type: string) => (nsObj.status.conditions ?? []).find((c: any) => c.type === type);

describe('namespace deletion', () => {
  it('defaults new namespaces to Active with the kubernetes finalizer', async () => {
    const c = await api.post('/api/v1/namespaces', { ...ns('fresh'), spec: { finalizers: ['example.com/mine'] }, status: { phase: 'Terminating' } });
    expect(c.body.spec.finalizers).toEqual(['example.com/mine', 'kubernetes']);
    expect(c.body.status).toEqual({ phase: 'Active' });
    // spec.finalizers change through /finalize only
    const u = await api.put('/api/v1/namespaces/fresh', { ...c.body, spec: { finalizers: [] } });
    expect(u.body.spec.finalizers).toEqual(['example.com/mine', 'kubernetes']);
    const f = await api.put('/api/v1/namespaces/fresh/finalize', { ...u.body, spec: { finalizers: ['kubernetes'] } });
    expect(f.status).toBe(200);
    expect(f.body.spec.finalizers).toEqual(['kubernetes']);
  });

  it('empties the namespace of every type, custom resources included, then removes it', async () => {
    const c = await api.post('/api/v1/namespaces', ns('doomed'));
    await api.post('/api/v1/namespaces/doomed/configmaps', cm('one'));
    await api.post('/api/v1/namespaces/doomed/pods', pod('p'));
    await api.post('/apis/ns.example.com/v1/namespaces/doomed/sprockets', { apiVersion: 'ns.example.com/v1', kind: 'Sprocket', metadata: { name: 's1' } });
    await api.post('/api/v1/namespaces', ns('bystander'));
    await api.post('/api/v1/namespaces/bystander/configmaps', cm('one'));
    const w = await WatchStream.open(`${server.url}/api/v1/namespaces?watch=true&fieldSelector=metadata.name%3Ddoomed&resourceVersion=${c.body.metadata.resourceVersion}`);
    try {
      const d = await api.del('/api/v1/namespaces/doomed');
      expect(d.status).toBe(200);
      expect(d.body).toMatchObject({ kind: 'Namespace', metadata: { name: 'doomed' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating' } });
      expect(d.body.metadata.deletionTimestamp).toBeTruthy();
      await w.until((e) => e.some((x) => x.type === 'DELETED'));
      expect(w.events[0]!.object.status.phase).toBe('Terminating');
    } finally {
      w.close();
    }
    expect((await api.get('/api/v1/namespaces/doomed')).status).toBe(404);
    for (const p of ['/api/v1/namespaces/doomed/configmaps/one', '/api/v1/namespaces/doomed/pods/p', '/apis/ns.example.com/v1/namespaces/doomed/sprockets/s1'])
      expect((await api.get(p)).status).toBe(404);
    expect((await api.get('/api/v1/namespaces/bystander/configmaps/one')).status).toBe(200);
  });

  it('waits for finalizers of its content and says so in status.conditions', async () => {
    await api.post('/api/v1/namespaces', ns('slow'));
    await api.post('/api/v1/namespaces/slow/configmaps', cm('held', { finalizers: ['example.com/hold'] }));
    await api.post('/apis/ns.example.com/v1/namespaces/slow/sprockets', {
      apiVersion: 'ns.example.com/v1',
      kind: 'Sprocket',
      metadata: { name: 'held', finalizers: ['example.com/hold', 'example.com/other'] },
    });
    await api.post('/api/v1/namespaces/slow/configmaps', cm('free'));
    await api.del('/api/v1/namespaces/slow');
    const waiting = await eventually(async () => {
      const g = await api.get('/api/v1/namespaces/slow');
      expect(condition(g.body, 'NamespaceFinalizersRemaining')?.status).toBe('True');
      return g.body;
    });
    expect(waiting.status.phase).toBe('Terminating');
    expect(condition(waiting, 'NamespaceContentRemaining')).toMatchObject({
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: configmaps. has 1 resource instances, sprockets.ns.example.com has 1 resource instances',
    });
    expect(condition(waiting, 'NamespaceFinalizersRemaining')).toMatchObject({
      reason: 'SomeFinalizerRemain',
      message: 'Some finalizers are remaining: example.com/hold in 2 resource instances, example.com/other in 1 resource instances',
    });
    expect(condition(waiting, 'NamespaceDeletionContentFailure')).toMatchObject({ status: 'False', reason: 'ContentDeleted' });
    expect(condition(waiting, 'NamespaceDeletionDiscoveryFailure')).toMatchObject({ status: 'False', reason: 'ResourcesDiscovered' });
    expect(condition(waiting, 'NamespaceDeletionGroupVersionParsingFailure')).toMatchObject({ status: 'False', reason: 'ParsedGroupVersions' });
    expect((await api.get('/api/v1/namespaces/slow/configmaps/free')).status).toBe(404);
    const held = await api.get('/api/v1/namespaces/slow/configmaps/held');
    expect(held.body.metadata.deletionTimestamp).toBeTruthy();

    // a second delete answers with the namespace, still terminating
    const again = await api.del('/api/v1/namespaces/slow');
    expect(again.status).toBe(200);
    expect(again.body.status.phase).toBe('Terminating');

    await dropFinalizers(api, '/api/v1/namespaces/slow/configmaps/held');
    const progressed = await eventually(async () => {
      const g = await api.get('/api/v1/namespaces/slow');
      expect(condition(g.body, 'NamespaceContentRemaining').message).toBe('Some resources are remaining: sprockets.ns.example.com has 1 resource instances');
      return g.body;
    });
    expect(progressed.spec.finalizers).toEqual(['kubernetes']);
    await dropFinalizers(api, '/apis/ns.example.com/v1/namespaces/slow/sprockets/held');
    await gone(api, '/api/v1/namespaces/slow');
  });

  it('keeps a namespace with other spec finalizers until they are removed through /finalize', async () => {
    await api.post('/api/v1/namespaces', { ...ns('extra'), spec: { finalizers: ['example.com/mine'] } });
    await api.del('/api/v1/namespaces/extra');
    const left = await eventually(async () => {
      const g = await api.get('/api/v1/namespaces/extra');
      expect(g.body.spec.finalizers).toEqual(['example.com/mine']);
      return g.body;
    });
    const f = await api.put('/api/v1/namespaces/extra/finalize', { ...left, spec: { finalizers: [] } });
    expect(f.status).toBe(200);
    expect((await api.get('/api/v1/namespaces/extra')).status).toBe(404);
  });

  it('refuses to delete the immortal namespaces', async () => {
    for (const name of ['default', 'kube-system', 'kube-public']) {
      if ((await api.get(`/api/v1/namespaces/${name}`)).status === 404) expect((await api.post('/api/v1/namespaces', ns(name))).status).toBe(201);
      for (const body of [undefined, { dryRun: ['All'] }]) {
        const r = await api.del(`/api/v1/namespaces/${name}`, body);
        expect(r.status).toBe(403);
        expect(r.body).toMatchObject({
          kind: 'Status',
          status: 'Failure',
          reason: 'Forbidden',
          code: 403,
          message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
          details: { name, kind: 'namespaces' },
        });
      }
      const g = await api.get(`/api/v1/namespaces/${name}`);
      expect(g.body.status.phase).toBe('Active');
      expect(g.body.metadata.deletionTimestamp).toBeUndefined();
    }
  });

  it('checks preconditions, and dry-run changes nothing', async () => {
    const c = (await api.post('/api/v1/namespaces', ns('careful'))).body;
    const bad = await api.del('/api/v1/namespaces/careful', { preconditions: { uid: 'other' } });
    expect(bad.status).toBe(409);
    expect(bad.body.message).toBe(`Operation cannot be fulfilled on namespaces "careful": Precondition failed: UID in precondition: other, UID in object meta: ${c.metadata.uid}`);
    const dry = await api.del('/api/v1/namespaces/careful', { dryRun: ['All'] });
    expect(dry.status).toBe(200);
    expect(dry.body.status.phase).toBe('Terminating');
    const g = await api.get('/api/v1/namespaces/careful');
    expect(g.body.status.phase).toBe('Active');
    expect(g.body.metadata.deletionTimestamp).toBeUndefined();
    const ok = await api.del('/api/v1/namespaces/careful', { preconditions: { uid: c.metadata.uid } });
    expect(ok.status).toBe(200);
    await gone(api, '/api/v1/namespaces/careful');
  });
});
