// Evaluates configuration CEL expressions for the playgrounds with the same compiler and
// environments validation uses (compileCel), turning results into plain JSON-like values.

import { compileCel, type CelPurpose } from '../cel.js';
import { evaluateMetered } from '../../server/cel/cost.js';

export type CelOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/** Plain data from a CEL value: Maps become objects, bigints numbers, Optionals their value. */
export function plainCelValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), plainCelValue(x)]));
  if (Array.isArray(v)) return v.map(plainCelValue);
  if (v && typeof v === 'object') {
    const o = v as { hasValue?: () => boolean; value?: () => unknown };
    if (typeof o.hasValue === 'function' && typeof o.value === 'function') return o.hasValue() ? plainCelValue(o.value()) : null;
    if (Object.getPrototypeOf(v) === Object.prototype) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainCelValue(x)]));
  }
  return v;
}

export function evaluateCel(purpose: CelPurpose, expression: string, context: Record<string, unknown>): CelOutcome {
  const compiled = compileCel(purpose, expression);
  if (!compiled.ok) return { ok: false, error: compiled.message };
  try {
    // the server's per-call cost limit: a result the server would refuse is refused here too (and the tab stays live)
    return { ok: true, value: plainCelValue(evaluateMetered(compiled.program, context).value) };
  } catch (err) {
    const e = err as { summary?: string; message?: string };
    return { ok: false, error: `evaluation failed: ${e.summary ?? String(e.message ?? err).split('\n')[0]}` };
  }
}

/** Short rendering of a value for result tables. */
export function showValue(v: unknown): string {
  if (v === undefined) return '(absent)';
  return JSON.stringify(v) ?? String(v);
}
