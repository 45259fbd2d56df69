import { describe, expect, it } from 'vitest';
import { applyConfiguration, editableObject } from './documents.js';
import { patchPaths, quietRebase } from './quiet-rebase.js';

const base = { metadata: { name: 'd', resourceVersion: '921', labels: { a: '1' } }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'c', image: 'x:1' }] } } }, status: { readyReplicas: 1 } };

describe('quietRebase', () => {
  it('moves an edit of replicas onto a version where controllers only wrote status and resourceVersion', () => {
    const edited = structuredClone(base);
    edited.spec.replicas = 3;
    const next = structuredClone(base);
    next.metadata.resourceVersion = '932';
    next.status.readyReplicas = 0;
    const r = quietRebase(base, edited, next)!;
    expect(r).toBeDefined();
    expect(r.merged).toMatchObject({ metadata: { resourceVersion: '932' }, spec: { replicas: 3 }, status: { readyReplicas: 0 } });
    expect(r.theirs.sort()).toEqual(['metadata.resourceVersion', 'status.readyReplicas']);
  });

  it('keeps unrelated changes by others too (a label added elsewhere)', () => {
    const edited = structuredClone(base);
    edited.spec.replicas = 2;
    const next = structuredClone(base) as typeof base & { metadata: { labels: Record<string, string> } };
    next.metadata.labels.b = '2';
    expect(quietRebase(base, edited, next)!.merged).toMatchObject({ metadata: { labels: { a: '1', b: '2' } }, spec: { replicas: 2 } });
  });

  it('refuses when the server changed a field the user edited', () => {
    const edited = structuredClone(base);
    edited.spec.replicas = 3;
    const next = structuredClone(base);
    next.spec.replicas = 5;
    expect(quietRebase(base, edited, next)).toBeUndefined();
  });

  it('treats a list as one field (a merge patch replaces it whole)', () => {
    const edited = structuredClone(base);
    edited.spec.template.spec.containers[0]!.image = 'x:2';
    const next = structuredClone(base);
    next.spec.template.spec.containers.push({ name: 'd', image: 'y' });
    expect(quietRebase(base, edited, next)).toBeUndefined();
    expect(patchPaths({ a: { b: 1, c: [1] } })).toEqual([['a', 'b'], ['a', 'c']]);
  });
});

describe('quietRebase over each mode’s document', () => {
  // Edit, the patch modes and replace edit editableObject(obj); apply edits applyConfiguration(obj)
  const modes = { 'edit / patch modes / replace': editableObject, apply: applyConfiguration } as const;
  const obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', uid: 'u', resourceVersion: '921', generation: 1, managedFields: [{ manager: 'kube-controller-manager' }] }, spec: { replicas: 1 }, status: { readyReplicas: 1 } };
  for (const [mode, doc] of Object.entries(modes)) {
    it(`${mode}: status, resourceVersion and managedFields written by controllers rebase; the edited field overlapping does not`, () => {
      const edited = structuredClone(doc(obj as never)) as { spec: { replicas: number } };
      edited.spec.replicas = 3;
      const next = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: '932', generation: 2, managedFields: [{ manager: 'kube-controller-manager' }, { manager: 'x' }] }, status: { readyReplicas: 3 } };
      const r = quietRebase(doc(obj as never), edited, doc(next as never));
      expect(r?.merged).toMatchObject({ spec: { replicas: 3 } });
      if (mode === 'apply') expect(r!.merged).not.toHaveProperty('status');
      else expect(r!.merged).toMatchObject({ metadata: { resourceVersion: '932' }, status: { readyReplicas: 3 } });
      const theirs = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: '940' }, spec: { replicas: 2 } };
      expect(quietRebase(doc(obj as never), edited, doc(theirs as never))).toBeUndefined();
    });
  }
});
