// The playgrounds evaluate with the server's per-call CEL cost limit: what the server would cancel, they report.
import { describe, expect, test } from 'vitest';
import { evaluateCel } from './cel-eval.js';

describe('playground CEL evaluation', () => {
  test('a costly expression is cancelled with cel-go\'s error instead of holding the page', () => {
    const groups = Array.from({ length: 200 }, (_, i) => `g${i}`);
    const cubic = "claims.groups.all(a, claims.groups.all(b, claims.groups.all(c, a != ''))) ? 'x' : 'y'";
    expect(evaluateCel('claimMappingString', cubic, { claims: { groups } })).toEqual({ ok: false, error: 'evaluation failed: operation cancelled: actual cost limit exceeded' });
    expect(evaluateCel('claimMappingString', cubic, { claims: { groups: ['a', 'b'] } })).toEqual({ ok: true, value: 'x' });
  });
});
