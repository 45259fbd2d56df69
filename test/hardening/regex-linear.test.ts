// Patterns written by a CRD author run against values written by anyone who may create
// objects. Upstream matches OpenAPI `pattern` and the CEL regex library with Go's regexp
// (RE2: linear time, RE2 syntax, "error parsing regexp: ..." texts). With backtracking
// JS RegExp, `^(a+)+$` against 40 a's and a '!' would not finish (2^40 steps), so each
// case here would hang rather than answer 422.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { eventually } from '../deletion/support.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
const CRDS = '/apis/apiextensions.service.io/v1/customresourcedefinitions';
const PATH = '/apis/regex.example.com/v1/namespaces/default/probes';
const EVIL = `${'a'.repeat(40)}!`;

const crd = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'apiextensions.service.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name },
  spec: {
    group: 'regex.example.com',
    scope: 'Namespaced',
    names: { plural: name.split('.')[0], singular: name.split('.')[0]!.slice(0, -1), kind: name.startsWith('probes') ? 'Probe' : 'Bad' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
  },
});

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  const r = await api.post(
    CRDS,
    crd('probes.regex.example.com', {
      type: 'object',
      properties: {
        anchored: { type: 'string', maxLength: 256, pattern: '^(a+)+$' },
        // \z is RE2's end-of-text; JS RegExp with the u flag rejects it
        re2only: { type: 'string', maxLength: 64, pattern: '^[a-z]+\\z' },
        found: { type: 'string', maxLength: 256, 'x-kubernetes-validations': [{ rule: 'self.find("(a+)+$") == ""', message: 'no trailing a' }] },
        all: { type: 'string', maxLength: 256, 'x-kubernetes-validations': [{ rule: 'self.findAll("(a|aa)+b").size() == 0', message: 'no ab runs' }] },
      },
    }),
  );
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  await eventually(async () => expect((await api.get(PATH)).status).toBe(200));
});
afterAll(() => server.close());

const probe = (name: string, spec: Record<string, string>) => ({ apiVersion: 'regex.example.com/v1', kind: 'Probe', metadata: { name }, spec });
const causes = (r: { body: any }) => (r.body.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);

describe('regular expressions match in linear time with RE2 semantics', () => {
  it('a catastrophic OpenAPI pattern answers 422 at once', async () => {
    const r = await api.post(PATH, probe('p1', { anchored: EVIL }));
    expect(r.status).toBe(422);
    expect(causes(r)).toEqual([`spec.anchored: Invalid value: "${EVIL}": spec.anchored in body should match '^(a+)+$'`]);
    expect((await api.post(PATH, probe('p2', { anchored: 'aaaa' }))).status).toBe(201);
  });

  it('find and findAll with catastrophic patterns evaluate at once', async () => {
    expect((await api.post(PATH, probe('p3', { found: EVIL }))).status).toBe(201);
    const bad = await api.post(PATH, probe('p4', { found: 'xaa' }));
    expect(bad.status).toBe(422);
    expect(causes(bad)).toEqual(['spec.found: Invalid value: "string": no trailing a']);
    expect((await api.post(PATH, probe('p5', { all: EVIL }))).status).toBe(201);
  });

  it('RE2 syntax is accepted and Go regexp errors are reported at CRD creation', async () => {
    expect((await api.post(PATH, probe('p6', { re2only: 'abc' }))).status).toBe(201);
    expect((await api.post(PATH, probe('p7', { re2only: 'ab1' }))).status).toBe(422);
    const r = await api.post(CRDS, crd('bads.regex.example.com', { type: 'string', pattern: '(a' }));
    expect(r.status).toBe(422);
    expect(causes(r)).toContain(
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].pattern: Invalid value: "(a": must be a valid regular expression, but isn\'t: error parsing regexp: missing closing ): `(a`',
    );
  });
});
