import { describe, expect, it } from 'vitest';
import { negotiate, type NegotiateOptions } from './negotiate.js';

const base: NegotiateOptions = { protobuf: false, cbor: false, transforms: true, watch: false };

describe('negotiate (remembered answers)', () => {
  it('answers the same header differently when the options differ, every time', () => {
    for (let round = 0; round < 2; round++) {
      expect(negotiate('application/yaml', base).encoding).toBe('yaml');
      expect(() => negotiate('application/yaml', { ...base, watch: true })).toThrow(/only the following media types/);
      expect(() => negotiate('application/vnd.kubernetes.protobuf', base)).toThrow();
      expect(negotiate('application/vnd.kubernetes.protobuf', { ...base, protobuf: true })).toMatchObject({ encoding: 'protobuf', mediaType: 'application/vnd.kubernetes.protobuf' });
      expect(negotiate('application/json;as=Table;g=meta.k8s.io;v=v1', base).representation).toBe('Table');
      expect(negotiate('application/json;as=Table;g=meta.k8s.io;v=v1, application/json', { ...base, transforms: false }).representation).toBe('object');
      expect(negotiate(undefined, base).encoding).toBe('json');
    }
  });

  it('hands out a copy: a caller changing its answer does not change the next one', () => {
    const a = negotiate('application/json', base);
    a.encoding = 'yaml';
    expect(negotiate('application/json', base).encoding).toBe('json');
  });
});
