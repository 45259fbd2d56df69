import { describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/server/storage/memory.js';
import { runStoreConformance } from './conformance.js';

runStoreConformance('memory', async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});

describe('memory store specifics', () => {
  it('reports progress to an idle watcher when unrelated keys change', async () => {
    const store = new MemoryStore();
    await store.open();
    const progress: number[] = [];
    store.watch('/a/', await store.currentRevision(), {
      onEvents: () => {},
      onError: () => {},
      onProgress: (rev) => void progress.push(rev),
    });
    const kv = await store.create('/b/x', new Uint8Array([1]));
    await vi.waitFor(() => expect(progress).toContain(kv.modRevision), { timeout: 5000, interval: 5 });
    await store.close();
  });

  it('ends open watches with Unavailable on close', async () => {
    const store = new MemoryStore();
    await store.open();
    const errors: string[] = [];
    store.watch('/', 1, { onEvents: () => {}, onError: (err) => void errors.push(err.code) });
    await store.close();
    expect(errors).toEqual(['Unavailable']);
  });

  it('pages a past revision without walking the rest of the range when the count is not wanted', async () => {
    const store = new MemoryStore();
    await store.open();
    for (let i = 0; i < 50; i++) await store.create(`/p/k${String(i).padStart(2, '0')}`, new Uint8Array([i]));
    const at = await store.currentRevision();
    await store.create('/q/later', new Uint8Array([0])); // the read below is at a past revision
    const counted = await store.range({ prefix: '/p/', limit: 10, revision: at });
    expect(counted).toMatchObject({ more: true, count: 50 });
    const paged = await store.range({ prefix: '/p/', limit: 10, revision: at, count: false });
    expect(paged.kvs.map((kv) => kv.key)).toEqual(counted.kvs.map((kv) => kv.key));
    expect(paged.more).toBe(true);
    // the scan stopped one past the page (count is only a lower bound then)
    expect(paged.count).toBe(11);
    const last = await store.range({ prefix: '/p/', startKey: '/p/k45', limit: 10, revision: at, count: false });
    expect(last).toMatchObject({ more: false, count: 5 });
    await store.close();
  });

  it('rejects use before open', async () => {
    const store = new MemoryStore();
    await expect(store.get('/a')).rejects.toMatchObject({ code: 'Unavailable' });
  });

  it('drops compacted versions of deleted keys from past ranges', async () => {
    const store = new MemoryStore();
    await store.open();
    const a = await store.create('/k/a', new Uint8Array([1]));
    await store.delete('/k/a');
    const b = await store.create('/k/b', new Uint8Array([2]));
    await store.compact(b.modRevision);
    expect((await store.range({ prefix: '/k/', revision: b.modRevision })).kvs.map((kv) => kv.key)).toEqual(['/k/b']);
    expect((await store.get('/k/a', b.modRevision)).kv).toBeUndefined();
    expect(a.modRevision).toBeLessThan(b.modRevision);
    await store.close();
  });
});
