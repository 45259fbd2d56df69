// Hostile request bodies: every one is refused with a 4xx Status before real work is done,
// the process survives repeated attempts, and the store is left unchanged.
import { connect } from 'node:net';
import { Encoder } from 'cbor-x';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { parseFeatureGates } from '../../src/server/features.js';
import { simpleCrd } from '../helpers/crd.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
const NS = 'hard';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const FOO = `/apis/cr.example.com/v1/namespaces/${NS}/foos`;

beforeAll(async () => {
  server = await testServer({ featureGates: parseFeatureGates('CBORServingAndStorage=true') });
  api = client(server.url);
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const crd = await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', simpleCrd({ group: 'cr.example.com', plural: 'foos', kind: 'Foo' }));
  expect(crd.status).toBe(201);
});
afterAll(() => server.close());

const raw = (method: string, path: string, body: string | Uint8Array, contentType?: string) =>
  api.call(method, path, body, contentType === undefined ? {} : { 'Content-Type': contentType });

/** The number of objects in a collection: a rejected write must not add one. */
async function count(path: string): Promise<number> {
  const r = await api.get(path);
  expect(r.status).toBe(200);
  return r.body.items.length;
}

const nestedYaml = (depth: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
const nestedApply = (depth: number) => `apiVersion: cr.example.com/v1\nkind: Foo\nmetadata: {name: deep}\nspec: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;

describe('nesting depth', () => {
  it('refuses 1,000 nested YAML flow sequences with 400, every time, and stays up', async () => {
    for (let i = 0; i < 4; i++) {
      const r = await raw('POST', CM, nestedYaml(1000), 'application/yaml');
      expect(r.status).toBe(400);
      expect(r.body.kind).toBe('Status');
      expect(r.body.message).toMatch(/nest/i);
      const a = await raw('PATCH', `${FOO}/deep?fieldManager=t`, nestedApply(1000), 'application/apply-patch+yaml');
      expect(a.status).toBe(400);
      expect(a.body.message).toMatch(/nest/i);
    }
    expect((await api.get(`${CM}/deep`)).status).toBe(404);
    expect((await api.get(`${FOO}/deep`)).status).toBe(404);
  });

  it('accepts ordinary YAML nesting', async () => {
    const r = await raw('POST', FOO, nestedApply(40).replace('name: deep', 'name: shallow'), 'application/yaml');
    expect(r.status).toBe(201);
  });

  it('refuses JSON nested 10,001 and 100,000 levels with 400, not 500', async () => {
    for (const depth of [10_001, 100_000]) {
      const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deepjson"},"data":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const r = await raw('POST', CM, body, 'application/json');
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/nest/i);
      const o = await raw('POST', FOO, `{"apiVersion":"cr.example.com/v1","kind":"Foo","metadata":{"name":"deepjson"},"spec":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`, 'application/json');
      expect(o.status).toBe(400);
    }
    expect((await api.get(`${FOO}/deepjson`)).status).toBe(404);
  });

  it('takes objects up to 500 levels deep; deeper ones, however they are built, are a 400', async () => {
    const deepMap = (d: number) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`;
    const body = (name: string, d: number) => `{"apiVersion":"cr.example.com/v1","kind":"Foo","metadata":{"name":"${name}"},"spec":${deepMap(d)}}`;
    expect((await raw('POST', FOO, body('d490', 490), 'application/json')).status).toBe(201);
    const yaml = await raw('POST', FOO, nestedApply(490).replace('name: deep', 'name: y490'), 'application/yaml');
    expect(yaml.status).toBe(201);
    const tooDeep = await raw('POST', FOO, body('d600', 600), 'application/json');
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.message).toMatch(/nested deeper than 500/);
    // a JSON patch that nests a deep value under a deep path
    const c = await api.get(`${FOO}/d490`);
    const path = `/spec${'/a'.repeat(400)}`;
    const p = await api.patch(`${FOO}/d490`, [{ op: 'replace', path, value: JSON.parse(deepMap(200)) }], 'application/json-patch+json');
    expect(p.status).toBe(400);
    expect((await api.get(`${FOO}/d490`)).body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
    const m = await api.patch(`${FOO}/d490`, JSON.parse(`{"spec":${deepMap(700)}}`), 'application/merge-patch+json');
    expect(m.status).toBe(400);
  });

  it('never answers 500 for a deep but permitted JSON body', async () => {
    const depth = 9_990;
    const r = await raw('POST', FOO, `{"apiVersion":"cr.example.com/v1","kind":"Foo","metadata":{"name":"deep9990"},"spec":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`, 'application/json');
    expect(r.status).toBeGreaterThanOrEqual(200);
    expect(r.status).toBeLessThan(500);
  });
});

