// Server-side apply scenarios shared by the direct tests (apply.test.ts) and the HTTP tests.
// Each scenario runs its steps in order against one object. Step semantics:
// - apply: PATCH application/apply-patch+yaml with ?fieldManager=<manager>[&force=true]; `object`
//   is the applied configuration.
// - update: a non-apply write by <manager> (?fieldManager=): `object` is the complete object to
//   store (PUT body; metadata.managedFields only when the step sends [{}] to clear them); on the
//   first step it is a create (POST).
// Expectations are checked after the step; `object` is a subset match (see subsetMismatch) so
// server-side defaults do not matter, `absent` lists JSON pointers that must not exist.
import type { SchemaNode } from '../schema/types.js';
import type { KubeObject } from '../types.js';
import { isObject } from './json-util.js';

export interface ScenarioType {
  apiVersion: string;
  kind: string;
  /** Resource (plural) name in URLs. */
  resource: string;
  namespaced: boolean;
  /** Built-in kinds: the schema definition name. */
  schemaRef?: string;
  /** Custom resources: the CRD to create first (single version, served and stored). */
  crd?: { group: string; version: string; plural: string; singular: string; schema: SchemaNode };
}

export interface ScenarioExpect {
  object?: unknown;
  /** JSON pointers (RFC 6901) that must not exist in the object. */
  absent?: string[];
  /** The step fails with a 409 apply conflict on exactly these fields. */
  conflicts?: { manager: string; field: string }[];
  /** The step fails with this status reason (e.g. BadRequest), message containing `message`. */
  error?: { reason: 'BadRequest' | 'Invalid'; message: string };
  /** managedFields in order, as "manager:Operation" plus ":subresource" when set. */
  managedFieldsManagers?: string[];
  /** Exact fieldsV1 of entries, keyed like managedFieldsManagers. */
  fieldsV1?: Record<string, unknown>;
}

export interface ScenarioStep {
  manager: string;
  op: 'apply' | 'update';
  object: KubeObject;
  force?: boolean;
  subresource?: 'status';
  expect: ScenarioExpect;
}

export interface ApplyScenario {
  name: string;
  type: ScenarioType;
  steps: ScenarioStep[];
}

const NS = 'default';

const configMap: ScenarioType = { apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, schemaRef: 'io.k8s.api.core.v1.ConfigMap' };
const deployment: ScenarioType = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  resource: 'deployments',
  namespaced: true,
  schemaRef: 'io.k8s.api.apps.v1.Deployment',
};

const widgetSchema: SchemaNode = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        args: { type: 'array', items: { type: 'string' } },
        config: { type: 'object', additionalProperties: { type: 'string' } },
        selector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: {
            type: 'object',
            required: ['port'],
            properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: { type: 'string' } },
          },
        },
      },
    },
  },
};

const widget: ScenarioType = {
  apiVersion: 'stable.example.com/v1',
  kind: 'Widget',
  resource: 'widgets',
  namespaced: true,
  crd: { group: 'stable.example.com', version: 'v1', plural: 'widgets', singular: 'widget', schema: widgetSchema },
};

function cm(name: string, data?: Record<string, string>, labels?: Record<string, string>): KubeObject {
  const o: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS } };
  if (labels) o.metadata!.labels = labels;
  if (data) o.data = data;
  return o;
}

function w(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'stable.example.com/v1', kind: 'Widget', metadata: { name, namespace: NS }, spec };
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: { containerPort: number; protocol?: string; name?: string }[];
}

function dep(name: string, containers: Container[], replicas?: number): KubeObject {
  const spec: Record<string, unknown> = {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers } },
  };
  if (replicas !== undefined) spec.replicas = replicas;
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NS }, spec };
}

