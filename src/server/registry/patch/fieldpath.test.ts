import { describe, expect, it } from 'vitest';
import { builtinSchemas } from '../schema/registry.js';
import type { SchemaNode } from '../schema/types.js';
import { FieldSet, fieldSetOf, keyPE, parsePE, pathString, serializePE, type Path, type PathElement } from './fieldpath.js';

const f = (name: string): PathElement => ({ t: 'f', name });
const k = (fields: Record<string, unknown>): PathElement => keyPE(Object.entries(fields));
const v = (value: unknown): PathElement => ({ t: 'v', value });
const i = (index: number): PathElement => ({ t: 'i', index });
const p = (...pes: PathElement[]): Path => pes;
const reg = builtinSchemas;

describe('path elements', () => {
  it('serialize as FieldsV1 keys with key fields sorted and Go JSON escaping', () => {
    expect(serializePE(f('image'))).toBe('f:image');
    expect(serializePE(k({ protocol: 'TCP', containerPort: 80 }))).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(serializePE(k({ name: 'a<b&c>' }))).toBe('k:{"name":"a\\u003cb\\u0026c\\u003e"}');
    expect(serializePE(v('x'))).toBe('v:"x"');
    expect(serializePE(v({ b: 1, a: [true, null] }))).toBe('v:{"a":[true,null],"b":1}');
    expect(serializePE(i(3))).toBe('i:3');
  });

  it('parse back, canonicalizing key order', () => {
    expect(serializePE(parsePE('k:{"protocol":"TCP","containerPort":80}'))).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(parsePE('f:metadata')).toEqual(f('metadata'));
    expect(parsePE('v:5')).toEqual(v(5));
    expect(parsePE('i:12')).toEqual(i(12));
    expect(() => parsePE('x:1')).toThrow();
    expect(() => parsePE('k:[1]')).toThrow();
    expect(() => parsePE('i:one')).toThrow();
  });

  it('print as upstream field paths', () => {
    expect(pathString(p(f('spec'), f('template'), f('spec'), f('containers'), k({ name: 'backend' }), f('image')))).toBe(
      '.spec.template.spec.containers[name="backend"].image',
    );
    expect(pathString(p(f('ports'), k({ protocol: 'TCP', containerPort: 80 })))).toBe('.ports[containerPort=80,protocol="TCP"]');
    expect(pathString(p(f('finalizers'), v('x')))).toBe('.finalizers[="x"]');
    expect(pathString(p(f('args'), i(0)))).toBe('.args[0]');
  });
});

