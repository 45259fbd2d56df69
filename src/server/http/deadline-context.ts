// The deadline of the request being handled (--request-timeout, shortened by ?timeout=), for work deep in the
// pipeline that can stop early (CEL evaluation). Set by the timeout filter for the rest of the request's async context.
import { AsyncLocalStorage } from 'node:async_hooks';

const deadlines = new AsyncLocalStorage<number>();

/** The Date.now() value the current request must finish by, if it has one. */
export function currentRequestDeadline(): number | undefined {
  return deadlines.getStore();
}

/** Makes `at` the deadline of the rest of the current request's handling. */
export function enterRequestDeadline(at: number): void {
  deadlines.enterWith(at);
}
