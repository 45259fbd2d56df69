// /openapi/v2 in JSON and in gnostic protobuf (what kubectl 1.27/1.28 ask for), each with its own ETag.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { testServer } from '../helpers/server.js';
import { VERSION_INFO } from '../../src/server/version.js';

const PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
let server: ApiServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server.close());

describe('/openapi/v2', () => {
  it('answers the protobuf form kubectl 1.27 asks for, with an ETag that revalidates', async () => {
    const r = await fetch(`${server.url}/openapi/v2`, { headers: { Accept: PB } });
    expect(r.status).toBe(200);
    // spelled without '@': Go's mime parser (kubectl) rejects the Accept spelling in a Content-Type
    expect(r.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const body = new Uint8Array(await r.arrayBuffer());
    expect(body[0]).toBe(0x0a); // field 1 (swagger), length-delimited
    expect(Buffer.from(body.subarray(2, 2 + body[1]!)).toString()).toBe('2.0');
    const etag = r.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9A-F]+"$/);
    const again = await fetch(`${server.url}/openapi/v2`, { headers: { Accept: PB, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const json = await fetch(`${server.url}/openapi/v2`, { headers: { Accept: 'application/json' } });
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(json.headers.get('etag')).not.toBe(etag);
    expect((await json.json()).swagger).toBe('2.0');
  });

  it('answers 406 for a media type it cannot produce', async () => {
    const r = await fetch(`${server.url}/openapi/v2`, { headers: { Accept: 'application/xml' } });
    expect(r.status).toBe(406);
  });

  it('describes the 1.33 API: its version in info, and the 1.28-1.33 fields', async () => {
    const doc = await (await fetch(`${server.url}/openapi/v2`, { headers: { Accept: 'application/json' } })).json();
    expect(doc.info.version).toBe(VERSION_INFO.gitVersion);
    const defs = doc.definitions;
    expect(Object.keys(defs['io.k8s.api.core.v1.Container'].properties)).toEqual(expect.arrayContaining(['restartPolicy', 'resizePolicy']));
    expect(Object.keys(defs['io.k8s.api.batch.v1.JobSpec'].properties)).toEqual(expect.arrayContaining(['successPolicy', 'managedBy', 'podReplacementPolicy', 'backoffLimitPerIndex']));
    expect(Object.keys(defs['io.k8s.api.batch.v1.JobStatus'].properties)).toContain('terminating');
    expect(Object.keys(defs['io.k8s.api.core.v1.ServiceSpec'].properties)).toContain('trafficDistribution');
    expect(Object.keys(defs['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionVersion'].properties)).toContain('selectableFields');
    const v3 = await (await fetch(`${server.url}/openapi/v3/apis/batch/v1`)).json();
    expect(v3.info.version).toBe(VERSION_INFO.gitVersion);
    expect(Object.keys(v3.components.schemas['io.k8s.api.batch.v1.JobSpec'].properties)).toContain('successPolicy');
  });
});
