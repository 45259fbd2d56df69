// The simulated cluster's rules, over HTTP: --controllers, scheduling failures, node loss, Job failure modes,
// Recreate, progress deadlines, Events (series, TTL) and ttlSecondsAfterFinished.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { controllerEnabled } from '../../src/server/controllers/cluster.js';
import { parseFlags } from '../../src/server/flags.js';
import { builtinResourceTypes } from '../../src/server/registry/builtin.js';
import { simpleCrd } from '../helpers/crd.js';
import { client, testServer } from '../helpers/server.js';

async function until<T>(fn: () => Promise<T | undefined | false>, what: string, tries = 150): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const deployment = (name: string, extra: Record<string, unknown> = {}, podAnnotations?: Record<string, string>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name }, ...(podAnnotations ? { annotations: podAnnotations } : {}) }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    ...extra,
  },
});

describe('--controllers', () => {
  it('parses as kube-controller-manager: *, names, -names, aliases, empty', () => {
    expect(controllerEnabled(['*'], 'deployment-controller')).toBe(true);
    expect(controllerEnabled(['*', '-deployment'], 'deployment-controller')).toBe(false);
    expect(controllerEnabled(['*', '-deployment-controller'], 'job-controller')).toBe(true);
    expect(controllerEnabled(['job'], 'job-controller')).toBe(true);
    expect(controllerEnabled(['job'], 'deployment-controller')).toBe(false);
    expect(controllerEnabled([], 'garbage-collector-controller')).toBe(false);
    expect(parseFlags(['--controllers=']).controllers).toEqual([]);
    expect(parseFlags(['--controllers=*,-deployment,-job']).controllers).toEqual(['*', '-deployment', '-job']);
    const f = parseFlags(['--simulated-nodes', '5', '--event-ttl', '30m']);
    expect([f.simulatedNodes, f.eventTtlMs]).toEqual([5, 1_800_000]);
    expect(() => parseFlags(['--simulated-nodes', '-1'])).toThrow(/simulated-nodes/);
    expect(parseFlags([]).controllers).toEqual(['*']);
  });

  it('an empty list keeps the plain API server: a Deployment stays as written', async () => {
    const server = await testServer({ controllers: [] });
    try {
      const c = client(server.url);
      await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      expect((await c.post('/apis/apps/v1/namespaces/default/deployments', deployment('bare'))).status).toBe(201);
      await new Promise((r) => setTimeout(r, 300));
      expect((await c.get('/apis/apps/v1/namespaces/default/replicasets')).body.items).toEqual([]);
      expect((await c.get('/apis/apps/v1/namespaces/default/deployments/bare')).body.status).toBeUndefined();
      expect((await c.get('/api/v1/nodes')).body.items).toEqual([]);
      // no controller runs, so no controller's service account is made (--use-service-account-credentials)
      const accounts = (await c.get('/api/v1/namespaces/kube-system/serviceaccounts')).body.items.map((a: any) => a.metadata.name);
      expect(accounts.filter((n: string) => n !== 'default')).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('pods/binding', () => {
  it('assigns a node once, with PodScheduled=True; rejects a second binding and a non-Node target', async () => {
    const server = await testServer();
    try {
      const c = client(server.url);
      await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      await c.post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      const bad = await c.post('/api/v1/namespaces/default/pods/p/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Pod', name: 'x' } });
      expect(bad.status).toBe(422);
      const ok = await c.post('/api/v1/namespaces/default/pods/p/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } });
      expect([ok.status, ok.body.status]).toEqual([201, 'Success']);
      const pod = (await c.get('/api/v1/namespaces/default/pods/p')).body;
      expect(pod.spec.nodeName).toBe('n1');
      expect(pod.status.conditions).toContainEqual(expect.objectContaining({ type: 'PodScheduled', status: 'True' }));
      const again = await c.post('/api/v1/namespaces/default/pods/p/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n2' } });
      expect(again.status).toBe(409);
      expect(again.body.message).toContain('is already assigned to node "n1"');
      expect((await c.get('/api/v1/namespaces/default/pods/p/binding')).status).toBe(405);
    } finally {
      await server.close();
    }
  });
});

describe('a living cluster', () => {
  let server: ApiServer;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    server = await testServer({ controllers: ['*'], simulatedNodes: 2, simulatedPodStartMs: 30, simulatedPodReadyMs: 30, simulatedPodRunMs: 100 });
    c = client(server.url);
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    // the simulated nodes register after start, as kubelets do: the scheduler's "0/N" counts the nodes it has seen
    await until(async () => {
      const nodes = (await c.get('/api/v1/nodes')).body.items as any[];
      return nodes.filter((n) => n.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True')).length === 2;
    }, 'two Ready nodes');
  });
  afterAll(() => server.close());

  const events = async (name: string) => (await c.get(`/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=${name}`)).body.items as any[];

  it('an unschedulable pod gets PodScheduled=False (Unschedulable) and a FailedScheduling event', async () => {
    await c.post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'picky' }, spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'c', image: 'nginx' }] } });
    const pod = await until(async () => {
      const p = (await c.get('/api/v1/namespaces/default/pods/picky')).body;
      return p.status?.conditions?.find((x: any) => x.type === 'PodScheduled')?.status === 'False' && p;
    }, 'unschedulable');
    const cond = pod.status.conditions.find((x: any) => x.type === 'PodScheduled');
    expect(cond).toMatchObject({ reason: 'Unschedulable', message: expect.stringContaining("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.") });
    const ev = await until(async () => (await events('picky')).find((e) => e.reason === 'FailedScheduling'), 'FailedScheduling');
    expect(ev).toMatchObject({ type: 'Warning', source: { component: 'default-scheduler' } });
    // a node that fits arrives: the pod is scheduled
    await c.patch('/api/v1/nodes/periscope-worker-2', { metadata: { labels: { disk: 'ssd' } } }, 'application/merge-patch+json');
    await until(async () => (await c.get('/api/v1/namespaces/default/pods/picky')).body.spec.nodeName === 'periscope-worker-2', 'scheduled on the labelled node');
  });

  it('runs native sidecars (initContainers restartPolicy: Always) beside the main containers; a Job with one completes', async () => {
    const initContainers = [{ name: 'setup', image: 'busybox' }, { name: 'logshipper', image: 'alpine', restartPolicy: 'Always' }];
    await c.post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'with-sidecar' }, spec: { initContainers, containers: [{ name: 'main', image: 'nginx' }] } });
    const running = await until(async () => {
      const p = (await c.get('/api/v1/namespaces/default/pods/with-sidecar')).body;
      return p.status?.phase === 'Running' && p;
    }, 'sidecar pod running');
    const init = Object.fromEntries(running.status.initContainerStatuses.map((x: any) => [x.name, x]));
    expect(init.setup).toMatchObject({ ready: false, started: false, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
    expect(init.logshipper).toMatchObject({ ready: true, started: true, state: { running: {} } });
    await c.post('/apis/batch/v1/namespaces/default/jobs', {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'with-sidecar' },
      spec: { template: { spec: { restartPolicy: 'Never', initContainers, containers: [{ name: 'main', image: 'busybox' }] } } },
    });
    const job = await until(async () => {
      const j = (await c.get('/apis/batch/v1/namespaces/default/jobs/with-sidecar')).body;
      return j.status?.conditions?.some((x: any) => x.type === 'Complete' && x.status === 'True') && j;
    }, 'job complete');
    expect(job.status.succeeded).toBe(1);
    const pods = (await c.get('/api/v1/namespaces/default/pods?labelSelector=job-name%3Dwith-sidecar')).body.items as any[];
    expect(pods[0].status.phase).toBe('Succeeded');
    expect(pods[0].status.initContainerStatuses.find((x: any) => x.name === 'logshipper').state.terminated).toMatchObject({ exitCode: 0 });
  });

  it('a Job past its backoffLimit fails with BackoffLimitExceeded', async () => {
    await c.post('/apis/batch/v1/namespaces/default/jobs', {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'doomed' },
      spec: { backoffLimit: 1, template: { metadata: { annotations: { 'sim.periscope.dev/fail': 'exit' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    const job = await until(async () => {
      const j = (await c.get('/apis/batch/v1/namespaces/default/jobs/doomed')).body;
      return j.status?.conditions?.some((x: any) => x.type === 'Failed') && j;
    }, 'job failed');
    expect(job.status.conditions.find((x: any) => x.type === 'Failed')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    expect(job.status.failed).toBe(2);
  });

  it('a Job past activeDeadlineSeconds fails with DeadlineExceeded and its pods go', async () => {
    await c.post('/apis/batch/v1/namespaces/default/jobs', {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'slow' },
      spec: { activeDeadlineSeconds: 1, template: { metadata: { annotations: { 'sim.periscope.dev/fail': 'crash' } }, spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    const job = await until(async () => {
      const j = (await c.get('/apis/batch/v1/namespaces/default/jobs/slow')).body;
      return j.status?.conditions?.some((x: any) => x.type === 'Failed') && j;
    }, 'deadline');
    expect(job.status.conditions.find((x: any) => x.type === 'Failed')).toMatchObject({ reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' });
    await until(async () => (await c.get('/api/v1/namespaces/default/pods?labelSelector=job-name=slow')).body.items.every((p: any) => p.metadata.deletionTimestamp), 'pods deleted');
  });

  it('restartPolicy OnFailure restarts a failing container in place: the pod crash-loops, it does not fail', async () => {
    await c.post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'retrier', annotations: { 'sim.periscope.dev/fail': 'crash' } }, spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } });
    const pod = await until(async () => {
      const p = (await c.get('/api/v1/namespaces/default/pods/retrier')).body;
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff' && p;
    }, 'crash loop');
    expect(pod.status.phase).toBe('Running');
    // the first observed back-off may already be the second restart (a 300 ms back-off against a 100 ms poll)
    expect(pod.status.containerStatuses[0].restartCount).toBeGreaterThanOrEqual(1);
    expect(pod.status.containerStatuses[0]).toMatchObject({ lastState: { terminated: { exitCode: 1, reason: 'Error' } } });
  });

  it('a finished Job with ttlSecondsAfterFinished: 0 is deleted', async () => {
    await c.post('/apis/batch/v1/namespaces/default/jobs', {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'brief' },
      spec: { ttlSecondsAfterFinished: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    await until(async () => (await c.get('/apis/batch/v1/namespaces/default/jobs/brief')).status === 404, 'job deleted');
  });

  it('Recreate scales the old ReplicaSet to zero before the new one starts', async () => {
    await c.post('/apis/apps/v1/namespaces/default/deployments', deployment('rec', { strategy: { type: 'Recreate' } }));
    await until(async () => (await c.get('/apis/apps/v1/namespaces/default/deployments/rec')).body.status?.availableReplicas === 2, 'available');
    await c.patch('/apis/apps/v1/namespaces/default/deployments/rec', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } }, 'application/strategic-merge-patch+json');
    await until(async () => {
      const d = (await c.get('/apis/apps/v1/namespaces/default/deployments/rec')).body;
      return d.status?.updatedReplicas === 2 && d.status?.availableReplicas === 2 && d.status?.replicas === 2 && d.status.observedGeneration === 2;
    }, 'recreated');
    const scaled = await until(async () => {
      const m = (await events('rec')).filter((e) => e.reason === 'ScalingReplicaSet').sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).map((e) => e.message as string);
      return m.length >= 3 && m;
    }, 'three scaling events');
    const down = scaled.findIndex((m) => m.startsWith('Scaled down'));
    const up2 = scaled.findIndex((m, i) => i > 0 && m.startsWith('Scaled up'));
    expect(down).toBeGreaterThanOrEqual(0);
    expect(up2).toBeGreaterThan(down);
  });

  it('a rollout that cannot progress reports ProgressDeadlineExceeded', async () => {
    await c.post('/apis/apps/v1/namespaces/default/deployments', deployment('stuck', { progressDeadlineSeconds: 1 }, { 'sim.periscope.dev/fail': 'image' }));
    const d = await until(async () => {
      const x = (await c.get('/apis/apps/v1/namespaces/default/deployments/stuck')).body;
      return x.status?.conditions?.find((k: any) => k.type === 'Progressing')?.reason === 'ProgressDeadlineExceeded' && x;
    }, 'deadline exceeded', 60);
    expect(d.status.conditions.find((k: any) => k.type === 'Available')).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable' });
    const pod = (await c.get('/api/v1/namespaces/default/pods?labelSelector=app=stuck')).body.items[0];
    expect(pod.status.containerStatuses[0].state.waiting.reason).toBe('ImagePullBackOff');
  });

  it('repeated events are one Event with a count', async () => {
    await c.post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'looper', annotations: { 'sim.periscope.dev/fail': 'crash' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    const backoff = await until(async () => (await events('looper')).find((e) => e.reason === 'BackOff' && e.count >= 2), 'BackOff twice');
    expect(backoff).toMatchObject({ type: 'Warning', source: { component: 'kubelet' } });
    expect((await events('looper')).filter((e) => e.reason === 'BackOff')).toHaveLength(1);
  });

  it('old Events expire after --event-ttl', async () => {
    const short = await testServer({ controllers: ['*'], eventTtlMs: 1000 });
    const c = client(short.url);
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    await c.post('/api/v1/namespaces/default/events', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'ancient' }, involvedObject: { kind: 'Pod', name: 'x', namespace: 'default' },
      reason: 'Old', message: 'long ago', type: 'Normal', firstTimestamp: '2020-01-01T00:00:00Z', lastTimestamp: '2020-01-01T00:00:00Z', count: 1,
    });
    await until(async () => (await c.get('/api/v1/namespaces/default/events/ancient')).status === 404, 'expired event');
    await short.close();
  });

  it('pods of a deleted node fail', async () => {
    const p = await c.post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stranded' }, spec: { nodeName: 'periscope-worker-1', containers: [{ name: 'c', image: 'nginx' }] } });
    expect(p.status).toBe(201);
    await until(async () => (await c.get('/api/v1/namespaces/default/pods/stranded')).body.status?.phase === 'Running', 'running');
    await c.del('/api/v1/nodes/periscope-worker-1');
    const pod = await until(async () => {
      const x = (await c.get('/api/v1/namespaces/default/pods/stranded')).body;
      return x.status?.phase === 'Failed' && x;
    }, 'failed');
    expect(pod.status.reason).toBe('NodeLost');
  });
});

describe('kinds that arrive later', () => {
  it('EndpointSlices are kept once discovery.k8s.io serves them (a schemaless stand-in here)', async () => {
    const server = await testServer({ controllers: ['*'], simulatedNodes: 1, simulatedPodStartMs: 20, simulatedPodReadyMs: 20 });
    try {
      const c = client(server.url);
      await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      // before discovery.k8s.io is built in, a schemaless CRD stands in for it
      if (!builtinResourceTypes.some((t) => t.group === 'discovery.service.io' && t.plural === 'endpointslices'))
        expect((await c.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', simpleCrd({ group: 'discovery.service.io', plural: 'endpointslices', kind: 'EndpointSlice' }))).status).toBe(201);
      await until(async () => (await c.get('/apis/discovery.service.io/v1/namespaces/default/endpointslices')).status === 200, 'served');
      await c.post('/apis/apps/v1/namespaces/default/deployments', deployment('sliced'));
      await c.post('/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'sliced' }, spec: { selector: { app: 'sliced' }, ports: [{ name: 'http', port: 80 }] } });
      const slice = await until(async () => {
        const items = (await c.get('/apis/discovery.service.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io/service-name=sliced')).body.items;
        return items?.[0]?.endpoints?.filter((e: any) => e.conditions.ready).length === 2 && items[0];
      }, 'two ready endpoints');
      expect(slice).toMatchObject({ addressType: 'IPv4', ports: [{ name: 'http', port: 80, protocol: 'TCP' }], metadata: { labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' }, ownerReferences: [{ kind: 'Service', name: 'sliced' }] } });
      expect(slice.endpoints[0]).toMatchObject({ nodeName: 'periscope-worker-1', zone: 'zone-a', targetRef: { kind: 'Pod' } });
    } finally {
      await server.close();
    }
  });
});
