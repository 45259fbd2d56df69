import { describe, expect, it } from 'vitest';
import { applySchemaDefaults } from './defaults.js';
import { builtinSchemas } from './registry.js';
import type { SchemaNode } from './types.js';

const schema: SchemaNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', default: 1 },
        mode: { type: 'string', default: 'fast' },
        opt: { type: 'string', nullable: true, default: 'x' },
        limits: { type: 'object', default: { cpu: '1' }, properties: { cpu: { type: 'string' }, memory: { type: 'string', default: '1Gi' } } },
        ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } } },
        byName: { type: 'object', additionalProperties: { type: 'object', properties: { on: { type: 'boolean', default: true } } } },
      },
    },
  },
};

describe('applySchemaDefaults', () => {
  it('fills absent fields at every level, including what it filled', () => {
    const o: Record<string, any> = {};
    applySchemaDefaults(o, schema, builtinSchemas);
    expect(o).toEqual({ spec: { replicas: 1, mode: 'fast', opt: 'x', limits: { cpu: '1', memory: '1Gi' } } });
  });

  it('keeps given values, replaces null only in non-nullable fields, walks items and maps', () => {
    const o: Record<string, any> = { spec: { replicas: 3, mode: null, opt: null, ports: [{}, { protocol: 'UDP' }], byName: { a: {}, b: { on: false } } } };
    applySchemaDefaults(o, schema, builtinSchemas);
    expect(o.spec).toEqual({
      replicas: 3,
      mode: 'fast',
      opt: null,
      limits: { cpu: '1', memory: '1Gi' },
      ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }],
      byName: { a: { on: true }, b: { on: false } },
    });
  });

  it('never shares default values between objects', () => {
    const a: Record<string, any> = {};
    const b: Record<string, any> = {};
    applySchemaDefaults(a, schema, builtinSchemas);
    applySchemaDefaults(b, schema, builtinSchemas);
    a.spec.limits.cpu = '2';
    expect(b.spec.limits.cpu).toBe('1');
  });
});
