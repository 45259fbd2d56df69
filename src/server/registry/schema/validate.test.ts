import { describe, expect, it } from 'vitest';
import { builtinSchemas } from './registry.js';
import type { SchemaNode } from './types.js';
import { formatDecodeError, validateObject } from './validate.js';

const deploymentSchema = builtinSchemas.get('io.k8s.api.apps.v1.Deployment')!;
const podSchema = builtinSchemas.get('io.k8s.api.core.v1.Pod')!;

function deployment(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Always' }] } },
    },
    ...extra,
  };
}

const crdSchema: SchemaNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['cronSpec'],
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
        replicas: { type: 'integer', minimum: 1, maximum: 10 },
        image: { type: 'string', maxLength: 8 },
        mode: { type: 'string', enum: ['fast', 'slow'] },
        port: { 'x-kubernetes-int-or-string': true },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', maxItems: 3 },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        when: { type: 'string', format: 'date-time' },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        partly: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { n: { type: 'integer' } } },
        nothing: { type: 'object' },
        opt: { type: 'string', nullable: true },
        embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
      },
    },
  },
};

function cr(spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'x' }, spec: { cronSpec: '* * * * */5', ...spec } };
}

const validateCR = (o: unknown, prune = true) => validateObject(o, crdSchema, builtinSchemas, { pruneUnknown: prune });

describe('validateObject: built-in kinds', () => {
  it('accepts a valid object and changes nothing', () => {
    const d = deployment();
    const before = JSON.stringify(d);
    const r = validateObject(d, deploymentSchema, builtinSchemas, { pruneUnknown: true });
    expect(r).toEqual({ errors: [], unknownFields: [] });
    expect(JSON.stringify(d)).toBe(before);
  });

  it('reports unknown fields as dotted paths in document order and prunes them', () => {
    const d = deployment();
    (d.metadata as Record<string, unknown>).unknownMeta = 'x';
    const spec = d.spec as Record<string, any>;
    spec.unknown1 = 1;
    spec.template.spec.containers[0].unknownNested = { a: 1 };
    spec.template.spec.containers.push({ name: 'd', image: 'busybox', bogus: true });
    spec.unknown2 = 2;
    const r = validateObject(d, deploymentSchema, builtinSchemas, { pruneUnknown: true });
    expect(r.errors).toEqual([]);
    // document order: unknown1/unknown2 were added after template
    expect(r.unknownFields).toEqual([
      'metadata.unknownMeta',
      'spec.template.spec.containers[0].unknownNested',
      'spec.template.spec.containers[1].bogus',
      'spec.unknown1',
      'spec.unknown2',
    ]);
    expect((d.metadata as Record<string, unknown>).unknownMeta).toBeUndefined();
    expect(spec.unknown1).toBeUndefined();
    expect(spec.template.spec.containers[0]).toEqual({ name: 'c', image: 'nginx', imagePullPolicy: 'Always' });
  });

  it('keeps unknown fields when not pruning', () => {
    const d = deployment({ extra: true });
    const r = validateObject(d, deploymentSchema, builtinSchemas, { pruneUnknown: false });
    expect(r.unknownFields).toEqual(['extra']);
    expect(d.extra).toBe(true);
  });

  it('reports type errors with the path and a Go-decoder message', () => {
    const d = deployment();
    (d.spec as Record<string, unknown>).replicas = 'two';
    const r = validateObject(d, deploymentSchema, builtinSchemas, { pruneUnknown: true });
    expect(r.errors).toEqual([
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.replicas',
        badValue: 'string',
        detail: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      },
    ]);
    expect(r.decodeError).toBe('json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
    expect(formatDecodeError('Deployment', 'v1', r.decodeError!)).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
  });

  it('names the innermost struct and the index-free path in decode errors', () => {
    const d = deployment();
    (d.spec as any).template.spec.containers[0].image = 5;
    const r = validateObject(d, deploymentSchema, builtinSchemas, { pruneUnknown: true });
    expect(r.errors[0]!.field).toBe('spec.template.spec.containers[0].image');
    expect(r.decodeError).toBe('json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string');
    const d2 = deployment({ spec: 'x' });
    expect(validateObject(d2, deploymentSchema, builtinSchemas, { pruneUnknown: true }).decodeError).toBe(
      'json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec',
    );
  });

  it('treats null as absent in built-in kinds', () => {
    const d = deployment();
    (d.spec as any).strategy = null;
    (d.metadata as any).labels = null;
    expect(validateObject(d, deploymentSchema, builtinSchemas, { pruneUnknown: true }).errors).toEqual([]);
  });

  it('checks required fields, enums and int-or-string', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        restartPolicy: 'Sometimes',
        containers: [{ image: 'x', ports: [{ name: 'http' }], livenessProbe: { httpGet: { port: 'http' } }, readinessProbe: { tcpSocket: { port: true } } }],
      },
    };
    const r = validateObject(pod, podSchema, builtinSchemas, { pruneUnknown: true });
    expect(r.errors.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
      'spec.containers[0].name: Required value',
      'spec.containers[0].ports[0].containerPort: Required value',
      'spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: "boolean": spec.containers[0].readinessProbe.tcpSocket.port in body must be of type integer,string: "boolean"',
    ]);
  });

  it('validates quantities, timestamps and base64 as the decoder would', () => {
    const pod = {
      metadata: { name: 'p', creationTimestamp: 'yesterday' },
      spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '500m', memory: 1024 }, requests: { cpu: 'lots' } } }] },
    };
    const r = validateObject(pod, podSchema, builtinSchemas, { pruneUnknown: true });
    expect(r.errors.map((e) => [e.type, e.field])).toEqual([
      ['FieldValueTypeInvalid', 'metadata.creationTimestamp'],
      ['FieldValueTypeInvalid', 'spec.containers[0].resources.requests[cpu]'],
    ]);
    expect(r.decodeError).toBe('parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
    const secret = { metadata: { name: 's' }, data: { ok: 'aGVsbG8=', bad: 'not base64!' } };
    const rs = validateObject(secret, builtinSchemas.get('io.k8s.api.core.v1.Secret')!, builtinSchemas, { pruneUnknown: true });
    expect(rs.errors.map((e) => e.field)).toEqual(['data[bad]']);
    expect(rs.decodeError).toBe('illegal base64 data at input byte 3');
  });

  it('does not require zero-fillable status fields of built-in kinds', () => {
    const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] }, status: { containerStatuses: [{ name: 'c', ready: true }] } };
    expect(validateObject(pod, podSchema, builtinSchemas, { pruneUnknown: true }).errors).toEqual([]);
  });

  it('always knows apiVersion, kind and metadata at the root and validates metadata as ObjectMeta', () => {
    const r = validateObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: 1 } }, data: { k: 'v' } }, builtinSchemas.get('io.k8s.api.core.v1.ConfigMap')!, builtinSchemas, {
      pruneUnknown: true,
    });
    expect(r.errors.map((e) => e.field)).toEqual(['metadata.labels[x]']);
    expect(r.decodeError).toBe('json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
  });
});

