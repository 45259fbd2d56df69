// Updates start from the watch cache's object (fromCurrent, upstream's cachedExistingObject): a stale one must
// never cost an update. A fake cache over a memory store hands out an older version than storage holds.
import { describe, expect, it } from 'vitest';
import { AdmissionChain } from '../../http/admission.js';
import { MemoryStore } from '../../storage/memory.js';
import { findBuiltinType } from '../builtin.js';
import { provideCachedObjects, type CachedObjectSource } from '../cached-objects.js';
import { storageDecodes } from '../decode-count.js';
import { resourceStoreFor } from '../resource-store.js';
import type { KubeObject } from '../types.js';
import { componentContext } from './context.js';
import { createObject } from './create.js';
import { fromCurrent } from './current.js';
import { mutateObject, updateObject } from './update.js';

async function setup() {
  const store = new MemoryStore();
  await store.open();
  const type = findBuiltinType('', 'v1', 'configmaps')!;
  const rs = resourceStoreFor(type, store);
  const t = { rs, admission: new AdmissionChain() };
  const ctx = componentContext('system:test', 'test');
  // what the fake cache holds for every key: set by the test (undefined: nothing)
  const cache: { obj?: KubeObject } = {};
  const source: CachedObjectSource = {
    ready: true,
    revision: Number.MAX_SAFE_INTEGER,
    current: () => cache.obj,
    objectAt: (_key, rev) => (cache.obj?.metadata?.resourceVersion === String(rev) ? cache.obj : undefined),
    waitFresh: async () => {},
  };
  provideCachedObjects(store, () => source);
  const stored = async () => (await rs.read('default', 'cm'))!.obj;
  return { t, ctx, cache, stored };
}

const cm = (data: Record<string, string>, finalizers?: string[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'default', ...(finalizers ? { finalizers } : {}) },
  data,
});

describe('updates from the watch cache object', () => {
  it('a stale cached object costs a retry on the stored one, never an update', async () => {
    const { t, ctx, cache, stored } = await setup();
    await createObject(t, ctx, cm({ a: '1' }), 'default');
    const v1 = Object.freeze(await stored());
    await mutateObject(t, ctx, 'default', 'cm', (o) => ((o.data as Record<string, string>).a = '2', true));
    cache.obj = v1; // the cache has not applied the second version yet
    const seen: string[] = [];
    const out = await mutateObject(t, ctx, 'default', 'cm', (o) => {
      const data = o.data as Record<string, string>;
      seen.push(data.a!);
      data.b = 'x';
      return true;
    });
    // first attempt on the cache's version 1 (its CAS fails), then on the stored version 2
    expect(seen).toEqual(['1', '2']);
    expect(out?.data).toEqual({ a: '2', b: 'x' });
    expect((await stored()).data).toEqual({ a: '2', b: 'x' });
  });

  it('an update that is no change against a stale cached object is written once storage says otherwise', async () => {
    const { t, ctx, cache, stored } = await setup();
    await createObject(t, ctx, cm({ a: '1' }), 'default');
    const v1 = Object.freeze(await stored());
    await mutateObject(t, ctx, 'default', 'cm', (o) => ((o.data as Record<string, string>).a = '2', true));
    cache.obj = v1;
    await mutateObject(t, ctx, 'default', 'cm', (o) => ((o.data as Record<string, string>).a = '1', true));
    expect((await stored()).data).toEqual({ a: '1' });
  });

  it('nothing to do on a stale cached object is checked against the stored one', async () => {
    const { t, ctx, cache, stored } = await setup();
    await createObject(t, ctx, cm({ a: '1' }), 'default');
    const v1 = Object.freeze(await stored());
    await mutateObject(t, ctx, 'default', 'cm', (o) => ((o.metadata!.finalizers = ['example.com/f']), true));
    cache.obj = v1; // no finalizer in the cache's version
    const removeF = (o: KubeObject) => {
      const f = o.metadata!.finalizers ?? [];
      if (!f.includes('example.com/f')) return false;
      delete o.metadata!.finalizers;
      return true;
    };
    await mutateObject(t, ctx, 'default', 'cm', removeF);
    expect((await stored()).metadata?.finalizers).toBeUndefined();
  });

  it('a PUT naming the stored resourceVersion succeeds though the cache is behind; a failure on a current object is not retried', async () => {
    const { t, ctx, cache, stored } = await setup();
    await createObject(t, ctx, cm({ a: '1' }), 'default');
    const v1 = Object.freeze(await stored());
    await mutateObject(t, ctx, 'default', 'cm', (o) => ((o.data as Record<string, string>).a = '2', true));
    const v2 = await stored();
    cache.obj = v1;
    const body = () => ({ ...cm({ a: '3' }), metadata: { name: 'cm', namespace: 'default', resourceVersion: v2.metadata!.resourceVersion } });
    const seen: string[] = [];
    const out = await fromCurrent(t.rs, 'default', 'cm', false, (cur) => (seen.push(cur!.obj.metadata!.resourceVersion!), updateObject(t, ctx, body(), cur!, '')));
    expect(seen).toEqual([v1.metadata!.resourceVersion, v2.metadata!.resourceVersion]);
    expect(out.data).toEqual({ a: '3' });
    // the cache current: an attempt's own failure stands after one look at storage
    cache.obj = Object.freeze(await stored());
    let attempts = 0;
    await expect(fromCurrent(t.rs, 'default', 'cm', false, async () => (attempts++, Promise.reject(new Error('denied'))))).rejects.toThrow('denied');
    expect(attempts).toBe(1);
  });

  it('a current cached object is written over without a storage decode', async () => {
    const { t, ctx, cache, stored } = await setup();
    await createObject(t, ctx, cm({ a: '1' }), 'default');
    cache.obj = Object.freeze(await stored());
    const before = storageDecodes();
    const out = await mutateObject(t, ctx, 'default', 'cm', (o) => ((o.data as Record<string, string>).a = '2', true));
    expect(storageDecodes()).toBe(before);
    expect(out?.data).toEqual({ a: '2' });
    expect(Number(out?.metadata?.resourceVersion)).toBeGreaterThan(Number(cache.obj.metadata!.resourceVersion));
  });
});
