import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { jsonDuplicateFields, yamlDuplicateFields } from './duplicate-fields.js';
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
