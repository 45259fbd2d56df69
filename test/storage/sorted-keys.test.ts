// The memory store's key index (sorted chunks) against a plain sorted array: same order, indexes and
// bounds under any sequence of inserts and removals, chunks splitting and emptying on the way.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeys } from '../../src/server/storage/keys.js';
import { SortedKeys } from '../../src/server/storage/sorted-keys.js';

type Op = { op: 'insert'; key: string } | { op: 'remove'; key: string } | { op: 'removeAll'; keys: string[] };

function check(ops: Op[], probes: string[]): void {
  const index = new SortedKeys(2);
  let ref: string[] = [];
  const lower = (k: string) => {
    const i = ref.findIndex((x) => compareKeys(x, k) >= 0);
    return i < 0 ? ref.length : i;
  };
  for (const o of ops) {
    if (o.op === 'insert') {
      index.insert(o.key);
      if (!ref.includes(o.key)) ref = [...ref, o.key].sort(compareKeys);
    } else if (o.op === 'remove') {
      index.remove(o.key);
      ref = ref.filter((k) => k !== o.key);
    } else {
      index.removeAll(new Set(o.keys));
      ref = ref.filter((k) => !o.keys.includes(k));
    }
    expect(index.length).toBe(ref.length);
  }
  expect(Array.from({ length: index.length }, (_, i) => index.at(i))).toEqual(ref);
  for (const p of [...probes, ...ref]) {
    expect(index.lowerBound(p)).toBe(lower(p));
    expect(index.endIndex(p)).toBe(lower(p));
  }
  expect(index.endIndex(undefined)).toBe(ref.length);
}

describe('SortedKeys', () => {
  it('matches a sorted array under random inserts and removals (UTF-8 order, chunks of 2..4)', () => {
    const key = fc.string({ unit: fc.constantFrom('a', 'b', '/', '-', '1', '9', '\u00e9', '\uffff', '\ud83d\ude00'), maxLength: 4 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 5, arbitrary: key.map((k) => ({ op: 'insert' as const, key: k })) },
      { weight: 2, arbitrary: key.map((k) => ({ op: 'remove' as const, key: k })) },
      { weight: 1, arbitrary: fc.array(key, { maxLength: 6 }).map((keys) => ({ op: 'removeAll' as const, keys })) },
    );
    fc.assert(fc.property(fc.array(op, { maxLength: 80 }), fc.array(key, { maxLength: 5 }), check), { numRuns: 250 });
  });

  it('keeps order with full-size chunks: 10k names inserted out of key order, half removed', () => {
    const index = new SortedKeys();
    const names = Array.from({ length: 10_000 }, (_, i) => `/registry/configmaps/bench/p-${(i * 7919) % 10_000}`);
    for (const n of names) index.insert(n);
    const ref = [...names].sort(compareKeys);
    expect(index.length).toBe(10_000);
    expect(index.at(0)).toBe(ref[0]);
    expect(index.at(5_555)).toBe(ref[5_555]);
    expect(index.at(9_999)).toBe(ref[9_999]);
    for (let i = 0; i < 10_000; i += 2) index.remove(ref[i]!);
    expect(index.length).toBe(5_000);
    expect(index.at(0)).toBe(ref[1]);
    expect(index.lowerBound(ref[4_000]!)).toBe(2_000);
    expect(index.at(4_999)).toBe(ref[9_999]);
  });
});
