import { afterEach, describe, expect, it, vi } from 'vitest';
import { findBuiltinType } from '../registry/builtin.js';
import { nowMs } from '../registry/age.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { tableRow, tableRowPieces, type IncludeObject } from './table.js';

const bytes = (pieces: (Buffer | string)[]) => pieces.map((p) => (typeof p === 'string' ? p : p.toString('utf8'))).join('');

function pod(restarts: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'é"\\' } },
    spec: { containers: [{ name: 'c', image: 'i' }], nodeName: 'n1' },
    status: {
      phase: 'Running',
      podIP: '10.0.0.1',
      containerStatuses: [{ name: 'c', ready: true, restartCount: restarts, lastState: restarts ? { terminated: { finishedAt: '2026-01-01T00:10:00Z' } } : {} }],
    },
  };
}

describe('cached Table rows', () => {
  afterEach(() => vi.restoreAllMocks());

  it('are the bytes JSON.stringify writes for tableRow, for every includeObject', () => {
    const type = findBuiltinType('', 'v1', 'pods')!;
    for (const includeObject of ['None', 'Metadata', 'Object'] as IncludeObject[])
      for (const o of [pod(0), pod(3)]) {
        vi.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-01-02T00:00:00Z'));
        const opts = { includeObject, metaGroup: 'meta.k8s.io' };
        expect(bytes(tableRowPieces(o, type, opts))).toBe(JSON.stringify(tableRow(o, type, opts)));
        // again, from the cache
        expect(bytes(tableRowPieces(o, type, opts))).toBe(JSON.stringify(tableRow(o, type, opts)));
      }
  });

  it('compute cells once per object version, except those that read the clock', () => {
    let fixed = 0;
    const type = {
      columns: [
        { name: 'Fixed', type: 'string', cell: () => `f${++fixed}` },
        { name: 'Age', type: 'string', cell: () => `${nowMs()}` },
      ],
    } as unknown as ResourceType;
    const o: KubeObject = { apiVersion: 'v1', kind: 'X', metadata: { name: 'x' } };
    const now = vi.spyOn(Date, 'now').mockReturnValue(1000);
    const opts = { includeObject: 'None' as const, metaGroup: 'meta.service.io' };
    expect(bytes(tableRowPieces(o, type, opts))).toBe('{"cells":["x","f1","1000"]}');
    now.mockReturnValue(2000);
    expect(bytes(tableRowPieces(o, type, opts))).toBe('{"cells":["x","f1","2000"]}');
    // another object version: computed anew
    expect(bytes(tableRowPieces({ ...o }, type, opts))).toBe('{"cells":["x","f2","2000"]}');
  });

  it('a type without printer columns: name and creation time', () => {
    const o: KubeObject = { apiVersion: 'v1', kind: 'X', metadata: { name: 'x', creationTimestamp: '2026-01-01T00:00:00Z' } };
    const opts = { includeObject: 'Metadata' as const, metaGroup: 'meta.service.io' };
    expect(bytes(tableRowPieces(o, undefined, opts))).toBe(JSON.stringify(tableRow(o, undefined, opts)));
  });
});
