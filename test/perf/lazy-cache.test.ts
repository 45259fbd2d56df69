import { describe, expect, it } from 'vitest';
import { LazyObjects } from '../../src/server/watch/watch-cache.js';
import { encodeForStorage } from '../../src/server/registry/resource-store.js';
import type { KeyValue } from '../../src/server/storage/types.js';

const kv = (key: string, value: Uint8Array, rev = 5): KeyValue => ({ key, value, createRevision: rev, modRevision: rev });
const cm = (name: string) => encodeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { a: name } });

describe('the watch cache decodes stored objects on first read', () => {
  it('decodes on get, drops what does not decode, and decodes everything before iterating', () => {
    const corrupt: string[] = [];
    const m = new LazyObjects((k) => corrupt.push(k));
    m.raw.set('/a', kv('/a', cm('a')));
    m.raw.set('/bad', kv('/bad', new TextEncoder().encode('{not json')));
    m.raw.set('/c', kv('/c', cm('c'), 9));
    expect(m.size).toBe(3);
    expect(m.has('/c')).toBe(true);
    const a = m.get('/a')!;
    expect(a.metadata).toMatchObject({ name: 'a', resourceVersion: '5' });
    expect(m.get('/a')).toBe(a); // decoded once, shared
    expect(m.raw.size).toBe(2);
    expect(m.get('/bad')).toBeUndefined();
    expect(corrupt).toEqual(['/bad']);
    expect(m.has('/bad')).toBe(false);
    expect([...m.keys()]).toEqual(['/a', '/c']);
    expect(m.raw.size).toBe(0);
    expect(m.get('/c')!.metadata).toMatchObject({ resourceVersion: '9' });
  });

  it('a write replaces a pending entry, a delete removes it', () => {
    const m = new LazyObjects(() => {});
    m.raw.set('/a', kv('/a', cm('a')));
    m.raw.set('/b', kv('/b', cm('b')));
    m.set('/a', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a2' } });
    expect(m.get('/a')!.metadata!.name).toBe('a2');
    expect(m.delete('/b')).toBe(true);
    expect(m.has('/b')).toBe(false);
    expect(m.size).toBe(1);
  });

  it('lists every key without decoding, and decodes in time slices', () => {
    const m = new LazyObjects(() => {});
    for (let i = 0; i < 100; i++) m.raw.set(`/k${i}`, kv(`/k${i}`, cm(`k${i}`)));
    m.get('/k7');
    const keys = m.allKeys();
    expect(keys).toHaveLength(100);
    expect(new Set(keys).size).toBe(100);
    expect(m.raw.size).toBe(99); // nothing decoded by listing the keys
    m.decodeFor(0); // at least a few, never all at once
    expect(m.raw.size).toBeLessThan(99);
    expect(m.raw.size).toBeGreaterThan(0);
    m.decodeFor(60_000);
    expect(m.raw.size).toBe(0);
  });
});

