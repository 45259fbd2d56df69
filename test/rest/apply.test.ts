// Server-side apply over HTTP: the shared scenario table, conflicts and managedFields as upstream,
// and strategic merge patches on built-in kinds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { applyScenarios, entryLabel, pointerExists, subsetMismatch, type ScenarioType } from '../../src/server/registry/patch/apply-scenarios.js';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
const APPLY = 'application/apply-patch+yaml';

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(() => server.close());

const base = (t: ScenarioType) => (t.apiVersion.includes('/') ? `/apis/${t.apiVersion}` : `/api/${t.apiVersion}`) + (t.namespaced ? '/namespaces/default' : '') + `/${t.resource}`;
const createdCrds = new Set<string>();

async function ensureCrd(t: ScenarioType) {
  if (!t.crd || createdCrds.has(t.crd.plural)) return;
  createdCrds.add(t.crd.plural);
  const c = t.crd;
  await api.post('/apis/apiextensions.service.io/v1/customresourcedefinitions', {
    apiVersion: 'apiextensions.service.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${c.plural}.${c.group}` },
    spec: { group: c.group, scope: 'Namespaced', names: { plural: c.plural, singular: c.singular, kind: t.kind }, versions: [{ name: c.version, served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: c.schema } }] },
  });
  for (let i = 0; i < 100 && (await api.get(base(t))).status !== 200; i++) await new Promise((r) => setTimeout(r, 20));
}

describe('apply scenarios over HTTP', () => {
  for (const sc of applyScenarios) {
    it(sc.name, async () => {
      await ensureCrd(sc.type);
      const first = sc.steps[0]!.object.metadata!.name!;
      const name = `${first}-${Math.random().toString(36).slice(2, 7)}`;
      const url = `${base(sc.type)}/${name}`;
      let exists = false;
      for (const [i, step] of sc.steps.entries()) {
        const label = `step ${i} (${step.manager} ${step.op})`;
        const obj = structuredClone(step.object);
        obj.metadata!.name = name;
        let r;
        if (step.op === 'apply') {
          r = await api.patch(`${url}${step.subresource ? '/' + step.subresource : ''}?fieldManager=${step.manager}${step.force ? '&force=true' : ''}`, stringify(obj), APPLY);
        } else if (!exists) {
          r = await api.post(`${base(sc.type)}?fieldManager=${step.manager}`, obj);
        } else {
          const cur = await api.get(url);
          obj.metadata!.resourceVersion = cur.body.metadata.resourceVersion;
          r = await api.put(`${url}${step.subresource ? '/' + step.subresource : ''}?fieldManager=${step.manager}`, obj);
        }
        const ex = step.expect;
        if (ex.conflicts) {
          expect(r.status, label).toBe(409);
          expect(r.body.details.causes.map((c: any) => ({ field: c.field, reason: c.reason })), label).toEqual(ex.conflicts.map((c) => ({ field: c.field, reason: 'FieldManagerConflict' })));
        } else if (ex.error) {
          expect(r.status, `${label}: ${r.text}`).toBe(ex.error.reason === 'Invalid' ? 422 : 400);
          expect(r.body.message, label).toContain(ex.error.message);
        } else {
          expect(r.status, `${label}: ${r.text}`).toBeLessThan(300);
          exists = true;
        }
        const live = (await api.get(url)).body;
        if (ex.object !== undefined) {
          const expected = structuredClone(ex.object) as any;
          if (expected.metadata?.name) expected.metadata.name = name;
          expect(subsetMismatch(live, expected), label).toBeUndefined();
        }
        for (const p of ex.absent ?? []) expect(pointerExists(live, p), `${label}: ${p} absent`).toBe(false);
        if (ex.managedFieldsManagers) expect((live.metadata?.managedFields ?? []).map(entryLabel), label).toEqual(ex.managedFieldsManagers);
        for (const [who, fields] of Object.entries(ex.fieldsV1 ?? {})) {
          const e = (live.metadata.managedFields ?? []).find((x: any) => entryLabel(x) === who);
          expect(e?.fieldsV1, `${label}: fieldsV1 of ${who}`).toEqual(fields);
        }
      }
    });
  }
});