describe('FieldSet', () => {
  it('serializes to the upstream FieldsV1 form', () => {
    const s = FieldSet.of(
      p(f('spec'), f('containers'), k({ name: 'c' }), f('image')),
      p(f('metadata'), f('labels'), f('app')),
      p(f('spec'), f('containers'), k({ name: 'c' })),
    );
    expect(JSON.stringify(s.toFieldsV1())).toBe(
      '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{}}}}}',
    );
  });

  it('orders keys as upstream: fields, keys, values, indices; values numbers before strings', () => {
    const s = FieldSet.of(p(i(1)), p(v('b')), p(v(2)), p(k({ name: 'z' })), p(k({ name: 'a' })), p(f('z')), p(f('a')), p(v(true)));
    expect(Object.keys(s.toFieldsV1())).toEqual(['f:a', 'f:z', 'k:{"name":"a"}', 'k:{"name":"z"}', 'v:2', 'v:"b"', 'v:true', 'i:1']);
  });

  it('round-trips FieldsV1, JSON text included', () => {
    const fv = { 'f:data': { '.': {}, 'f:a': {} }, 'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } } } };
    const s = FieldSet.fromFieldsV1(fv);
    expect(s.toFieldsV1()).toEqual(fv);
    expect(FieldSet.fromFieldsV1(JSON.stringify(fv)).equals(s)).toBe(true);
    expect(s.has(p(f('data')))).toBe(true);
    expect(s.has(p(f('spec')))).toBe(false);
    expect(s.has(p(f('spec'), f('ports'), k({ protocol: 'TCP', port: 80 }), f('port')))).toBe(true);
    expect(s.size).toBe(4);
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 1 })).toThrow();
    expect(() => FieldSet.fromFieldsV1([])).toThrow();
  });

  it('union, intersection and difference work on paths; difference keeps children of removed parents', () => {
    const a = FieldSet.of(p(f('a'), f('b')), p(f('a')), p(f('c')));
    const b = FieldSet.of(p(f('a')), p(f('d')));
    expect(a.union(b).toStrings()).toEqual(['.a', '.c', '.d', '.a.b']);
    expect(a.intersection(b).toStrings()).toEqual(['.a']);
    expect(a.difference(b).toStrings()).toEqual(['.c', '.a.b']);
    expect(a.recursiveDifference(b).toStrings()).toEqual(['.c']);
    expect(a.difference(a).isEmpty()).toBe(true);
    expect(JSON.stringify(a.difference(FieldSet.of(p(f('a'), f('b')))).toFieldsV1())).toBe('{"f:a":{},"f:c":{}}');
  });

  it('returns an operand itself when an operation changes nothing', () => {
    const a = FieldSet.of(p(f('a'), f('b')), p(f('c')));
    expect(a.difference(FieldSet.of(p(f('x'))))).toBe(a);
    expect(a.union(FieldSet.of(p(f('c'))))).toBe(a);
    expect(FieldSet.fields('status', 'metadata.labels').toStrings()).toEqual(['.status', '.metadata.labels']);
  });
});

describe('fieldSetOf', () => {
  const deployment: SchemaNode = { $ref: 'io.k8s.api.apps.v1.Deployment' };

  it('owns leaves, map keys, map-list items by key, atomic maps as one path', () => {
    const s = fieldSetOf(
      {
        apiVersion: 'apps/v1',
        metadata: { labels: { app: 'x' }, annotations: {} },
        spec: {
          selector: { matchLabels: { app: 'x' } },
          template: {
            spec: {
              containers: [{ name: 'c', image: 'i', args: ['a'], ports: [{ containerPort: 80, protocol: 'TCP' }], securityContext: {} }],
            },
          },
          paused: null,
        },
      },
      deployment,
      reg,
    );
    expect(s.toFieldsV1()).toEqual({
      'f:apiVersion': {},
      'f:metadata': { 'f:annotations': {}, 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:paused': {},
        'f:selector': {},
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"c"}': {
                '.': {},
                'f:args': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
                'f:securityContext': {},
              },
            },
          },
        },
      },
    });
  });

  it('without a schema, deduces structure: maps granular (keys owned), lists atomic', () => {
    const s = fieldSetOf({ metadata: { labels: { a: '1' } }, spec: { list: [1, 2], m: { k: 'v' } } }, undefined, reg);
    expect(s.toFieldsV1()).toEqual({
      'f:metadata': { 'f:labels': { 'f:a': {} } },
      'f:spec': { '.': {}, 'f:list': {}, 'f:m': { '.': {}, 'f:k': {} } },
    });
  });

  it('owns set items by value and types CRD metadata as ObjectMeta', () => {
    const crd: SchemaNode = {
      type: 'object',
      properties: {
        metadata: { type: 'object' },
        spec: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' }, any: { 'x-kubernetes-preserve-unknown-fields': true } } },
      },
    };
    const s = fieldSetOf({ metadata: { labels: { a: '1' } }, spec: { tags: ['x', 'y'], any: { deep: { x: 1 } } } }, crd, reg);
    expect(s.toFieldsV1()).toEqual({
      'f:metadata': { 'f:labels': { 'f:a': {} } },
      'f:spec': { 'f:any': { 'f:deep': { '.': {}, 'f:x': {} } }, 'f:tags': { 'v:"x"': {}, 'v:"y"': {} } },
    });
  });
});
