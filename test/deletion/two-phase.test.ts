// Two-phase deletion with finalizers, response codes and bodies, preconditions and DeleteOptions handling.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { encodeProtobufObject } from '../../src/api/protobuf/index.js';
import { client, testServer } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';
import { cm, ns, type Api } from './support.js';

let server: ApiServer;
let api: Api;
const base = '/api/v1/namespaces/two-phase/configmaps';

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  expect((await api.post('/api/v1/namespaces', ns('two-phase'))).status).toBe(201);
});
afterAll(() => server.close());

describe('finalizers', () => {
  it('keeps an object with finalizers readable and marked, reported as MODIFIED, until the last finalizer goes', async () => {
    const created = (await api.post(base, cm('held', { finalizers: ['example.com/a', 'example.com/b'] }))).body;
    const w = await WatchStream.open(`${server.url}${base}?watch=true&resourceVersion=${created.metadata.resourceVersion}`);
    try {
      const d = await api.del(`${base}/held`);
      expect(d.status).toBe(200);
      expect(d.body.kind).toBe('ConfigMap');
      expect(d.body.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(d.body.metadata.deletionGracePeriodSeconds).toBe(0);
      expect(d.body.metadata.finalizers).toEqual(['example.com/a', 'example.com/b']);
      const g = await api.get(`${base}/held`);
      expect(g.status).toBe(200);
      expect(g.body.metadata.deletionTimestamp).toBe(d.body.metadata.deletionTimestamp);

      // deleting again changes nothing
      const again = await api.del(`${base}/held`);
      expect(again.status).toBe(200);
      expect(again.body.metadata.resourceVersion).toBe(d.body.metadata.resourceVersion);

      // finalizers go in any order; new ones cannot be added any more
      const added = await api.put(`${base}/held`, { ...g.body, metadata: { ...g.body.metadata, finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } });
      expect(added.status).toBe(422);
      expect(added.body.message).toContain('no new finalizers can be added if the object is being deleted');
      const one = await api.put(`${base}/held`, { ...g.body, metadata: { ...g.body.metadata, finalizers: ['example.com/a'] } });
      expect(one.status).toBe(200);
      expect((await api.get(`${base}/held`)).status).toBe(200);
      const last = await api.put(`${base}/held`, { ...one.body, metadata: { ...one.body.metadata, finalizers: [] } });
      expect(last.status).toBe(200);
      expect((await api.get(`${base}/held`)).status).toBe(404);

      const evs = await w.until((e) => e.some((x) => x.type === 'DELETED'));
      expect(evs.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
      expect(evs[0]!.object.metadata.deletionTimestamp).toBeTruthy();
    } finally {
      w.close();
    }
  });

  it('answers a completed delete with a Status naming the object, and a delete with nothing left to do with 404', async () => {
    const c = (await api.post(base, cm('plain'))).body;
    const d = await api.del(`${base}/plain`);
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'plain', kind: 'configmaps', uid: c.metadata.uid } });
    const again = await api.del(`${base}/plain`);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('configmaps "plain" not found');
  });

  it('answers 202 only for a cascading (orphanDependents=false) delete still under way (Test202StatusCode)', async () => {
    await api.post(base, cm('s1'));
    expect((await api.del(`${base}/s1`)).status).toBe(200);
    await api.post(base, cm('s2', { finalizers: ['example.com/x'] }));
    expect((await api.del(`${base}/s2`)).status).toBe(200);
    await api.post(base, cm('s3'));
    expect((await api.del(`${base}/s3`, { orphanDependents: false })).status).toBe(200);
    await api.post(base, cm('s4', { finalizers: ['example.com/x'] }));
    const d = await api.del(`${base}/s4`, { orphanDependents: false });
    expect(d.status).toBe(202);
    expect(d.body.kind).toBe('ConfigMap');
  });
});

