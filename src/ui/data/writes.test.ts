import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/index.js';
import { FIELD_MANAGER, cordonAction, drainablePods, pauseAction, restartAction, rollbackAction, scaleAction } from './writes.js';

const ref = { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns', name: 'web' };

describe('explorer actions', () => {
  it('write as the one field manager, as merge patches of the fields kubectl sets', () => {
    expect(FIELD_MANAGER).toBe('periscope');
    const s = scaleAction(ref, 0);
    expect(s).toMatchObject({ method: 'PATCH', path: '/apis/apps/v1/namespaces/ns/deployments/web', contentType: 'application/merge-patch+json', query: { fieldManager: 'periscope' } });
    expect(JSON.parse(s.body as string)).toEqual({ spec: { replicas: 0 } });
    expect(JSON.parse(restartAction(ref, new Date('2026-11-28T10:00:00.123Z')).body as string)).toEqual({
      spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-28T10:00:00Z' } } } },
    });
    expect(JSON.parse(pauseAction(ref, true).body as string)).toEqual({ spec: { paused: true } });
    expect(JSON.parse(pauseAction(ref, false).body as string)).toEqual({ spec: { paused: false } });
    const node = { group: '', version: 'v1', resource: 'nodes', name: 'n1' };
    expect(JSON.parse(cordonAction(node, true).body as string)).toEqual({ spec: { unschedulable: true } });
    expect(JSON.parse(cordonAction(node, false).body as string)).toEqual({ spec: { unschedulable: null } });
  });

  it('rolls back to a ReplicaSet template without its hash label, guarded by the reviewed resourceVersion', () => {
    const d = { metadata: { name: 'web', resourceVersion: '42' } } as KubeObject;
    const rs = { metadata: { name: 'web-abc', annotations: { 'deployment.kubernetes.io/revision': '1' } }, spec: { template: { metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } } } as unknown as KubeObject;
    const a = rollbackAction(ref, d, rs);
    expect(a.title).toBe('Roll back to revision 1');
    expect(a.contentType).toBe('application/json-patch+json');
    expect(JSON.parse(a.body as string)).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '42' },
      { op: 'replace', path: '/spec/template', value: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } },
    ]);
  });

  it('drains like kubectl drain --ignore-daemonsets', () => {
    const pod = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name, namespace: 'ns', ...extra }, status: { phase: 'Running' } }) as unknown as KubeObject;
    const { evict, skipped } = drainablePods([
      pod('web'),
      pod('ds', { ownerReferences: [{ kind: 'DaemonSet', name: 'x', uid: '1', apiVersion: 'apps/v1', controller: true }] }),
      pod('mirror', { annotations: { 'kubernetes.io/config.mirror': 'h' } }),
      { metadata: { name: 'done', namespace: 'ns' }, status: { phase: 'Succeeded' } } as unknown as KubeObject,
    ]);
    expect(evict.map((p) => p.metadata?.name)).toEqual(['web']);
    expect(skipped.map((s) => s.why)).toEqual(['DaemonSet-managed', 'mirror pod', 'already Succeeded']);
  });
});
