import { describe, expect, it } from 'vitest';
import { builtinResourceTypes } from './builtin.js';
import { resourceTypesFromCRD } from './crd.js';
import { buildOpenAPIV2, buildOpenAPIV3, buildOpenAPIV3Index, documentHash } from './openapi.js';
import { builtinSchemas } from './schema/registry.js';
import type { KubeObject, ResourceType } from './types.js';

const crd: KubeObject = {
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true }, n: { type: 'integer', nullable: true } } } } } },
        subresources: { status: {} },
      },
    ],
  },
};

const types: ResourceType[] = [...builtinResourceTypes, ...resourceTypesFromCRD(crd)];
type J = Record<string, any>;

function patchOpsFor(doc: J, group: string, kind: string): J[] {
  const out: J[] = [];
  for (const item of Object.values(doc.paths as J)) {
    const op = (item as J).patch;
    const gvk = op?.['x-kubernetes-group-version-kind'];
    if (gvk && gvk.group === group && gvk.kind === kind) out.push(op);
  }
  return out;
}

describe('OpenAPI v3', () => {
  it('indexes every group-version, both spellings for alias groups, with content hashes', () => {
    const idx = buildOpenAPIV3Index(types, builtinSchemas);
    expect(Object.keys(idx.paths)).toEqual([
      'api/v1',
      'apis/admissionregistration.k8s.io/v1',
      'apis/admissionregistration.service.io/v1',
      'apis/apiextensions.k8s.io/v1',
      'apis/apiextensions.service.io/v1',
      'apis/apiregistration.k8s.io/v1',
      'apis/apiregistration.service.io/v1',
      'apis/apps/v1',
      'apis/authentication.k8s.io/v1',
      'apis/authentication.service.io/v1',
      'apis/authorization.k8s.io/v1',
      'apis/authorization.service.io/v1',
      'apis/autoscaling/v1',
      'apis/autoscaling/v2',
      'apis/batch/v1',
      'apis/certificates.k8s.io/v1',
      'apis/certificates.service.io/v1',
      'apis/coordination.k8s.io/v1',
      'apis/coordination.service.io/v1',
      'apis/discovery.k8s.io/v1',
      'apis/discovery.service.io/v1',
      'apis/events.k8s.io/v1',
      'apis/events.service.io/v1',
      'apis/flowcontrol.apiserver.k8s.io/v1',
      'apis/flowcontrol.apiserver.service.io/v1',
      'apis/networking.k8s.io/v1',
      'apis/networking.service.io/v1',
      'apis/node.k8s.io/v1',
      'apis/node.service.io/v1',
      'apis/policy/v1',
      'apis/rbac.authorization.k8s.io/v1',
      'apis/rbac.authorization.service.io/v1',
      'apis/scheduling.k8s.io/v1',
      'apis/scheduling.service.io/v1',
      'apis/stable.example.com/v1',
      'apis/storage.k8s.io/v1',
      'apis/storage.service.io/v1',
    ].sort());
    const doc = buildOpenAPIV3('apis/apps/v1', types, builtinSchemas)!;
    expect(idx.paths['apis/apps/v1']!.serverRelativeURL).toBe(`/openapi/v3/apis/apps/v1?hash=${documentHash(doc)}`);
    expect(documentHash(doc)).toMatch(/^[0-9A-F]{128}$/);
  });

  it('is deterministic and independent of type order', () => {
    const a = JSON.stringify(buildOpenAPIV3('api/v1', types, builtinSchemas));
    const b = JSON.stringify(buildOpenAPIV3('api/v1', [...types].reverse(), builtinSchemas));
    expect(a).toBe(b);
    expect(buildOpenAPIV3('apis/nope/v1', types, builtinSchemas)).toBeUndefined();
  });

  it('carries kind schemas with GVK and PATCH operations with fieldValidation', () => {
    const doc = buildOpenAPIV3('apis/apps/v1', types, builtinSchemas)! as J;
    expect(doc.openapi).toBe('3.0.0');
    const dep = doc.components.schemas['io.k8s.api.apps.v1.Deployment'];
    expect(dep['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    expect(dep.properties.spec).toEqual({ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' });
    expect(doc.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy' }],
      'x-kubernetes-patch-strategy': 'retainKeys',
    });
    expect(doc.components.schemas['io.k8s.api.core.v1.PodSpec']).toBeDefined();
    expect(doc.components.schemas['io.k8s.api.autoscaling.v1.Scale']).toBeDefined();
    const ops = patchOpsFor(doc, 'apps', 'Deployment');
    expect(ops.length).toBe(2); // main resource and status
    for (const op of ops) {
      const names = op.parameters.filter((p: J) => p.in === 'query').map((p: J) => p.name);
      expect(names).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    }
    const item = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
    expect(Object.keys(item)).toEqual(['get', 'put', 'delete', 'patch', 'parameters']);
    expect(item.put.parameters.map((p: J) => p.name)).toContain('fieldValidation');
    expect(item.delete.parameters.map((p: J) => p.name)).toEqual(['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy']);
    const list = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments'].get;
    expect(list.parameters.map((p: J) => p.name)).toEqual(
      expect.arrayContaining(['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'watch', 'allowWatchBookmarks', 'sendInitialEvents', 'timeoutSeconds']),
    );
    expect(list.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentList' });
    expect(doc.paths['/apis/apps/v1/deployments'].get.operationId).toBe('listAppsV1DeploymentForAllNamespaces');
    expect(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'].patch['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', kind: 'Scale', version: 'v1' });
  });

  it('serves alias groups under the requested spelling with both spellings in the GVK list', () => {
    for (const group of ['rbac.authorization.k8s.io', 'rbac.authorization.service.io']) {
      const doc = buildOpenAPIV3(`apis/${group}/v1`, types, builtinSchemas)! as J;
      expect(Object.keys(doc.paths).every((p) => p.startsWith(`/apis/${group}/v1/`))).toBe(true);
      expect(patchOpsFor(doc, group, 'ClusterRole').length).toBe(1);
      expect(doc.components.schemas['io.k8s.api.rbac.v1.ClusterRole']['x-kubernetes-group-version-kind']).toEqual([
        { group: 'rbac.authorization.service.io', kind: 'ClusterRole', version: 'v1' },
        { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', version: 'v1' },
      ]);
    }
  });

  it('publishes CRD schemas under reversed-group names with metadata and GVK', () => {
    const doc = buildOpenAPIV3('apis/stable.example.com/v1', types, builtinSchemas)! as J;
    const s = doc.components.schemas['com.example.stable.v1.CronTab'];
    expect(s['x-kubernetes-group-version-kind']).toEqual([{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
    expect(s.properties.metadata).toEqual({ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    expect(s.properties.apiVersion).toEqual({ type: 'string' });
    expect(s.properties.spec.properties.n).toEqual({ type: 'integer', nullable: true });
    expect(doc.components.schemas['com.example.stable.v1.CronTabList'].properties.items.items).toEqual({ $ref: '#/components/schemas/com.example.stable.v1.CronTab' });
    expect(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
    const [op] = patchOpsFor(doc, 'stable.example.com', 'CronTab');
    expect(op!.parameters.map((p: J) => p.name)).toContain('fieldValidation');
    expect(Object.keys(op!.requestBody.content)).toEqual(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
    expect(doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/status']).toBeDefined();
  });
});

describe('OpenAPI v2', () => {
  it('has definitions with #/definitions refs, GVKs and fieldValidation on writes', () => {
    const doc = buildOpenAPIV2(types, builtinSchemas) as J;
    expect(doc.swagger).toBe('2.0');
    expect(doc.definitions['io.k8s.api.core.v1.Pod'].properties.spec).toEqual({ $ref: '#/definitions/io.k8s.api.core.v1.PodSpec' });
    expect(doc.definitions['io.k8s.api.core.v1.Pod']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Pod', version: 'v1' }]);
    const [pod] = patchOpsFor(doc, '', 'Pod');
    expect(pod!.parameters.map((p: J) => p.name)).toEqual(['body', 'dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(pod!.consumes).toContain('application/apply-patch+yaml');
    const post = doc.paths['/api/v1/namespaces/{namespace}/pods'].post;
    expect(post.parameters.find((p: J) => p.name === 'fieldValidation')).toEqual({ uniqueItems: true, type: 'string', name: 'fieldValidation', in: 'query' });
    // alias groups are listed under both spellings
    expect(patchOpsFor(doc, 'coordination.k8s.io', 'Lease').length).toBe(1);
    expect(patchOpsFor(doc, 'coordination.service.io', 'Lease').length).toBe(1);
    const ids = Object.values(doc.paths as J).flatMap((item) => Object.values(item as J).map((op) => (op as J).operationId).filter(Boolean));
    expect(new Set(ids).size).toBe(ids.length);
    // v2 cannot express int-or-string or nullable
    expect(doc.definitions['com.example.stable.v1.CronTab'].properties.spec.properties.port).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(doc.definitions['com.example.stable.v1.CronTab'].properties.spec.properties.n).toEqual({ type: 'integer' });
  });
});
