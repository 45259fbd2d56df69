// Runtime cost limits of CEL evaluation (issue 27 item 8): one meter for every environment, upstream's
// per-call limit and shared budgets, errors a logical operator cannot absorb, and the event loop keeps turning.
import { describe, expect, it } from 'vitest';
import { compileAdmissionCel, evalCel, toCel } from '../admission/cel.js';
import { compileCel } from '../../config/cel.js';
import { enterRequestDeadline } from '../http/deadline-context.js';
import { COST_LIMIT_EXCEEDED, CelCostError, CostBudget, OUT_OF_BUDGET, PER_CALL_LIMIT, evaluateMetered } from './cost.js';

const CUBIC = 'object.data.all(a, object.data.all(b, object.data.all(c, a != "" && b != "" && c != "")))';

function configMap(keys: number) {
  const data: Record<string, string> = {};
  for (let i = 0; i < keys; i++) data[`k${i}`] = `v${i}`;
  return { data };
}

function admission(expression: string) {
  const c = compileAdmissionCel(expression);
  if (!c.ok) throw new Error(c.message);
  return c.program;
}

const vars = (object: unknown) => ({ object: toCel(object), oldObject: null, request: {}, params: null, namespaceObject: null, variables: {} });

describe('CEL runtime cost', () => {
  it('cancels a cubic comprehension at the per-call limit with cel-go\'s error', async () => {
    // 120 keys: 1.7 million innermost iterations, far past the limit
    await expect(evalCel(admission(CUBIC), vars(configMap(120)))).rejects.toThrow(COST_LIMIT_EXCEEDED);
  });

  it('lets a cheap expression through and reports its cost', () => {
    const r = evaluateMetered(admission('object.data.all(k, k != "")'), vars(configMap(10)));
    expect(r.value).toBe(true);
    expect(r.cost).toBeGreaterThan(10);
    expect(r.cost).toBeLessThan(200);
  });

  it('is not absorbed by || or && (the whole evaluation is cancelled, as in cel-go)', () => {
    for (const e of [`(${CUBIC}) || true`, `(${CUBIC}) && false`, `[1, 2].exists(i, i == 2 || (${CUBIC}))`]) {
      expect(() => evaluateMetered(admission(e), vars(configMap(120)))).toThrow(COST_LIMIT_EXCEEDED);
    }
  });

  it('draws several evaluations from one budget and names it when it runs out', () => {
    const budget = new CostBudget(3 * PER_CALL_LIMIT + PER_CALL_LIMIT / 2);
    const quadratic = admission('object.data.all(a, object.data.all(b, a != "" && b != ""))');
    const object = vars(configMap(300)); // ~90 000 iterations × ~8 steps: under one call's limit
    let runs = 0;
    let error: unknown;
    try {
      for (; runs < 20; runs++) evaluateMetered(quadratic, object, { budget });
    } catch (e) {
      error = e;
    }
    expect(runs).toBeGreaterThan(3);
    expect(error).toBeInstanceOf(CelCostError);
    expect((error as CelCostError).message).toBe(OUT_OF_BUDGET);
    expect((error as CelCostError).outOfBudget).toBe(true);
    expect(budget.remaining).toBeLessThanOrEqual(0);
    expect(() => evaluateMetered(admission('true'), object, { budget })).toThrow(OUT_OF_BUDGET);
  });

  it('charges string sizes produced by calls', () => {
    const big = 'x'.repeat(100_000);
    const r = evaluateMetered(admission('(object.s + object.s).size() > 0'), vars({ s: big }));
    expect(r.cost).toBeGreaterThan(20_000);
    // 60 concatenations of a 100 000-character string: over the limit by size alone
    const e = Array.from({ length: 60 }, () => 'object.s').join(' + ');
    expect(() => evaluateMetered(admission(`size(${e}) > 0`), vars({ s: big }))).toThrow(COST_LIMIT_EXCEEDED);
  });

  it('meters the configuration environments (claim mappings, authorization match conditions) with the same evaluator', () => {
    const groups = Array.from({ length: 200 }, (_, i) => `g${i}`);
    const mapping = compileCel('claimMappingString', 'claims.groups.all(a, claims.groups.all(b, claims.groups.all(c, a != ""))) ? "u" : "v"');
    if (!mapping.ok) throw new Error(mapping.message);
    expect(() => evaluateMetered(mapping.program, { claims: { groups } })).toThrow(COST_LIMIT_EXCEEDED);
    const cond = compileCel('matchCondition', 'request.groups.all(a, request.groups.all(b, request.groups.all(c, a != "")))');
    if (!cond.ok) throw new Error(cond.message);
    expect(() => evaluateMetered(cond.program, { request: { user: 'u', groups, uid: '', extra: {} } })).toThrow(COST_LIMIT_EXCEEDED);
  });

  it('stops at an aborted signal or a passed deadline', () => {
    const ac = new AbortController();
    ac.abort();
    const quadratic = admission('object.data.all(a, object.data.all(b, a != "" && b != ""))');
    expect(() => evaluateMetered(quadratic, vars(configMap(300)), { signal: ac.signal })).toThrow('operation interrupted');
    expect(() => evaluateMetered(quadratic, vars(configMap(300)), { deadline: Date.now() - 1 })).toThrow('operation interrupted');
  });

  it('admission evaluation stops at the request\'s deadline (--request-timeout, ?timeout=)', async () => {
    const quadratic = admission('object.data.all(a, object.data.all(b, a != "" && b != ""))');
    // a fresh async context, as each request has; the timeout filter sets its deadline there
    await new Promise<void>((resolve, reject) =>
      setImmediate(() => {
        enterRequestDeadline(Date.now() - 1);
        evalCel(quadratic, vars(configMap(300))).then(
          () => reject(new Error('evaluated past the deadline')),
          (e: Error) => (e.message === 'operation interrupted' ? resolve() : reject(e)),
        );
      }),
    );
    // outside that request: no deadline
    await expect(evalCel(quadratic, vars(configMap(300)))).resolves.toBe(true);
  });

  it('gives the event loop a turn between costly evaluations', async () => {
    const program = admission(CUBIC);
    let turned = false;
    let turnedBeforeLast = false;
    setImmediate(() => (turned = true));
    for (let i = 0; i < 6; i++) {
      if (i === 5) turnedBeforeLast = turned;
      await evalCel(program, vars(configMap(120))).catch(() => undefined);
    }
    expect(turnedBeforeLast).toBe(true);
  });
});
