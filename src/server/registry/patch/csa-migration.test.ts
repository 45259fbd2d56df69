// The client-side → server-side apply migration at the field-set level: what the client-side apply's Update records
// (every field of the defaulted object, list items keyed by their merge keys, atomic structs and lists as one
// field), and kubectl's first server-side apply taking those fields over when live differs from the last-applied
// configuration only by server defaults.
import { describe, expect, it } from 'vitest';
import { findBuiltinType } from '../builtin.js';
import { builtinSchemas } from '../schema/registry.js';
import type { KubeObject } from '../types.js';
import { applyPatch, ApplyConflictError, LAST_APPLIED_ANNOTATION, setManagedFields, updateManagedFields } from './apply.js';
import { cloneJson } from './json-util.js';

const deployments = findBuiltinType('apps', 'v1', 'deployments')!;
const statefulSets = findBuiltinType('apps', 'v1', 'statefulsets')!;
const reg = builtinSchemas;
const T0 = '2024-01-01T00:00:00Z';
const T1 = '2024-01-01T00:01:00Z';

const deployment = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx',
            ports: [{ containerPort: 80, name: 'http' }],
            env: [
              { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } },
            ],
            readinessProbe: { httpGet: { path: '/', port: 'http' } },
          },
        ],
      },
    },
  },
});

const statefulSet = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db', namespace: 'default' },
  spec: {
    serviceName: 'db',
    selector: { matchLabels: { app: 'db' } },
    template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres' }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
});

type Kind = typeof deployments;

/** kubectl's client-side apply create: the manifest plus its last-applied annotation, defaulted, recorded as an Update. */
function clientSideCreate(type: Kind, manifest: KubeObject): KubeObject {
  const obj = cloneJson(manifest);
  obj.metadata!.annotations = { [LAST_APPLIED_ANNOTATION]: JSON.stringify(manifest) };
  type.strategy.defaults!(obj);
  return setManagedFields(obj, updateManagedFields(undefined, obj, { manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'apps/v1', schema: type.schema, reg, now: T0 }));
}

function serverSideApply(type: Kind, live: KubeObject, manifest: KubeObject, withDefaults = true): KubeObject {
  const defaults = type.strategy.defaults!.bind(type.strategy);
  return applyPatch(live, cloneJson(manifest), {
    manager: 'kubectl',
    force: false,
    apiVersion: 'apps/v1',
    schema: type.schema,
    reg,
    now: T1,
    ignoredFields: undefined,
    lastApplied: JSON.parse(live.metadata!.annotations![LAST_APPLIED_ANNOTATION]!),
    ...(withDefaults ? { defaults } : {}),
  }).object;
}

const fieldsOf = (o: KubeObject, manager: string) => (o.metadata!.managedFields as { manager: string; fieldsV1: any }[]).find((m) => m.manager === manager)!.fieldsV1;

