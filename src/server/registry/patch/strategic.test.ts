import { describe, expect, it } from 'vitest';
import { builtinSchemas } from '../schema/registry.js';
import type { SchemaNode } from '../schema/types.js';
import { cloneJson } from './json-util.js';
import { PatchError, strategicMergePatch } from './strategic.js';

const reg = builtinSchemas;
const podSchema: SchemaNode = { $ref: 'io.k8s.api.core.v1.Pod' };
const deploymentSchema: SchemaNode = { $ref: 'io.k8s.api.apps.v1.Deployment' };
const serviceSchema: SchemaNode = { $ref: 'io.k8s.api.core.v1.Service' };

type Obj = Record<string, any>;
const smp = (orig: unknown, patch: unknown, schema = podSchema): Obj => strategicMergePatch(orig, patch, schema, reg) as Obj;

function pod(containers: Obj[], extra: Obj = {}): Obj {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'x' }, finalizers: ['a', 'b'] }, spec: { containers, ...extra } };
}

function patchError(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PatchError);
    return e as PatchError;
  }
  throw new Error('expected a PatchError');
}

describe('strategicMergePatch', () => {
  const base = pod([
    { name: 'a', image: 'nginx', args: ['-x', '-y'] },
    { name: 'b', image: 'redis' },
  ]);

  it('merges containers by name, merging matching items and adding new ones', () => {
    const out = smp(base, { spec: { containers: [{ name: 'b', image: 'redis:7' }, { name: 'c', image: 'envoy' }] } });
    expect(out.spec.containers).toEqual([
      { name: 'a', image: 'nginx', args: ['-x', '-y'] },
      { name: 'b', image: 'redis:7' },
      { name: 'c', image: 'envoy' },
    ]);
  });

  it('puts items only in the patch ahead of live-only items, as upstream', () => {
    const out = smp(base, { spec: { containers: [{ name: 'c', image: 'envoy' }] } });
    expect(out.spec.containers.map((c: Obj) => c.name)).toEqual(['c', 'a', 'b']);
  });

  it('does not modify its inputs', () => {
    const orig = cloneJson(base);
    const patch = { spec: { containers: [{ name: 'a', image: 'nginx:2' }] }, metadata: { labels: { app: null } } };
    const patchCopy = cloneJson(patch);
    const out = smp(orig, patch);
    expect(orig).toEqual(base);
    expect(patch).toEqual(patchCopy);
    out.spec.containers[1].image = 'changed';
    expect(orig).toEqual(base);
  });

  it('deletes a list item with $patch: delete', () => {
    const out = smp(base, { spec: { containers: [{ name: 'a', $patch: 'delete' }] } });
    expect(out.spec.containers).toEqual([{ name: 'b', image: 'redis' }]);
  });

  it('replaces a whole list with a $patch: replace item', () => {
    const out = smp(base, { spec: { containers: [{ $patch: 'replace' }, { name: 'z', image: 'busybox' }] } });
    expect(out.spec.containers).toEqual([{ name: 'z', image: 'busybox' }]);
  });

  it('replaces a map with $patch: replace and empties it with $patch: delete', () => {
    const withSel = pod([{ name: 'a', image: 'x' }], { nodeSelector: { disk: 'ssd', zone: 'a' } });
    expect(smp(withSel, { spec: { nodeSelector: { $patch: 'replace', gpu: 'yes' } } }).spec.nodeSelector).toEqual({ gpu: 'yes' });
    expect(smp(withSel, { metadata: { labels: { $patch: 'delete' } } }).metadata.labels).toEqual({});
  });

  it('replaces the whole object with a top-level $patch: replace', () => {
    expect(smp(base, { $patch: 'replace', apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q' } })).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q' } });
  });

  it('rejects an unknown $patch value', () => {
    expect(patchError(() => smp(base, { metadata: { labels: { $patch: 'nope' } } })).message).toBe('unknown patch type: nope in map: map[$patch:nope]');
    expect(patchError(() => smp(base, { spec: { containers: [{ name: 'a', $patch: 'nope' }] } })).message).toBe(
      'unknown patch type: nope in map: map[$patch:nope name:a]',
    );
    expect(patchError(() => smp(base, { spec: { containers: [{ name: 'a', $patch: 'merge' }] } })).message).toBe(
      'merging lists cannot yet be specified in the patch',
    );
  });

  it('rejects list items without the merge key', () => {
    const err = patchError(() => smp(base, { spec: { containers: [{ image: 'nginx:1.25' }] } }));
    expect(err.reason).toBe('BadRequest');
    expect(err.message).toBe('map: map[image:nginx:1.25] does not contain declared merge key: name');
    expect(patchError(() => smp(base, { spec: { containers: [{ $patch: 'delete', image: 'x' }] } })).message).toBe(
      'map: map[$patch:delete image:x] does not contain declared merge key: name',
    );
  });

  it('deletes fields set to null, also inside merged list items and new values', () => {
    const out = smp(base, {
      metadata: { labels: { app: null, new: null } },
      spec: { containers: [{ name: 'a', args: null }], hostname: { nested: null, kept: 1 } },
    });
    expect(out.metadata.labels).toEqual({});
    expect(out.spec.containers[0]).toEqual({ name: 'a', image: 'nginx' });
    expect(out.spec.hostname).toEqual({ kept: 1 });
  });

  it('replaces lists without a merge strategy (container args, tolerations)', () => {
    const withTol = pod([{ name: 'a', image: 'x', args: ['1', '2'] }], { tolerations: [{ key: 'k1', operator: 'Exists' }] });
    const out = smp(withTol, { spec: { containers: [{ name: 'a', args: ['3'] }], tolerations: [{ key: 'k2', operator: 'Exists' }] } });
    expect(out.spec.containers[0].args).toEqual(['3']);
    expect(out.spec.tolerations).toEqual([{ key: 'k2', operator: 'Exists' }]);
  });

  it('merges primitive lists with strategy merge (finalizers) without duplicates', () => {
    expect(smp(base, { metadata: { finalizers: ['b', 'c'] } }).metadata.finalizers).toEqual(['a', 'b', 'c']);
    expect(smp(base, { metadata: { finalizers: ['c'] } }).metadata.finalizers).toEqual(['c', 'a', 'b']);
  });

  it('removes primitive list items with $deleteFromPrimitiveList', () => {
    expect(smp(base, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }).metadata.finalizers).toEqual(['b']);
    expect(smp(base, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], finalizers: ['c'] } }).metadata.finalizers).toEqual(['c', 'b']);
    expect(smp(pod([]), { metadata: { '$deleteFromPrimitiveList/missing': ['a'] } }).metadata).not.toHaveProperty('missing');
    expect(patchError(() => smp(base, { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } })).message).toBe('invalid patch format of primitive list');
  });

  it('orders list items with $setElementOrder', () => {
    const three = pod([
      { name: 'a', image: '1' },
      { name: 'b', image: '2' },
      { name: 'c', image: '3' },
    ]);
    const reordered = smp(three, { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'b' }] } });
    expect(reordered.spec.containers.map((c: Obj) => c.name)).toEqual(['c', 'a', 'b']);
    const withNew = smp(three, {
      spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'd' }, { name: 'a' }], containers: [{ name: 'd', image: '4' }] },
    });
    expect(withNew.spec.containers.map((c: Obj) => c.name)).toEqual(['b', 'd', 'a', 'c']);
    expect(smp(base, { metadata: { '$setElementOrder/finalizers': ['b', 'a'] } }).metadata.finalizers).toEqual(['b', 'a']);
  });

  it('rejects a patch list whose order contradicts $setElementOrder', () => {
    const err = patchError(() => smp(base, { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b', image: 'x' }] } }));
    expect(err.message).toContain("doesn't match $setElementOrder list");
  });

  it('keeps only the listed keys with $retainKeys (deployment strategy, volumes)', () => {
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
    };
    expect(smp(d, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, deploymentSchema).spec.strategy).toEqual({ type: 'Recreate' });
    expect(patchError(() => smp(d, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, deploymentSchema)).message).toBe(
      'invalid patch format of retainKeys',
    );
    const withVol = pod([{ name: 'a', image: 'x' }], { volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', emptyDir: {} }] });
    const out = smp(withVol, { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/data' } }] } });
    expect(out.spec.volumes).toEqual([{ name: 'v', hostPath: { path: '/data' } }, { name: 'w', emptyDir: {} }]);
  });

  it('merges Service ports by port and container ports by containerPort', () => {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: {
        ports: [
          { name: 'http', port: 80, targetPort: 8080 },
          { name: 'https', port: 443, targetPort: 8443 },
        ],
      },
    };
    expect(smp(svc, { spec: { ports: [{ port: 80, targetPort: 9090 }] } }, serviceSchema).spec.ports).toEqual([
      { name: 'http', port: 80, targetPort: 9090 },
      { name: 'https', port: 443, targetPort: 8443 },
    ]);
    const withPorts = pod([{ name: 'a', image: 'x', ports: [{ containerPort: 80, name: 'web' }, { containerPort: 81 }] }]);
    const out = smp(withPorts, { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 81, $patch: 'delete' }] }] } });
    expect(out.spec.containers[0].ports).toEqual([{ containerPort: 80, name: 'http' }]);
  });

  it('merges nested lists inside merged items (env by name)', () => {
    const withEnv = pod([{ name: 'a', image: 'x', env: [{ name: 'X', value: '1' }] }]);
    const out = smp(withEnv, { spec: { containers: [{ name: 'a', env: [{ name: 'X', value: '2' }, { name: 'Y', value: '3' }] }] } });
    expect(out.spec.containers[0].env).toEqual([
      { name: 'X', value: '2' },
      { name: 'Y', value: '3' },
    ]);
  });

  it('strips directives from values that have no live counterpart', () => {
    const out = smp(pod([]), { spec: { volumes: [{ name: 'v', $retainKeys: ['name'] }, { name: 'gone', $patch: 'delete' }], affinity: { $patch: 'replace', nodeAffinity: {} } } });
    expect(out.spec.volumes).toEqual([{ name: 'v' }]);
    expect(out.spec.affinity).toEqual({ nodeAffinity: {} });
  });

  it('replaces a value whose type differs from the live one', () => {
    expect(smp(base, { spec: { containers: 'oops' } }).spec.containers).toBe('oops');
    expect(smp(base, { metadata: { labels: ['x'] } }).metadata.labels).toEqual(['x']);
  });

  it('merges maps without schema recursively (unknown fields)', () => {
    expect(smp({ a: { b: 1, c: [1] } }, { a: { d: 2, c: [2] } }, undefined as unknown as SchemaNode)).toEqual({ a: { b: 1, c: [2], d: 2 } });
  });

  it('rejects a patch that is not an object', () => {
    expect(patchError(() => smp(base, [1])).reason).toBe('BadRequest');
  });
});
