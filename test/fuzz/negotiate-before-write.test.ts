// Found by the fuzz suite: a write whose Accept header the server cannot satisfy was stored, then
// answered 406. Upstream negotiates the output media type before decoding the body or writing
// (endpoints/handlers create.go, update.go, patch.go: NegotiateOutputMediaType first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

describe('a write with an unsatisfiable Accept header', () => {
  let server: ApiServer;
  let api: ReturnType<typeof client>;
  const base = '/api/v1/namespaces/default/configmaps';
  const cm = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } });
  const html = { Accept: 'application/xml' };
  beforeAll(async () => {
    server = await testServer();
    api = client(server.url);
    await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    expect((await api.post(base, cm('existing', 'old'))).status).toBe(201);
  });
  afterAll(() => server?.close());

  it('is refused with 406 before anything is stored', async () => {
    const rev = await server.store.currentRevision();
    const post = await api.post(base, cm('fresh', 'x'), html);
    expect(post.status).toBe(406);
    expect(post.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    expect((await api.put(`${base}/created-by-put`, cm('created-by-put', 'x'), html)).status).toBe(406);
    expect((await api.put(`${base}/existing`, cm('existing', 'new'), html)).status).toBe(406);
    expect((await api.patch(`${base}/existing`, { data: { v: 'patched' } }, 'application/merge-patch+json', html)).status).toBe(406);
    expect((await api.patch(`${base}/applied?fieldManager=t`, JSON.stringify(cm('applied', 'x')), 'application/apply-patch+yaml', html)).status).toBe(406);
    // output options are checked with the media type: a Table with a bad includeObject stores nothing either
    const table = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    expect((await api.post(`${base}?includeObject=bogus`, cm('tabled', 'x'), table)).status).toBe(400);
    expect((await api.patch(`${base}/existing?includeObject=bogus`, { data: { v: 'patched' } }, 'application/merge-patch+json', table)).status).toBe(400);
    expect(await server.store.currentRevision()).toBe(rev);
    expect((await api.get(`${base}/fresh`)).status).toBe(404);
    expect((await api.get(`${base}/existing`)).body.data).toEqual({ v: 'old' });
  });
});