describe('YAML aliases', () => {
  it('refuses a billion-laughs body with 400', async () => {
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: lol}', 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
    const r = await raw('POST', CM, lines.join('\n'), 'application/yaml');
    expect(r.status).toBe(400);
    expect(r.body.kind).toBe('Status');
    expect((await api.get(`${CM}/lol`)).status).toBe(404);
  });

  it('refuses an alias cycle (an object containing itself) with 400', async () => {
    for (const spec of ['&a {b: *a}', '&a [*a]']) {
      const r = await raw('POST', FOO, `apiVersion: cr.example.com/v1\nkind: Foo\nmetadata: {name: cyc}\nspec: ${spec}\n`, 'application/yaml');
      expect(r.status).toBe(400);
    }
    expect((await api.get(`${FOO}/cyc`)).status).toBe(404);
  });
});

describe('JSON patch', () => {
  it('refuses more than 10,000 operations with 413 and accepts 10,000', async () => {
    await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ops' }, data: { a: '1' } });
    const op = { op: 'test', path: '/data/a', value: '1' };
    const over = await api.patch(`${CM}/ops`, Array(10_001).fill(op), 'application/json-patch+json');
    expect(over.status).toBe(413);
    expect(over.body.reason).toBe('RequestEntityTooLarge');
    expect(over.body.message).toBe('The allowed maximum operations in a JSON patch is 10000, got 10001');
    const ok = await api.patch(`${CM}/ops`, [...Array(9_999).fill(op), { op: 'replace', path: '/data/a', value: '2' }], 'application/json-patch+json');
    expect(ok.status).toBe(200);
  });

  it('stops a chain of doubling copies once 3 MiB were copied (422), leaving the object unchanged', async () => {
    const c = await api.post(FOO, { apiVersion: 'cr.example.com/v1', kind: 'Foo', metadata: { name: 'copies' }, spec: { d0: 'x'.repeat(1024) } });
    expect(c.status).toBe(201);
    const ops: unknown[] = [];
    for (let i = 0; i < 14; i++) {
      ops.push({ op: 'add', path: `/spec/d${i + 1}`, value: [] });
      ops.push({ op: 'copy', from: `/spec/d${i}`, path: `/spec/d${i + 1}/-` });
      ops.push({ op: 'copy', from: `/spec/d${i}`, path: `/spec/d${i + 1}/-` });
    }
    const r = await api.patch(`${FOO}/copies`, ops, 'application/json-patch+json');
    expect(r.status).toBe(422);
    expect(r.body.message).toMatch(/accumulated size increase of copy/);
    const after = await api.get(`${FOO}/copies`);
    expect(after.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
  });

  it('counts copied bytes even when the result stays small', async () => {
    const c = await api.post(FOO, { apiVersion: 'cr.example.com/v1', kind: 'Foo', metadata: { name: 'copy-remove' }, spec: { a: 'y'.repeat(512 * 1024) } });
    expect(c.status).toBe(201);
    const ops: unknown[] = [];
    for (let i = 0; i < 7; i++) ops.push({ op: 'copy', from: '/spec/a', path: '/spec/b' }, { op: 'remove', path: '/spec/b' });
    const r = await api.patch(`${FOO}/copy-remove`, ops, 'application/json-patch+json');
    expect(r.status).toBe(422);
    expect(r.body.message).toMatch(/exceeding the limit 3145728/);
    const small = await api.patch(`${FOO}/copy-remove`, ops.slice(0, 4), 'application/json-patch+json');
    expect(small.status).toBe(200);
  });
});

describe('CBOR', () => {
  it('refuses shared-reference tags (28/29) instead of expanding them', async () => {
    let v: unknown = { s: 'x'.repeat(32) };
    for (let i = 0; i < 12; i++) v = { a: v, b: v };
    const bytes = new Encoder({ structuredClone: true, useRecords: false }).encode({ apiVersion: 'cr.example.com/v1', kind: 'Foo', metadata: { name: 'shared' }, spec: v });
    expect(bytes.length).toBeLessThan(1024);
    const r = await raw('POST', FOO, bytes, 'application/cbor');
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/tag/i);
    expect((await api.get(`${FOO}/shared`)).status).toBe(404);
  });

  it('refuses CBOR nested deeper than 64 levels', async () => {
    let v: unknown = 1;
    for (let i = 0; i < 70; i++) v = [v];
    const bytes = new Encoder({ useRecords: false }).encode({ apiVersion: 'cr.example.com/v1', kind: 'Foo', metadata: { name: 'deepcbor' }, spec: { v } });
    const r = await raw('POST', FOO, bytes, 'application/cbor');
    expect(r.status).toBe(400);
    expect((await api.get(`${FOO}/deepcbor`)).status).toBe(404);
  });
});

