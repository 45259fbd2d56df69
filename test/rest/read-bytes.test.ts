// Golden bytes of the read paths served from cached encodings: a GET and a list answer exactly what
// JSON.stringify of the object(s) would write, whatever spelling the request used and however the
// list is cut into writes.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

function raw(url: string, method = 'GET', accept = 'application/json'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { Accept: accept, 'Accept-Encoding': 'identity' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The body is the compact JSON of what it holds, newline-terminated (encodeObject's bytes). */
function expectCanonical(body: Buffer): any {
  const text = body.toString('utf8');
  const parsed = JSON.parse(text);
  expect(text).toBe(JSON.stringify(parsed) + '\n');
  return parsed;
}

describe('read paths serve cached bytes identical to a fresh encoding', () => {
  let server: ApiServer;
  const ns = '/api/v1/namespaces/golden';
  beforeAll(async () => {
    server = await testServer();
    const c = client(server.url);
    expect((await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'golden' } })).status).toBe(201);
    // one item larger than a 64 KiB write, others small: the list crosses several writes
    expect((await c.post(`${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { v: 'é'.repeat(70_000) } })).status).toBe(201);
    for (let i = 0; i < 40; i++)
      expect((await c.post(`${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { i: String(i) } }, data: { v: `${i}`.repeat(3000) } })).status).toBe(201);
  });
  afterAll(() => server.close());

  it('GET: the object as JSON plus a newline, Content-Length exact, HEAD without a body', async () => {
    const r = await raw(`${server.url}${ns}/configmaps/cm-3`);
    expect(r.status).toBe(200);
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    const obj = expectCanonical(r.body);
    expect(obj).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-3', namespace: 'golden' } });
    // the same bytes again (served from the cache this time)
    expect((await raw(`${server.url}${ns}/configmaps/cm-3`)).body.equals(r.body)).toBe(true);
    const head = await raw(`${server.url}${ns}/configmaps/cm-3`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(Number(head.headers['content-length'])).toBe(r.body.length);
  });

  it('GET: a new version is served at once after an update, never the cached older one', async () => {
    const c = client(server.url);
    for (let i = 0; i < 5; i++) {
      const cur = (await c.get(`${ns}/configmaps/cm-4`)).body;
      const put = await c.put(`${ns}/configmaps/cm-4`, { ...cur, data: { v: `round-${i}` } });
      expect(put.status).toBe(200);
      const r = await raw(`${server.url}${ns}/configmaps/cm-4`);
      const got = expectCanonical(r.body);
      expect(got.data.v).toBe(`round-${i}`);
      expect(got.metadata.resourceVersion).toBe(put.body.metadata.resourceVersion);
    }
  });

  it('GET: an aliased group spelling is answered in that spelling, byte for byte as a fresh encoding', async () => {
    const c = client(server.url);
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    expect((await c.post('/apis/rbac.authorization.k8s.io/v1/namespaces/golden/roles', role)).status).toBe(201);
    const upstream = await raw(`${server.url}/apis/rbac.authorization.k8s.io/v1/namespaces/golden/roles/reader`);
    const ours = await raw(`${server.url}/apis/rbac.authorization.service.io/v1/namespaces/golden/roles/reader`);
    expect(expectCanonical(upstream.body).apiVersion).toBe('rbac.authorization.k8s.io/v1');
    expect(expectCanonical(ours.body).apiVersion).toBe('rbac.authorization.service.io/v1');
    // the same object otherwise: only the apiVersion differs, in place (its own and managedFields' entries, as upstream records the request's)
    expect(ours.body.toString().replaceAll('rbac.authorization.service.io/v1', 'rbac.authorization.k8s.io/v1')).toBe(upstream.body.toString());
    expect(upstream.body.toString()).not.toContain('service.io');
    // and a pretty GET is still the indented form
    const pretty = await raw(`${server.url}/apis/rbac.authorization.k8s.io/v1/namespaces/golden/roles/reader?pretty=true`);
    expect(pretty.body.toString()).toBe(JSON.stringify(JSON.parse(upstream.body.toString()), null, 2) + '\n');
  });

  it('list: items joined exactly as one JSON document, across writes and an item larger than a write', async () => {
    const r = await raw(`${server.url}${ns}/configmaps`);
    expect(r.status).toBe(200);
    expect(r.body.length).toBeGreaterThan(3 * 64 * 1024);
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    const list = expectCanonical(r.body);
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((o: any) => o.metadata.name)).toEqual(['big', ...Array.from({ length: 40 }, (_, i) => `cm-${i}`)].sort());
    // every item is the bytes its GET answers (without the newline)
    const one = await raw(`${server.url}${ns}/configmaps/big`);
    expect(r.body.includes(one.body.subarray(0, one.body.length - 1))).toBe(true);
    // an empty list and a one-item page
    const empty = await raw(`${server.url}${ns}/configmaps?labelSelector=i%3Dnone`);
    expect(expectCanonical(empty.body).items).toEqual([]);
    expect(Number(empty.headers['content-length'])).toBe(empty.body.length);
    const page = await raw(`${server.url}${ns}/configmaps?limit=1`);
    expect(expectCanonical(page.body).items).toHaveLength(1);
    expect(Number(page.headers['content-length'])).toBe(page.body.length);
  });

  it('Table list: the same document as a fresh encoding (the pretty form, compacted), every includeObject', async () => {
    for (const include of ['', '&includeObject=None', '&includeObject=Object']) {
      const accept = 'application/json;as=Table;g=meta.k8s.io;v=v1';
      const r = await raw(`${server.url}${ns}/configmaps?limit=30${include}`, 'GET', accept);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe(accept);
      expect(Number(r.headers['content-length'])).toBe(r.body.length);
      const table = expectCanonical(r.body);
      const fresh = JSON.parse((await raw(`${server.url}${ns}/configmaps?limit=30${include}&pretty=true`, 'GET', accept)).body.toString());
      // ages may tick between the two requests
      const age = table.columnDefinitions.findIndex((c: { name: string }) => c.name === 'Age');
      expect(age).toBeGreaterThan(0);
      for (const t of [table, fresh]) for (const row of t.rows) row.cells[age] = 'age';
      expect(JSON.stringify(table)).toBe(JSON.stringify(fresh));
      expect(table.rows).toHaveLength(30);
    }
  });
});
