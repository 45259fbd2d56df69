import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/index.js';
import { classifyChange, fieldDiff, restoreBody } from './history.js';

const d = (image: string, ready: number, rv: string, labels: Record<string, string> = {}): KubeObject =>
  ({ kind: 'Deployment', metadata: { name: 'web', uid: 'u1', resourceVersion: rv, generation: 2, labels, managedFields: [{ manager: rv }] }, spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', image }] } } }, status: { readyReplicas: ready } }) as unknown as KubeObject;

describe('history', () => {
  it('tells spec changes from status-only changes, creation and deletion', () => {
    expect(classifyChange('ADDED', undefined, d('a', 0, '1'))).toBe('created');
    expect(classifyChange('MODIFIED', d('a', 0, '1'), d('a', 1, '2'))).toBe('status');
    expect(classifyChange('MODIFIED', d('a', 1, '2'), d('b', 1, '3'))).toBe('spec');
    expect(classifyChange('MODIFIED', d('a', 1, '2'), d('a', 1, '3', { tier: 'web' }))).toBe('spec');
    expect(classifyChange('DELETED', d('a', 1, '2'), d('a', 1, '2'))).toBe('deleted');
  });
  it('diffs two versions field by field, server-kept metadata left out', () => {
    expect(fieldDiff(d('a', 0, '1'), d('b', 2, '5', { 'app.kubernetes.io/name': 'x' }))).toEqual([
      { path: 'metadata.labels["app.kubernetes.io/name"]', before: undefined, after: '"x"' },
      { path: 'spec.template.spec.containers[0].image', before: '"a"', after: '"b"' },
      { path: 'status.readyReplicas', before: '0', after: '2' },
    ]);
    expect(fieldDiff(d('a', 0, '1'), d('a', 0, '9'))).toEqual([]);
  });
  it('restore: the old content over the current identity, guarded by the current resourceVersion; a create when deleted', () => {
    const r = restoreBody(d('a', 0, '1', { v: '1' }), d('b', 2, '7'));
    expect(r.metadata).toMatchObject({ name: 'web', uid: 'u1', resourceVersion: '7', labels: { v: '1' } });
    expect(r.metadata?.managedFields).toBeUndefined();
    expect((r as { status?: unknown }).status).toBeUndefined();
    expect((r as { spec: { template: { spec: { containers: { image: string }[] } } } }).spec.template.spec.containers[0]!.image).toBe('a');
    const c = restoreBody(d('a', 0, '1'), undefined);
    expect(c.metadata?.uid).toBeUndefined();
    expect(c.metadata?.resourceVersion).toBeUndefined();
  });
});