describe('the client-side apply Update entry', () => {
  it('records the defaulted object with upstream list keys and atomic selectors', () => {
    const live = clientSideCreate(deployments, deployment());
    const c = fieldsOf(live, 'kubectl-client-side-apply')['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}'];
    // ports by containerPort+protocol (protocol defaulted), env by name; ObjectFieldSelector/ResourceFieldSelector are atomic
    expect(Object.keys(c['f:ports'])).toEqual(['.', 'k:{"containerPort":80,"protocol":"TCP"}']);
    expect(c['f:env']['k:{"name":"POD"}']['f:valueFrom']).toEqual({ '.': {}, 'f:fieldRef': {} });
    expect(c['f:env']['k:{"name":"MEM"}']['f:valueFrom']).toEqual({ '.': {}, 'f:resourceFieldRef': {} });
    expect(c['f:readinessProbe']['f:httpGet']).toEqual({ '.': {}, 'f:path': {}, 'f:port': {}, 'f:scheme': {} });
    expect((live as any).spec.template.spec.containers[0].env[0].valueFrom.fieldRef).toEqual({ fieldPath: 'metadata.name', apiVersion: 'v1' });
  });

  it('records volumeClaimTemplates (no list type: atomic) as one field', () => {
    const live = clientSideCreate(statefulSets, statefulSet());
    expect(fieldsOf(live, 'kubectl-client-side-apply')['f:spec']['f:volumeClaimTemplates']).toEqual({});
    expect((live as any).spec.volumeClaimTemplates[0]).toMatchObject({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', status: { phase: 'Pending' } });
  });
});

describe("kubectl's first server-side apply after a client-side apply", () => {
  for (const [name, type, manifest] of [
    ['Deployment (env fieldRef / resourceFieldRef)', deployments, deployment],
    ['StatefulSet (volumeClaimTemplates)', statefulSets, statefulSet],
  ] as const) {
    it(`${name}: takes over atomic fields that differ from live only by defaults`, () => {
      const live = clientSideCreate(type, manifest());
      // compared without the server's defaults, the atomic fields look changed since the client-side apply
      expect(() => serverSideApply(type, live, manifest(), false)).toThrow(ApplyConflictError);
      const applied = serverSideApply(type, live, manifest());
      expect(applied.metadata!.managedFields!.map((m) => `${m.manager}/${m.operation}`)).toContain('kubectl/Apply');
    });
  }

  it('keeps the conflict when the atomic field was changed since the client-side apply', () => {
    const live = clientSideCreate(deployments, deployment());
    (live as any).spec.template.spec.containers[0].env[0].valueFrom.fieldRef.fieldPath = 'metadata.namespace';
    try {
      serverSideApply(deployments, live, deployment());
      expect.unreachable('conflict expected');
    } catch (e) {
      expect((e as ApplyConflictError).conflicts.map((c) => c.field)).toEqual(['.spec.template.spec.containers[name="web"].env[name="POD"].valueFrom.fieldRef']);
    }
  });

  it('leaves the entry time alone on a re-apply that differs from live only by defaults', () => {
    const first = clientSideCreate(deployments, deployment());
    const applied = serverSideApply(deployments, first, deployment());
    deployments.strategy.defaults!(applied, first);
    const again = applyPatch(applied, deployment(), { manager: 'kubectl', force: false, apiVersion: 'apps/v1', schema: deployments.schema, reg, now: '2030-01-01T00:00:00Z', defaults: deployments.strategy.defaults!.bind(deployments.strategy) }).object;
    expect(again.metadata!.managedFields!.find((m) => m.manager === 'kubectl')!.time).toBe(T1);
  });
});

describe('a repeated server-side apply is no change', () => {
  const roles = findBuiltinType('rbac.authorization.service.io', 'v1', 'roles')!;
  const role = (apiVersion: string): KubeObject => ({ apiVersion, kind: 'Role', metadata: { name: 'r', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
  const opts = (now: string) => ({ manager: 'kubectl', force: false, apiVersion: 'rbac.authorization.service.io/v1', schema: roles.schema, reg, now });

  it('when the configuration spells the group as upstream does', () => {
    const live = applyPatch(undefined, role('rbac.authorization.service.io/v1'), opts(T0)).object;
    const again = applyPatch(live, role('rbac.authorization.k8s.io/v1'), opts(T1)).object;
    expect(again).toEqual(live);
  });

  it('keeps the live position of metadata.managedFields', () => {
    const live = applyPatch(undefined, role('rbac.authorization.service.io/v1'), opts(T0)).object;
    const { managedFields, ...rest } = live.metadata!;
    live.metadata = { managedFields, ...rest, labels: { a: 'b' } } as KubeObject['metadata'];
    const again = applyPatch(live, role('rbac.authorization.service.io/v1'), opts(T1)).object;
    expect(Object.keys(again.metadata!)).toEqual(Object.keys(live.metadata!));
  });
});
