import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HAS_FIELD_FUNCTION as H, rewriteIndexedHas } from './has-rewrite.js';

describe('rewriteIndexedHas', () => {
  it('rewrites has() of a selection on an indexed or computed operand', () => {
    expect(rewriteIndexedHas('has(self[0].matches)')).toBe(`${H}(self[0], "matches")`);
    expect(rewriteIndexedHas('has(self.items[0].name) && x')).toBe(`${H}(self.items[0], "name") && x`);
    expect(rewriteIndexedHas('self.size() > 1 ? (has(self[1].matches) ? self[1].matches.size() : 0) : 0')).toBe(
      `self.size() > 1 ? (${H}(self[1], "matches") ? self[1].matches.size() : 0) : 0`,
    );
    expect(rewriteIndexedHas('has(self.a[has(self.b[0].c) ? 1 : 0].d)')).toBe(`${H}(self.a[${H}(self.b[0], "c") ? 1 : 0], "d")`);
  });

  it('leaves identifier chains, members named has, and literals alone', () => {
    for (const src of ['has(self.a)', 'has(self.a.b.c)', 'm.has(x[0].y)', "'has(self[0].x)' == s", 'r"""has(a[0].b)""".size() > 0', 'b\'has(x[0].y)\' != b""', 'hasx(self[0].y)'])
      expect(rewriteIndexedHas(src)).toBe(src);
  });

  it('never changes an expression without a has( call', () => {
    fc.assert(fc.property(fc.string(), (s) => s.includes('has') || rewriteIndexedHas(s) === s));
    fc.assert(fc.property(fc.string(), (s) => typeof rewriteIndexedHas(`has(${s})`) === 'string'));
  });
});
