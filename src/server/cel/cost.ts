// Runtime cost limits of CEL evaluation, as upstream's (k8s.io/apiserver/pkg/apis/cel/config.go and cel-go's
// runtime cost tracker): every expression evaluation runs with a per-call limit, and each caller adds its
// per-evaluation budget (a policy binding, a CustomResource, one object's matchConditions). cel-js has no cost
// tracking, so the one evaluator every environment uses is metered here: each AST node evaluated (each
// comprehension iteration runs its step's nodes) costs 1, and a call or `+` producing a string, bytes or list
// costs a tenth of its size more (cel-go's traversal factor). The meter also stops the evaluation when the
// caller's AbortSignal fires or its deadline passes, checked every CHECK_FREQUENCY steps as upstream does.
// No Node-only imports: the browser studio shares these environments (unmetered there).
import { Environment } from '@marcbachmann/cel-js';

/** Cost limit of one expression evaluation (upstream: "roughly 0.1 second"). */
export const PER_CALL_LIMIT = 1_000_000;
/** Budget of one ValidatingAdmissionPolicy binding (per param) or one CustomResource (upstream: "roughly 1 second"). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** Budget of the matchConditions of one webhook or policy for one object. */
export const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000;
/** Steps between checks of the caller's signal and deadline. */
export const CHECK_FREQUENCY = 100;

/** cel-go's error when an evaluation exceeds its cost limit. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';
/** cel-go's error when the evaluation's context is cancelled (deadline or caller gone). */
export const INTERRUPTED = 'operation interrupted';
/** Upstream's error when a budget shared by several evaluations runs out. */
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** An evaluation stopped by its cost limit or its caller; never absorbed by CEL's logical operators. */
export class CelCostError extends Error {
  constructor(
    message: string,
    /** The shared budget ran out (rather than the expression's own per-call limit). */
    readonly outOfBudget = false,
  ) {
    super(message);
  }
}

/** A budget several evaluations draw from. */
export class CostBudget {
  constructor(public remaining: number) {}
}

export interface MeterOptions {
  /** Per-call limit (default PER_CALL_LIMIT). */
  limit?: number;
  /** Shared budget the cost is drawn from; the call's limit never exceeds what remains. */
  budget?: CostBudget;
  signal?: AbortSignal;
  /** Date.now() value after which the evaluation is interrupted. */
  deadline?: number;
}

class Meter {
  cost = 0;
  /** Cost at which the slow path runs next: the next signal/deadline check, or the limit. */
  next: number;
  stop: CelCostError | undefined;
  readonly limit: number;
  readonly byBudget: boolean;
  constructor(readonly o: MeterOptions) {
    const perCall = o.limit ?? PER_CALL_LIMIT;
    const left = o.budget ? Math.max(0, o.budget.remaining) : Infinity;
    this.limit = Math.min(perCall, left);
    this.byBudget = left < perCall;
    this.next = Math.min(CHECK_FREQUENCY, this.limit);
  }
  /** Charges `n`; throws (the same error each time) once the limit is passed or the caller is gone. */
  charge(n: number): void {
    if ((this.cost += n) > this.next || this.stop) this.check();
  }
  check(): void {
    if (this.stop) throw this.stop;
    if (this.cost > this.limit) throw (this.stop = new CelCostError(this.byBudget ? OUT_OF_BUDGET : COST_LIMIT_EXCEEDED, this.byBudget));
    if (this.o.signal?.aborted || (this.o.deadline !== undefined && Date.now() > this.o.deadline)) throw (this.stop = new CelCostError(INTERRUPTED));
    this.next = Math.min(this.cost + CHECK_FREQUENCY, this.limit);
  }
  settle(): void {
    if (this.o.budget) this.o.budget.remaining -= Math.min(this.cost, this.limit);
  }
}

/** The meter of the evaluation running now (synchronous part). */
let current: Meter | undefined;
/** Finds the meter of an evaluation resumed after an await (installed by the server: AsyncLocalStorage). */
let resumed: () => Meter | undefined = () => undefined;
let runAsync: <T>(m: Meter, f: () => T) => T = (_m, f) => f();

