import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/index.js';
import { clusterUsage, kindHealth, nodeHealth, parseQuantity, podSummary, workloadStatus } from './health.js';

const o = (x: Record<string, unknown>): KubeObject => x as KubeObject;

describe('overview health', () => {
  it('nodes: ready of total, cordoned, pressure', () => {
    const h = nodeHealth([
      o({ metadata: { name: 'a' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } }),
      o({ metadata: { name: 'b' }, spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'DiskPressure', status: 'True' }] } }),
      o({ metadata: { name: 'c' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }),
    ]);
    expect(h).toMatchObject({ total: 3, ready: 2, cordoned: ['b'], notReady: ['c'], pressure: [{ name: 'b', conditions: ['DiskPressure'] }] });
  });
  it('a Deployment: ready, rolling out, failed', () => {
    const d = (st: Record<string, unknown>, gen = 1) => o({ kind: 'Deployment', metadata: { generation: gen }, spec: { replicas: 3 }, status: { observedGeneration: 1, ...st } });
    expect(workloadStatus(d({ readyReplicas: 3, updatedReplicas: 3 })).state).toBe('ready');
    expect(workloadStatus(d({ readyReplicas: 1, updatedReplicas: 3 }))).toMatchObject({ state: 'progressing', ready: 1, desired: 3, why: '1/3 ready' });
    expect(workloadStatus(d({ readyReplicas: 3, updatedReplicas: 3 }, 2)).state).toBe('progressing');
    expect(workloadStatus(d({ readyReplicas: 1, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] })).state).toBe('failed');
  });
  it('a Job: failed, complete, running; owned ReplicaSets are left to their Deployment', () => {
    expect(workloadStatus(o({ kind: 'Job', status: { conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] } }))).toMatchObject({ state: 'failed', why: 'failed: BackoffLimitExceeded' });
    expect(workloadStatus(o({ kind: 'Job', status: { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] } })).state).toBe('ready');
    const k = kindHealth([o({ metadata: { ownerReferences: [{ controller: true }] }, spec: { replicas: 1 } }), o({ metadata: {}, spec: { replicas: 2 }, status: { readyReplicas: 2 } })], 'ReplicaSet');
    expect(k).toMatchObject({ total: 1, ready: 1, desiredReplicas: 2, readyReplicas: 2 });
  });
  it('kind health lists failed objects before progressing ones', () => {
    const k = kindHealth(
      [
        o({ metadata: { name: 'slow' }, spec: { replicas: 2 }, status: { readyReplicas: 1 } }),
        o({ metadata: { name: 'broken' }, spec: { replicas: 2 }, status: { conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] } }),
      ],
      'Deployment',
    );
    expect(k.notReady.map((x) => x.object.metadata?.name)).toEqual(['broken', 'slow']);
    expect(k).toMatchObject({ total: 2, failed: 1, progressing: 1, ready: 0 });
  });
  it('pods: phases, not ready, top restarts', () => {
    const s = podSummary([
      o({ metadata: { name: 'a' }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ restartCount: 2 }] } }),
      o({ metadata: { name: 'b' }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: [{ restartCount: 9, state: { waiting: { reason: 'CrashLoopBackOff' } } }] } }),
      o({ metadata: { name: 'c' }, status: { phase: 'Succeeded' } }),
    ]);
    expect(s.phases).toEqual({ Running: 2, Succeeded: 1 });
    expect(s.notReady).toBe(1);
    expect(s.topRestarts.map((x) => [x.pod.metadata?.name, x.restarts, x.reason])).toEqual([
      ['b', 9, 'CrashLoopBackOff'],
      ['a', 2, undefined],
    ]);
  });
  it('quantities and usage', () => {
    expect(parseQuantity('250m')).toBeCloseTo(0.25);
    expect(parseQuantity('123456789n')).toBeCloseTo(0.123456789);
    expect(parseQuantity('1Gi')).toBe(2 ** 30);
    expect(parseQuantity('2')).toBe(2);
    expect(parseQuantity('bogus')).toBe(0);
    const u = clusterUsage([o({ metadata: { name: 'a' }, usage: { cpu: '500m', memory: '1Gi' } })], [o({ metadata: { name: 'a' }, status: { allocatable: { cpu: '2', memory: '4Gi' } } })]);
    expect(u).toEqual({ cpu: { used: 0.5, allocatable: 2 }, memory: { used: 2 ** 30, allocatable: 4 * 2 ** 30 }, nodes: 1 });
  });
});
