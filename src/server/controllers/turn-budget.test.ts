// Many controller loops busy at once share one budget per event-loop turn: the event loop gets back to timers
// and I/O after a few handlers, not after every loop's slice, and no loop waits behind the others for ever.
import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.js';

/** Holds the thread for ms, as a reconcile of an in-process store does (no await yields). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('the controllers’ turn budget', () => {
  it('lets the event loop turn after a few handlers, whichever queues they belong to, and serves every queue', async () => {
    let turn = 0;
    const ticker = setInterval(() => turn++, 0); // one tick per event-loop turn (at most)
    const perTurn = new Map<number, number>();
    const firstTurnOf = new Map<number, number>();
    const queues = Array.from({ length: 10 }, (_, q) =>
      new WorkQueue(async () => {
        perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
        if (!firstTurnOf.has(q)) firstTurnOf.set(q, turn);
        spin(3);
        await Promise.resolve(); // an in-process write: resolves in a microtask
      }),
    );
    for (const q of queues) for (let k = 0; k < 10; k++) q.add(`k${k}`);
    await Promise.all(queues.map((q) => q.idle()));
    clearInterval(ticker);
    expect([...perTurn.values()].reduce((a, b) => a + b, 0)).toBe(100);
    // a 10 ms budget holds at most 4 handlers of 3 ms (+1 started just before it ran out); each queue's own
    // 10 ms slice let one turn run 10 x 4 of them
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(5);
    // the queues take turns: each one ran within the first dozen turns
    const start = Math.min(...firstTurnOf.values());
    expect(Math.max(...firstTurnOf.values()) - start).toBeLessThanOrEqual(12);
  });
});
