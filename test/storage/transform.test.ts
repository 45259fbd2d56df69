import { describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/server/storage/memory.js';
import { TransformingStore } from '../../src/server/storage/transform.js';
import { StoreError, type StoreEvent, type ValueTransformer } from '../../src/server/storage/types.js';
import { runStoreConformance } from './conformance.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const MAGIC = 'enc:v1:';

/** Reversible, key-bound envelope: "enc:v1:<key>:" + bytes reversed. Async to exercise ordering. */
const envelope: ValueTransformer = {
  async toStorage(key, plain) {
    await new Promise((resolve) => setImmediate(resolve));
    return new Uint8Array([...enc(`${MAGIC}${key}:`), ...[...plain].reverse()]);
  },
  fromStorage(key, stored) {
    const header = enc(`${MAGIC}${key}:`);
    if (stored.length < header.length || !header.every((b, i) => stored[i] === b)) {
      throw new StoreError('Corrupt', `no envelope for ${key}`);
    }
    return Promise.resolve(stored.slice(header.length).reverse());
  },
};

runStoreConformance('transforming(memory)', async () => {
  const store = new TransformingStore(new MemoryStore(), envelope);
  return { store, cleanup: () => store.close() };
});

runStoreConformance('transforming without transformer', async () => {
  const store = new TransformingStore(new MemoryStore());
  return { store, cleanup: () => store.close() };
});

async function openStore(): Promise<TransformingStore> {
  const store = new TransformingStore(new MemoryStore(), envelope);
  await store.open();
  return store;
}

describe('TransformingStore', () => {
  it('stores transformed bytes and reads plain bytes back', async () => {
    const store = await openStore();
    const kv = await store.create('/t/a', enc('hello'));
    expect(dec(kv.value)).toBe('hello');
    const raw = (await store.inner.get('/t/a')).kv!;
    expect(dec(raw.value)).toBe(`${MAGIC}/t/a:olleh`);
    expect(dec((await store.get('/t/a')).kv!.value)).toBe('hello');
    const updated = await store.update('/t/a', enc('world'), kv.modRevision);
    expect(dec(updated.value)).toBe('world');
    expect(dec((await store.range({ prefix: '/t/' })).kvs[0].value)).toBe('world');
    expect(dec((await store.delete('/t/a')).value)).toBe('world');
    await store.close();
  });

  it('reports bytes that cannot be transformed back as Corrupt with the key', async () => {
    const store = await openStore();
    await store.create('/t/good', enc('fine'));
    await store.inner.create('/t/bad', enc('not an envelope'));
    await expect(store.get('/t/bad')).rejects.toMatchObject({ code: 'Corrupt', key: '/t/bad' });
    await expect(store.range({ prefix: '/t/' })).rejects.toMatchObject({ code: 'Corrupt', key: '/t/bad' });
    expect(dec((await store.get('/t/good')).kv!.value)).toBe('fine');
    await store.close();
  });

  it('wraps foreign transformer failures as Corrupt', async () => {
    const store = new TransformingStore(new MemoryStore(), {
      toStorage: (_key, plain) => plain,
      fromStorage: () => {
        throw new Error('bad tag');
      },
    });
    await store.open();
    await store.create('/t/a', enc('x'));
    const err = await store.get('/t/a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ code: 'Corrupt', key: '/t/a' });
    expect((err as Error).message).toContain('bad tag');
    await store.close();
  });

  it('still deletes a corrupt value, returning it empty', async () => {
    const store = await openStore();
    await store.inner.create('/t/bad', enc('garbage'));
    const deleted = await store.delete('/t/bad');
    expect(deleted.key).toBe('/t/bad');
    expect(deleted.value).toHaveLength(0);
    expect((await store.get('/t/bad')).kv).toBeUndefined();
    await store.close();
  });

  it('watch delivers decoded values in order and passes an undecodable put on empty (skipped by decoders), without ending', async () => {
    const store = await openStore();
    const start = await store.currentRevision();
    const events: StoreEvent[] = [];
    const errors: StoreError[] = [];
    store.watch('/t/', start, { onEvents: (e) => void events.push(...e), onError: (e) => void errors.push(e) });
    const a = await store.create('/t/a', enc('one'));
    await store.update('/t/a', enc('two'), a.modRevision);
    await store.inner.create('/t/bad', enc('garbage'));
    await store.create('/t/after', enc('three'));
    await vi.waitFor(() => expect(events).toHaveLength(4), { timeout: 5000, interval: 5 });
    expect(errors).toEqual([]);
    expect(events.map((e) => dec(e.kv.value))).toEqual(['one', 'two', '', 'three']);
    expect(events[2]!.kv.key).toBe('/t/bad');
    expect(dec(events[1]!.prevKv!.value)).toBe('one');
    await store.close();
  });

  it('watch delivers the deletion of a corrupt value with an empty value', async () => {
    const store = await openStore();
    await store.inner.create('/t/bad', enc('garbage'));
    const start = await store.currentRevision();
    const events: StoreEvent[] = [];
    const errors: StoreError[] = [];
    store.watch('/t/', start, { onEvents: (e) => void events.push(...e), onError: (e) => void errors.push(e) });
    const deleted = await store.delete('/t/bad');
    await vi.waitFor(() => expect(events).toHaveLength(1), { timeout: 5000, interval: 5 });
    expect(events[0]).toMatchObject({ type: 'delete', revision: deleted.modRevision });
    expect(events[0].kv.value).toHaveLength(0);
    expect(errors).toEqual([]);
    await store.close();
  });
});
