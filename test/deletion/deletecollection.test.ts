// DELETE on a collection: selectors, DeleteOptions, and the same per-object semantics as a single delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { cm, dropFinalizers, gone, ns, ownerRef, pod, type Api } from './support.js';

let server: ApiServer;
let api: Api;

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
});
afterAll(() => server.close());

const names = (list: any) => list.items.map((i: any) => i.metadata.name).sort();

describe('deletecollection', () => {
  it('deletes what the label selector matches and answers with the list as it was', async () => {
    await api.post('/api/v1/namespaces', ns('dc1'));
    for (const [n, app] of [['x1', 'x'], ['x2', 'x'], ['y1', 'y']]) await api.post('/api/v1/namespaces/dc1/configmaps', cm(n, { labels: { app } }));
    const d = await api.del('/api/v1/namespaces/dc1/configmaps?labelSelector=app%3Dx');
    expect(d.status).toBe(200);
    expect(d.body.kind).toBe('ConfigMapList');
    expect(names(d.body)).toEqual(['x1', 'x2']);
    expect(names((await api.get('/api/v1/namespaces/dc1/configmaps')).body)).toEqual(['y1']);
  });

  it('filters by field selector and stays inside its namespace', async () => {
    await api.post('/api/v1/namespaces', ns('dc2'));
    await api.post('/api/v1/namespaces', ns('dc2-other'));
    for (const n of ['a', 'b']) await api.post('/api/v1/namespaces/dc2/configmaps', cm(n));
    await api.post('/api/v1/namespaces/dc2-other/configmaps', cm('a'));
    const d = await api.del('/api/v1/namespaces/dc2/configmaps?fieldSelector=metadata.name%3Da');
    expect(names(d.body)).toEqual(['a']);
    expect(names((await api.get('/api/v1/namespaces/dc2/configmaps')).body)).toEqual(['b']);
    expect((await api.get('/api/v1/namespaces/dc2-other/configmaps/a')).status).toBe(200);
  });

  it('treats each object as a delete would: finalizers hold, pods get grace periods, dry-run changes nothing', async () => {
    await api.post('/api/v1/namespaces', ns('dc3'));
    await api.post('/api/v1/namespaces/dc3/configmaps', cm('held', { finalizers: ['example.com/x'] }));
    await api.post('/api/v1/namespaces/dc3/configmaps', cm('free'));
    const dry = await api.del('/api/v1/namespaces/dc3/configmaps', { dryRun: ['All'] });
    expect(names(dry.body)).toEqual(['free', 'held']);
    expect(names((await api.get('/api/v1/namespaces/dc3/configmaps')).body)).toEqual(['free', 'held']);
    expect((await api.get('/api/v1/namespaces/dc3/configmaps/held')).body.metadata.deletionTimestamp).toBeUndefined();

    await api.del('/api/v1/namespaces/dc3/configmaps');
    const left = (await api.get('/api/v1/namespaces/dc3/configmaps')).body;
    expect(names(left)).toEqual(['held']);
    expect(left.items[0].metadata.deletionTimestamp).toBeTruthy();
    await dropFinalizers(api, '/api/v1/namespaces/dc3/configmaps/held');

    await api.post('/api/v1/namespaces/dc3/pods', pod('on-node', { nodeName: 'n1' }));
    await api.post('/api/v1/namespaces/dc3/pods', pod('nowhere'));
    await api.del('/api/v1/namespaces/dc3/pods?gracePeriodSeconds=1');
    expect((await api.get('/api/v1/namespaces/dc3/pods/nowhere')).status).toBe(404);
    expect((await api.get('/api/v1/namespaces/dc3/pods/on-node')).body.metadata.deletionGracePeriodSeconds).toBe(1);
    await gone(api, '/api/v1/namespaces/dc3/pods/on-node');
  });

  it('propagates per object (Orphan keeps the dependents)', async () => {
    await api.post('/api/v1/namespaces', ns('dc4'));
    const o = (await api.post('/api/v1/namespaces/dc4/configmaps', cm('owner', { labels: { role: 'owner' } }))).body;
    await api.post('/api/v1/namespaces/dc4/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kid', ownerReferences: [ownerRef(o)] } });
    await api.del('/api/v1/namespaces/dc4/configmaps?labelSelector=role%3Downer', { propagationPolicy: 'Orphan' });
    await gone(api, '/api/v1/namespaces/dc4/configmaps/owner');
    const kid = await api.get('/api/v1/namespaces/dc4/secrets/kid');
    expect(kid.status).toBe(200);
    expect(kid.body.metadata.ownerReferences).toBeUndefined();
  });

  it('validates its options', async () => {
    expect((await api.del('/api/v1/namespaces/dc1/configmaps?propagationPolicy=Sometimes')).status).toBe(422);
    expect((await api.del('/api/v1/namespaces/dc1/configmaps?labelSelector=%3D%3D%3D')).status).toBe(400);
  });
});