describe('validateObject: custom resources (structural schemas)', () => {
  it('accepts a valid object', () => {
    const o = cr({ replicas: 3, mode: 'fast', port: 'http', tags: ['a', 'b'], labels: { a: 'b' }, when: '2024-01-01T00:00:00Z', opt: null });
    expect(validateCR(o)).toEqual({ errors: [], unknownFields: [] });
  });

  it('reports upstream-style messages', () => {
    const o = cr({ replicas: 'three', image: 'a-very-long-image', mode: 'medium', port: 1.5, when: 'later' });
    delete (o.spec as Record<string, unknown>).cronSpec;
    const r = validateCR(o);
    expect(r.errors.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'spec.cronSpec: Required value',
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      'spec.image: Too long: may not be more than 8 bytes',
      'spec.mode: Unsupported value: "medium": supported values: "fast", "slow"',
      'spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"',
      'spec.when: Invalid value: "later": spec.when in body must be of type date-time: "later"',
    ]);
    expect(r.errors[1]!.type).toBe('FieldValueTypeInvalid');
    expect(r.decodeError).toBeUndefined();
  });

  it('checks numeric bounds, patterns and list types', () => {
    const o = cr({ cronSpec: 'bad', replicas: 11, tags: ['a', 'a', 'b', 'c'], ports: [{ name: 'x', port: 1 }, { name: 'x', port: 2 }] });
    const r = validateCR(o);
    expect(r.errors.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      "spec.cronSpec: Invalid value: \"bad\": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'",
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      'spec.tags: Too many: 4: must have at most 3 items',
      'spec.tags[1]: Duplicate value: "a"',
      'spec.ports[1]: Duplicate value: {"name":"x"}',
    ]);
  });

  it('rejects null unless nullable', () => {
    const r = validateCR(cr({ image: null, opt: null }));
    expect(r.errors.map((e) => `${e.field}: ${e.detail}`)).toEqual(['spec.image: Invalid value: "null": spec.image in body must be of type string: "null"']);
  });

  it('prunes unknown fields but keeps those under x-kubernetes-preserve-unknown-fields', () => {
    const o = cr({ extra: 1, free: { anything: { deep: true } }, partly: { n: 1, other: 'kept' }, nothing: { gone: 1 }, ports: [{ name: 'a', junk: 1 }] });
    (o as Record<string, unknown>).status = { x: 1 };
    const r = validateCR(o);
    expect(r.errors).toEqual([]);
    expect(r.unknownFields).toEqual(['spec.extra', 'spec.nothing.gone', 'spec.ports[0].junk', 'status']);
    const spec = o.spec as Record<string, any>;
    expect(spec.extra).toBeUndefined();
    expect(spec.free).toEqual({ anything: { deep: true } });
    expect(spec.partly).toEqual({ n: 1, other: 'kept' });
    expect(spec.nothing).toEqual({});
    expect(spec.ports).toEqual([{ name: 'a' }]);
    expect(o.status).toBeUndefined();
  });

  it('knows apiVersion/kind/metadata of embedded resources', () => {
    const ok = validateCR(cr({ embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1 }, spec: { x: 'y' } } }));
    expect(ok.errors).toEqual([]);
    expect(ok.unknownFields).toEqual(['spec.embedded.metadata.bogus']);
    const missing = validateCR(cr({ embedded: { spec: {} } }));
    expect(missing.errors.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'spec.embedded.apiVersion: Required value: must not be empty',
      'spec.embedded.kind: Required value: must not be empty',
    ]);
  });

  it('keeps everything under a schemaless root', () => {
    const o = { apiVersion: 'x/v1', kind: 'Y', metadata: { name: 'a' }, spec: { a: [1, { b: 2 }] } };
    const r = validateObject(o, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, builtinSchemas, { pruneUnknown: true });
    expect(r).toEqual({ errors: [], unknownFields: [] });
    expect(o.spec).toEqual({ a: [1, { b: 2 }] });
  });

  it('checks `required` in typeless junctor schemas (Kyverno: not: {required: [a, b]}; anyOf of required)', () => {
    const schema: SchemaNode = {
      type: 'object',
      properties: {
        rule: {
          type: 'object',
          properties: { pattern: { 'x-kubernetes-preserve-unknown-fields': true }, anyPattern: { 'x-kubernetes-preserve-unknown-fields': true } },
          not: { required: ['pattern', 'anyPattern'] },
        },
        ref: { type: 'object', properties: { name: { type: 'string' }, selector: { type: 'string' } }, anyOf: [{ required: ['name'] }, { required: ['selector'] }] },
      },
    };
    const check = (o: unknown) => validateObject(o, schema, builtinSchemas, { pruneUnknown: true, mode: 'custom' }).errors.map((e) => `${e.field}: ${e.detail}`);
    expect(check({ rule: { pattern: { a: 1 } }, ref: { name: 'n' } })).toEqual([]);
    expect(check({ rule: { anyPattern: [] }, ref: { selector: 's' } })).toEqual([]);
    const both = check({ rule: { pattern: {}, anyPattern: [] } });
    expect(both).toHaveLength(1);
    expect(both[0]).toMatch(/^rule: Invalid value: .*: rule in body must not validate the schema \(not\)$/);
    expect(check({ ref: {} }).at(-1)).toMatch(/^ref: Invalid value: .*: ref in body must validate at least one schema \(anyOf\)$/);
  });

  it('applies value-only junctors', () => {
    const schema: SchemaNode = {
      type: 'object',
      properties: { v: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^\\d+%$' }] } },
    };
    const ok = validateObject({ v: '10%' }, schema, builtinSchemas, { pruneUnknown: true, mode: 'custom' });
    expect(ok.errors).toEqual([]);
    const bad = validateObject({ v: 'ten' }, schema, builtinSchemas, { pruneUnknown: true, mode: 'custom' });
    expect(bad.errors.at(-1)!.detail).toBe('Invalid value: "ten": v in body must validate at least one schema (anyOf)');
  });
});