describe('apply semantics over HTTP', () => {
  const dep = (replicas: number) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'ssa', labels: { test: 'x' } },
    spec: { replicas, selector: { matchLabels: { app: 'ssa' } }, template: { metadata: { labels: { app: 'ssa' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  const D = '/apis/apps/v1/namespaces/default/deployments';

  it('creates on apply, records managedFields as upstream, and reports conflicts with owners', async () => {
    const c = await api.patch(`${D}/ssa?fieldManager=alice`, stringify(dep(2)), APPLY);
    expect(c.status).toBe(201);
    const mf = c.body.metadata.managedFields;
    expect(mf).toHaveLength(1);
    expect(mf[0]).toMatchObject({ manager: 'alice', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
    expect(mf[0].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(mf[0].fieldsV1['f:metadata']).toEqual({ 'f:labels': { 'f:test': {} } });
    const m = await api.patch(`${D}/ssa?fieldManager=bob`, { spec: { replicas: 5 } }, 'application/merge-patch+json');
    expect(m.status).toBe(200);
    expect(m.body.metadata.managedFields.map((e: any) => `${e.manager}:${e.operation}`)).toEqual(['alice:Apply', 'bob:Update']);
    const conflict = await api.patch(`${D}/ssa?fieldManager=alice`, stringify(dep(3)), APPLY);
    expect(conflict.status).toBe(409);
    expect(conflict.body.reason).toBe('Conflict');
    expect(conflict.body.message).toBe('Apply failed with 1 conflict: conflict with "bob" using apps/v1: .spec.replicas');
    expect(conflict.body.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "bob" using apps/v1', field: '.spec.replicas' }]);
    const forced = await api.patch(`${D}/ssa?fieldManager=alice&force=true`, stringify(dep(3)), APPLY);
    expect(forced.status).toBe(200);
    expect(forced.body.spec.replicas).toBe(3);
  });

  it('rejects a version mismatch and managedFields in the apply body', async () => {
    const bad = await api.patch(`${D}/ssa?fieldManager=alice`, stringify({ ...dep(3), apiVersion: 'apps/v1beta1' }), APPLY);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('Incorrect version specified in apply patch');
  });

  it('derives the manager of other writes from the User-Agent', async () => {
    const r = await api.call('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ua' }, data: { a: 'b' } }), {
      'Content-Type': 'application/json',
      'User-Agent': 'my-tool/1.2 (linux/amd64)',
    });
    expect(r.body.metadata.managedFields[0]).toMatchObject({ manager: 'my-tool', operation: 'Update' });
  });
});

describe('strategic merge patch', () => {
  const D = '/apis/apps/v1/namespaces/default/deployments';
  it('merges containers by name and deletes with $patch', async () => {
    await api.post(D, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'smp' },
      spec: { selector: { matchLabels: { app: 'smp' } }, template: { metadata: { labels: { app: 'smp' } }, spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } } },
    });
    const SMP = 'application/strategic-merge-patch+json';
    const r = await api.patch(`${D}/smp`, { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2' }, { name: 'c', image: 'c:1' }] } } } }, SMP);
    expect(r.status).toBe(200);
    const images = Object.fromEntries(r.body.spec.template.spec.containers.map((c: any) => [c.name, c.image]));
    expect(images).toEqual({ a: 'a:1', b: 'b:2', c: 'c:1' });
    const d = await api.patch(`${D}/smp`, { spec: { template: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } } } }, SMP);
    expect(d.body.spec.template.spec.containers.map((c: any) => c.name).sort()).toEqual(['b', 'c']);
  });

  it('is refused for custom resources with 415', async () => {
    await ensureCrd(applyScenarios.find((s) => s.type.crd)!.type);
    const t = applyScenarios.find((s) => s.type.crd)!.type;
    await api.post(base(t), { apiVersion: t.apiVersion, kind: t.kind, metadata: { name: 'smp-cr' }, spec: {} });
    const r = await api.patch(`${base(t)}/smp-cr`, { spec: {} }, 'application/strategic-merge-patch+json');
    expect(r.status).toBe(415);
  });
});
