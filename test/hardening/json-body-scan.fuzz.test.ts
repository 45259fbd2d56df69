// The JSON body decoder scans the text once (depth limit, member count) and walks the text again for
// duplicate paths only when JSON.parse kept fewer members than the text named. Fuzzed against the
// three-pass reference (depth scan, JSON.parse, duplicate scan): same value, same duplicates, same errors.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDuplicateFields } from '../../src/api/duplicate-fields.js';
import { checkJsonDepth, MAX_JSON_DEPTH } from '../../src/api/nesting.js';
import { StatusError } from '../../src/api/status.js';
import { decodeJsonWithDuplicates, scanJson, shapeOf } from '../../src/server/http/body.js';

type Outcome = { value: unknown; duplicates: string[] } | { error: string };

function reference(text: string): Outcome {
  try {
    checkJsonDepth(text);
    const value: unknown = JSON.parse(text);
    return { value, duplicates: jsonDuplicateFields(text) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function decoded(text: string): Outcome {
  try {
    const { value, duplicates } = decodeJsonWithDuplicates(Buffer.from(text, 'utf8'));
    return { value, duplicates };
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return { error: (e as Error).message };
  }
}

/** The decoder's message for a failure of the reference: the same cause, as a 400. */
function sameOutcome(text: string): void {
  const want = reference(text);
  const got = decoded(text);
  if ('error' in want) {
    expect('error' in got).toBe(true);
    expect((got as { error: string }).error).toContain(want.error);
  } else expect(got).toEqual(want);
}

// keys from a small alphabet (duplicates are common), some spelled with escapes that JSON.parse folds
const key = fc.constantFrom('a', 'b', 'k', '', '__proto__', 'constructor', '\\u0061', 'a\\"b', '[{', '\\\\');
const scalar = fc.oneof(fc.constantFrom('1', '-0.5e3', 'true', 'false', 'null', '"s"', '"[{\\"}]"', '"\\\\"', '""'), fc.string().map((s) => JSON.stringify(s)));
const { text: jsonText } = fc.letrec<{ text: string }>((tie) => ({
  text: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('text'), { maxLength: 4 }).map((xs) => `[${xs.join(',')}]`),
    fc
      .array(fc.tuple(key, tie('text'), fc.constantFrom('', ' ', '\n\t')), { maxLength: 5 })
      .map((ms) => `{${ms.map(([k, v, ws]) => `${ws}"${k}"${ws}:${ws}${v}`).join(',')}}`),
  ),
}));

describe('JSON body scan', () => {
  it('matches the reference on JSON texts with duplicate members at any depth', () => {
    fc.assert(fc.property(jsonText, (text) => sameOutcome(text)), { numRuns: 800 });
  });

  it('matches the reference on arbitrary (mostly invalid) texts', () => {
    const chars = fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '\\', 'a', '1', ' ', 'u', '0');
    fc.assert(fc.property(fc.array(chars, { maxLength: 40 }).map((cs) => cs.join('')), (text) => sameOutcome(text)), { numRuns: 1000 });
  });

  it('matches the reference on what JSON.stringify writes, and counts its members', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        sameOutcome(text);
        expect(scanJson(text)).toBe(shapeOf(JSON.parse(text)).members);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps the depth limit: 10,000 levels parse, one more is a 400 before parsing; brackets in strings do not count', () => {
    const at = (d: number) => `${'['.repeat(d - 1)}{"k":"[[[{{"}${']'.repeat(d - 1)}`;
    // (values this deep are compared by shape: the matchers recurse)
    const ok = decodeJsonWithDuplicates(Buffer.from(at(MAX_JSON_DEPTH)));
    expect(ok.duplicates).toEqual([]);
    expect(ok.depth).toBe(MAX_JSON_DEPTH);
    expect(shapeOf(ok.value)).toEqual({ members: 1, depth: MAX_JSON_DEPTH });
    expect(() => decodeJsonWithDuplicates(Buffer.from(at(MAX_JSON_DEPTH + 1)))).toThrow(/nested deeper than 10000/);
    // unterminated and deep: the depth error, not the parser's
    expect(() => decodeJsonWithDuplicates(Buffer.from('['.repeat(MAX_JSON_DEPTH + 1)))).toThrow(/nested deeper than 10000/);
    sameOutcome('['.repeat(MAX_JSON_DEPTH + 1));
    // duplicates deep down are still found with their paths
    const deep = `${'{"a":'.repeat(600)}{"k":1,"k":2}${'}'.repeat(600)}`;
    expect(decoded(deep)).toEqual(reference(deep));
    expect((decoded(deep) as { duplicates: string[] }).duplicates).toEqual([`${'a.'.repeat(600)}k`]);
  });

  it('reports the measured depth, so the object walk need not repeat it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const r = decodeJsonWithDuplicates(Buffer.from(JSON.stringify(v)));
        let max = 0;
        const stack: [unknown, number][] = [[v, 0]];
        while (stack.length) {
          const [x, d] = stack.pop()!;
          if (x === null || typeof x !== 'object') continue;
          max = Math.max(max, d + 1);
          for (const c of Object.values(x)) stack.push([c, d + 1]);
        }
        expect(r.depth).toBe(max);
      }),
    );
  });
});
