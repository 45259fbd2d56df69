import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinSchemas, collectRefs } from './registry.js';
import type { SchemaNode } from './types.js';

const url = new URL('./builtin-definitions.json', import.meta.url);

describe('builtin-definitions.json (derived)', () => {
  it('is compact and carries no descriptions', () => {
    const text = readFileSync(url, 'utf8');
    expect(text.length).toBeLessThan(1.5 * 1024 * 1024);
    const withDescription: string[] = [];
    const walk = (n: SchemaNode, path: string) => {
      if ('description' in n) withDescription.push(path);
      for (const [k, p] of Object.entries(n.properties ?? {})) walk(p, `${path}.${k}`);
      if (n.items) walk(n.items, `${path}[]`);
      if (n.additionalProperties && typeof n.additionalProperties === 'object') walk(n.additionalProperties, `${path}{}`);
    };
    for (const name of builtinSchemas.names()) walk(builtinSchemas.get(name)!, name);
    expect(withDescription).toEqual([]);
  });

  it('resolves every $ref to a definition', () => {
    const missing: string[] = [];
    for (const name of builtinSchemas.names()) {
      const refs: string[] = [];
      collectRefs(builtinSchemas.get(name)!, refs);
      for (const r of refs) if (!builtinSchemas.has(r)) missing.push(`${name} -> ${r}`);
    }
    expect(missing).toEqual([]);
  });

  it('keeps the pod containers list a map keyed by name with the merge key', () => {
    const podSpec = builtinSchemas.get('io.k8s.api.core.v1.PodSpec')!;
    const containers = podSpec.properties!.containers!;
    expect(containers.type).toBe('array');
    expect(containers['x-kubernetes-list-type']).toBe('map');
    expect(containers['x-kubernetes-list-map-keys']).toEqual(['name']);
    expect(containers['x-kubernetes-patch-merge-key']).toBe('name');
    expect(containers['x-kubernetes-patch-strategy']).toBe('merge');
    expect(containers.items).toEqual({ $ref: 'io.k8s.api.core.v1.Container' });
    expect(podSpec.required).toEqual(['containers']);
  });

  it('keeps upstream markers and formats', () => {
    expect(builtinSchemas.get('io.k8s.apimachinery.pkg.util.intstr.IntOrString')).toEqual({ type: 'string', format: 'int-or-string' });
    expect(builtinSchemas.get('io.k8s.apimachinery.pkg.apis.meta.v1.Time')).toEqual({ type: 'string', format: 'date-time' });
    expect(builtinSchemas.get('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector')!['x-kubernetes-map-type']).toBe('atomic');
    const finalizers = builtinSchemas.get('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!.properties!.finalizers!;
    expect(finalizers['x-kubernetes-list-type']).toBe('set');
    const strategy = builtinSchemas.get('io.k8s.api.apps.v1.DeploymentSpec')!.properties!.strategy!;
    expect(strategy).toEqual({ $ref: 'io.k8s.api.apps.v1.DeploymentStrategy', 'x-kubernetes-patch-strategy': 'retainKeys' });
  });

  it('spells group names canonically in x-kubernetes-group-version-kind', () => {
    const gvk = (n: string) => builtinSchemas.get(n)!['x-kubernetes-group-version-kind'];
    expect(gvk('io.k8s.api.rbac.v1.Role')).toEqual([{ group: 'rbac.authorization.service.io', kind: 'Role', version: 'v1' }]);
    expect(gvk('io.k8s.api.coordination.v1.Lease')).toEqual([{ group: 'coordination.service.io', kind: 'Lease', version: 'v1' }]);
    expect(gvk('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition')![0]!.group).toBe('apiextensions.service.io');
    expect(gvk('io.k8s.apimachinery.pkg.apis.meta.v1.Table')).toEqual([{ group: 'meta.service.io', kind: 'Table', version: 'v1' }]);
    const all = builtinSchemas.names().flatMap((n) => (gvk(n) ?? []).map((e) => e.group));
    expect(all.filter((g) => g.endsWith('.k8s.io'))).toEqual([]);
  });

  it('includes the meta and sub-resource kinds', () => {
    for (const n of [
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
      'io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails',
      'io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause',
      'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions',
      'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
      'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList',
      'io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata',
      'io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList',
      'io.k8s.api.autoscaling.v1.Scale',
      'io.k8s.api.policy.v1.Eviction',
      'io.k8s.api.policy.v1.PodDisruptionBudget',
    ])
      expect(builtinSchemas.has(n), n).toBe(true);
  });

  it('resolves $ref nodes with sibling markers to merged nodes, once', () => {
    const node: SchemaNode = builtinSchemas.get('io.k8s.api.apps.v1.DeploymentSpec')!.properties!.strategy!;
    const a = builtinSchemas.resolve(node);
    expect(a.type).toBe('object');
    expect(a['x-kubernetes-patch-strategy']).toBe('retainKeys');
    expect(builtinSchemas.resolve(node)).toBe(a);
  });
});
