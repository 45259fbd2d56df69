import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
const CM = '/api/v1/namespaces/wr/configmaps';
const DEP = '/apis/apps/v1/namespaces/wr/deployments';

const deployment = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx:1', ...extra }] } },
  },
});

beforeAll(async () => {
  // no Lease renewals (--leader-elect=false): the dry-run test compares the store's revision before and after
  server = await testServer({ leaderElect: false });
  api = client(server.url);
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wr' } });
});
afterAll(() => server.close());

describe('patch', () => {
  it('applies merge patches', async () => {
    await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm' }, data: { a: '1', b: '2' } });
    const r = await api.patch(`${CM}/m`, { data: { a: null, c: '3' } }, 'application/merge-patch+json');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ b: '2', c: '3' });
  });

  it('applies JSON patches; a failed test changes nothing', async () => {
    await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'j' }, data: { a: '1' } });
    const ok = await api.patch(`${CM}/j`, [{ op: 'test', path: '/data/a', value: '1' }, { op: 'replace', path: '/data/a', value: '2' }, { op: 'add', path: '/data/b', value: 'x' }], 'application/json-patch+json');
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ a: '2', b: 'x' });
    const rv = ok.body.metadata.resourceVersion;
    const bad = await api.patch(`${CM}/j`, [{ op: 'replace', path: '/data/b', value: 'y' }, { op: 'test', path: '/data/a', value: '1' }], 'application/json-patch+json');
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('test operation failed');
    const after = await api.get(`${CM}/j`);
    expect(after.body.data).toEqual({ a: '2', b: 'x' });
    expect(after.body.metadata.resourceVersion).toBe(rv);
  });

  it('makes a patch carrying resourceVersion conditional', async () => {
    const c = await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cond' }, data: { a: '1' } });
    await api.patch(`${CM}/cond`, { data: { a: '2' } }, 'application/merge-patch+json');
    const stale = await api.patch(`${CM}/cond`, { metadata: { resourceVersion: c.body.metadata.resourceVersion }, data: { a: '3' } }, 'application/merge-patch+json');
    expect(stale.status).toBe(409);
  });

  it('answers 404 for a missing object, 415 for unknown patch types', async () => {
    expect((await api.patch(`${CM}/missing`, { data: {} }, 'application/merge-patch+json')).status).toBe(404);
    const r = await api.patch(`${CM}/m`, { data: {} }, 'application/x-unknown-patch');
    expect(r.status).toBe(415);
    expect(r.body.reason).toBe('UnsupportedMediaType');
  });

  it('requires fieldManager for apply and refuses force on other patches', async () => {
    const r = await api.patch(`${CM}/m`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n', 'application/apply-patch+yaml');
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('PatchOptions.meta.service.io "" is invalid: fieldManager: Required value: is required for apply patch');
    expect(r.body.details.causes[0]).toMatchObject({ reason: 'FieldValueRequired', field: 'fieldManager' });
    const f = await api.patch(`${CM}/m?force=true`, { data: {} }, 'application/merge-patch+json');
    expect(f.status).toBe(422);
    expect(f.body.message).toContain('force: Forbidden: may not be specified for non-apply patch');
  });

  it('sends patch results through validation (a wrong type is 400 for built-ins)', async () => {
    await api.post(DEP, deployment('pv'));
    const r = await api.patch(`${DEP}/pv`, { spec: { replicas: 'many' } }, 'application/merge-patch+json');
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('Deployment in version "v1" cannot be handled as a Deployment');
  });

  it('patches the scale and status sub-resources', async () => {
    await api.post(DEP, deployment('ps'));
    const sc = await api.patch(`${DEP}/ps/scale`, { spec: { replicas: 4 } }, 'application/merge-patch+json');
    expect(sc.status).toBe(200);
    expect(sc.body).toMatchObject({ kind: 'Scale', spec: { replicas: 4 } });
    const st = await api.patch(`${DEP}/ps/status`, { status: { replicas: 4 }, spec: { replicas: 9 } }, 'application/merge-patch+json');
    expect(st.body.status.replicas).toBe(4);
    expect(st.body.spec.replicas).toBe(4);
  });
});

