// Found by the fuzz suite: a forged continue token whose resourceVersion is not a safe integer (1e20) or
// newer than the store was a 500 ("invalid revision", "mvcc: required revision is a future revision").
// A continue token is client input: both are a 400 "continue key is not valid" (upstream continue.go
// rejects tokens it cannot use with that prefix).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

const token = (rv: number) => Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: 'a\u0000' })).toString('base64url');

describe('forged continue tokens', () => {
  let server: ApiServer;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    server = await testServer();
    api = client(server.url);
  });
  afterAll(() => server?.close());

  it('with a resourceVersion past the store or not a safe integer are a 400', async () => {
    for (const rv of [1e20, 2 ** 53 + 2, (await server.store.currentRevision()) + 1000]) {
      const r = await api.get(`/api/v1/namespaces?limit=1&continue=${token(rv)}`);
      expect(r.status, String(rv)).toBe(400);
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
      expect(r.body.message).toMatch(/^continue key is not valid/);
    }
  });
});
