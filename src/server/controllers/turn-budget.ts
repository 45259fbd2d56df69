// One budget of synchronous work per event-loop turn, shared by every in-process controller loop (work queues,
// event recorders). Their writes to an in-process store resolve in microtasks, so a loop never yields by itself;
// each used to yield after 10 ms of its own, but with dozens of loops (5 workers per controller, the scheduler,
// the kubelets) one turn ran them all back to back: hundreds of ms in which no request, and no watch event, was
// served. Now the loops together run about SLICE_MS per turn, then requests and watches get the event loop.
// Upstream's controllers run on goroutines the Go scheduler preempts; this is the single-threaded stand-in.

/** Synchronous work the loops together may do per event-loop turn. */
const SLICE_MS = 10;

let deadline = 0;
let scheduled = false;
/** Loops that did not get to run last turn go first; those that used the budget go last (no loop starves). */
let first: (() => void)[] = [];
let last: (() => void)[] = [];

/** True when this turn's budget is spent (or was never granted: work that started outside a granted turn). */
export function overBudget(): boolean {
  return performance.now() > deadline;
}

/**
 * Resolves in a later event-loop turn (the check phase, after I/O), with a fresh budget shared by every loop
 * resumed in it. `ran`: the caller used the budget just spent, so it resumes after the loops that waited.
 */
export function nextTurn(ran: boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    (ran ? last : first).push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(grant);
    }
  });
}

function grant(): void {
  scheduled = false;
  deadline = performance.now() + SLICE_MS;
  const resumed = first.length === 0 ? last : last.length === 0 ? first : first.concat(last);
  first = [];
  last = [];
  for (const r of resumed) r();
}
