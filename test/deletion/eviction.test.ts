// pods/{name}/eviction with PodDisruptionBudgets (policy/v1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { ns, pod, type Api } from './support.js';

let server: ApiServer;
let api: Api;
const NS = 'evict';
const pods = `/api/v1/namespaces/${NS}/pods`;
const pdbs = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  expect((await api.post('/api/v1/namespaces', ns(NS))).status).toBe(201);
});
afterAll(() => server.close());

const eviction = (name: string, deleteOptions?: unknown) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: NS }, deleteOptions });

async function runningPod(name: string, app: string, opts: { ready?: boolean; nodeName?: string } = {}) {
  const spec: Record<string, unknown> = opts.nodeName ? { nodeName: opts.nodeName } : {};
  const c = await api.post(pods, pod(name, spec, { labels: { app } }));
  expect(c.status).toBe(201);
  const conditions = [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }];
  const s = await api.put(`${pods}/${name}/status`, { ...c.body, status: { phase: 'Running', conditions } });
  expect(s.status).toBe(200);
  return s.body;
}

async function budget(name: string, app: string, status: Record<string, unknown>, spec: Record<string, unknown> = {}) {
  const c = await api.post(pdbs, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: { app } }, ...spec } });
  expect(c.status).toBe(201);
  // there is no disruption controller: the tests play its part
  const s = await api.put(`${pdbs}/${name}/status`, { ...c.body, status: { observedGeneration: c.body.metadata.generation, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0, ...status } });
  expect(s.status).toBe(200);
  return s.body;
}

const evict = (name: string, body: unknown = eviction(name), query = '') => api.post(`${pods}/${name}/eviction${query}`, body);

describe('eviction', () => {
  it('is listed in discovery as a create-only sub-resource of kind policy/v1 Eviction', async () => {
    const r = await api.get('/api/v1');
    expect(r.body.resources.find((x: any) => x.name === 'pods/eviction')).toMatchObject({ kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] });
  });

  it('deletes a pod no budget covers, answering 201 with a Status', async () => {
    await runningPod('free', 'nobody');
    const r = await evict('free');
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect((await api.get(`${pods}/free`)).status).toBe(404);
  });

  it('refuses with 429 while the budget allows no disruption', async () => {
    await runningPod('guarded', 'tight');
    await budget('tight', 'tight', { currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0 });
    const r = await evict('guarded');
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, message: "Cannot evict pod as it would violate the pod's disruption budget." });
    expect(r.body.details.causes).toEqual([{ reason: 'DisruptionBudget', message: 'The disruption budget tight needs 1 healthy pods and has 1 currently' }]);
    expect((await api.get(`${pods}/guarded`)).status).toBe(200);
  });

  it('spends a disruption from the budget, records the pod and marks it DisruptionTarget', async () => {
    await runningPod('spendable', 'loose', { nodeName: 'node-1' });
    await budget('loose', 'loose', { currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 1 });
    const r = await evict('spendable');
    expect(r.status).toBe(201);
    const b = (await api.get(`${pdbs}/loose`)).body;
    expect(b.status.disruptionsAllowed).toBe(0);
    expect(Object.keys(b.status.disruptedPods)).toEqual(['spendable']);
    expect(b.status.conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' })]);
    // a scheduled pod goes through its grace period
    const p = (await api.get(`${pods}/spendable`)).body;
    expect(p.metadata.deletionTimestamp).toBeTruthy();
    expect(p.status.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }));
    // the budget is spent now
    await runningPod('next', 'loose');
    expect((await evict('next')).status).toBe(429);
  });

  it('dry-run spends nothing and deletes nothing', async () => {
    await runningPod('dry', 'dry');
    await budget('dry', 'dry', { currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 1 });
    const r = await evict('dry', eviction('dry'), '?dryRun=All');
    expect(r.status).toBe(201);
    const r2 = await evict('dry', eviction('dry', { dryRun: ['All'] }));
    expect(r2.status).toBe(201);
    expect((await api.get(`${pods}/dry`)).body.metadata.deletionTimestamp).toBeUndefined();
    expect((await api.get(`${pdbs}/dry`)).body.status.disruptionsAllowed).toBe(1);
  });

  it('evicts pods that are not running without consulting the budget', async () => {
    const c = await api.post(pods, pod('pending', {}, { labels: { app: 'tight' } }));
    expect(c.body.status.phase).toBe('Pending');
    expect((await evict('pending')).status).toBe(201);
    expect((await api.get(`${pods}/pending`)).status).toBe(404);
  });

  it('lets an unready pod go while the application is healthy, or always with AlwaysAllow', async () => {
    await runningPod('unready', 'healthy-app', { ready: false });
    await budget('healthy-app', 'healthy-app', { currentHealthy: 2, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 0 });
    expect((await evict('unready')).status).toBe(201);
    expect((await api.get(`${pdbs}/healthy-app`)).body.status.disruptionsAllowed).toBe(0);

    await runningPod('unready2', 'sick-app', { ready: false });
    await budget('sick-app', 'sick-app', { currentHealthy: 0, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0 });
    expect((await evict('unready2')).status).toBe(429);
    await runningPod('unready3', 'sick-always', { ready: false });
    await budget('sick-always', 'sick-always', { currentHealthy: 0, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0 }, { unhealthyPodEvictionPolicy: 'AlwaysAllow' });
    expect((await evict('unready3')).status).toBe(201);
  });

  it('waits (429) for a budget its controller has not observed yet', async () => {
    await runningPod('fresh', 'fresh');
    const c = await api.post(pdbs, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'fresh' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'fresh' } } } });
    expect(c.status).toBe(201);
    const r = await evict('fresh');
    expect(r.status).toBe(429);
    expect(r.body.details.causes[0].message).toBe('The disruption budget fresh is still being processed by the server.');
  });

  it('refuses a pod covered by two budgets with 500', async () => {
    await runningPod('doubly', 'doubly');
    await budget('doubly-a', 'doubly', { disruptionsAllowed: 5 });
    await budget('doubly-b', 'doubly', { disruptionsAllowed: 5 });
    const r = await evict('doubly');
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.' });
    expect((await api.get(`${pods}/doubly`)).status).toBe(200);
  });

  it('applies the Eviction\'s DeleteOptions', async () => {
    const p = await runningPod('opts', 'nobody', { nodeName: 'node-1' });
    const wrong = await evict('opts', eviction('opts', { preconditions: { uid: 'other' } }));
    expect(wrong.status).toBe(409);
    const r = await evict('opts', eviction('opts', { gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid } }));
    expect(r.status).toBe(201);
    expect((await api.get(`${pods}/opts`)).status).toBe(404);
  });

  it('checks the request', async () => {
    await runningPod('checked', 'nobody');
    expect((await evict('checked', eviction('other'))).status).toBe(400);
    expect((await evict('checked', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'checked' } })).status).toBe(400);
    expect((await api.get(`${pods}/checked/eviction`)).status).toBe(405);
    expect((await evict('missing')).status).toBe(404);
    expect((await api.post(`/api/v1/namespaces/${NS}/configmaps/x/eviction`, eviction('x'))).status).toBe(404);
  });
});
