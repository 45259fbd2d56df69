// ResourceQuota admission (object counts, compute resources, required requests/limits, scopes) and the
// resourcequota-controller's status; plus kubectl's view of a denial.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, testServer } from '../helpers/server.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';

const NS = '/api/v1/namespaces/default';
const quota = (name: string, hard: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...extra },
});
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
const pod = (name: string, resources?: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx', ...(resources ? { resources } : {}) }], ...spec },
});

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await fn();
    if (ok(v) || i > 200) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function fresh(flags: Record<string, unknown> = {}) {
  const api = await testServer(flags);
  const c = client(api.url);
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return { api, c };
}

describe('ResourceQuota admission', () => {
  let api: Awaited<ReturnType<typeof testServer>>;
  let c: ReturnType<typeof client>;
  beforeAll(async () => ({ api, c } = await fresh()));
  afterAll(() => api.close());

  it('counts objects: the create past count/configmaps is Forbidden with upstream\'s message', async () => {
    expect((await c.post(`${NS}/resourcequotas`, quota('objects', { 'count/configmaps': '2', services: '1' }))).status).toBe(201);
    expect((await c.post(`${NS}/configmaps`, cm('a'))).status).toBe(201);
    expect((await c.post(`${NS}/configmaps`, cm('b'))).status).toBe(201);
    const r = await c.post(`${NS}/configmaps`, cm('c'));
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('Forbidden');
    expect(r.body.message).toBe('configmaps "c" is forbidden: exceeded quota: objects, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2');
    // deleting one frees room; updates that change nothing counted pass
    expect((await c.del(`${NS}/configmaps/a`)).status).toBe(200);
    expect((await c.post(`${NS}/configmaps`, cm('c'))).status).toBe(201);
    const b = (await c.get(`${NS}/configmaps/b`)).body;
    expect((await c.put(`${NS}/configmaps/b`, { ...b, data: { k: 'v' } })).status).toBe(200);
    // services in a namespace of their own (default holds the kubernetes Service)
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    const TEAM = '/api/v1/namespaces/team';
    await c.post(`${TEAM}/resourcequotas`, quota('svc', { services: '1', 'services.nodeports': '1' }));
    const svc = (name: string, type = 'ClusterIP') => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type, ports: [{ port: 80 }] } });
    expect((await c.post(`${TEAM}/services`, svc('s1'))).status).toBe(201);
    expect((await c.post(`${TEAM}/services`, svc('s2'))).body.message).toBe('services "s2" is forbidden: exceeded quota: svc, requested: services=1, used: services=1, limited: services=1');
    // turning s1 into a NodePort service is an update that uses a node port: within quota once, then not
    const s1 = (await c.get(`${TEAM}/services/s1`)).body;
    const np = await c.put(`${TEAM}/services/s1`, { ...s1, spec: { ...s1.spec, type: 'NodePort', ports: [{ port: 80, name: 'a' }, { port: 81, name: 'b' }] } });
    expect(np.status).toBe(403);
    expect(np.body.message).toBe('services "s1" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
  });

  it('compute quotas need requests and limits stated and add them up per resource', async () => {
    const { api, c } = await fresh({ disableAdmissionPlugins: ['LimitRanger'] });
    try {
      await c.post(`${NS}/resourcequotas`, quota('compute', { 'requests.cpu': '1', 'limits.memory': '1Gi', pods: '5' }));
      const bare = await c.post(`${NS}/pods`, pod('bare'));
      expect(bare.status).toBe(403);
      expect(bare.body.message).toBe('pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c');
      expect((await c.post(`${NS}/pods`, pod('p1', { requests: { cpu: '600m' }, limits: { memory: '512Mi' } }))).status).toBe(201);
      const over = await c.post(`${NS}/pods`, pod('p2', { requests: { cpu: '500m' }, limits: { memory: '768Mi' } }));
      expect(over.status).toBe(403);
      expect(over.body.message).toBe(
        'pods "p2" is forbidden: exceeded quota: compute, requested: limits.memory=768Mi,requests.cpu=500m, used: limits.memory=512Mi,requests.cpu=600m, limited: limits.memory=1Gi,requests.cpu=1',
      );
      expect((await c.post(`${NS}/pods`, pod('p3', { requests: { cpu: '400m' }, limits: { memory: '512Mi' } }))).status).toBe(201);
    } finally {
      await api.close();
    }
  });

  it('refuses a quota whose hard amount is not a quantity (a decode error upstream: 400)', async () => {
    const r = await c.post(`${NS}/resourcequotas`, quota('bad', { pods: 'lots' }));
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('quantities must match the regular expression');
  });

  it('scoped quotas only track the pods in their scope', async () => {
    const { api, c } = await fresh();
    try {
      await c.post(`${NS}/resourcequotas`, quota('besteffort', { pods: '1' }, { scopes: ['BestEffort'] }));
      expect((await c.post(`${NS}/pods`, pod('be1'))).status).toBe(201);
      expect((await c.post(`${NS}/pods`, pod('be2'))).body.message).toBe('pods "be2" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1');
      expect((await c.post(`${NS}/pods`, pod('burstable', { requests: { cpu: '100m' } }))).status).toBe(201);
      expect((await c.post(`${NS}/configmaps`, cm('not-a-pod'))).status).toBe(201);
    } finally {
      await api.close();
    }
  });
});

describe('resourcequota-controller', () => {
  it('keeps status.hard and status.used current', async () => {
    const { api, c } = await fresh({ controllers: ['resourcequota-controller'] });
    try {
      await c.post(`${NS}/resourcequotas`, quota('q', { pods: '3', 'requests.memory': '1Gi', secrets: '10' }));
      const get = () => c.get(`${NS}/resourcequotas/q`).then((r) => r.body);
      let q = await until(get, (b) => b.status?.used?.pods === '0');
      expect(q.status).toEqual({ hard: { pods: '3', 'requests.memory': '1Gi', secrets: '10' }, used: { pods: '0', 'requests.memory': '0', secrets: '0' } });
      await c.post(`${NS}/pods`, pod('p', { requests: { memory: '256Mi' } }));
      q = await until(get, (b) => b.status?.used?.pods === '1');
      expect(q.status.used).toEqual({ pods: '1', 'requests.memory': '256Mi', secrets: '0' });
      await c.del(`${NS}/pods/p?gracePeriodSeconds=0`);
      q = await until(get, (b) => b.status?.used?.pods === '0');
      expect(q.status.used['requests.memory']).toBe('0');
    } finally {
      await api.close();
    }
  });
});

describe('kubectl', () => {
  it('kubectl create quota, then a create past it shows upstream\'s error', async () => {
    const { api } = await fresh();
    try {
      const kc = kubeconfigFor(api.url);
      const q = await kubectl(kc, ['create', 'quota', 'my-quota', '--hard=count/configmaps=1']);
      expect(q.stderr).toBe('');
      expect(q.stdout.trim()).toBe('resourcequota/my-quota created');
      expect((await kubectl(kc, ['create', 'configmap', 'one'])).code).toBe(0);
      const two = await kubectl(kc, ['create', 'configmap', 'two']);
      expect(two.code).not.toBe(0);
      expect(two.stderr.trim()).toBe(
        'error: failed to create configmap: configmaps "two" is forbidden: exceeded quota: my-quota, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1',
      );
    } finally {
      await api.close();
    }
  });
});
