// Deleting a CustomResourceDefinition deletes its custom objects through the normal delete path: their finalizers
// hold the CRD in condition Terminating (InstanceDeletionInProgress) until they are removed; then both go away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';
import { dropFinalizers, eventually, gone, ns, type Api } from './support.js';

let server: ApiServer;
let api: Api;
const CRDS = '/apis/apiextensions.service.io/v1/customresourcedefinitions';
const NAME = 'gadgets.crdgone.example.com';
const gadgets = '/apis/crdgone.example.com/v1/namespaces/crdgone/gadgets';

const gadget = (name: string, finalizers?: string[]) => ({ apiVersion: 'crdgone.example.com/v1', kind: 'Gadget', metadata: { name, ...(finalizers ? { finalizers } : {}) } });

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  expect((await api.post('/api/v1/namespaces', ns('crdgone'))).status).toBe(201);
});
afterAll(() => server.close());

const terminatingCondition = (crd: any) => (crd.status?.conditions ?? []).find((c: any) => c.type === 'Terminating');

describe('CRD deletion', () => {
  it('waits in Terminating for the finalizers of its custom objects, then both go away', async () => {
    const crd = {
      apiVersion: 'apiextensions.service.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: NAME },
      spec: {
        group: 'crdgone.example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    expect((await api.post(CRDS, crd)).status).toBe(201);
    await eventually(async () => expect((await api.post(gadgets, gadget('held', ['example.com/hold']))).status).toBe(201));
    expect((await api.post(gadgets, gadget('free'))).status).toBe(201);
    const established = await eventually(async () => {
      const g = (await api.get(`${CRDS}/${NAME}`)).body;
      expect(g.metadata.finalizers).toContain('customresourcecleanup.apiextensions.service.io');
      return g;
    });

    const d = await api.del(`${CRDS}/${NAME}`);
    expect(d.status).toBe(200);
    expect(d.body.metadata.deletionTimestamp).toBeTruthy();

    // the object without finalizers is deleted; the other one is marked and holds the CRD
    await gone(api, `${gadgets}/free`);
    const held = await api.get(`${gadgets}/held`);
    expect(held.status).toBe(200);
    expect(held.body.metadata.deletionTimestamp).toBeTruthy();
    const waiting = await eventually(async () => {
      const g = (await api.get(`${CRDS}/${NAME}`)).body;
      expect(terminatingCondition(g)).toBeDefined();
      return g;
    });
    expect(terminatingCondition(waiting)).toMatchObject({ status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    expect(waiting.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.service.io']);

    // still served, but no new objects
    const create = await api.post(gadgets, gadget('late'));
    expect(create.status).toBe(405);
    expect(create.body).toMatchObject({ reason: 'MethodNotAllowed', message: 'create not allowed while custom resource definition is terminating' });
    expect((await api.get(gadgets)).body.items.map((x: any) => x.metadata.name)).toEqual(['held']);

    const w = await WatchStream.open(`${server.url}${CRDS}?watch=true&fieldSelector=metadata.name%3D${NAME}&resourceVersion=${established.metadata.resourceVersion}`);
    try {
      await dropFinalizers(api, `${gadgets}/held`);
      await w.until((evs) => evs.some((e) => e.type === 'DELETED'));
      const last = w.events.filter((e) => e.type === 'MODIFIED').at(-1)!;
      expect(terminatingCondition(last.object)).toMatchObject({ status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' });
    } finally {
      w.close();
    }
    expect((await api.get(`${CRDS}/${NAME}`)).status).toBe(404);
    expect((await api.get(gadgets)).status).toBe(404);
    expect((await server.store.range({ prefix: '/registry/crdgone.example.com/' })).kvs).toEqual([]);
  });
});
