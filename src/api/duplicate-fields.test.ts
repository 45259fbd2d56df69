import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { cborDuplicateFields, jsonDuplicateFields, yamlDuplicateFields } from './duplicate-fields.js';
import { applyMergePatch, createMergePatch } from './merge-patch.js';

describe('duplicate fields', () => {
  it('finds JSON duplicates with their paths, in document order', () => {
    const text = '{"metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"c","image":"x","image":"y"}]},"kind":"P","kind":"Q"}';
    expect(jsonDuplicateFields(text)).toEqual(['metadata.name', 'spec.containers[0].image', 'kind']);
    expect(jsonDuplicateFields('{"a":1,"b":{"a":2}}')).toEqual([]);
  });

  it('finds YAML duplicates with their paths', () => {
    const doc = parseDocument('metadata:\n  name: a\n  name: b\nspec:\n  items:\n  - k: 1\n    k: 2\n', { uniqueKeys: false });
    expect(yamlDuplicateFields(doc)).toEqual(['metadata.name', 'spec.items[0].k']);
  });
});

describe('CBOR duplicate map keys', () => {
  it('finds duplicate text keys with their paths, through tags, arrays and nested maps', () => {
    // d9d9f7 {"metadata": {"name": "a", "name": "b"}, "items": [{"k": 1, "k": 2}]}
    const hex =
      'd9d9f7' + 'a2' + '686d65746164617461' + 'a2' + '646e616d65' + '6161' + '646e616d65' + '6162' + '656974656d73' + '81' + 'a2' + '616b' + '01' + '616b' + '02';
    const bytes = Uint8Array.from(hex.match(/../g)!.map((h) => parseInt(h, 16)));
    expect(cborDuplicateFields(bytes)).toEqual(['metadata.name', 'items[0].k']);
  });

  it('finds none in what cbor-x encodes from a plain object', async () => {
    const { encodeCbor } = await import('./cbor.js');
    expect(cborDuplicateFields(encodeCbor({ a: { b: [1, { c: 'x' }] }, d: 'long '.repeat(20) }))).toEqual([]);
  });
});

describe('merge patch', () => {
  it('applies RFC 7386 patches without touching the target', () => {
    const target = { a: 1, b: { c: 2, d: 3 }, e: [1, 2] };
    expect(applyMergePatch(target, { a: null, b: { c: 5 }, e: [3], f: 'x' })).toEqual({ b: { c: 5, d: 3 }, e: [3], f: 'x' });
    expect(target).toEqual({ a: 1, b: { c: 2, d: 3 }, e: [1, 2] });
  });

  it('creates the patch between two documents', () => {
    const from = { a: 1, b: { c: 2, d: 3 }, e: [1] };
    const to = { b: { c: 2, d: 4 }, e: [1, 2], f: true };
    const p = createMergePatch(from, to);
    expect(p).toEqual({ a: null, b: { d: 4 }, e: [1, 2], f: true });
    expect(applyMergePatch(from, p)).toEqual(to);
  });
});
