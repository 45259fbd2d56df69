import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { decodeCbor, decodeCborSequence, encodeCbor } from '../../src/api/cbor.js';
import { decodeProtobufObject, encodeProtobufObject, ProtobufFrameReader, decodeProtobufWatchEvent } from '../../src/api/protobuf/index.js';
import type { ApiServer } from '../../src/server/app.js';
import { parseFeatureGates } from '../../src/server/features.js';
import { client, testServer } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';
import { simpleCrd } from '../helpers/crd.js';

let server: ApiServer;
let cborServer: ApiServer;
let api: ReturnType<typeof client>;
const CM = '/api/v1/namespaces/enc/configmaps';
const TABLE = 'application/json;as=Table;g=meta.service.io;v=v1';
const TABLE_UP = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const META = 'application/json;as=PartialObjectMetadata;g=meta.service.io;v=v1';

async function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: Uint8Array | string) {
  const r = await fetch(base + path, { method, headers, body: body as BodyInit | undefined });
  return { status: r.status, headers: r.headers, bytes: new Uint8Array(await r.arrayBuffer()) };
}

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'enc' } });
  for (let i = 0; i < 3; i++) await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, labels: { i: String(i) } }, data: { k: 'v' } });
  await api.post('/apis/apiextensions.service.io/v1/customresourcedefinitions', simpleCrd({ group: 'cr.example.com', plural: 'foos', kind: 'Foo', apiGroup: 'apiextensions.service.io' }));
  for (let i = 0; i < 50; i++) if ((await api.get('/apis/cr.example.com/v1/namespaces/enc/foos')).status === 200) break;
  await api.post('/apis/cr.example.com/v1/namespaces/enc/foos', { apiVersion: 'cr.example.com/v1', kind: 'Foo', metadata: { name: 'f1' }, spec: { x: 1 } });
  cborServer = await testServer({ featureGates: parseFeatureGates('CBORServingAndStorage=true') });
  await client(cborServer.url).post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'enc' } });
});
afterAll(async () => {
  await server.close();
  await cborServer.close();
});

describe('JSON and YAML', () => {
  it('pretty-prints JSON on request', async () => {
    const r = await api.get(`${CM}/c0?pretty=true`);
    expect(r.text).toContain('\n  "metadata": {\n    "name": "c0"');
    expect((await api.get(`${CM}/c0`)).text.trim()).not.toContain('\n');
  });

  it('answers YAML when asked', async () => {
    const r = await api.get(`${CM}/c0`, { Accept: 'application/yaml' });
    expect(r.headers.get('content-type')).toBe('application/yaml');
    expect(parseYaml(r.text)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'c0' } });
    const err = await api.get(`${CM}/missing`, { Accept: 'application/yaml' });
    expect(err.status).toBe(404);
    expect(parseYaml(err.text)).toMatchObject({ kind: 'Status', code: 404 });
  });

  it('rejects multi-document YAML bodies with 400', async () => {
    const r = await api.call('POST', CM, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n', { 'Content-Type': 'application/yaml' });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('more than one YAML document');
  });

  it('answers 406 when nothing acceptable is offered', async () => {
    const r = await api.get(`${CM}/c0`, { Accept: 'text/html' });
    expect(r.status).toBe(406);
    expect(r.body.reason).toBe('NotAcceptable');
  });
});

