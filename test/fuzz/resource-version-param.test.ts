// Found by the fuzz suite: a resourceVersion past uint64 was read as a float (1e+22), so a GET waited
// for the store to reach it and answered 504 "Too large resource version". Upstream parses it with
// strconv.ParseUint(rv, 10, 64) (apiserver storage ParseResourceVersion): not a uint64 → 400 at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

describe('resourceVersion beyond uint64', () => {
  let server: ApiServer;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    server = await testServer();
    api = client(server.url);
  });
  afterAll(() => server?.close());

  it('is a 400 invalid resource version on get, list and watch', async () => {
    for (const rv of ['18446744073709551616', '9999999999999999999999', '1'.repeat(400)]) {
      for (const path of [`/api/v1/namespaces?resourceVersion=${rv}`, `/api/v1/namespaces/default?resourceVersion=${rv}`, `/api/v1/namespaces?watch=true&resourceVersion=${rv}`]) {
        const r = await api.get(path);
        expect(r.status, path).toBe(400);
        expect(r.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
        expect(r.body.message).toContain('invalid resource version');
      }
    }
  });
});
