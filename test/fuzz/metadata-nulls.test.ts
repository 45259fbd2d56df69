// Found by the fuzz suite: null list fields in metadata were a 500 (null.forEach / null.apiVersion).
// Upstream decodes JSON null into a nil slice (as if absent), and a null owner reference into an empty
// one that validation rejects (apimachinery ValidateOwnerReferences: apiVersion/kind/name/uid required).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

describe('null lists in metadata', () => {
  let server: ApiServer;
  let api: ReturnType<typeof client>;
  const ns = (name: string, meta: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...meta } });
  beforeAll(async () => {
    server = await testServer();
    api = client(server.url);
  });
  afterAll(() => server?.close());

  it('finalizers: null and ownerReferences: null are accepted as absent', async () => {
    expect((await api.post('/api/v1/namespaces', ns('null-finalizers', { finalizers: null }))).status).toBe(201);
    expect((await api.post('/api/v1/namespaces', ns('null-owners', { ownerReferences: null }))).status).toBe(201);
    expect((await api.del('/api/v1/namespaces/null-finalizers')).status).toBe(200);
  });

  it('a null owner reference is a 422 naming the empty fields', async () => {
    for (const refs of [[null], [null, null], [1], ['x']]) {
      const r = await api.post('/api/v1/namespaces', ns('null-owner-item', { ownerReferences: refs }));
      expect(r.status, JSON.stringify(refs)).toBeGreaterThanOrEqual(400);
      expect(r.status, JSON.stringify(refs)).toBeLessThan(500);
    }
    const r = await api.post('/api/v1/namespaces', ns('null-owner-item', { ownerReferences: [null] }));
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('metadata.ownerReferences[0].uid');
  });
});