export const applyScenarios: ApplyScenario[] = [
  {
    name: 'apply creates the object and owns exactly the applied fields',
    type: configMap,
    steps: [
      {
        manager: 'apply_test',
        op: 'apply',
        object: cm('create-cm', { key: 'value' }, { 'test-label': 'test' }),
        expect: {
          object: cm('create-cm', { key: 'value' }, { 'test-label': 'test' }),
          managedFieldsManagers: ['apply_test:Apply'],
          fieldsV1: { 'apply_test:Apply': { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } } },
        },
      },
    ],
  },
  {
    name: 'an updater takes the fields it changes; updates by one manager share one entry',
    type: configMap,
    steps: [
      { manager: 'apply_test', op: 'apply', object: cm('test-cm', { key: 'value' }, { 'test-label': 'test' }), expect: {} },
      { manager: 'updater', op: 'update', object: cm('test-cm', { key: 'value', 'new-key': 'value' }, { 'test-label': 'test' }), expect: {} },
      {
        manager: 'updater',
        op: 'update',
        object: cm('test-cm', { key: 'new value', 'new-key': 'value' }, { 'test-label': 'test' }),
        expect: {
          object: cm('test-cm', { key: 'new value', 'new-key': 'value' }, { 'test-label': 'test' }),
          managedFieldsManagers: ['apply_test:Apply', 'updater:Update'],
          fieldsV1: {
            'apply_test:Apply': { 'f:metadata': { 'f:labels': { 'f:test-label': {} } } },
            'updater:Update': { 'f:data': { 'f:key': {}, 'f:new-key': {} } },
          },
        },
      },
    ],
  },
  {
    name: 'a create by an updater owns every field it set, maps included',
    type: configMap,
    steps: [
      {
        manager: 'kubectl-create',
        op: 'update',
        object: cm('created-cm', { a: '1' }, { x: 'y' }),
        expect: {
          managedFieldsManagers: ['kubectl-create:Update'],
          fieldsV1: { 'kubectl-create:Update': { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } } },
        },
      },
      {
        manager: 'applier',
        op: 'apply',
        object: cm('created-cm', { a: '2' }),
        expect: { conflicts: [{ manager: 'kubectl-create', field: '.data.a' }] },
      },
    ],
  },
  {
    name: 'conflict with an updater that changed the value; force takes ownership',
    type: deployment,
    steps: [
      { manager: 'apply-a', op: 'apply', object: dep('scaled', [{ name: 'app', image: 'nginx:1' }], 1), expect: { managedFieldsManagers: ['apply-a:Apply'] } },
      { manager: 'scaler', op: 'update', object: dep('scaled', [{ name: 'app', image: 'nginx:1' }], 3), expect: { object: { spec: { replicas: 3 } } } },
      {
        manager: 'apply-a',
        op: 'apply',
        object: dep('scaled', [{ name: 'app', image: 'nginx:1' }], 1),
        expect: { conflicts: [{ manager: 'scaler', field: '.spec.replicas' }], object: { spec: { replicas: 3 } } },
      },
      {
        manager: 'apply-a',
        op: 'apply',
        force: true,
        object: dep('scaled', [{ name: 'app', image: 'nginx:1' }], 1),
        expect: { object: { spec: { replicas: 1 } }, managedFieldsManagers: ['apply-a:Apply'] },
      },
    ],
  },
  {
    name: 'appliers share fields with equal values and conflict on different ones',
    type: configMap,
    steps: [
      { manager: 'a', op: 'apply', object: cm('shared-cm', { shared: '1', onlyA: 'x' }), expect: {} },
      {
        manager: 'b',
        op: 'apply',
        object: cm('shared-cm', { shared: '1' }),
        expect: {
          managedFieldsManagers: ['a:Apply', 'b:Apply'],
          fieldsV1: { 'a:Apply': { 'f:data': { 'f:onlyA': {}, 'f:shared': {} } }, 'b:Apply': { 'f:data': { 'f:shared': {} } } },
        },
      },
      { manager: 'b', op: 'apply', object: cm('shared-cm', { shared: '2' }), expect: { conflicts: [{ manager: 'a', field: '.data.shared' }] } },
      {
        manager: 'b',
        op: 'apply',
        force: true,
        object: cm('shared-cm', { shared: '2' }),
        expect: {
          object: { data: { shared: '2', onlyA: 'x' } },
          fieldsV1: { 'a:Apply': { 'f:data': { 'f:onlyA': {} } }, 'b:Apply': { 'f:data': { 'f:shared': {} } } },
        },
      },
    ],
  },
  {
    name: 'a field the applier stops applying is removed',
    type: configMap,
    steps: [
      { manager: 'a', op: 'apply', object: cm('removal-cm', { keep: '1', drop: '2' }, { keep: 'k', drop: 'd' }), expect: {} },
      {
        manager: 'a',
        op: 'apply',
        object: cm('removal-cm', { keep: '1' }, { keep: 'k' }),
        expect: {
          object: cm('removal-cm', { keep: '1' }, { keep: 'k' }),
          absent: ['/data/drop', '/metadata/labels/drop'],
          fieldsV1: { 'a:Apply': { 'f:data': { 'f:keep': {} }, 'f:metadata': { 'f:labels': { 'f:keep': {} } } } },
        },
      },
      { manager: 'a', op: 'apply', object: cm('removal-cm'), expect: { absent: ['/data', '/metadata/labels'], managedFieldsManagers: [] } },
    ],
  },
  {
    name: 'a field another manager co-owns is kept when the applier stops applying it',
    type: configMap,
    steps: [
      { manager: 'a', op: 'apply', object: cm('coowned-cm', { mine: '1', ours: '2', theirs: '3' }), expect: {} },
      { manager: 'b', op: 'apply', object: cm('coowned-cm', { ours: '2' }), expect: {} },
      { manager: 'editor', op: 'update', object: cm('coowned-cm', { mine: '1', ours: '2', theirs: '4' }), expect: {} },
      {
        manager: 'a',
        op: 'apply',
        object: cm('coowned-cm', { mine: '1' }),
        expect: {
          object: { data: { mine: '1', ours: '2', theirs: '4' } },
          managedFieldsManagers: ['a:Apply', 'b:Apply', 'editor:Update'],
          fieldsV1: {
            'a:Apply': { 'f:data': { 'f:mine': {} } },
            'b:Apply': { 'f:data': { 'f:ours': {} } },
            'editor:Update': { 'f:data': { 'f:theirs': {} } },
          },
        },
      },
    ],
  },
  {
    name: 'managedFields: [{}] clears them; the first apply then conflicts with before-first-apply',
    type: configMap,
    steps: [
      { manager: 'creator', op: 'update', object: cm('cleared-cm', { a: '1', b: '1' }), expect: { managedFieldsManagers: ['creator:Update'] } },
      {
        manager: 'creator',
        op: 'update',
        object: { ...cm('cleared-cm', { a: '1', b: '1' }), metadata: { name: 'cleared-cm', namespace: NS, managedFields: [{}] } },
        expect: { managedFieldsManagers: [] },
      },
      { manager: 'a', op: 'apply', object: cm('cleared-cm', { a: '2' }), expect: { conflicts: [{ manager: 'before-first-apply', field: '.data.a' }] } },
      {
        manager: 'a',
        op: 'apply',
        object: cm('cleared-cm', { a: '1' }),
        expect: {
          managedFieldsManagers: ['a:Apply', 'before-first-apply:Update'],
          fieldsV1: { 'a:Apply': { 'f:data': { 'f:a': {} } }, 'before-first-apply:Update': { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } } },
        },
      },
    ],
  },
  {
    name: 'an applied configuration without fields leaves no managedFields entry',
    type: configMap,
    steps: [{ manager: 'empty', op: 'apply', object: cm('empty-cm'), expect: { managedFieldsManagers: [] } }],
  },
  {
    name: 'managedFields in an applied configuration are rejected',
    type: configMap,
    steps: [
      {
        manager: 'a',
        op: 'apply',
        object: { ...cm('mf-cm', { a: '1' }), metadata: { name: 'mf-cm', namespace: NS, managedFields: [] } },
        expect: { error: { reason: 'BadRequest', message: 'metadata.managedFields must be nil' } },
      },
    ],
  },
  {
    name: 'associative list: containers merge by name, an item no longer applied is removed',
    type: deployment,
    steps: [
      { manager: 'a', op: 'apply', object: dep('containers', [{ name: 'main', image: 'nginx:1' }, { name: 'extra', image: 'busybox' }]), expect: {} },
      {
        manager: 'b',
        op: 'apply',
        object: dep('containers', [{ name: 'sidecar', image: 'envoy' }]),
        expect: {
          object: { spec: { template: { spec: { containers: [{ name: 'main' }, { name: 'extra' }, { name: 'sidecar', image: 'envoy' }] } } } },
          fieldsV1: {
            'b:Apply': {
              'f:spec': {
                'f:selector': {},
                'f:template': {
                  'f:metadata': { 'f:labels': { 'f:app': {} } },
                  'f:spec': { 'f:containers': { 'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
                },
              },
            },
          },
        },
      },
      {
        manager: 'a',
        op: 'apply',
        object: dep('containers', [{ name: 'main', image: 'nginx:2' }]),
        expect: {
          object: { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:2' }, { name: 'sidecar', image: 'envoy' }] } } } },
          absent: ['/spec/template/spec/containers/2'],
        },
      },
      {
        manager: 'b',
        op: 'apply',
        object: dep('containers', [{ name: 'main', image: 'nginx:3' }]),
        expect: { conflicts: [{ manager: 'a', field: '.spec.template.spec.containers[name="main"].image' }] },
      },
    ],
  },
  {
    name: 'container ports: items keyed by containerPort and protocol; a port no longer applied is removed',
    type: deployment,
    steps: [
      {
        manager: 'a',
        op: 'apply',
        object: dep('ports', [
          {
            name: 'web',
            image: 'nginx',
            ports: [
              { containerPort: 80, protocol: 'TCP' },
              { containerPort: 443, protocol: 'TCP' },
            ],
          },
        ]),
        expect: {
          fieldsV1: {
            'a:Apply': {
              'f:spec': {
                'f:selector': {},
                'f:template': {
                  'f:metadata': { 'f:labels': { 'f:app': {} } },
                  'f:spec': {
                    'f:containers': {
                      'k:{"name":"web"}': {
                        '.': {},
                        'f:image': {},
                        'f:name': {},
                        'f:ports': {
                          'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
                          'k:{"containerPort":443,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      {
        manager: 'a',
        op: 'apply',
        object: dep('ports', [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }]),
        expect: {
          object: { spec: { template: { spec: { containers: [{ name: 'web', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } } } },
        },
      },
    ],
  },
  {
    name: 'set list: items owned by value, removal only of items the applier owned',
    type: widget,
    steps: [
      { manager: 'a', op: 'apply', object: w('tags', { tags: ['x', 'y'] }), expect: {} },
      {
        manager: 'b',
        op: 'apply',
        object: w('tags', { tags: ['z'] }),
        expect: { object: { spec: { tags: ['x', 'y', 'z'] } }, fieldsV1: { 'b:Apply': { 'f:spec': { 'f:tags': { 'v:"z"': {} } } } } },
      },
      {
        manager: 'a',
        op: 'apply',
        object: w('tags', { tags: ['x'] }),
        expect: {
          object: { spec: { tags: ['x', 'z'] } },
          fieldsV1: { 'a:Apply': { 'f:spec': { 'f:tags': { 'v:"x"': {} } } }, 'b:Apply': { 'f:spec': { 'f:tags': { 'v:"z"': {} } } } },
        },
      },
    ],
  },
  {
    name: 'atomic list: replaced wholesale, a different value conflicts',
    type: widget,
    steps: [
      { manager: 'a', op: 'apply', object: w('args', { args: ['--a', '--b'] }), expect: { fieldsV1: { 'a:Apply': { 'f:spec': { 'f:args': {} } } } } },
      { manager: 'b', op: 'apply', object: w('args', { args: ['--c'] }), expect: { conflicts: [{ manager: 'a', field: '.spec.args' }] } },
      {
        manager: 'b',
        op: 'apply',
        force: true,
        object: w('args', { args: ['--c'] }),
        expect: { object: { spec: { args: ['--c'] } }, managedFieldsManagers: ['b:Apply'] },
      },
    ],
  },
  {
    name: 'granular map merges keys of several appliers; an atomic map is owned and replaced as a whole',
    type: widget,
    steps: [
      { manager: 'a', op: 'apply', object: w('maps', { config: { k1: 'v1' }, selector: { app: 'x' } }), expect: {} },
      {
        manager: 'b',
        op: 'apply',
        object: w('maps', { config: { k2: 'v2' } }),
        expect: { object: { spec: { config: { k1: 'v1', k2: 'v2' }, selector: { app: 'x' } } } },
      },
      { manager: 'b', op: 'apply', object: w('maps', { config: { k2: 'v2' }, selector: { tier: 'y' } }), expect: { conflicts: [{ manager: 'a', field: '.spec.selector' }] } },
      {
        manager: 'b',
        op: 'apply',
        force: true,
        object: w('maps', { config: { k2: 'v2' }, selector: { tier: 'y' } }),
        expect: {
          object: { spec: { config: { k1: 'v1', k2: 'v2' }, selector: { tier: 'y' } } },
          absent: ['/spec/selector/app'],
          fieldsV1: {
            'a:Apply': { 'f:spec': { 'f:config': { 'f:k1': {} } } },
            'b:Apply': { 'f:spec': { 'f:config': { 'f:k2': {} }, 'f:selector': {} } },
          },
        },
      },
    ],
  },
  {
    name: 'map-list keys missing in an item take the schema default',
    type: widget,
    steps: [
      {
        manager: 'a',
        op: 'apply',
        object: w('ports', { ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] }),
        expect: {
          fieldsV1: {
            'a:Apply': {
              'f:spec': {
                'f:ports': {
                  'k:{"port":53,"protocol":"UDP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} },
                  'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} },
                },
              },
            },
          },
        },
      },
    ],
  },
  {
    name: 'update entries are capped at 10; the oldest merge into ancient-changes',
    type: configMap,
    steps: [
      { manager: 'apply', op: 'apply', object: cm('many-cm', { applied: 'x' }), expect: {} },
      ...Array.from({ length: 20 }, (_, i): ScenarioStep => {
        const data: Record<string, string> = { applied: 'x' };
        for (let j = 0; j <= i; j++) data[`k${String(j).padStart(2, '0')}`] = 'v';
        const id = String(i).padStart(2, '0');
        return {
          manager: `updater-${id}`,
          op: 'update',
          object: cm('many-cm', data),
          expect:
            i === 19
              ? {
                  managedFieldsManagers: [
                    'apply:Apply',
                    'ancient-changes:Update',
                    ...Array.from({ length: 9 }, (_, k) => `updater-${String(k + 11).padStart(2, '0')}:Update`),
                  ],
                }
              : {},
        };
      }),
    ],
  },
  {
    name: 'writes through the status sub-resource are recorded with subresource status',
    type: deployment,
    steps: [
      { manager: 'a', op: 'apply', object: dep('status', [{ name: 'app', image: 'nginx' }], 1), expect: {} },
      {
        manager: 'controller',
        op: 'update',
        subresource: 'status',
        object: { ...dep('status', [{ name: 'app', image: 'nginx' }], 1), status: { observedGeneration: 1 } },
        expect: {
          managedFieldsManagers: ['a:Apply', 'controller:Update:status'],
          fieldsV1: { 'controller:Update:status': { 'f:status': { 'f:observedGeneration': {} } } },
        },
      },
    ],
  },
];

/** "manager:Operation[:subresource]" of a managedFields entry. */
export function entryLabel(e: { manager: string; operation: string; subresource?: string }): string {
  return `${e.manager}:${e.operation}${e.subresource ? ':' + e.subresource : ''}`;
}

/**
 * Describes the first way `actual` fails to contain `expected`, or undefined. Objects match when
 * every expected key matches; arrays must have the same length and match element by element.
 */
export function subsetMismatch(actual: unknown, expected: unknown, at = ''): string | undefined {
  if (isObject(expected)) {
    if (!isObject(actual)) return `${at || '/'}: expected an object, got ${JSON.stringify(actual)}`;
    for (const k in expected) {
      const m = subsetMismatch(actual[k], expected[k], `${at}/${k}`);
      if (m) return m;
    }
    return undefined;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${at || '/'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      const m = subsetMismatch(actual[i], expected[i], `${at}/${i}`);
      if (m) return m;
    }
    return undefined;
  }
  return actual === expected ? undefined : `${at || '/'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** Whether the JSON pointer resolves in obj. */
export function pointerExists(obj: unknown, pointer: string): boolean {
  let cur: unknown = obj;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      const i = Number(key);
      if (!Number.isInteger(i) || i < 0 || i >= cur.length) return false;
      cur = cur[i];
    } else if (isObject(cur)) {
      if (!(key in cur)) return false;
      cur = cur[key];
    } else return false;
  }
  return true;
}
