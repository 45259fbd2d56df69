import { describe, expect, it } from 'vitest';
import { crdEstablishedStatus, crdDefinitionName, defaultCRD, resourceTypesFromCRD, validateCRD } from './crd.js';
import { builtinSchemas } from './schema/registry.js';
import { validateObject } from './schema/validate.js';
import type { KubeObject } from './types.js';

function crontabCRD(): KubeObject {
  return {
    apiVersion: 'apiextensions.service.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    cronSpec: { type: 'string' },
                    image: { type: 'string' },
                    replicas: { type: 'integer', default: 1 },
                    selector: { type: 'string' },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    replicas: { type: 'integer' },
                    conditions: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } } },
                  },
                },
              },
            },
          },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' } },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          selectableFields: [{ jsonPath: '.spec.image' }],
        },
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        { name: 'v1alpha1', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
    },
  };
}

const messages = (crd: KubeObject, old?: KubeObject) => validateCRD(crd, old).map((e) => `${e.field}: ${e.detail}`);

describe('validateCRD', () => {
  it('accepts a valid CRD', () => {
    const crd = crontabCRD();
    defaultCRD(crd);
    expect(messages(crd)).toEqual([]);
    expect((crd.spec as any).names.listKind).toBe('CronTabList');
    expect((crd.spec as any).conversion).toEqual({ strategy: 'None' });
  });

  it('checks names, group, scope and versions', () => {
    const crd = crontabCRD();
    const spec = crd.spec as any;
    crd.metadata!.name = 'wrong.example.com';
    spec.names.plural = 'CronTabs';
    delete spec.names.kind;
    spec.group = 'example';
    spec.scope = 'Global';
    spec.versions[1].storage = true;
    expect(messages(crd)).toEqual([
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
      'metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group',
      "spec.names.plural: Invalid value: \"CronTabs\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      'spec.names.kind: Required value',
      'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      'spec.versions: Invalid value: ["v1","v1beta1","v1alpha1"]: must have exactly one version marked as storage version',
    ]);
    const none = crontabCRD();
    (none.spec as any).versions = [];
    expect(messages(none)).toEqual(['spec.versions: Required value: must have at least one version']);
  });

  it('enforces structural schemas', () => {
    const crd = crontabCRD();
    const v = (crd.spec as any).versions[0];
    v.schema.openAPIV3Schema.properties.spec.properties.untyped = { description: 'no type' };
    v.schema.openAPIV3Schema.properties.spec.properties.list = { type: 'array' };
    v.schema.openAPIV3Schema.properties.spec.properties.both = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } };
    v.schema.openAPIV3Schema.properties.metadata = { type: 'object', properties: { labels: { type: 'object' } } };
    v.schema.openAPIV3Schema.properties.spec.properties.ios = { type: 'string', 'x-kubernetes-int-or-string': true };
    v.schema.openAPIV3Schema.properties.spec.properties.m = { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } } };
    const p = 'spec.versions[0].schema.openAPIV3Schema';
    expect(messages(crd)).toEqual([
      `${p}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      `${p}.properties[spec].properties[untyped].type: Required value: must not be empty for specified object fields`,
      `${p}.properties[spec].properties[list].items: Required value: must be specified`,
      `${p}.properties[spec].properties[both].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${p}.properties[spec].properties[ios].type: Invalid value: "string": must be empty if x-kubernetes-int-or-string is true`,
      `${p}.properties[spec].properties[m].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
    ]);
    const root = crontabCRD();
    (root.spec as any).versions[0].schema.openAPIV3Schema = { type: 'array', items: { type: 'string' } };
    delete (root.spec as any).versions[1].schema;
    expect(messages(root)).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "array": must be object at the root',
      'spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required',
    ]);
  });

  it('checks printer columns, scale paths and updates', () => {
    const crd = crontabCRD();
    const v = (crd.spec as any).versions[0];
    v.additionalPrinterColumns.push({ name: 'X', type: 'map', jsonPath: 'spec.x' });
    v.subresources.scale.specReplicasPath = '.status.replicas';
    expect(messages(crd)).toEqual([
      'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.versions[0].additionalPrinterColumns[4].type: Unsupported value: "map": supported values: "boolean", "date", "integer", "number", "string"',
      'spec.versions[0].additionalPrinterColumns[4].jsonPath: Invalid value: "spec.x": must be a simple json path starting with .',
    ]);
    const old = crontabCRD();
    const next = crontabCRD();
    (next.spec as any).scope = 'Cluster';
    next.status = { storedVersions: ['v0'] };
    expect(messages(next, old)).toEqual([
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'status.storedVersions[0]: Invalid value: "v0": must appear in spec.versions',
    ]);
  });
});

