// LimitRanger: LimitRange defaults applied to pod containers, min/max/ratio enforced with upstream's messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, testServer } from '../helpers/server.js';

const NS = '/api/v1/namespaces/default';
const pod = (name: string, resources?: Record<string, unknown>) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx', ...(resources ? { resources } : {}) }] },
});

describe('LimitRanger', () => {
  let api: Awaited<ReturnType<typeof testServer>>;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    api = await testServer({});
    c = client(api.url);
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    const lr = await c.post(`${NS}/limitranges`, {
      apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' },
      spec: { limits: [
        { type: 'Container', max: { cpu: '1', memory: '1Gi' }, min: { cpu: '100m' }, default: { cpu: '500m', memory: '512Mi' }, defaultRequest: { cpu: '200m' }, maxLimitRequestRatio: { cpu: '4' } },
        { type: 'PersistentVolumeClaim', max: { storage: '2Gi' }, min: { storage: '1Gi' } },
      ] },
    });
    expect(lr.status).toBe(201);
  });
  afterAll(() => api.close());

  it('applies default limits and requests and records them in the annotation', async () => {
    const r = await c.post(`${NS}/pods`, pod('d'));
    expect(r.status).toBe(201);
    expect(r.body.spec.containers[0].resources).toEqual({ limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '200m', memory: '512Mi' } });
    expect(r.body.metadata.annotations['kubernetes.io/limit-ranger']).toBe('LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c');
  });

  it('a container with its own limit requests that limit, not the namespace default', async () => {
    const r = await c.post(`${NS}/pods`, pod('own', { limits: { cpu: '800m' } }));
    expect(r.status).toBe(201);
    expect(r.body.spec.containers[0].resources.requests.cpu).toBe('800m');
    expect(r.body.spec.containers[0].resources.limits).toEqual({ cpu: '800m', memory: '512Mi' });
  });

  it('forbids a limit over max with upstream\'s message', async () => {
    const r = await c.post(`${NS}/pods`, pod('x', { limits: { cpu: '2' } }));
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('Forbidden');
    expect(r.body.message).toBe('pods "x" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });

  it('aggregates several violations in brackets, quantities printed canonically', async () => {
    const r = await c.post(`${NS}/pods`, pod('y', { requests: { cpu: '50m' }, limits: { cpu: '1', memory: '1.5Gi' } }));
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(
      'pods "y" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Container is 1Gi, but limit is 1536Mi, cpu max limit to request ratio per Container is 4, but provided ratio is 20.000000]',
    );
  });

  it('checks PVC storage requests against min and max', async () => {
    const pvc = (name: string, storage: string) => ({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
    });
    const small = await c.post(`${NS}/persistentvolumeclaims`, pvc('small', '500Mi'));
    expect(small.status).toBe(403);
    expect(small.body.message).toBe('persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
    const big = await c.post(`${NS}/persistentvolumeclaims`, pvc('big', '3Gi'));
    expect(big.body.message).toBe('persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but limit is 3Gi');
    expect((await c.post(`${NS}/persistentvolumeclaims`, pvc('ok', '1Gi'))).status).toBe(201);
  });

  it('is off with --disable-admission-plugins=LimitRanger', async () => {
    const other = await testServer({ disableAdmissionPlugins: ['LimitRanger'] });
    try {
      const o = client(other.url);
      await o.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      await o.post(`${NS}/limitranges`, { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } });
      const r = await o.post(`${NS}/pods`, pod('x', { limits: { cpu: '2' } }));
      expect(r.status).toBe(201);
    } finally {
      await other.close();
    }
  });
});
