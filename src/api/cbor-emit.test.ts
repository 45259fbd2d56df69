import { Encoder, Tag } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import { emitCbor } from './cbor-emit.js';
import { decodeCbor, encodeCbor } from './cbor.js';

// the encoder cbor.ts used before the emitter: the emitter must write its bytes exactly
const reference = new Encoder({ useRecords: false, mapsAsObjects: true, variableMapSize: true, tagUint8Array: false, pack: false });
const ref = (v: unknown) => Buffer.from(reference.encode(new Tag(v, 55799)));

function same(v: unknown): void {
  const got = emitCbor(v);
  expect(got, 'emitted').toBeDefined();
  expect(Buffer.from(got!).toString('hex')).toBe(ref(v).toString('hex'));
}

const lengths = [0, 1, 22, 23, 24, 25, 63, 64, 65, 85, 86, 255, 256, 257, 1000, 65535, 65536, 70000];
const units = ['a', 'é', '€', '😀', '\ud800', '\udc00', '\u0000', '\u07ff', '\u0800', '\uffff'];

/** A pseudo-random generator, so failures reproduce. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 0x100000000);
}

function randomValue(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * (depth > 3 ? 6 : 8));
  switch (k) {
    case 0:
      return [0, 1, -1, 23, 24, -24, -25, 255, 256, -256, -257, 65535, 65536, -65536, -65537, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, -(2 ** 32), -(2 ** 32) - 1, 2 ** 53 - 1, -(2 ** 53), 0.5, -1.25, 1e300, -0, NaN, Infinity, -Infinity, 3.14159][Math.floor(r() * 33)];
    case 1:
      return Array.from({ length: Math.floor(r() * 30) }, () => units[Math.floor(r() * units.length)]).join('');
    case 2:
      return r() < 0.5;
    case 3:
      return r() < 0.7 ? null : undefined;
    case 4:
      return 'x'.repeat(Math.floor(r() * 300));
    case 5:
      return Math.floor(r() * 2 ** 40) * (r() < 0.5 ? -1 : 1);
    case 6:
      return Array.from({ length: Math.floor(r() * 12) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const n = Math.floor(r() * 12);
      for (let i = 0; i < n; i++) o[`${units[Math.floor(r() * units.length)]}k${i}`] = randomValue(r, depth + 1);
      return o;
    }
  }
}

function pod(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-${i}`,
      namespace: 'bench',
      uid: `5f0c1f7e-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2026-11-01T10:00:00Z',
      labels: { app: 'web', 'pod-template-hash': '7d9f8c6b5' },
      annotations: { 'example.com/note': 'ünïcödé ✓ '.repeat(i % 5) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f8c6b5', uid: 'u', controller: true, blockOwnerDeletion: true }],
      managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: '2026-11-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } } }],
    },
    spec: {
      containers: [{ name: 'web', image: 'registry.example.com/web:2.1', ports: [{ containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '100m', memory: '128Mi' } } }],
      terminationGracePeriodSeconds: 30,
      priority: -i,
    },
    status: { phase: 'Running', podIP: `10.0.${i >> 8}.${i & 255}`, conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null }] },
  };
}

describe('CBOR emitter', () => {
  it('writes the bytes cbor-x wrote for numbers, strings and sizes at every head boundary', () => {
    for (const n of lengths) {
      for (const u of units) same(u.repeat(n));
      same(Array.from({ length: n }, (_, i) => i));
      if (n <= 1000) same(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i % 3 === 0 ? null : `v${i}`])));
    }
    same('a'.repeat(40) + '😀'.repeat(10));
    same({ a: undefined, b: [undefined, , 1], c: -0 }); // eslint-disable-line no-sparse-arrays
  });

  it('writes the bytes cbor-x wrote for many random JSON-shaped values and a large pod list', () => {
    const r = rng(22);
    for (let i = 0; i < 1500; i++) same(randomValue(r, 0));
    same({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: Array.from({ length: 1000 }, (_, i) => pod(i)) });
  });

  it('leaves values that are not JSON-shaped to cborg (encodeCbor answers a self-described item that decodes back)', () => {
    const others: unknown[] = [
      new Date(0),
      new Uint8Array([1, 2]),
      new Map([['a', 1]]),
      10n,
      { nested: { when: new Date(0) } },
      [Object.create(null)],
      { constructor: 'own property' },
    ];
    for (const v of others) {
      expect(emitCbor(v)).toBeUndefined();
      const bytes = encodeCbor(v);
      expect(Buffer.from(bytes.subarray(0, 3)).toString('hex')).toBe('d9d9f7');
      expect(() => decodeCbor(bytes)).not.toThrow();
    }
    expect(decodeCbor(encodeCbor({ nested: { when: new Date(1500) } }))).toEqual({ nested: { when: '1970-01-01T00:00:01.500Z' } });
    expect(decodeCbor(encodeCbor(new Date(0)))).toBe('1970-01-01T00:00:00Z');
    expect(decodeCbor(encodeCbor(new Uint8Array([1, 2])))).toEqual(new Uint8Array([1, 2]));
    expect(() => emitCbor({ f: () => 1 })).not.toThrow();
    expect(() => encodeCbor({ f: () => 1 })).toThrow();
  });

  it('earlier results stay intact while later ones are written, across slabs', () => {
    const kept: [Uint8Array, string][] = [];
    for (let i = 0; i < 300; i++) {
      // large values in the middle of maps (some with 24+ keys) move the item being written to a new slab
      const wide = Object.fromEntries(Array.from({ length: 30 }, (_, k) => [`k${k}`, k === 7 ? 'z'.repeat(40_000 + i) : k]));
      const v = i % 50 === 0 ? { a: 1, big: 'y'.repeat(100_000 + i), pod: pod(i) } : i % 7 === 0 ? { x: [pod(i), wide, { w: wide }] } : pod(i);
      const out = encodeCbor(v);
      kept.push([out, ref(v).toString('hex')]);
    }
    for (const [out, hex] of kept) expect(Buffer.from(out).toString('hex')).toBe(hex);
  });
});
