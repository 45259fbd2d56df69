import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, testServer } from '../../../test/helpers/server.js';
import type { ApiServer } from '../../server/app.js';
import { kindSchemaName, patchSchemaFor, type OpenApiDocument } from './openapi-schema.js';
import { applyJsonPatch, jsonPatchOps, strategicMergePatch, threeWayMerge, withoutPath, type PatchSchema } from './patches.js';

describe('jsonPatchOps', () => {
  it('guards replaced and removed values with test ops', () => {
    const from = { a: 1, b: { c: 'x', d: [1, 2] }, gone: true };
    const to = { a: 2, b: { c: 'x', d: [1, 2, 3] }, added: 'y' };
    const ops = jsonPatchOps(from, to);
    expect(ops).toEqual([
      { op: 'test', path: '/gone', value: true },
      { op: 'remove', path: '/gone' },
      { op: 'test', path: '/a', value: 1 },
      { op: 'replace', path: '/a', value: 2 },
      { op: 'add', path: '/b/d/2', value: 3 },
      { op: 'add', path: '/added', value: 'y' },
    ]);
    expect(applyJsonPatch(from, ops)).toEqual(to);
  });

  it('aligns arrays: one removal in the middle is one remove, an element changed in place is diffed inside', () => {
    const from = { items: [{ name: 'a', v: 1 }, { name: 'b', v: 1 }, { name: 'c', v: 1 }] };
    const to = { items: [{ name: 'a', v: 1 }, { name: 'c', v: 2 }] };
    const ops = jsonPatchOps(from, to, { guards: false });
    expect(ops).toEqual([
      { op: 'remove', path: '/items/1' },
      { op: 'replace', path: '/items/1/v', value: 2 },
    ]);
    expect(applyJsonPatch(from, ops)).toEqual(to);
  });

  it('escapes pointer tokens and can guard the resourceVersion', () => {
    const from = { metadata: { resourceVersion: '7', annotations: { 'a/b~c': '1' } } };
    const to = { metadata: { resourceVersion: '7', annotations: { 'a/b~c': '2' } } };
    const ops = jsonPatchOps(from, to, { guardResourceVersion: true });
    expect(ops[0]).toEqual({ op: 'test', path: '/metadata/resourceVersion', value: '7' });
    expect(ops.map((o) => o.path)).toContain('/metadata/annotations/a~1b~0c');
    expect(applyJsonPatch(from, ops)).toEqual(to);
    expect(() => applyJsonPatch({ metadata: { resourceVersion: '8', annotations: { 'a/b~c': '1' } } }, ops)).toThrow(/test failed/);
  });

  it('round-trips random edits', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const gen = (d: number): unknown => {
      const t = rnd(d > 2 ? 3 : 5);
      if (t === 0) return rnd(5);
      if (t === 1) return ['x', 'y', 'z'][rnd(3)];
      if (t === 2) return null;
      if (t === 3) return Array.from({ length: rnd(4) }, () => gen(d + 1));
      return Object.fromEntries(Array.from({ length: rnd(4) }, () => [['a', 'b', 'c', 'd'][rnd(4)]!, gen(d + 1)]));
    };
    for (let i = 0; i < 300; i++) {
      const a = { root: gen(0) };
      const b = { root: gen(0) };
      expect(applyJsonPatch(a, jsonPatchOps(a, b))).toEqual(b);
    }
  });
});

describe('threeWayMerge', () => {
  it('replays your changes onto theirs and reports fields both changed', () => {
    const base = { spec: { replicas: 1, image: 'a', paused: false }, metadata: { labels: { x: '1' } } };
    const yours = { spec: { replicas: 3, image: 'a', paused: false }, metadata: { labels: { x: '1', mine: 'y' } } };
    const theirs = { spec: { replicas: 1, image: 'b' }, metadata: { labels: { x: '2' }, resourceVersion: '9' } };
    const r = threeWayMerge(base, yours, theirs);
    expect(r.merged).toEqual({ spec: { replicas: 3, image: 'b' }, metadata: { labels: { x: '2', mine: 'y' }, resourceVersion: '9' } });
    expect(r.conflicts).toEqual([]);
    const clash = threeWayMerge(base, yours, { ...theirs, spec: { replicas: 5, image: 'a', paused: false } });
    expect(clash.conflicts).toEqual(['/spec/replicas']);
    expect((clash.merged as { spec: { replicas: number } }).spec.replicas).toBe(3);
  });
});

