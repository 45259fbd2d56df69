import { describe, expect, it } from 'vitest';
import { builtinSchemas } from '../schema/registry.js';
import type { SchemaNode } from '../schema/types.js';
import type { KubeObject } from '../types.js';
import { applyPatch, ApplyConflictError, defaultFieldManager, PatchError, setManagedFields, updateManagedFields } from './apply.js';
import { applyScenarios, entryLabel, pointerExists, subsetMismatch, type ScenarioType } from './apply-scenarios.js';
import { FieldSet } from './fieldpath.js';
import { cloneJson } from './json-util.js';
import type { ManagedFieldsEntry } from './managed-fields.js';

const reg = builtinSchemas;
const schemaOf = (t: ScenarioType): SchemaNode => (t.schemaRef ? { $ref: t.schemaRef } : t.crd!.schema);
const at = (s: number): string => new Date(Date.UTC(2024, 0, 1, 0, 0, s)).toISOString();
const entries = (o: KubeObject | undefined): ManagedFieldsEntry[] => (o?.metadata?.managedFields as ManagedFieldsEntry[] | undefined) ?? [];

describe('apply scenarios (direct)', () => {
  for (const sc of applyScenarios) {
    it(sc.name, () => {
      const schema = schemaOf(sc.type);
      let live: KubeObject | undefined;
      sc.steps.forEach((step, i) => {
        const label = `step ${i} (${step.manager} ${step.op})`;
        const base = { manager: step.manager, apiVersion: sc.type.apiVersion, schema, reg, now: at(i), subresource: step.subresource };
        let error: unknown;
        try {
          if (step.op === 'apply') {
            live = applyPatch(live, cloneJson(step.object), { ...base, force: step.force ?? false }).object;
          } else {
            const next = cloneJson(step.object);
            setManagedFields(next, updateManagedFields(live, next, { ...base, operation: 'Update' }));
            live = next;
          }
        } catch (e) {
          error = e;
        }
        const ex = step.expect;
        if (ex.conflicts) {
          expect(error, label).toBeInstanceOf(ApplyConflictError);
          expect((error as ApplyConflictError).conflicts.map((c) => ({ manager: c.manager, field: c.field })), label).toEqual(ex.conflicts);
        } else if (ex.error) {
          expect(error, label).toBeInstanceOf(PatchError);
          expect((error as PatchError).reason, label).toBe(ex.error.reason);
          expect((error as PatchError).message, label).toContain(ex.error.message);
        } else if (error) {
          throw error;
        }
        if (ex.object !== undefined) expect(subsetMismatch(live, ex.object), label).toBeUndefined();
        for (const p of ex.absent ?? []) expect(pointerExists(live, p), `${label}: ${p} absent`).toBe(false);
        if (ex.managedFieldsManagers) expect(entries(live).map(entryLabel), label).toEqual(ex.managedFieldsManagers);
        for (const [who, fields] of Object.entries(ex.fieldsV1 ?? {})) {
          const e = entries(live).find((x) => entryLabel(x) === who);
          expect(e?.fieldsV1, `${label}: fieldsV1 of ${who}`).toEqual(fields);
          expect(JSON.stringify(e?.fieldsV1), `${label}: key order of ${who}`).toBe(JSON.stringify(fields));
        }
      });
    });
  }
});

const deploymentSchema: SchemaNode = { $ref: 'io.k8s.api.apps.v1.Deployment' };

function deployment(labels: Record<string, string>): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx', args: ['-a', '-b'] }] } },
    },
  };
}

