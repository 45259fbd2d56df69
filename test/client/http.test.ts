// The HTTP client against the real server: paths, typed errors, Warning headers, credentials, negotiation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { ApiClient, ApiError, NetworkError, acceptFor, formOf, listAll } from '../../src/client/index.js';
import { testServer } from '../helpers/server.js';
import { createNamespace } from './fixtures.js';

let server: ApiServer;
let client: ApiClient;

beforeAll(async () => {
  server = await testServer({}, { adminToken: 'tok-123' }); // tokens are verified: the client's token is the admin token
  client = new ApiClient({ baseUrl: server.url });
  await createNamespace(server.url, 'http');
});
afterAll(async () => {
  await server?.close();
});

const cms = { group: '', version: 'v1', resource: 'configmaps', namespace: 'http' };

describe('ApiClient', () => {
  it('creates and reads objects through paths built from group, version, resource, namespace and name', async () => {
    const created = await client.create<any>(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: '1' } });
    expect(created.metadata.namespace).toBe('http');
    const got = await client.get<any>({ ...cms, name: 'one' });
    expect(got.data).toEqual({ a: '1' });
    const deploys = await client.request<any>('GET', '/apis/apps/v1/namespaces/http/deployments');
    expect(deploys.body.kind).toBe('DeploymentList');
  });

  it('turns Status answers into ApiError with code, reason and causes', async () => {
    const nf: any = await client.get({ ...cms, name: 'missing' }).catch((e: unknown) => e);
    expect(nf).toBeInstanceOf(ApiError);
    expect(nf.code).toBe(404);
    expect(nf.reason).toBe('NotFound');
    expect(nf.message).toBe('configmaps "missing" not found');
    expect(nf.details.name).toBe('missing');

    const invalid: any = await client.create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_Valid' } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ApiError);
    expect(invalid.code).toBe(422);
    expect(invalid.reason).toBe('Invalid');
    expect(invalid.causes.some((c: { field?: string }) => c.field === 'metadata.name')).toBe(true);

    const exists: any = await client.create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' } }).catch((e: unknown) => e);
    expect(exists.code).toBe(409);
    expect(exists.reason).toBe('AlreadyExists');
  });

  it('surfaces Warning headers to a callback and on the response', async () => {
    const seen: string[] = [];
    const c = new ApiClient({ baseUrl: server.url, onWarning: (w) => seen.push(w) });
    const res = await c.request('POST', '/api/v1/namespaces/http/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warned' }, bogus: 1 },
      query: { fieldValidation: 'Warn' },
    });
    expect(res.status).toBe(201);
    expect(res.warnings.length).toBeGreaterThan(0);
    expect(res.warnings.join('\n')).toContain('bogus');
    expect(seen).toEqual(res.warnings);
  });

  it('sends a bearer token on every request', async () => {
    const auth: (string | null)[] = [];
    const c = new ApiClient({
      baseUrl: server.url,
      token: () => 'tok-123',
      fetch: (input, init) => {
        auth.push(new Headers(init?.headers).get('authorization'));
        return fetch(input, init);
      },
    });
    await c.get({ ...cms, name: 'one' });
    await c.request('GET', '/version');
    expect(auth).toEqual(['Bearer tok-123', 'Bearer tok-123']);
  });

  it('reports a refused connection as NetworkError', async () => {
    const c = new ApiClient({ baseUrl: 'http://127.0.0.1:1' });
    const e = await c.request('GET', '/version').catch((x) => x);
    expect(e).toBeInstanceOf(NetworkError);
  });

  it('lists both meta spellings with quality values and a JSON fallback, and knows which form came back', async () => {
    const accept = acceptFor('table');
    expect(accept).toBe(
      'application/json;as=Table;v=v1;g=meta.service.io,application/json;as=Table;v=v1;g=meta.k8s.io;q=0.9,application/json;q=0.5',
    );
    const table = await client.request('GET', '/api/v1/namespaces/http/configmaps', { accept });
    expect(formOf(table.body)).toBe('Table');
    expect((table.body as any).apiVersion).toBe('meta.service.io/v1');

    // a server that only knows the upstream spelling answers with it, and it is still recognised
    const upstream = await client.request('GET', '/api/v1/namespaces/http/configmaps', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(formOf(upstream.body)).toBe('Table');

    const meta = await client.request('GET', '/api/v1/namespaces/http/configmaps', { accept: acceptFor('metadata', { list: true }) });
    expect(formOf(meta.body)).toBe('PartialObjectMetadataList');
    expect(formOf(await client.get({ ...cms, name: 'one' }, { accept: acceptFor('metadata') }))).toBe('PartialObjectMetadata');
  });

  it('falls back to rows built from plain objects when a server ignores the Table request', async () => {
    // a server without Table support answers the JSON fallback
    const plain = new ApiClient({
      baseUrl: server.url,
      fetch: (input, init) => {
        const h = new Headers(init?.headers);
        h.set('accept', 'application/json');
        return fetch(input, { ...init, headers: h });
      },
    });
    const res = await listAll(plain, { ...cms }, { representation: 'table' });
    expect(res.form).toBe('list');
    expect(res.columns?.map((c) => c.name)).toEqual(['Name', 'Created At']);
    expect(res.rows.map((r) => r.cells[0])).toContain('one');
    const real = await listAll(client, { ...cms }, { representation: 'table' });
    expect(real.form).toBe('Table');
    expect(real.columns?.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
  });
});