describe('field validation', () => {
  const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fv","name":"fv","bogusMeta":1},"data":{"a":"1"},"extra":true}';

  it('Strict rejects with 400 naming every unknown and duplicate field', async () => {
    const r = await api.call('POST', `${CM}?fieldValidation=Strict`, body, { 'Content-Type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", unknown field "metadata.bogusMeta", unknown field "extra"');
    expect((await api.get(`${CM}/fv`)).status).toBe(404);
  });

  it('Warn (the default) drops them and sends one Warning per field', async () => {
    const r = await api.call('POST', CM, body, { 'Content-Type': 'application/json' });
    expect(r.status).toBe(201);
    expect(r.body.extra).toBeUndefined();
    const w = r.headers.get('warning') ?? '';
    expect(w).toContain('299 - "duplicate field \\"metadata.name\\""');
    expect(w).toContain('299 - "unknown field \\"extra\\""');
  });

  it('Ignore drops them silently; bad values are rejected', async () => {
    const r = await api.call('POST', `${CM}?fieldValidation=Ignore`, body.replace('"fv"', '"fv2"').replace('"fv"', '"fv2"'), { 'Content-Type': 'application/json' });
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toBeNull();
    expect((await api.post(`${CM}?fieldValidation=Loose`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).status).toBe(400);
  });

  it('reports only the fatal error when a body is also invalid for another reason', async () => {
    const r = await api.post(`${DEP}?fieldValidation=Strict`, { ...deployment('fatal'), spec: { ...deployment('fatal').spec, replicas: 'x', bogus: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.message).not.toContain('bogus');
    expect(r.body.message).toContain('cannot be handled as a Deployment');
  });

  it('detects duplicates in YAML bodies', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\n  name: y1\n';
    const r = await api.call('POST', `${CM}?fieldValidation=Strict`, yaml, { 'Content-Type': 'application/yaml' });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('duplicate field "metadata.name"');
  });
});

describe('owner references', () => {
  it('drops duplicate owner references with a warning', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '11111111-2222-3333-4444-555555555555' };
    const r = await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup-owner', ownerReferences: [ref, ref] } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.ownerReferences).toHaveLength(1);
    expect(r.headers.get('warning')).toContain('duplicate UID(s) observed: [11111111-2222-3333-4444-555555555555]');
  });
});

describe('CBOR bodies', () => {
  it('reports duplicate map keys like JSON and YAML', async () => {
    const { parseFeatureGates } = await import('../../src/server/features.js');
    const cbor = await testServer({ featureGates: parseFeatureGates('CBORServingAndStorage=true') });
    try {
      const c = client(cbor.url);
      await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wr' } });
      // {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","name":"x"}}
      const hex = 'd9d9f7a3' + '6a61706956657273696f6e' + '627631' + '646b696e64' + '69436f6e6669674d6170' + '686d65746164617461' + 'a2' + '646e616d65' + '6178' + '646e616d65' + '6178';
      const body = Uint8Array.from(hex.match(/../g)!.map((h) => parseInt(h, 16)));
      const r = await fetch(`${cbor.url}${CM}?fieldValidation=Strict`, { method: 'POST', headers: { 'Content-Type': 'application/cbor', Accept: 'application/json' }, body });
      expect(r.status).toBe(400);
      expect((await r.json()).message).toContain('duplicate field "metadata.name"');
    } finally {
      await cbor.close();
    }
  });
});

describe('dry run', () => {
  it('runs every stage but persistence, for create, update, patch and delete', async () => {
    const before = await server.store.currentRevision();
    const c = await api.post(`${CM}?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' }, data: { a: '1' } });
    expect(c.status).toBe(201);
    expect(c.body.metadata.uid).toBeTruthy();
    expect((await api.get(`${CM}/dry`)).status).toBe(404);
    const bad = await api.post(`${CM}?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad!' } });
    expect(bad.status).toBe(422);
    const real = await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry2' }, data: { a: '1' } });
    const mid = await server.store.currentRevision();
    expect(mid).toBe(before + 1);
    const u = await api.put(`${CM}/dry2?dryRun=All`, { ...real.body, data: { a: '2' } });
    expect(u.status).toBe(200);
    expect(u.body.data).toEqual({ a: '2' });
    const p = await api.patch(`${CM}/dry2?dryRun=All`, { data: { a: '3' } }, 'application/merge-patch+json');
    expect(p.body.data).toEqual({ a: '3' });
    const d = await api.del(`${CM}/dry2?dryRun=All`);
    expect(d.status).toBe(200);
    const g = await api.get(`${CM}/dry2`);
    expect(g.body.data).toEqual({ a: '1' });
    expect(await server.store.currentRevision()).toBe(mid);
    expect((await api.post(`${CM}?dryRun=Some`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).status).toBe(400);
  });
});
