import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../src/server/controllers/work-queue.js';

describe('WorkQueue', () => {
  it('lets the event loop run during a long queue whose handlers never wait on I/O', async () => {
    let handled = 0;
    let handledWhenTimerRan = -1;
    const busy = () => {
      const t = performance.now();
      while (performance.now() - t < 1) {
        // a handler that takes a while (decoding, indexing) and resolves without I/O
      }
    };
    const q = new WorkQueue(async (key) => {
      busy();
      handled++;
      expect(key).toMatch(/^k/);
    });
    setImmediate(() => (handledWhenTimerRan = handled));
    for (let i = 0; i < 200; i++) q.add(`k${i}`);
    await q.idle();
    expect(handled).toBe(200);
    // before: the whole queue ran in microtasks, the callback only after the last key
    expect(handledWhenTimerRan).toBeGreaterThanOrEqual(0);
    expect(handledWhenTimerRan).toBeLessThan(200);
  });
});
