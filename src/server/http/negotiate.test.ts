import { describe, expect, it } from 'vitest';
import { negotiate } from './negotiate.js';

const o = { protobuf: true, cbor: false, transforms: true, watch: false };

describe('negotiate (memoized by options and Accept)', () => {
  it('answers the same on repeat, per option set, and refuses every time', () => {
    const a = negotiate('application/json;as=Table;g=meta.k8s.io;v=v1', o);
    expect(a).toMatchObject({ encoding: 'json', representation: 'Table', metaGroup: 'meta.k8s.io' });
    expect(negotiate('application/json;as=Table;g=meta.k8s.io;v=v1', o)).toEqual(a);
    // the same header without transforms is another answer
    expect(() => negotiate('application/json;as=Table;g=meta.k8s.io;v=v1', { ...o, transforms: false })).toThrow();
    expect(negotiate('application/vnd.kubernetes.protobuf', o).encoding).toBe('protobuf');
    expect(() => negotiate('application/vnd.kubernetes.protobuf', { ...o, protobuf: false })).toThrow();
    for (let i = 0; i < 2; i++) expect(() => negotiate('text/html', o)).toThrow(/only the following media types/);
    expect(negotiate(undefined, o).encoding).toBe('json');
    const long = `text/html, ${'x/y;q=0.1, '.repeat(100)}application/json`;
    expect(negotiate(long, o).mediaType).toBe('application/json');
  });

  it('answers the same header differently when the options differ, every time', () => {
    const base = { protobuf: false, cbor: false, transforms: true, watch: false };
    for (let round = 0; round < 2; round++) {
      expect(negotiate('application/yaml', base).encoding).toBe('yaml');
      expect(() => negotiate('application/yaml', { ...base, watch: true })).toThrow(/only the following media types/);
      expect(() => negotiate('application/vnd.kubernetes.protobuf', base)).toThrow();
      expect(negotiate('application/vnd.kubernetes.protobuf', { ...base, protobuf: true })).toMatchObject({ encoding: 'protobuf', mediaType: 'application/vnd.kubernetes.protobuf' });
      expect(negotiate('application/json;as=Table;g=meta.k8s.io;v=v1, application/json', { ...base, transforms: false }).representation).toBe('object');
    }
  });

  it('shares a frozen answer: no caller can change the next one', () => {
    const a = negotiate('application/json', o);
    expect(Object.isFrozen(a)).toBe(true);
    expect(negotiate('application/json', o)).toBe(a);
  });
});
