import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeys, prefixEnd } from '../../src/server/storage/keys.js';

const samples = ['', 'a', 'a/', 'a0', 'ab', 'Z', '\u007f', '\u00e9', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffef', '\uffff', '\u{10000}', '\u{1f600}', '\u{10ffff}', 'a\u0000', 'a\u{1f600}', 'a\uffff'];

const bytes = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));

describe('compareKeys', () => {
  it('orders like the UTF-8 bytes of the keys', () => {
    for (const a of samples) for (const b of samples) expect([a, b, Math.sign(compareKeys(a, b))]).toEqual([a, b, bytes(a, b)]);
  });

  it('orders like the UTF-8 bytes for any well-formed keys, with and without units past U+D800 (fast path and loop)', () => {
    const unit = fc.constantFrom('a', 'b', '/', '\u00e9', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{1f600}', '\u{10ffff}');
    const key = fc.array(unit, { maxLength: 6 }).map((u) => u.join(''));
    fc.assert(fc.property(key, key, (a, b) => {
      expect(Math.sign(compareKeys(a, b))).toBe(bytes(a, b));
    }), { numRuns: 3000 });
  });
});

describe('prefixEnd', () => {
  it('is the smallest key after every key with the prefix', () => {
    for (const prefix of samples.filter((s) => s !== '' && s !== '\u{10ffff}')) {
      const end = prefixEnd(prefix)!;
      expect(compareKeys(prefix, end)).toBeLessThan(0);
      for (const tail of samples) {
        expect(compareKeys(prefix + tail, end)).toBeLessThan(0);
      }
      for (const other of samples) {
        if (!other.startsWith(prefix) && compareKeys(other, prefix) > 0) {
          expect(compareKeys(other, end)).toBeGreaterThanOrEqual(0);
        }
      }
    }
  });

  it('has no end for the empty prefix or an all-maximal one', () => {
    expect(prefixEnd('')).toBeUndefined();
    expect(prefixEnd('\u{10ffff}')).toBeUndefined();
    expect(prefixEnd('/registry/')).toBe('/registry0');
    expect(prefixEnd('a\u{10ffff}')).toBe('b');
    expect(prefixEnd('\ud7ff')).toBe('\ue000');
  });
});
