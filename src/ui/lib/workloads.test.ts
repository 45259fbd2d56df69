import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/index.js';
import { statusTone } from './table-view.js';
import { isWorkload, podState, rolloutBars, selectorString } from './workloads.js';

const pod = (status: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ...extra }, spec: { containers: [{ name: 'c' }] }, status }) as KubeObject;

describe('workload facts for the explorer', () => {
  it('reads a pod as kubectl prints it, with a colour', () => {
    expect(podState(pod({ phase: 'Running', containerStatuses: [{ ready: true, restartCount: 0, state: { running: {} } }] }))).toEqual({ phase: 'Running', tone: 'ok', ready: '1/1', restarts: 0 });
    expect(podState(pod({ phase: 'Running', containerStatuses: [{ ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } }] }))).toEqual({ phase: 'CrashLoopBackOff', tone: 'bad', ready: '0/1', restarts: 3 });
    expect(podState(pod({ phase: 'Succeeded', containerStatuses: [{ ready: false, state: { terminated: { reason: 'Completed' } } }] })).phase).toBe('Completed');
    expect(podState(pod({ phase: 'Pending' })).tone).toBe('progress');
    expect(podState(pod({ phase: 'Running' }, { deletionTimestamp: '2026-01-01T00:00:00Z' })).phase).toBe('Terminating');
  });

  it('shows desired, updated, ready and available for a Deployment', () => {
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: {}, spec: { replicas: 3 }, status: { updatedReplicas: 2, readyReplicas: 1 } } as KubeObject;
    expect(isWorkload(d)).toBe(true);
    expect(rolloutBars(d)).toEqual([
      { label: 'desired', value: 3 },
      { label: 'updated', value: 2 },
      { label: 'ready', value: 1 },
      { label: 'available', value: 0 },
    ]);
  });

  it('turns label selectors into watch parameters', () => {
    expect(selectorString({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'x', operator: 'DoesNotExist' }] })).toBe('app=web,tier in (a,b),!x');
    expect(selectorString({ app: 'rc' }, true)).toBe('app=rc');
  });

  it('colours Status cells', () => {
    expect(statusTone({ name: 'Status' }, 'CrashLoopBackOff')).toBe('bad');
    expect(statusTone({ name: 'Status' }, 'Running')).toBe('ok');
    expect(statusTone({ name: 'Status' }, 'Init:0/1')).toBe('progress');
    expect(statusTone({ name: 'Name' }, 'Running')).toBeUndefined();
  });
});
