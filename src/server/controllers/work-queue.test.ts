// A queue stopped while a key runs and was queued again (a controller stopped when its replica loses the
// leader Lease) ends its workers: before the fix, stop spun workers up and down in one endless microtask loop.
import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.js';

describe('WorkQueue.stop', () => {
  it('while a key runs and is queued again: no worker is left and timers still fire', async () => {
    let release!: () => void;
    const running = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const began = new Promise<void>((r) => (started = r));
    let runs = 0;
    const q = new WorkQueue(async () => {
      runs++;
      started();
      await running;
    });
    q.add('k');
    await began;
    q.add('k'); // queued again while active
    const stopped = q.stop();
    release();
    await stopped;
    expect((q as unknown as { loops: Set<unknown> }).loops.size).toBe(0);
    // the event loop moves on (a microtask loop would starve this timer)
    await new Promise((r) => setTimeout(r, 10));
    expect(runs).toBe(1);
  });
});