/** Lets the server carry the meter across awaits (authorizer checks) without a Node import here. */
export function installAsyncMeterContext(ctx: { run<T>(m: unknown, f: () => T): T; getStore(): unknown }): void {
  resumed = () => ctx.getStore() as Meter | undefined;
  runAsync = (m, f) => ctx.run(m, f);
}

const SIZED = new Set(['call', 'rcall', '+']);

interface AstNode {
  op: string;
  evaluate(ev: unknown, ast: AstNode, ctx: unknown): unknown;
}

/** Meters cel-js' evaluator: every node evaluation goes through Evaluator.prototype.run (one class for every environment). */
function installMeter(): void {
  const probe = new Environment();
  let proto: { run(ast: AstNode, ctx: unknown): unknown } | undefined;
  probe.registerFunction('costProbe(ast): bool', (() => ({
    typeCheck: (checker: { getType(n: string): unknown }) => checker.getType('bool'),
    evaluate: (ev: object) => {
      proto = Object.getPrototypeOf(ev);
      return true;
    },
  })) as never);
  probe.evaluate('costProbe(0)');
  if (!proto || typeof proto.run !== 'function') throw new Error('cel-js evaluator not found: cost limits cannot be enforced');
  proto.run = function run(this: unknown, ast: AstNode, ctx: unknown): unknown {
    const m = current ?? resumed();
    if (m === undefined) return ast.evaluate(this, ast, ctx);
    // the hot path: one add and one compare per node
    if (++m.cost > m.next || m.stop) m.check();
    const r = ast.evaluate(this, ast, ctx);
    if ((typeof r === 'string' || Array.isArray(r) || r instanceof Uint8Array) && r.length >= 10 && SIZED.has(ast.op)) m.charge(Math.ceil(r.length / 10));
    return r;
  };
}
installMeter();

type Program = (vars: Record<string, unknown>) => unknown;

export interface Metered<T> {
  value: T;
  cost: number;
}

/** Evaluates synchronously under a cost limit; throws CelCostError when it is exceeded or the caller is gone. */
export function evaluateMetered(program: Program, vars: Record<string, unknown>, opts: MeterOptions = {}): Metered<unknown> {
  const m = new Meter(opts);
  if (m.limit <= 0) throw new CelCostError(OUT_OF_BUDGET, true);
  const prev = current;
  current = m;
  const t0 = performance.now();
  let value: unknown;
  try {
    value = program(vars);
  } catch (e) {
    if (m.stop) throw m.stop;
    throw e;
  } finally {
    current = prev;
    busyMs += performance.now() - t0;
    m.settle();
  }
  if (value instanceof Promise) throw new Error('asynchronous CEL functions are not available here');
  // a cancelled branch may have been absorbed by `||`, `&&` or a comprehension: the whole evaluation fails, as in cel-go
  if (m.stop) throw m.stop;
  return { value, cost: m.cost };
}

/** Milliseconds of metered evaluation since the event loop last got a turn from us. */
let busyMs = 0;
/** Longest stretch of metered evaluations before the event loop gets a turn (health checks, other requests). */
const YIELD_AFTER_MS = 20;
const nextTurn: (f: () => void) => void = typeof setImmediate === 'function' ? (f) => setImmediate(f) : (f) => setTimeout(f, 0);

/** Lets the event loop run (I/O included) when evaluations have held it for a while. */
export async function yieldIfBusy(): Promise<void> {
  if (busyMs < YIELD_AFTER_MS) return;
  busyMs = 0;
  await new Promise<void>((r) => nextTurn(r));
}

/** Evaluates a program that may call asynchronous functions (the authorizer), under a cost limit. */
export async function evaluateMeteredAsync(program: Program, vars: Record<string, unknown>, opts: MeterOptions = {}): Promise<Metered<unknown>> {
  await yieldIfBusy();
  const m = new Meter(opts);
  if (m.limit <= 0) throw new CelCostError(OUT_OF_BUDGET, true);
  let value: unknown;
  try {
    value = await runAsync(m, () => {
      const prev = current;
      current = m;
      const t0 = performance.now();
      try {
        return program(vars);
      } finally {
        current = prev;
        busyMs += performance.now() - t0;
      }
    });
  } catch (e) {
    if (m.stop) throw m.stop;
    throw e;
  } finally {
    m.settle();
  }
  if (m.stop) throw m.stop;
  return { value, cost: m.cost };
}
