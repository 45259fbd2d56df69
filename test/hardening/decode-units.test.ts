// The decoders' limits, piece by piece: nesting scans, the CBOR body check, copied-size accounting, warning caps.
import { Encoder } from 'cbor-x';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CborLimitError, checkCborBody, encodeCbor } from '../../src/api/cbor.js';
import { jsonDuplicateFields } from '../../src/api/duplicate-fields.js';
import { checkJsonDepth, checkYamlDepth, NestingError } from '../../src/api/nesting.js';
import { encodedSize } from '../../src/server/http/rest/patch.js';
import { warningHeaders } from '../../src/server/http/respond.js';

const depthOf = (v: unknown): number => {
  let max = 0;
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    max = Math.max(max, d + 1);
    for (const c of Object.values(x)) stack.push([c, d + 1]);
  }
  return max;
};

describe('JSON nesting', () => {
  it('measures the depth JSON.parse would build, ignoring brackets in strings', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        const d = depthOf(v);
        expect(() => checkJsonDepth(text, d)).not.toThrow();
        if (d > 0) expect(() => checkJsonDepth(text, d - 1)).toThrow(NestingError);
      }),
    );
    expect(() => checkJsonDepth('{"a":"[[[\\"[[[[","b":[]}', 2)).not.toThrow();
  });

  it('finds no duplicates in what JSON.stringify writes, and finds them at any depth', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(jsonDuplicateFields(JSON.stringify(v))).toEqual([]);
      }),
    );
    const deep = `${'{"a":'.repeat(20_000)}{"k":1,"k":2}${'}'.repeat(20_000)}`;
    const dups = jsonDuplicateFields(deep);
    expect(dups).toHaveLength(1);
    expect(dups[0]).toBe(`${'a.'.repeat(20_000)}k`);
    expect(jsonDuplicateFields('{"x":[{"a":1},{"a":1,"\\u0061":2}]}')).toEqual(['x[1].a']);
  });
});

describe('YAML nesting', () => {
  const blockMap = (n: number) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ` 1\n`;
  it.each([
    ['flow sequences', (n: number) => `a: ${'['.repeat(n)}${']'.repeat(n)}`],
    ['flow maps', (n: number) => `a: ${'{b: '.repeat(n)}1${'}'.repeat(n)}`],
    ['compact block sequences', (n: number) => `${'- '.repeat(n)}x`],
    ['block maps', blockMap],
    ['quoted keys', (n: number) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}"k:":`).join('\n') + ' 1\n'],
  ])('refuses %s past the limit and accepts them under it', (_name, gen) => {
    expect(() => checkYamlDepth(gen(600), 500)).toThrow(NestingError);
    expect(() => checkYamlDepth(gen(400), 500)).not.toThrow();
  });

  it('does not count indicators inside block scalars, quotes or comments as nesting', () => {
    const text = `data:\n  script: |\n${'    [[[[ {{{{ - - - a: b: c:\n'.repeat(300)}  q: "[[[[[[[[ - - -"\n# [[[[[[[[[[[[[[[[\n`;
    expect(() => checkYamlDepth(text, 10)).not.toThrow();
  });
});

describe('CBOR request bodies', () => {
  it('accepts everything our encoder writes from JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10 }), (v) => {
        expect(() => checkCborBody(encodeCbor(v))).not.toThrow();
      }),
    );
  });

  const hex = (h: string) => Uint8Array.from(h.match(/../g)!.map((b) => parseInt(b, 16)));
  it.each([
    ['shared reference tags', new Encoder({ structuredClone: true, useRecords: false }).encode((() => { const x = { a: 1 }; return [x, x]; })())],
    ['bignums', hex('c249010000000000000000')],
    ['undefined', hex('f7')],
    ['NaN', hex('f97e00')],
    ['infinity', hex('fa7f800000')],
    ['invalid UTF-8', hex('62c328')],
    ['a truncated item', hex('a26161')],
    ['two items', hex('0101')],
    ['an array over 1024 elements', encodeCbor(Array(1025).fill(0))],
    ['an indefinite array over 1024 elements', hex(`9f${'00'.repeat(1025)}ff`)],
    ['65 levels of nesting', hex(`${'81'.repeat(65)}00`)],
  ])('refuses %s', (_name, bytes) => {
    expect(() => checkCborBody(bytes)).toThrow(CborLimitError);
  });

  it.each([
    ['64 levels of nesting', hex(`${'81'.repeat(64)}00`)],
    ['self-described and date/time tags', hex('d9d9f7a1616bc074323032342d30312d30315430303a30303a30305a')],
    ['base64 hints', hex('d6426869')],
    ['indefinite strings and maps', hex('bf617a7f61616162ffff')],
    ['1024 elements', encodeCbor(Array(1024).fill(0))],
  ])('accepts %s', (_name, bytes) => {
    expect(() => checkCborBody(bytes)).not.toThrow();
  });
});

describe('JSON patch copied size', () => {
  it('is the JSON-encoded size in bytes, counted without recursion, stopping past the budget', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(encodedSize(v, Infinity)).toBe(Buffer.byteLength(JSON.stringify(v)));
      }),
    );
    let deep: unknown = 'é';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(encodedSize(deep, Infinity)).toBe(100_000 + 4);
    const wide = Array(1000).fill({ a: 'x'.repeat(100) });
    const partial = encodedSize(wide, 100);
    expect(partial).toBeGreaterThan(100);
    expect(partial).toBeLessThan(Buffer.byteLength(JSON.stringify(wide)) / 10);
  });
});

describe('Warning headers', () => {
  it('sends identical texts once and escapes them', () => {
    expect(warningHeaders(['a', 'b "q" \\', 'a'])).toEqual(['299 - "a"', '299 - "b \\"q\\" \\\\"']);
  });

  it('drops texts with control characters, and sends the rest as UTF-8', () => {
    const h = warningHeaders(['bad\nline', 'tab\there', 'ключ']);
    expect(h).toHaveLength(1);
    expect(Buffer.from(h[0]!, 'latin1').toString('utf8')).toBe('299 - "ключ"');
  });

  it('truncates as upstream once the texts pass 4,096 runes: 256 runes each, until the total reaches 4,096', () => {
    const texts = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(298)}`);
    const h = warningHeaders(texts);
    // 13 texts fit whole (3,900 runes); the 14th crosses: all are cut to 256, then 15th and 16th reach 4,096
    expect(h).toHaveLength(16);
    for (const [i, line] of h.entries()) expect(line).toBe(`299 - "${String(i).padStart(2, '0')}${'x'.repeat(254)}"`);
    expect(warningHeaders(texts.slice(0, 13)).every((l) => l.length === 300 + 8)).toBe(true);
  });

  it('keeps the headers of 200,000 warnings small', () => {
    const texts = Array.from({ length: 200_000 }, (_, i) => `unknown field "f${i}"`);
    const h = warningHeaders(texts);
    expect(h.join('').length).toBeLessThan(4096 + 256 * 2 + h.length * 8);
  });
});
