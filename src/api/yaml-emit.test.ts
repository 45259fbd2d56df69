import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { yamlEncode } from './yaml-emit.js';

// The fast emitter must produce exactly the yaml library's output (the wire bytes of every YAML
// response were produced by it): compare on hand-picked edge cases and on seeded random data.
const lib = (v: unknown) => stringify(v, { lineWidth: 0, aliasDuplicateObjects: false });

const TOKENS = [
  'a', 'Z', 'x', '0', '7', '12', ' ', '  ', '\t', '\n', '\n\n', ':', ': ', '#', ' #', '-', '- ', '?', '? ', "'", '"', '{', '}', '[', ']',
  ',', '&', '*', '!', '|', '>', '%', '@', '`', '.', '~', '\\', '\u0000', '\u0007', '\u001b', '\u0085', '\u00a0', '\u2028', '\ud800', 'é', '😀',
  'null', 'Null', 'NULL', 'true', 'False', '0x1F', '0o17', '.inf', '-.Inf', '.nan', '1e5', '1.5', '-3', '+4', '---', '...', '=', '/', 'http://x',
  '10.0.0.1', '2024-01-01T00:00:00Z', 'y', 'yes', 'on', '<<',
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomString(r: () => number): string {
  const n = Math.floor(r() * (r() < 0.3 ? 25 : 6));
  let s = '';
  for (let i = 0; i < n; i++) s += TOKENS[Math.floor(r() * TOKENS.length)];
  return s;
}

function randomValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 3 || k < 0.45) {
    const t = r();
    if (t < 0.6) return randomString(r);
    if (t < 0.75) return [0, -0, 1.5, -2, 1e21, 3e-7, NaN, Infinity, -Infinity, 42][Math.floor(r() * 10)];
    if (t < 0.9) return r() < 0.5;
    return null;
  }
  if (k < 0.7) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) o[randomString(r)] = r() < 0.05 ? undefined : randomValue(r, depth + 1);
  return o;
}

describe('yamlEncode', () => {
  it('matches the yaml library on edge cases', () => {
    const cases: unknown[] = [
      {},
      [],
      { a: {}, b: [], c: null, d: [[], {}, null, [1, [2]], { x: {} }] },
      { ['k'.repeat(1030)]: null, ['j'.repeat(1030)]: { a: 1, b: [1] }, ['q'.repeat(1030)]: [] },
      { e: 'x\n--- y', f: '---', '---': 1, '...': { '---': 2 }, g: '%x', h: 'a\n%b' },
      { block: 'line1\nline2\n', keep: 'a\n\n', strip: 'a\nb', lead: '  a\nb', trailsp: 'a\n  ', only: '\n', nl2: '\n\nx' },
      { dq: 'a very long string with a newline in the middle\nand more text after it, long enough', dq2: 'x\u0007\ny' },
      { quotes: `it's`, dquotes: 'say "hi"', both: `'"`, colon: 'a: b', hash: 'a #b', trail: 'a:', sp: 'a ', empty: '' },
      { n: 'null', t: 'true', i: '123', h: '0x1f', o: '0o17', f: '1.5', e: '1e3', inf: '.inf', nan: '.NaN', tilde: '~' },
      { nums: [0, -0, 1.5, 1e21, 1e-7, NaN, Infinity, -Infinity], bools: [true, false] },
      { undef: undefined, keep: 1 },
      { u: '\u0085\u00a0\u2028\u2029\u0000\u000b\u001b\u0001' },
      Object.assign(Object.create(null) as object, { a: 1 }),
    ];
    for (const c of cases) expect(yamlEncode(c)).toBe(lib(c));
  });

  it('falls back to the library for values that are not plain JSON', () => {
    const cases: unknown[] = [
      { d: new Date(0) },
      { m: new Map([['a', 1]]) },
      { arr: [1, undefined, 2] },
      { s: new Set([1]) },
      { j: { toJSON: () => 'x' } },
      'top-level string',
      42,
      null,
    ];
    for (const c of cases) expect(yamlEncode(c)).toBe(lib(c));
  });

  it('writes large documents across buffer chunks, non-ASCII included', () => {
    const items = Array.from({ length: 3000 }, (_, i) => ({ name: `item-${i}`, note: 'é😀 '.repeat(i % 40) + 'x', long: 'y'.repeat(i % 300), n: i }));
    const v = { kind: 'List', items };
    expect(yamlEncode(v)).toBe(lib(v));
    expect(yamlEncode({ a: 1 })).toBe(lib({ a: 1 })); // and the buffer is reused cleanly afterwards
  });

  it('matches the yaml library on random data', () => {
    const r = rng(22);
    for (let i = 0; i < 3000; i++) {
      const v = { root: randomValue(r, 0), [randomString(r)]: randomValue(r, 1) };
      const want = lib(v);
      const got = yamlEncode(v);
      if (got !== want) expect({ v, got }).toEqual({ v, got: want });
    }
  });
});