describe('stored object size', () => {
  const big = 'x'.repeat(2_600_000);

  it('refuses to store an object over 1.5 MiB on create, update and patch (413)', async () => {
    const foo = (name: string, spec: unknown) => ({ apiVersion: 'cr.example.com/v1', kind: 'Foo', metadata: { name }, spec });
    const before = await count(FOO);
    const c = await api.post(FOO, foo('big', { a: big }));
    expect(c.status).toBe(413);
    expect(c.body.reason).toBe('RequestEntityTooLarge');
    expect(await count(FOO)).toBe(before);
    expect((await api.post(`${FOO}?dryRun=All`, foo('big', { a: big }))).status).toBe(413);

    const small = await api.post(FOO, foo('grow', { a: '1' }));
    expect(small.status).toBe(201);
    const u = await api.put(`${FOO}/grow`, { ...foo('grow', { a: big }), metadata: { name: 'grow', resourceVersion: small.body.metadata.resourceVersion } });
    expect(u.status).toBe(413);
    const m = await api.patch(`${FOO}/grow`, { spec: { a: big } }, 'application/merge-patch+json');
    expect(m.status).toBe(413);
    const j = await api.patch(`${FOO}/grow`, [{ op: 'replace', path: '/spec/a', value: big }], 'application/json-patch+json');
    expect(j.status).toBe(413);
    const y = await raw('PATCH', `${FOO}/grow?fieldManager=t`, `apiVersion: cr.example.com/v1\nkind: Foo\nmetadata: {name: grow}\nspec: {b: ${big}}\n`, 'application/apply-patch+yaml');
    expect(y.status).toBe(413);
    const after = await api.get(`${FOO}/grow`);
    expect(after.body.metadata.resourceVersion).toBe(small.body.metadata.resourceVersion);
    expect(after.body.spec).toEqual({ a: '1' });
  });
});

describe('warnings', () => {
  it('caps the Warning headers of 5,000 unknown fields', async () => {
    const obj: Record<string, unknown> = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unknowns' } };
    for (let i = 0; i < 5000; i++) obj[`unknownField${i}`] = i;
    const r = await api.post(`${CM}?fieldValidation=Warn`, obj);
    expect(r.status).toBe(201);
    const warnings = r.headers.get('warning') ?? '';
    expect(warnings).toContain('unknown field \\"unknownField0\\"');
    // upstream (endpoints/filters/warning.go) caps the total at 4 KiB of text plus the last item
    expect(warnings.length).toBeLessThan(8 * 1024);
  });

  it('survives 200,000 unknown fields (no 500)', async () => {
    const parts: string[] = [];
    for (let i = 0; i < 200_000; i++) parts.push(`"u${i}":1`);
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"many-unknowns"},${parts.join(',')}}`;
    const r = await raw('POST', CM, body, 'application/json');
    expect(r.status).toBe(201);
    expect((r.headers.get('warning') ?? '').length).toBeLessThan(8 * 1024);
  });
});

describe('content type', () => {
  it('refuses a body without Content-Type (415) instead of reading it as JSON', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'noct' } }));
    const r = await fetch(server.url + CM, { method: 'POST', body, headers: { Accept: 'application/json' } });
    expect(r.headers.get('content-type') ?? '').toContain('application/json');
    expect(r.status).toBe(415);
    const s = await r.json();
    expect(s.reason).toBe('UnsupportedMediaType');
    const u = await fetch(server.url + `${CM}/noct`, { method: 'PUT', body, headers: { Accept: 'application/json' } });
    expect(u.status).toBe(415);
    expect((await api.get(`${CM}/noct`)).status).toBe(404);
  });
});

describe('oversized bodies', () => {
  /** Sends an endless chunked body to `path` until the server answers; returns the answer and whether it closed. */
  async function endlessBody(path: string): Promise<{ response: string; sent: number; closed: boolean }> {
    const url = new URL(server.url);
    const sock = connect(Number(url.port), url.hostname);
    let response = '';
    let closed = false;
    const done = new Promise<void>((resolve) => {
      sock.on('data', (d) => (response += d.toString('latin1')));
      sock.on('end', () => {
        closed = true;
        resolve();
      });
      sock.on('close', () => resolve());
      sock.on('error', () => resolve());
    });
    sock.write(`POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    // keep sending (never the last chunk) until the server stops the exchange, up to 100 MiB
    let sent = 0;
    while (!response && !sock.destroyed && sent < 100 * 1024 * 1024) {
      const ok = sock.write(frame);
      sent += chunk.length;
      if (!ok) await new Promise<void>((r) => (sock.once('drain', r), sock.once('close', r), setTimeout(r, 50)));
    }
    await done;
    sock.destroy();
    return { response, sent, closed: closed || sock.destroyed };
  }

  it('answers 413 to an endless chunked body and closes the connection without reading it', async () => {
    const r = await endlessBody(CM);
    expect(r.response).toMatch(/^HTTP\/1\.1 413/);
    expect(r.response.toLowerCase()).toContain('connection: close');
    expect(r.closed).toBe(true);
    expect(r.sent).toBeLessThan(100 * 1024 * 1024);
  }, 30_000);

  it('closes the connection after answering early, before reading a body still arriving', async () => {
    const r = await endlessBody(`${CM}?fieldValidation=Bogus`);
    expect(r.response).toMatch(/^HTTP\/1\.1 400/);
    expect(r.response.toLowerCase()).toContain('connection: close');
    expect(r.closed).toBe(true);
    expect(r.sent).toBeLessThan(100 * 1024 * 1024);
  }, 30_000);
});