describe('withoutPath', () => {
  it('drops one field or list item from a copy', () => {
    const o = { spec: { replicas: 3, containers: [{ name: 'a' }, { name: 'b' }] } };
    expect(withoutPath(o, ['spec', 'replicas'])).toEqual({ spec: { containers: [{ name: 'a' }, { name: 'b' }] } });
    expect(withoutPath(o, ['spec', 'containers', 0])).toEqual({ spec: { replicas: 3, containers: [{ name: 'b' }] } });
    expect(withoutPath(o, ['nope', 'x'])).toEqual(o);
    expect(o.spec.replicas).toBe(3);
  });
});

// The generated patches are sent to a real server: what it stores must be the edited object.
describe('patches against the server', () => {
  let srv: ApiServer;
  let api: ReturnType<typeof client>;
  let doc: OpenApiDocument;
  let schema: PatchSchema | undefined;
  const path = '/apis/apps/v1/namespaces/default/deployments';
  const base = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' }, finalizers: ['a.example.com/x', 'b.example.com/y'] },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'web', image: 'nginx:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
            { name: 'sidecar', image: 'envoy:1' },
          ],
        },
      },
    },
  };

  beforeAll(async () => {
    srv = await testServer();
    api = client(srv.url);
    await api.post('/api/v1/namespaces', { metadata: { name: 'default' } });
    doc = (await api.get('/openapi/v3/apis/apps/v1')).body as OpenApiDocument;
    schema = patchSchemaFor(doc, kindSchemaName(doc, 'apps', 'v1', 'Deployment')!);
  });
  afterAll(async () => {
    await srv?.close();
  });

  const fresh = async (name: string) => {
    const r = await api.post(path, { ...base, metadata: { ...base.metadata, name } });
    expect(r.status).toBe(201);
    return r.body as typeof base & { metadata: { resourceVersion: string } };
  };
  const edit = (o: typeof base) => {
    const e = structuredClone(o);
    e.metadata.labels = { app: 'web', tier: 'front' } as typeof e.metadata.labels;
    e.metadata.finalizers = ['b.example.com/y', 'c.example.com/z'];
    e.spec.replicas = 4;
    e.spec.strategy = { type: 'Recreate' } as typeof e.spec.strategy;
    const c = e.spec.template.spec.containers;
    c[0]!.image = 'nginx:2';
    c[0]!.env = [{ name: 'B', value: '3' }, { name: 'C', value: '4' }];
    c.splice(1, 1, { name: 'logger', image: 'fluent:1' });
    return e;
  };
  const strip = (o: any) => ({ labels: o.metadata.labels, finalizers: o.metadata.finalizers, spec: { ...o.spec, template: { ...o.spec.template, spec: { containers: o.spec.template.spec.containers.map((c: any) => ({ name: c.name, image: c.image, env: c.env })) } } } });

  it('a strategic merge patch merges lists by key and deletes what was removed', async () => {
    const cur = await fresh('smp');
    const want = edit(cur);
    const p = strategicMergePatch(cur, want, schema);
    expect(p.spec).toMatchObject({ strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } });
    const containers = (p.spec as any).template.spec.containers as unknown[];
    expect(containers).toContainEqual({ name: 'sidecar', $patch: 'delete' });
    expect((p.metadata as any)['$deleteFromPrimitiveList/finalizers']).toEqual(['a.example.com/x']);
    const r = await api.patch(`${path}/smp`, p, 'application/strategic-merge-patch+json');
    expect(r.status).toBe(200);
    expect(strip(r.body)).toEqual(strip(want));
  });

  it('a JSON patch with test guards applies, and fails once the object moved on', async () => {
    const cur = await fresh('jp');
    const want = edit(cur);
    const ops = jsonPatchOps(cur, want, { guardResourceVersion: true });
    expect(ops.filter((o) => o.op === 'test').length).toBeGreaterThan(3);
    const r = await api.patch(`${path}/jp`, ops, 'application/json-patch+json');
    expect(r.status).toBe(200);
    expect(strip(r.body)).toEqual(strip(want));
    const again = await api.patch(`${path}/jp`, ops, 'application/json-patch+json');
    expect(again.status).toBe(422);
    expect(again.body.details.causes[0].field).toBe('patch[0]');
  });
});
