import { afterEach, describe, expect, it, vi } from 'vitest';
import { startCompactor } from '../../src/server/storage/compactor.js';
import { MemoryStore } from '../../src/server/storage/memory.js';

const INTERVAL = 1000;

describe('startCompactor', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('compacts at the revision seen one interval earlier', async () => {
    vi.useFakeTimers();
    const store = new MemoryStore();
    await store.open();
    const a = await store.create('/c/a', new Uint8Array([1]));
    const stop = startCompactor(store, INTERVAL);

    await vi.advanceTimersByTimeAsync(INTERVAL);
    // First tick only records the revision.
    expect(await store.compactedRevision()).toBe(0);
    const b = await store.update('/c/a', new Uint8Array([2]), a.modRevision);

    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(await store.compactedRevision()).toBe(a.modRevision);
    // History of the last interval is still there.
    expect((await store.get('/c/a', a.modRevision)).kv!.value).toEqual(new Uint8Array([1]));

    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(await store.compactedRevision()).toBe(b.modRevision);

    await stop();
    await store.update('/c/a', new Uint8Array([3]), b.modRevision);
    await vi.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(await store.compactedRevision()).toBe(b.modRevision);
    await store.close();
  });

  it('is disabled by a zero interval', async () => {
    vi.useFakeTimers();
    const store = new MemoryStore();
    await store.open();
    await store.create('/c/a', new Uint8Array([1]));
    const stop = startCompactor(store, 0);
    await store.create('/c/b', new Uint8Array([1]));
    await vi.advanceTimersByTimeAsync(100 * INTERVAL);
    expect(await store.compactedRevision()).toBe(0);
    await stop();
    await store.close();
  });

  it('reports failures and keeps ticking', async () => {
    vi.useFakeTimers();
    const store = new MemoryStore();
    await store.open();
    await store.create('/c/a', new Uint8Array([1]));
    const errors: unknown[] = [];
    let fail = true;
    const compact = store.compact.bind(store);
    store.compact = async (rev) => {
      if (fail) throw new Error('disk full');
      return compact(rev);
    };
    const stop = startCompactor(store, INTERVAL, { onError: (err) => void errors.push(err) });
    await vi.advanceTimersByTimeAsync(2 * INTERVAL);
    expect(errors).toHaveLength(1);
    fail = false;
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(await store.compactedRevision()).toBe(await store.currentRevision());
    await stop();
    await store.close();
  });
});
