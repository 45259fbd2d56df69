import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

function raw(url: string, encoding: string): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'Accept-Encoding': encoding, Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('gzip of list pages', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await testServer();
    const c = client(server.url);
    expect((await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gz' } })).status).toBe(201);
    for (let i = 0; i < 50; i++) {
      const r = await c.post('/api/v1/namespaces/gz/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { v: `${i}-`.repeat(1500) } });
      expect(r.status).toBe(201);
    }
  });
  afterAll(() => server.close());

  it('compresses a page past 128 KiB in one piece: the same bytes, with a Content-Length', async () => {
    // one snapshot for both (Lease renewals move the newest revision on between two lists)
    const first = await raw(`${server.url}/api/v1/namespaces/gz/configmaps?limit=1`, 'identity');
    const rv = JSON.parse(first.body.toString()).metadata.resourceVersion;
    const url = `${server.url}/api/v1/namespaces/gz/configmaps?limit=40&resourceVersion=${rv}&resourceVersionMatch=Exact`;
    const plain = await raw(url, 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(128 * 1024);
    const gz = await raw(url, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    // a streamed gzip went out chunked, each 64 KiB piece through the thread pool
    expect(Number(gz.headers['content-length'])).toBe(gz.body.length);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
  });
});
