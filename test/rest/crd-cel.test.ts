// CRD validation rules (x-kubernetes-validations): compiled at CRD create/update, evaluated on custom resource
// writes with self/oldSelf, message/messageExpression, fieldPath, reason and optionalOldSelf.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { eventually } from '../deletion/support.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const PATH = '/apis/cel.example.com/v1/namespaces/default/gadgets';

function crd(specSchema: Record<string, unknown>, plural = 'gadgets', kind = 'Gadget') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.cel.example.com` },
    spec: {
      group: 'cel.example.com',
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema } } } }],
    },
  };
}

const gadget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'cel.example.com/v1', kind: 'Gadget', metadata: { name }, spec });

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  const r = await api.post(
    CRDS,
    crd({
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        maxReplicas: { type: 'integer' },
        mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }] },
        size: { type: 'string' },
        tags: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 63 }, 'x-kubernetes-validations': [{ rule: 'self.all(t, t.lowerAscii() == t)', messageExpression: '"tags must be lower case, got " + string(size(self)) + " tags"' }] },
        owner: { type: 'string', 'x-kubernetes-validations': [{ rule: '!oldSelf.hasValue() || self == oldSelf.value()', optionalOldSelf: true, message: 'owner may be set once' }] },
      },
      'x-kubernetes-validations': [
        { rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas', fieldPath: '.replicas' },
        { rule: "!has(self.size) || quantity(self.size).isLessThan(quantity('10Gi'))", reason: 'FieldValueForbidden', message: 'size must be below 10Gi' },
      ],
    }),
  );
  expect(r.status, r.text).toBe(201);
  await eventually(async () => expect((await api.get(PATH)).status).toBe(200));
});
afterAll(() => server.close());

const causes = (r: { body: any }) => r.body.details.causes.map((c: any) => `${c.field}: ${c.message}`);

describe('CRD validation rules', () => {
  it('rejects a CRD whose rule does not compile, naming the rule', async () => {
    const r = await api.post(CRDS, crd({ type: 'object', properties: { n: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.size >' }] }, 'broken', 'Broken'));
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toHaveLength(1);
    expect(r.body.details.causes[0].field).toBe('spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
    expect(r.body.details.causes[0].message).toMatch(/^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.size >", Message:"", .*\}: compilation failed: ERROR: /);
  });

  it('rejects a rule that is not boolean and a reason it does not know', async () => {
    const r = await api.post(
      CRDS,
      crd({ type: 'object', properties: { n: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.n + 1' }, { rule: 'true', reason: 'Nope' }] }, 'badtypes', 'BadType'),
    );
    expect(r.status).toBe(422);
    expect(causes(r)).toEqual([
      expect.stringMatching(/x-kubernetes-validations\[0\]\.rule: Invalid value: .*: cel expression must evaluate to a bool$/),
      expect.stringMatching(/x-kubernetes-validations\[1\]\.reason: Unsupported value: "Nope": supported values: "FieldValueInvalid", /),
    ]);
  });

  it('evaluates rules on create with message, fieldPath and reason', async () => {
    const bad = await api.post(PATH, gadget('g1', { replicas: 5, maxReplicas: 3, size: '20Gi', tags: ['Prod'] }));
    expect(bad.status).toBe(422);
    expect(causes(bad)).toEqual([
      'spec.replicas: Invalid value: "object": replicas must not exceed maxReplicas',
      'spec: Forbidden: size must be below 10Gi',
      'spec.tags: Invalid value: "array": tags must be lower case, got 1 tags',
    ]);
    expect(bad.body.details.causes.map((c: any) => c.reason)).toEqual(['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueInvalid']);
    expect((await api.post(PATH, gadget('g1', { replicas: 2, maxReplicas: 3, size: '1Gi', tags: ['prod'], mode: 'a' }))).status).toBe(201);
  });

  it('runs transition rules against the stored object on update only', async () => {
    const cur = await api.get(`${PATH}/g1`);
    const changed = await api.put(`${PATH}/g1`, { ...cur.body, spec: { ...cur.body.spec, mode: 'b' } });
    expect(changed.status).toBe(422);
    expect(causes(changed)).toEqual(['spec.mode: Invalid value: "string": mode is immutable']);
    expect((await api.put(`${PATH}/g1`, { ...cur.body, spec: { ...cur.body.spec, replicas: 3 } })).status).toBe(200);
  });

  it('gives optionalOldSelf rules oldSelf as an optional, also on create', async () => {
    expect((await api.post(PATH, gadget('g2', { replicas: 1, maxReplicas: 1, owner: 'ann' }))).status).toBe(201);
    const cur = await api.get(`${PATH}/g2`);
    const r = await api.put(`${PATH}/g2`, { ...cur.body, spec: { ...cur.body.spec, owner: 'bob' } });
    expect(r.status).toBe(422);
    expect(causes(r)).toEqual(['spec.owner: Invalid value: "string": owner may be set once']);
  });

  it('reports an evaluation error as an invalid value naming the rule (by its message, as upstream ruleErrorString)', async () => {
    const r = await api.post(PATH, gadget('g3', { replicas: 1 }));
    expect(r.status).toBe(422);
    expect(causes(r)).toEqual([expect.stringMatching(/^spec\.replicas: Invalid value: "object": .* evaluating rule: replicas must not exceed maxReplicas$/)]);
  });
});

describe("cel-go's has() on any selection and the global matches()", () => {
  it('compiles and evaluates has(self[0].f), has(self.items[0].f) and matches(s, re) (Gateway API rules)', async () => {
    const item = { type: 'object', properties: { name: { type: 'string' }, matches: { type: 'array', items: { type: 'string' } } } };
    const schema = {
      type: 'object',
      properties: {
        items: { type: 'array', maxItems: 4, items: item, 'x-kubernetes-validations': [{ rule: 'self.size() > 0 ? has(self[0].matches) : true', message: 'first item needs matches' }] },
        holder: { type: 'object', properties: { items: { type: 'array', maxItems: 4, items: item } }, 'x-kubernetes-validations': [{ rule: 'self.items.size() == 0 || has(self.items[0].name)', message: 'first item needs a name' }] },
        host: { type: 'string', maxLength: 64, 'x-kubernetes-validations': [{ rule: "matches(self, '^[a-z.]+$')", message: 'lower-case host' }] },
      },
    };
    const c = await api.post(CRDS, crd(schema, 'routes', 'Route'));
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    const R = '/apis/cel.example.com/v1/namespaces/default/routes';
    const route = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'cel.example.com/v1', kind: 'Route', metadata: { name }, spec });
    await eventually(async () => expect((await api.get(R)).status).toBe(200));
    const ok = await api.post(R, route('ok', { items: [{ matches: ['a'] }], holder: { items: [{ name: 'n' }] }, host: 'example.com' }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const bad = await api.post(R, route('bad', { items: [{ name: 'x' }], holder: { items: [{ matches: [] }] }, host: 'Example.com' }));
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes.map((x: any) => x.message).sort()).toEqual(
      ['Invalid value: "array": first item needs matches', 'Invalid value: "object": first item needs a name', 'Invalid value: "string": lower-case host'].sort(),
    );
  });
});

describe('CRD validation rules over dynamic values', () => {
  it('reports a call no overload matches at run time as upstream', async () => {
    const r = await api.post(
      CRDS,
      crd({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'self.startsWith("http")' }] } } }, 'intorstrings', 'IntOrString'),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const path = '/apis/cel.example.com/v1/namespaces/default/intorstrings';
    await eventually(async () => expect((await api.get(path)).status).toBe(200));
    const obj = (port: unknown) => ({ apiVersion: 'cel.example.com/v1', kind: 'IntOrString', metadata: { name: `p${String(port)}` }, spec: { port } });
    expect((await api.post(path, obj('http-alt'))).status).toBe(201);
    const bad = await api.post(path, obj(8080));
    expect(bad.status).toBe(422);
    expect(causes(bad)).toEqual([
      `spec.port: Invalid value: "": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.startsWith("http")`,
    ]);
  });
});

describe('CRD validation rule cost limits', () => {
  const SPEC = 'spec.versions[0].schema.openAPIV3Schema';
  const HINT = '(try simplifying the rule(s), or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
  const causesOf = (body: any): string[] => (body.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);

  it('refuses a rule whose estimated cost over undeclared sizes exceeds the per-rule budget, naming the rule', async () => {
    const r = await api.post(CRDS, crd({ type: 'object', properties: { names: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: "self.all(x, x.contains('a string'))" }] } } }, 'costly', 'Costly'));
    expect(r.status).toBe(422);
    expect(causesOf(r.body)).toContain(`${SPEC}.properties[spec].properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${HINT}`);
  });

  it('accepts the same rule once the list and its strings are bounded', async () => {
    const r = await api.post(
      CRDS,
      crd({ type: 'object', properties: { names: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 25 }, 'x-kubernetes-validations': [{ rule: "self.all(x, x.contains('a string'))" }] } } }, 'bounded', 'Bounded'),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('counts a rule once per element it can run on (the list size multiplies it)', async () => {
    // a cheap rule on every item of an unbounded list of unbounded strings: each run is cheap, a million runs are not
    const r = await api.post(
      CRDS,
      crd({ type: 'object', properties: { names: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.startsWith('a')" }] } } } }, 'peritem', 'PerItem'),
    );
    expect(r.status).toBe(422);
    expect(causesOf(r.body).some((c) => c.startsWith(`${SPEC}.properties[spec].properties[names].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget`))).toBe(true);
  });

  it('bounds how often a rule runs under unbounded lists by the request size, once (not per unbounded ancestor)', async () => {
    // upstream: an unbounded ancestor makes the rule's cardinality maxCardinality(its scope's least size): 3 MiB / 3
    // runs of a cheap rule fit; the product of two unbounded lists (10^12 runs) would not
    const tag = { type: 'object', properties: { name: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'has(self.name)' }] };
    const r = await api.post(
      CRDS,
      crd({ type: 'object', properties: { rules: { type: 'array', items: { type: 'object', properties: { tags: { type: 'array', items: tag } } } } } }, 'nested', 'Nested'),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it("costs a map key at upstream's estimate (Gateway API's annotation key rule fits)", async () => {
    const annotations = {
      type: 'object',
      maxProperties: 8,
      additionalProperties: { type: 'string', maxLength: 4096 },
      'x-kubernetes-validations': [
        { rule: 'self.all(key, key.matches(r"""^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$"""))' },
        { rule: 'self.all(key, key.split("/")[0].size() < 253)' },
      ],
    };
    const r = await api.post(CRDS, crd({ type: 'object', properties: { annotations } }, 'annotated', 'Annotated'));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('refuses a schema whose rules together exceed the per-CRD budget, naming the most expensive', async () => {
    // each rule stays under 10^7, twenty of them exceed 10^8 together (maxLength counts code points: 4 bytes each)
    const props: Record<string, unknown> = {};
    for (let i = 0; i < 20; i++) props[`s${i}`] = { type: 'string', maxLength: 1_250_000, 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')" }] };
    const r = await api.post(CRDS, crd({ type: 'object', properties: { list: { type: 'array', maxItems: 1, items: { type: 'object', properties: props } } } }, 'total', 'Total'));
    expect(r.status).toBe(422);
    const got = causesOf(r.body);
    expect(got.filter((c) => c.includes('Forbidden: estimated rule cost exceeds budget'))).toEqual([]);
    expect(got.filter((c) => c.endsWith('Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'))).toHaveLength(4);
    expect(got.some((c) => c.startsWith(`${SPEC}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of `))).toBe(true);
  });
});
