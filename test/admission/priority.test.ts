// The built-in PriorityClasses (system-cluster-critical, system-node-critical, created at start), the Priority
// admission plugin (a pod gets its class's value and preemption policy; a missing class is Forbidden; a
// globalDefault class applies when none is named; only one default) and PriorityClass-scoped ResourceQuotas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

const NS = '/api/v1/namespaces/default';
const PCS = '/apis/scheduling.k8s.io/v1/priorityclasses';
const pod = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...meta },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});
const pc = (name: string, value: number, extra: Record<string, unknown> = {}) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...extra });

let api: ApiServer;
let c: ReturnType<typeof client>;
beforeAll(async () => {
  api = await testServer({ controllers: ['resourcequota-controller'] });
  c = client(api.url);
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(() => api.close());

describe('PriorityClasses and the Priority admission plugin', () => {
  it('system-cluster-critical and system-node-critical exist from the start', async () => {
    const cc = await c.get(`${PCS}/system-cluster-critical`);
    expect(cc.status).toBe(200);
    expect(cc.body).toMatchObject({ value: 2000000000, preemptionPolicy: 'PreemptLowerPriority' });
    expect(cc.body.globalDefault ?? false).toBe(false);
    expect(cc.body.description).toBe('Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.');
    expect((await c.get(`${PCS}/system-node-critical`)).body).toMatchObject({ value: 2000001000 });
  });

  it('a pod naming a class gets its priority and preemption policy; no class gives 0', async () => {
    const r = await c.post(`${NS}/pods`, pod('critical', { priorityClassName: 'system-cluster-critical' }));
    expect(r.status).toBe(201);
    expect(r.body.spec).toMatchObject({ priorityClassName: 'system-cluster-critical', priority: 2000000000, preemptionPolicy: 'PreemptLowerPriority' });
    expect((await c.post(PCS, pc('batch-low', 1000, { preemptionPolicy: 'Never' }))).status).toBe(201);
    const low = await c.post(`${NS}/pods`, pod('low', { priorityClassName: 'batch-low' }));
    expect(low.body.spec).toMatchObject({ priority: 1000, preemptionPolicy: 'Never' });
    const plain = await c.post(`${NS}/pods`, pod('plain'));
    expect(plain.body.spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(plain.body.spec.priorityClassName).toBeUndefined();
    // updates keep what creation set, even when the body leaves it out
    const cur = (await c.get(`${NS}/pods/low`)).body;
    delete cur.spec.priority;
    delete cur.spec.preemptionPolicy;
    const upd = await c.put(`${NS}/pods/low`, { ...cur, metadata: { ...cur.metadata, labels: { x: 'y' } } });
    expect(upd.status).toBe(200);
    expect(upd.body.spec).toMatchObject({ priority: 1000, preemptionPolicy: 'Never' });
  });

  it('a missing class, or a priority that differs from the class, is Forbidden as upstream words it', async () => {
    const r = await c.post(`${NS}/pods`, pod('lost', { priorityClassName: 'nope' }));
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('Forbidden');
    expect(r.body.message).toBe('pods "lost" is forbidden: no PriorityClass with name nope was found');
    const g = await c.post(`${NS}/pods`, pod('', { priorityClassName: 'nope' }, { name: undefined, generateName: 'gen-' }));
    expect(g.body.message).toBe('pods "gen-" is forbidden: no PriorityClass with name nope was found');
    const p = await c.post(`${NS}/pods`, pod('claims', { priorityClassName: 'batch-low', priority: 5 }));
    expect(p.status).toBe(403);
    expect(p.body.message).toBe('pods "claims" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name');
    const q = await c.post(`${NS}/pods`, pod('policy', { priorityClassName: 'batch-low', preemptionPolicy: 'PreemptLowerPriority' }));
    expect(q.status).toBe(403);
    expect(q.body.message).toBe('pods "policy" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name');
  });

  it('a globalDefault class applies to pods naming none; only one default may exist', async () => {
    expect((await c.post(PCS, pc('everyday', 500, { globalDefault: true }))).status).toBe(201);
    const second = await c.post(PCS, pc('also-default', 600, { globalDefault: true }));
    expect(second.status).toBe(403);
    // (the group's spelling in errors is the error-shape work's; the rest is upstream's text)
    expect(second.body.message).toMatch(/^priorityclasses\.scheduling\.(k8s|service)\.io "also-default" is forbidden: PriorityClass everyday is already marked as default\. Only one default can exist$/);
    const r = await c.post(`${NS}/pods`, pod('defaulted'));
    expect(r.body.spec).toMatchObject({ priorityClassName: 'everyday', priority: 500, preemptionPolicy: 'PreemptLowerPriority' });
    expect((await c.del(`${PCS}/everyday`)).status).toBe(200);
  });
});

describe('PriorityClass-scoped ResourceQuota', () => {
  it('counts only the pods of the named classes, and refuses the one past the limit', async () => {
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'crit' } });
    const CRIT = '/api/v1/namespaces/crit';
    const q = {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'critical-pods' },
      spec: { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['system-cluster-critical', 'system-node-critical'] }] } },
    };
    expect((await c.post(`${CRIT}/resourcequotas`, q)).status).toBe(201);
    expect((await c.post(`${CRIT}/pods`, pod('other'))).status).toBe(201);
    expect((await c.post(`${CRIT}/pods`, pod('c1', { priorityClassName: 'system-node-critical' }))).status).toBe(201);
    const over = await c.post(`${CRIT}/pods`, pod('c2', { priorityClassName: 'system-cluster-critical' }));
    expect(over.status).toBe(403);
    expect(over.body.message).toBe('pods "c2" is forbidden: exceeded quota: critical-pods, requested: pods=1, used: pods=1, limited: pods=1');
    expect((await c.post(`${CRIT}/pods`, pod('other2'))).status).toBe(201);
    let used: unknown;
    for (let i = 0; i < 200 && used === undefined; i++) {
      used = (await c.get(`${CRIT}/resourcequotas/critical-pods`)).body.status?.used;
      if (used === undefined) await new Promise((r) => setTimeout(r, 25));
    }
    expect(used).toEqual({ pods: '1' });
  });
});