describe('Table', () => {
  it('serves lists and objects as Table, with default columns and paging metadata', async () => {
    const r = await api.get(`${CM}?limit=2`, { Accept: TABLE });
    expect(r.headers.get('content-type')).toBe(TABLE);
    expect(r.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.service.io/v1' });
    expect(r.body.columnDefinitions[0]).toMatchObject({ name: 'Name', type: 'string', format: 'name' });
    expect(r.body.rows).toHaveLength(2);
    expect(r.body.rows[0].cells[0]).toBe('c0');
    expect(r.body.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.service.io/v1', metadata: { name: 'c0' } });
    expect(r.body.metadata.continue).toBeTruthy();
    expect(r.body.metadata.resourceVersion).toBeTruthy();
    const foo = await api.get('/apis/cr.example.com/v1/namespaces/enc/foos', { Accept: TABLE });
    expect(foo.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Age']);
  });

  it('answers in the upstream spelling and honours includeObject', async () => {
    const r = await api.get(`${CM}/c1?includeObject=Object`, { Accept: `${TABLE_UP},application/json` });
    expect(r.body.apiVersion).toBe('meta.k8s.io/v1');
    expect(r.body.rows[0].object.kind).toBe('ConfigMap');
    const none = await api.get(`${CM}/c1?includeObject=None`, { Accept: TABLE_UP });
    expect(none.body.rows[0].object).toBeUndefined();
    const bad = await api.get(`${CM}/c1?includeObject=Everything`, { Accept: TABLE_UP });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain(`must be 'Metadata', 'Object', 'None', or empty`);
  });

  it('uses kubectl-like columns for built-ins', async () => {
    const r = await api.get('/api/v1/namespaces', { Accept: TABLE });
    expect(r.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Status', 'Age']);
  });

  it('rejects Table-only requests with unknown parameters, and falls back when offered', async () => {
    expect((await api.get(`${CM}/c0`, { Accept: 'application/json;as=Table;g=meta.service.io;v=v1alpha1' })).status).toBe(406);
    expect((await api.get(`${CM}/c0`, { Accept: 'application/json;as=Tabular;g=meta.service.io;v=v1' })).status).toBe(406);
    const fb = await api.get(`${CM}/c0`, { Accept: 'application/json;as=Table;g=other.io;v=v1, application/json' });
    expect(fb.status).toBe(200);
    expect(fb.body.kind).toBe('ConfigMap');
  });

  it('watches as Table: columns on the first event only, one row per event', async () => {
    const w = await WatchStream.open(`${server.url}${CM}?watch=1`, { Accept: TABLE });
    await w.until((e) => e.length >= 3);
    expect(w.events[0]!.object.columnDefinitions.length).toBeGreaterThan(0);
    expect(w.events[1]!.object.columnDefinitions).toEqual([]);
    expect(w.events.every((e) => e.object.rows.length === 1)).toBe(true);
    w.close();
    const y = await api.get(`${CM}?watch=1`, { Accept: 'application/yaml;as=Table;g=meta.service.io;v=v1' });
    expect(y.status).toBe(406);
  });
});

describe('metadata only', () => {
  it('serves PartialObjectMetadata for objects, lists and watches', async () => {
    const one = await api.get(`${CM}/c0`, { Accept: META });
    expect(one.body).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.service.io/v1', metadata: expect.objectContaining({ name: 'c0' }) });
    const list = await api.get(CM, { Accept: META });
    expect(list.body.kind).toBe('PartialObjectMetadataList');
    expect(list.body.items[0].data).toBeUndefined();
    expect(list.body.items[0].kind).toBe('PartialObjectMetadata');
    const w = await WatchStream.open(`${server.url}${CM}?watch=1`, { Accept: META });
    await w.until((e) => e.length >= 1);
    expect(w.events[0]!.object.kind).toBe('PartialObjectMetadata');
    w.close();
  });

  it('prefers by quality value', async () => {
    const r = await api.get(`${CM}/c0`, { Accept: `application/json;q=0.5, ${META}` });
    expect(r.body.kind).toBe('PartialObjectMetadata');
  });
});

describe('Protobuf', () => {
  it('encodes built-ins with the k8s envelope, in the spelling requested', async () => {
    for (const mt of ['application/vnd.service.protobuf', 'application/vnd.kubernetes.protobuf']) {
      const r = await raw(server.url, 'GET', `${CM}/c0`, { Accept: mt });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe(mt);
      expect([...r.bytes.slice(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
      expect(decodeProtobufObject(r.bytes)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'c0' }, data: { k: 'v' } });
    }
    const list = await raw(server.url, 'GET', CM, { Accept: 'application/vnd.kubernetes.protobuf' });
    const decoded = decodeProtobufObject(list.bytes) as any;
    expect(decoded.kind).toBe('ConfigMapList');
    expect(decoded.items.length).toBeGreaterThanOrEqual(3);
  });

  it('accepts protobuf bodies for built-ins', async () => {
    const body = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-pb' }, data: { a: 'b' } });
    const r = await raw(server.url, 'POST', CM, { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/json' }, body);
    expect(r.status).toBe(201);
    expect(JSON.parse(new TextDecoder().decode(r.bytes)).data).toEqual({ a: 'b' });
  });

  it('answers 406 for custom resources unless JSON is offered too', async () => {
    const r = await api.get('/apis/cr.example.com/v1/namespaces/enc/foos/f1', { Accept: 'application/vnd.kubernetes.protobuf' });
    expect(r.status).toBe(406);
    // written as JSON, as upstream does when the Accept cannot be served
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    const fb = await api.get('/apis/cr.example.com/v1/namespaces/enc/foos/f1', { Accept: 'application/vnd.kubernetes.protobuf, application/json' });
    expect(fb.status).toBe(200);
    expect(fb.body.kind).toBe('Foo');
  });

  it('frames protobuf watch events with a length prefix', async () => {
    const ac = new AbortController();
    const r = await fetch(`${server.url}${CM}?watch=1&resourceVersion=0`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' }, signal: ac.signal });
    expect(r.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    const reader = new ProtobufFrameReader();
    const events: any[] = [];
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
      reader.push(chunk);
      for (let f = reader.next(); f; f = reader.next()) events.push(decodeProtobufWatchEvent(f));
      if (events.length >= 3) break;
    }
    ac.abort();
    expect(events[0].type).toBe('ADDED');
    expect(events[0].object.kind).toBe('ConfigMap');
  });
});

describe('CBOR', () => {
  it('is off by default: 406 for responses, 415 for bodies', async () => {
    expect((await raw(server.url, 'GET', `${CM}/c0`, { Accept: 'application/cbor' })).status).toBe(406);
    expect((await raw(server.url, 'POST', CM, { 'Content-Type': 'application/cbor' }, encodeCbor({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }))).status).toBe(415);
  });

  it('serves and accepts CBOR with the gate on, for built-ins and custom resources', async () => {
    const base = cborServer.url;
    const c = await raw(base, 'POST', CM, { 'Content-Type': 'application/cbor', Accept: 'application/cbor' }, encodeCbor({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cb' }, data: { a: 'b' } }));
    expect(c.status).toBe(201);
    expect(c.headers.get('content-type')).toBe('application/cbor');
    expect([...c.bytes.slice(0, 3)]).toEqual([0xd9, 0xd9, 0xf7]);
    expect(decodeCbor(c.bytes)).toMatchObject({ kind: 'ConfigMap', data: { a: 'b' } });
    const list = await raw(base, 'GET', CM, { Accept: 'application/cbor' });
    expect((decodeCbor(list.bytes) as any).kind).toBe('ConfigMapList');
    const ac = new AbortController();
    const w = await fetch(`${base}${CM}?watch=1&resourceVersion=0`, { headers: { Accept: 'application/cbor-seq' }, signal: ac.signal });
    expect(w.headers.get('content-type')).toBe('application/cbor-seq');
    const reader = w.body!.getReader();
    const { value } = await reader.read();
    ac.abort();
    const evs = decodeCborSequence(value!) as any[];
    expect(evs[0]).toMatchObject({ type: 'ADDED', object: { kind: 'ConfigMap' } });
  });
});

describe('compression', () => {
  it('gzips large list responses when accepted', async () => {
    for (let i = 0; i < 60; i++) await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}` }, data: { blob: 'z'.repeat(3000) } });
    const res = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const u = new URL(server.url + CM);
      const req = request({ host: u.hostname, port: u.port, path: u.pathname, headers: { 'Accept-Encoding': 'gzip' } }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c) => chunks.push(c));
        r.on('end', () => resolve({ headers: r.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(res.body).toString()).items.length).toBeGreaterThan(60);
  });
});