describe('applyPatch', () => {
  const opts = { manager: 'kubectl', force: false, apiVersion: 'apps/v1', schema: deploymentSchema, reg, now: '2024-05-01T10:20:30.456Z' };

  it('writes the managedFields entry in the upstream wire form', () => {
    const { object, managedFields } = applyPatch(undefined, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', labels: { 'test-label': 'test' } } }, opts);
    expect(managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2024-05-01T10:20:30Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:test-label': {} } } },
      },
    ]);
    expect(Object.keys(managedFields[0]!)).toEqual(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
    expect(object.metadata!.managedFields).toEqual(managedFields);
  });

  it('does not modify its inputs or alias the live object', () => {
    const live = applyPatch(undefined, deployment({ a: '1' }), opts).object;
    const liveCopy = cloneJson(live);
    const applied = deployment({ a: '2' });
    const appliedCopy = cloneJson(applied);
    const { object } = applyPatch(live, applied, { ...opts, force: true });
    expect(live).toEqual(liveCopy);
    expect(applied).toEqual(appliedCopy);
    (object.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]!.image = 'changed';
    expect(live).toEqual(liveCopy);
  });

  it('replaces atomic lists (container args) and conflicts on them with another manager', () => {
    const live = applyPatch(undefined, deployment({}), opts).object;
    const other = deployment({});
    (other.spec as any).template.spec.containers[0].args = ['-c'];
    expect(() => applyPatch(live, other, { ...opts, manager: 'other' })).toThrow(
      'Apply failed with 1 conflict: conflict with "kubectl": .spec.template.spec.containers[name="web"].args',
    );
    const forced = applyPatch(live, other, { ...opts, manager: 'other', force: true }).object;
    expect((forced.spec as any).template.spec.containers[0].args).toEqual(['-c']);
  });

  it('lists all conflicts grouped by manager in the message', () => {
    let live = applyPatch(undefined, deployment({ a: '1', b: '1' }), opts).object;
    const next = cloneJson(live);
    next.metadata!.labels = { a: '2', b: '1' };
    setManagedFields(next, updateManagedFields(live, next, { manager: 'editor', operation: 'Update', apiVersion: 'apps/v1', schema: deploymentSchema, reg, now: opts.now }));
    live = next;
    const applied = deployment({ a: '3', b: '3' });
    (applied.spec as any).replicas = 5;
    try {
      applyPatch(live, applied, { ...opts, manager: 'third' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ApplyConflictError);
      expect((e as Error).message).toBe(
        'Apply failed with 3 conflicts: conflicts with "editor" using apps/v1:\n- .metadata.labels.a\nconflicts with "kubectl":\n- .metadata.labels.b\n- .spec.replicas',
      );
      expect((e as ApplyConflictError).conflicts.map((c) => c.message)).toEqual(['conflict with "editor" using apps/v1', 'conflict with "kubectl"', 'conflict with "kubectl"']);
    }
  });

  it('rejects map-list items without their key and duplicate keys', () => {
    const noName = deployment({});
    (noName.spec as any).template.spec.containers = [{ image: 'nginx' }];
    expect(() => applyPatch(undefined, noName, opts)).toThrow(
      'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
    const dup = deployment({});
    (dup.spec as any).template.spec.containers = [
      { name: 'a', image: 'x' },
      { name: 'a', image: 'y' },
    ];
    expect(() => applyPatch(undefined, dup, opts)).toThrow('.spec.template.spec.containers: duplicate entries for key [name="a"]');
  });

  it('drops nulls from the applied configuration (unset) unless the schema allows null', () => {
    const applied = deployment({ a: '1' });
    (applied.spec as any).replicas = null;
    const { object, managedFields } = applyPatch(undefined, applied, opts);
    expect((object.spec as any).replicas).toBeUndefined();
    expect(FieldSet.fromFieldsV1(managedFields[0]!.fieldsV1).has([{ t: 'f', name: 'spec' }, { t: 'f', name: 'replicas' }])).toBe(false);
  });

  it('keeps the object and time unchanged on a no-op re-apply', () => {
    const first = applyPatch(undefined, deployment({ a: '1' }), opts).object;
    const again = applyPatch(first, deployment({ a: '1' }), { ...opts, now: '2030-01-01T00:00:00Z' }).object;
    expect(again).toEqual(first);
  });

  it('records a sub-resource applier separately', () => {
    const live = applyPatch(undefined, deployment({}), opts).object;
    const status = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, status: { replicas: 2 } };
    const { managedFields } = applyPatch(live, status, { ...opts, manager: 'ctl', subresource: 'status' });
    expect(managedFields.map((e) => [e.manager, e.operation, e.subresource])).toEqual([
      ['ctl', 'Apply', 'status'],
      ['kubectl', 'Apply', undefined],
    ]);
  });

  it('names sub-resource managers in conflicts', () => {
    const live = applyPatch(undefined, deployment({}), opts).object;
    const withStatus = { ...cloneJson(live), status: { replicas: 1 } };
    setManagedFields(withStatus, updateManagedFields(live, withStatus, { manager: 'ctrl', operation: 'Update', apiVersion: 'apps/v1', schema: deploymentSchema, reg, now: opts.now, subresource: 'status' }));
    const applied = { ...deployment({}), status: { replicas: 2 } };
    expect(() => applyPatch(withStatus, applied, { ...opts, manager: 'x' })).toThrow('Apply failed with 1 conflict: conflict with "ctrl" with subresource "status" using apps/v1: .status.replicas');
  });

  it('merges associative lists keeping live-only items in place and shared items in applied order', () => {
    const names = (o: KubeObject): string[] => (o.spec as any).template.spec.containers.map((c: { name: string }) => c.name);
    const withContainers = (...n: string[]): KubeObject => {
      const d = deployment({});
      (d.spec as any).template.spec.containers = n.map((name) => ({ name, image: 'i' }));
      return d;
    };
    const live = applyPatch(undefined, withContainers('a', 'b', 'c'), { ...opts, manager: 'first' }).object;
    expect(names(applyPatch(live, withContainers('x', 'b'), { ...opts, manager: 'second' }).object)).toEqual(['a', 'x', 'b', 'c']);
    expect(names(applyPatch(live, withContainers('c', 'a'), { ...opts, manager: 'second' }).object)).toEqual(['b', 'c', 'a']);
  });

  it('never owns ignored fields', () => {
    const applied = { ...deployment({}), status: { replicas: 9 } };
    const ignoredFields = FieldSet.of([{ t: 'f', name: 'status' }]);
    const { managedFields } = applyPatch(undefined, applied, { ...opts, ignoredFields });
    expect(managedFields[0]!.fieldsV1).not.toHaveProperty('f:status');
  });
});

describe('updateManagedFields', () => {
  const cmSchema: SchemaNode = { $ref: 'io.k8s.api.core.v1.ConfigMap' };
  const base = { operation: 'Update' as const, apiVersion: 'v1', schema: cmSchema, reg };
  const cmObj = (data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data });

  it('on create of a built-in kind owns fields but not the structs holding them', () => {
    const d = deployment({ app: 'web' });
    const mf = updateManagedFields(undefined, d, { manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', schema: deploymentSchema, reg, now: at(0) });
    expect(mf[0]!.fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:args': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
  });

  it('clears managedFields when the write sends [{}] or []', () => {
    const created = cmObj({ a: '1' });
    setManagedFields(created, updateManagedFields(undefined, created, { ...base, manager: 'm', now: at(0) }));
    expect(created.metadata!.managedFields).toHaveLength(1);
    for (const reset of [[{}], []]) {
      const next = cloneJson(created);
      next.metadata!.managedFields = reset;
      expect(updateManagedFields(created, next, { ...base, manager: 'n', now: at(1) })).toEqual([]);
    }
  });

  it('keeps the live entries when the write omits managedFields and uses sent ones when valid', () => {
    const created = cmObj({ a: '1' });
    setManagedFields(created, updateManagedFields(undefined, created, { ...base, manager: 'm', now: at(0) }));
    const put = cmObj({ a: '1', b: '2' });
    const mf = updateManagedFields(created, put, { ...base, manager: 'n', now: at(5) });
    expect(mf.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['m', { 'f:data': { '.': {}, 'f:a': {} } }],
      ['n', { 'f:data': { 'f:b': {} } }],
    ]);
    const sent = cmObj({ a: '1' });
    sent.metadata!.managedFields = [{ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
    expect(updateManagedFields(created, sent, { ...base, manager: 'n', now: at(6) }).map((e) => e.manager)).toEqual(['x']);
  });

  it('keeps one entry per manager and apiVersion, with the latest time', () => {
    const v1 = cmObj({ a: '1' });
    setManagedFields(v1, updateManagedFields(undefined, v1, { ...base, manager: 'm', now: at(0) }));
    const v2 = cmObj({ a: '2' });
    setManagedFields(v2, updateManagedFields(v1, v2, { ...base, manager: 'm', now: at(9) }));
    expect(v2.metadata!.managedFields).toEqual([
      { manager: 'm', operation: 'Update', apiVersion: 'v1', time: at(9).replace('.000Z', 'Z'), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } },
    ]);
  });

  it('does not touch entries or times when nothing changed', () => {
    const v1 = cmObj({ a: '1' });
    setManagedFields(v1, updateManagedFields(undefined, v1, { ...base, manager: 'm', now: at(0) }));
    const same = cloneJson(v1);
    expect(updateManagedFields(v1, same, { ...base, manager: 'other', now: at(30) })).toEqual(v1.metadata!.managedFields);
  });
});

describe('defaultFieldManager', () => {
  it('takes the User-Agent up to the first slash', () => {
    expect(defaultFieldManager('kubectl/v1.30.0 (linux/amd64) kubernetes/abcdef')).toBe('kubectl');
    expect(defaultFieldManager('kubectl-client-side-apply/v1.30.0 (linux/amd64)')).toBe('kubectl-client-side-apply');
    expect(defaultFieldManager(undefined)).toBe('');
    expect(defaultFieldManager('a\u0000b/1')).toBe('ab');
    expect(defaultFieldManager('x'.repeat(300))).toHaveLength(128);
  });
});