describe('preconditions', () => {
  it('checks uid and resourceVersion with 409 Conflict', async () => {
    const c = (await api.post(base, cm('pre'))).body;
    const uid = await api.del(`${base}/pre`, { preconditions: { uid: 'not-the-uid' } });
    expect(uid.status).toBe(409);
    expect(uid.body).toMatchObject({ reason: 'Conflict', code: 409 });
    expect(uid.body.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition (not-the-uid) does not match the UID in record (${c.metadata.uid}). The object might have been deleted and then recreated`,
    );
    const rv = await api.del(`${base}/pre`, { preconditions: { resourceVersion: '1' } });
    expect(rv.status).toBe(409);
    expect(rv.body.message).toContain('the ResourceVersion in the precondition (1) does not match the ResourceVersion in record');
    const ok = await api.del(`${base}/pre`, { preconditions: { uid: c.metadata.uid, resourceVersion: c.metadata.resourceVersion } });
    expect(ok.status).toBe(200);
    expect((await api.get(`${base}/pre`)).status).toBe(404);
  });
});

describe('DeleteOptions', () => {
  it('reads options from the query when there is no body', async () => {
    await api.post(base, cm('q1', { finalizers: ['example.com/x'] }));
    const d = await api.del(`${base}/q1?dryRun=All`);
    expect(d.status).toBe(200);
    expect(d.body.metadata.deletionTimestamp).toBeTruthy();
    expect((await api.get(`${base}/q1`)).body.metadata.deletionTimestamp).toBeUndefined();
    const o = await api.del(`${base}/q1?orphanDependents=false`);
    expect(o.status).toBe(202);
  });

  it('rejects invalid combinations with 422 and unparsable values with 400', async () => {
    await api.post(base, cm('v1'));
    const both = await api.del(`${base}/v1`, { orphanDependents: true, propagationPolicy: 'Orphan' });
    expect(both.status).toBe(422);
    expect(both.body.message).toBe('DeleteOptions.meta.service.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set');
    const bad = await api.del(`${base}/v1?propagationPolicy=Sideways`);
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes[0]).toMatchObject({ reason: 'FieldValueNotSupported', field: 'propagationPolicy' });
    const dry = await api.del(`${base}/v1`, { dryRun: ['Some'] });
    expect(dry.status).toBe(422);
    expect(dry.body.message).toContain('dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
    expect((await api.del(`${base}/v1?gracePeriodSeconds=soon`)).status).toBe(400);
    expect((await api.del(`${base}/v1?orphanDependents=maybe`)).status).toBe(400);
    expect((await api.del(`${base}/v1`, { gracePeriodSeconds: 'soon' })).status).toBe(400);
    expect((await api.get(`${base}/v1`)).status).toBe(200);
  });

  it('accepts a YAML body', async () => {
    await api.post(base, cm('y1', { finalizers: ['example.com/x'] }));
    const d = await api.call('DELETE', `${base}/y1`, 'kind: DeleteOptions\napiVersion: v1\ndryRun: [All]\n', { 'Content-Type': 'application/yaml' });
    expect(d.status).toBe(200);
    expect((await api.get(`${base}/y1`)).body.metadata.deletionTimestamp).toBeUndefined();
  });

  it('accepts a Protobuf body (the metadata client deletes with a uid precondition)', async () => {
    const c = (await api.post(base, cm('pb'))).body;
    const body = (uid: string) =>
      Buffer.from(encodeProtobufObject({ apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', preconditions: { uid } }));
    const wrong = await api.call('DELETE', `${base}/pb`, body('nope'), { 'Content-Type': 'application/vnd.kubernetes.protobuf' });
    expect(wrong.status).toBe(409);
    const ok = await api.call('DELETE', `${base}/pb`, body(c.metadata.uid), { 'Content-Type': 'application/vnd.kubernetes.protobuf' });
    expect(ok.status).toBe(200);
    expect((await api.get(`${base}/pb`)).status).toBe(404);
  });

  it('dry-run removes nothing and sets no deletionTimestamp', async () => {
    await api.post(base, cm('dry'));
    const d = await api.del(`${base}/dry`, { dryRun: ['All'] });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'dry' } });
    const g = await api.get(`${base}/dry`);
    expect(g.status).toBe(200);
    expect(g.body.metadata.deletionTimestamp).toBeUndefined();
  });

  it('ignores ignoreStoreReadErrorWithClusterBreakingPotential while its gate is off', async () => {
    await api.post(base, cm('unsafe-off'));
    const d = await api.del(`${base}/unsafe-off`, { ignoreStoreReadErrorWithClusterBreakingPotential: true, dryRun: ['All'] });
    expect(d.status).toBe(200);
    expect((await api.get(`${base}/unsafe-off`)).status).toBe(200);
  });

  it('adds the orphan / foregroundDeletion finalizers the propagation policy asks for', async () => {
    await api.post(base, cm('fg', { finalizers: ['example.com/x'] }));
    const fg = await api.del(`${base}/fg`, { propagationPolicy: 'Foreground' });
    expect(fg.body.metadata.finalizers).toEqual(['example.com/x', 'foregroundDeletion']);
    await api.post(base, cm('or', { finalizers: ['example.com/x'] }));
    const or = await api.del(`${base}/or`, { propagationPolicy: 'Orphan' });
    expect(or.body.metadata.finalizers).toEqual(['example.com/x', 'orphan']);
  });

  it('refuses DELETE on a sub-resource', async () => {
    await api.post('/apis/apps/v1/namespaces/two-phase/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    expect((await api.del('/apis/apps/v1/namespaces/two-phase/deployments/d/status')).status).toBe(405);
  });
});
