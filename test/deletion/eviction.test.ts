// pods/{name}/eviction with PodDisruptionBudgets (policy/v1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';
import { eventually, ns, ownerRef, pod, type Api } from './support.js';

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

async function runningPod(name: string, app: string, opts: { ready?: boolean; nodeName?: string; controller?: any } = {}) {
  const spec: Record<string, unknown> = opts.nodeName ? { nodeName: opts.nodeName } : {};
  const meta: Record<string, unknown> = { labels: { app } };
  if (opts.controller) meta.ownerReferences = [ownerRef(opts.controller, { controller: true })];
  const c = await api.post(pods, pod(name, spec, meta));
  expect(c.status).toBe(201);
  const conditions = [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }];
  const s = await api.put(`${pods}/${name}/status`, { ...c.body, status: { phase: 'Running', conditions } });
  expect(s.status).toBe(200);
  return s.body;
}

/** A budget, once the disruption controller has computed its status. */
async function budget(name: string, app: string, spec: Record<string, unknown> = { minAvailable: 1 }) {
  const c = await api.post(pdbs, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { selector: { matchLabels: { app } }, ...spec } });
  expect(c.status).toBe(201);
  return observed(name);
}

/** Waits until the controller has observed the budget's current generation. */
function observed(name: string) {
  return eventually(async () => {
    const g = await api.get(`${pdbs}/${name}`);
    expect(g.body.status?.observedGeneration).toBe(g.body.metadata.generation);
    return g.body;
  });
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
    const b = await budget('tight', 'tight');
    expect(b.status).toMatchObject({ currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0 });
    const r = await evict('guarded');
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, message: "Cannot evict pod as it would violate the pod's disruption budget." });
    expect(r.body.details.causes).toEqual([{ reason: 'DisruptionBudget', message: 'The disruption budget tight needs 1 healthy pods and has 1 currently' }]);
    expect((await api.get(`${pods}/guarded`)).status).toBe(200);
  });

  it('spends a disruption from the budget, records the pod and marks it DisruptionTarget', async () => {
    await runningPod('spendable', 'loose', { nodeName: 'node-1' });
    await runningPod('loose-2', 'loose');
    const b = await budget('loose', 'loose');
    expect(b.status).toMatchObject({ observedGeneration: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 1 });
    expect(b.status.conditions).toEqual([
      { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 1, lastTransitionTime: expect.any(String) },
    ]);
    const w = await WatchStream.open(`${server.url}${pdbs}?watch=true&fieldSelector=metadata.name%3Dloose&resourceVersion=${b.metadata.resourceVersion}`);
    try {
      const r = await evict('spendable');
      expect(r.status).toBe(201);
      // the eviction records the pod; the controller lets it go again once the pod is terminating
      await w.until((evs) => evs.some((e) => e.object.status.disruptedPods?.spendable));
    } finally {
      w.close();
    }
    const after = await eventually(async () => {
      const g = (await api.get(`${pdbs}/loose`)).body;
      expect(g.status.disruptedPods).toBeUndefined();
      return g;
    });
    expect(after.status).toMatchObject({ currentHealthy: 1, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 0 });
    expect(after.status.conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' })]);
    // a scheduled pod goes through its grace period
    const p = (await api.get(`${pods}/spendable`)).body;
    expect(p.metadata.deletionTimestamp).toBeTruthy();
    expect(p.status.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }));
    // the budget is spent now
    expect((await evict('loose-2')).status).toBe(429);
    expect((await api.get(`${pods}/loose-2`)).status).toBe(200);
  });

  it('dry-run spends nothing and deletes nothing', async () => {
    await runningPod('dry', 'dry');
    await runningPod('dry-2', 'dry');
    const b = await budget('dry', 'dry');
    expect(b.status.disruptionsAllowed).toBe(1);
    const r = await evict('dry', eviction('dry'), '?dryRun=All');
    expect(r.status).toBe(201);
    const r2 = await evict('dry', eviction('dry', { dryRun: ['All'] }));
    expect(r2.status).toBe(201);
    expect((await api.get(`${pods}/dry`)).body.metadata.deletionTimestamp).toBeUndefined();
    const g = (await api.get(`${pdbs}/dry`)).body;
    expect(g.status.disruptionsAllowed).toBe(1);
    expect(g.status.disruptedPods).toBeUndefined();
  });

  it('evicts pods that are not running without consulting the budget', async () => {
    const c = await api.post(pods, pod('pending', {}, { labels: { app: 'tight' } }));
    expect(c.body.status.phase).toBe('Pending');
    expect((await evict('pending')).status).toBe(201);
    expect((await api.get(`${pods}/pending`)).status).toBe(404);
  });

  it('lets an unready pod go while the application is healthy, or always with AlwaysAllow', async () => {
    await runningPod('healthy-1', 'healthy-app');
    await runningPod('healthy-2', 'healthy-app');
    await runningPod('unready', 'healthy-app', { ready: false });
    const b = await budget('healthy-app', 'healthy-app', { minAvailable: 2 });
    expect(b.status).toMatchObject({ currentHealthy: 2, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 0 });
    expect((await evict('unready')).status).toBe(201);
    expect((await api.get(`${pdbs}/healthy-app`)).body.status.disruptionsAllowed).toBe(0);

    await runningPod('unready2', 'sick-app', { ready: false });
    expect((await budget('sick-app', 'sick-app')).status).toMatchObject({ currentHealthy: 0, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0 });
    expect((await evict('unready2')).status).toBe(429);
    await runningPod('unready3', 'sick-always', { ready: false });
    await budget('sick-always', 'sick-always', { minAvailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
    expect((await evict('unready3')).status).toBe(201);
  });

  it('waits (429) for a budget its controller could not compute, until it can', async () => {
    // a pod whose controller has no scale: a maxUnavailable budget cannot know how many pods to expect
    const owner = (await api.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'odd-owner' } })).body;
    await runningPod('odd', 'odd', { controller: owner });
    const c = await api.post(pdbs, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'odd' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'odd' } } } });
    expect(c.status).toBe(201);
    const failed = await eventually(async () => {
      const g = (await api.get(`${pdbs}/odd`)).body;
      expect(g.status?.conditions?.[0]?.reason).toBe('SyncFailed');
      return g;
    });
    expect(failed.status.conditions[0]).toMatchObject({ type: 'DisruptionAllowed', status: 'False', message: 'found no controllers for pod "odd"' });
    expect(failed.status.disruptionsAllowed).toBe(0);
    expect(failed.status.observedGeneration).toBeUndefined();
    const r = await evict('odd');
    expect(r.status).toBe(429);
    expect(r.body.details.causes[0].message).toBe('The disruption budget odd is still being processed by the server.');
    // an integer minAvailable counts the pods themselves
    const p = await api.patch(`${pdbs}/odd`, { spec: { maxUnavailable: null, minAvailable: 0 } }, 'application/merge-patch+json');
    expect(p.status).toBe(200);
    const ok = await observed('odd');
    expect(ok.status).toMatchObject({ observedGeneration: 2, currentHealthy: 1, desiredHealthy: 0, expectedPods: 1, disruptionsAllowed: 1 });
    expect(ok.status.conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '' })]);
    expect((await evict('odd')).status).toBe(201);
  });

  it("counts the controllers' scale for percentages and maxUnavailable, and follows pods and scale", async () => {
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const rs = await api.post(`/apis/apps/v1/namespaces/${NS}/replicasets`, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web' },
      spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template },
    });
    expect(rs.status).toBe(201);
    for (const n of ['web-1', 'web-2', 'web-3']) await runningPod(n, 'web', { controller: rs.body });
    const b = await budget('web', 'web', { maxUnavailable: '50%' });
    expect(b.status).toMatchObject({ expectedPods: 4, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 });

    // a pod turning unready
    const w3 = (await api.get(`${pods}/web-3`)).body;
    expect((await api.put(`${pods}/web-3/status`, { ...w3, status: { ...w3.status, conditions: [{ type: 'Ready', status: 'False' }] } })).status).toBe(200);
    await eventually(async () => {
      const g = (await api.get(`${pdbs}/web`)).body;
      expect(g.status).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 0 });
      expect(g.status.conditions[0]).toMatchObject({ status: 'False', reason: 'InsufficientPods' });
    });
    // the controller scaled down
    const sc = await api.get(`/apis/apps/v1/namespaces/${NS}/replicasets/web/scale`);
    expect((await api.put(`/apis/apps/v1/namespaces/${NS}/replicasets/web/scale`, { ...sc.body, spec: { replicas: 2 } })).status).toBe(200);
    await eventually(async () => {
      const g = (await api.get(`${pdbs}/web`)).body;
      expect(g.status).toMatchObject({ expectedPods: 2, desiredHealthy: 1, currentHealthy: 2, disruptionsAllowed: 1 });
    });

    // a ReplicaSet run by a Deployment counts with the Deployment's replicas
    const dep = await api.post(`/apis/apps/v1/namespaces/${NS}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api' },
      spec: { replicas: 5, selector: { matchLabels: { app: 'api' } }, template: { ...template, metadata: { labels: { app: 'api' } } } },
    });
    expect(dep.status).toBe(201);
    const depRs = await api.post(`/apis/apps/v1/namespaces/${NS}/replicasets`, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'api-1', ownerReferences: [ownerRef(dep.body, { controller: true })] },
      spec: { replicas: 1, selector: { matchLabels: { app: 'api' } }, template: { ...template, metadata: { labels: { app: 'api' } } } },
    });
    expect(depRs.status).toBe(201);
    await runningPod('api-1-a', 'api', { controller: depRs.body });
    const d = await budget('api', 'api', { minAvailable: '40%' });
    expect(d.status).toMatchObject({ expectedPods: 5, desiredHealthy: 2, currentHealthy: 1, disruptionsAllowed: 0 });
  });

  it('refuses a pod covered by two budgets with 500', async () => {
    await runningPod('doubly', 'doubly');
    await budget('doubly-a', 'doubly', { minAvailable: 0 });
    await budget('doubly-b', 'doubly', { minAvailable: 0 });
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