describe('resourceTypesFromCRD', () => {
  it('serves one type per served version', () => {
    const types = resourceTypesFromCRD(crontabCRD());
    expect(types.map((t) => t.version)).toEqual(['v1', 'v1beta1']);
    const t = types[0]!;
    expect(t).toMatchObject({
      group: 'stable.example.com',
      kind: 'CronTab',
      listKind: 'CronTabList',
      plural: 'crontabs',
      singular: 'crontab',
      shortNames: ['ct'],
      categories: ['all'],
      scope: 'Namespaced',
      custom: true,
      served: true,
      storageVersion: 'v1',
      schemaRef: 'com.example.stable.v1.CronTab',
    });
    expect(t.verbs.length).toBe(8);
    expect(t.subresources).toEqual([
      { name: 'status', kind: 'CronTab', verbs: ['get', 'patch', 'update'] },
      { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'], specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' },
    ]);
    expect(t.strategy.requireResourceVersionOnUpdate).toBe(true);
    expect(types[1]!.subresources).toEqual([]);
    expect(crdDefinitionName('stable.example.com', 'v1', 'CronTab')).toBe('com.example.stable.v1.CronTab');
  });

  it('evaluates printer columns with JSONPath, Age by default', () => {
    const [v1, v1beta1] = resourceTypesFromCRD(crontabCRD());
    const obj: KubeObject = {
      metadata: { name: 'a', creationTimestamp: new Date(Date.now() - 3 * 3600_000).toISOString() },
      spec: { cronSpec: '* * * * */5', replicas: 2 },
      status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] },
    };
    expect(v1!.columns!.map((c) => [c.name, c.type, c.cell(obj)])).toEqual([
      ['Spec', 'string', '* * * * */5'],
      ['Replicas', 'integer', 2],
      ['Ready', 'string', 'True'],
      ['Age', 'date', '3h'],
    ]);
    expect(v1!.columns![0]!.description).toBe('Custom resource definition column (in JSONPath format): .spec.cronSpec');
    expect(v1!.columns![1]!.cell({ spec: { replicas: 'x' } })).toBeNull();
    expect(v1beta1!.columns!.map((c) => [c.name, c.type, c.cell(obj)])).toEqual([['Age', 'date', '3h']]);
  });

  it('defaults, selects and validates custom objects', () => {
    const [v1] = resourceTypesFromCRD(crontabCRD());
    const o: KubeObject = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'a' }, spec: { cronSpec: 'x', image: 'img', extra: 1 } };
    const r = validateObject(o, v1!.schema!, builtinSchemas, { pruneUnknown: true });
    expect(r).toEqual({ errors: [], unknownFields: ['spec.extra'] });
    v1!.strategy.defaults!(o);
    expect(o.spec).toEqual({ cronSpec: 'x', image: 'img', replicas: 1 });
    expect(v1!.strategy.fieldSelectors!['spec.image']!(o)).toBe('img');
    const bad = validateObject({ spec: { replicas: 'two' } }, v1!.schema!, builtinSchemas, { pruneUnknown: true });
    expect(bad.errors.map((e) => `${e.field}: ${e.detail}`)).toEqual(['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']);
  });
});

describe('crdEstablishedStatus', () => {
  it('accepts names and is idempotent', () => {
    const crd = crontabCRD();
    const status = crdEstablishedStatus(crd, '2024-01-01T00:00:00Z');
    expect(status).toEqual({
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
      acceptedNames: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all'] },
      storedVersions: ['v1'],
    });
    crd.status = status;
    expect(crdEstablishedStatus(crd, '2025-01-01T00:00:00Z')).toEqual(status);
  });
});
