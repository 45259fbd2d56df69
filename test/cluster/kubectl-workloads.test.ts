// A living cluster, driven with stock kubectl (1.33): Deployments roll out on simulated nodes, Jobs complete,
// crash-looping pods show their events. Simulated kubelet delays are small so the whole file stays fast.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client } from '../helpers/server.js';

let server: ApiServer;
let kc: string;
const k = (args: string[], input?: string) => kubectl(kc, args, input, 60_000);

/** The controllers' clock: the CronJob test moves it forward a minute instead of waiting for one. */
let clockOffset = 0;

beforeAll(async () => {
  server = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, controllers: ['*'], simulatedNodes: 3, simulatedPodStartMs: 50, simulatedPodReadyMs: 50, simulatedPodRunMs: 300 },
    { now: () => Date.now() + clockOffset, log: () => {} },
  );
  kc = kubeconfigFor(server.url);
  await client(server.url).post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(() => server.close());

async function until<T>(fn: () => Promise<T | undefined>, what: string, tries = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a living cluster under kubectl', () => {
  it('nodes are registered, ready, with lease heartbeats', async () => {
    const r = await k(['get', 'nodes']);
    expect(r.stdout).toMatch(/periscope-worker-1\s+Ready/);
    expect(r.stdout).toMatch(/periscope-worker-3\s+Ready/);
    const leases = await k(['get', 'leases', '-n', 'kube-node-lease', '-o', 'name']);
    expect(leases.stdout).toMatch(/lease.coordination.[a-z0-9.]+\/periscope-worker-2/);
  });

  it('create deployment, rollout status, wait Available, set image, history, undo, scale, delete', async () => {
    expect((await k(['create', 'deployment', 'web', '--image=nginx', '--replicas=3'])).stdout).toContain('deployment.apps/web created');
    const st = await k(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    expect(st.stdout).toContain('deployment "web" successfully rolled out');
    const w = await k(['wait', '--for=condition=Available', 'deployment/web', '--timeout=30s']);
    expect(w.stdout).toContain('deployment.apps/web condition met');
    const pods = JSON.parse((await k(['get', 'pods', '-l', 'app=web', '-o', 'json', '--show-managed-fields'])).stdout).items;
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.status.phase).toBe('Running');
      expect(p.spec.nodeName).toMatch(/^periscope-worker-/);
      expect(p.metadata.ownerReferences[0]).toMatchObject({ kind: 'ReplicaSet', controller: true });
      expect(p.status.containerStatuses[0].imageID).toMatch(/sha256:/);
      expect(p.metadata.managedFields.map((m: { manager: string }) => m.manager)).toEqual(expect.arrayContaining(['kube-controller-manager', 'kubelet'])); // binding records no fields, as upstream
    }
    const dep = JSON.parse((await k(['get', 'deploy', 'web', '-o', 'json'])).stdout);
    expect(dep.status).toMatchObject({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
    expect(dep.status.conditions.find((c: { type: string }) => c.type === 'Progressing')).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable' });

    expect((await k(['set', 'image', 'deployment/web', 'nginx=nginx:1.27'])).code).toBe(0);
    expect((await k(['rollout', 'status', 'deployment/web', '--timeout=30s'])).stdout).toContain('successfully rolled out');
    const hist = await k(['rollout', 'history', 'deployment/web']);
    expect(hist.stdout).toMatch(/^1\s+/m);
    expect(hist.stdout).toMatch(/^2\s+/m);
    const undo = await k(['rollout', 'undo', 'deployment/web']);
    expect(undo.stdout).toContain('rolled back');
    expect((await k(['rollout', 'status', 'deployment/web', '--timeout=30s'])).stdout).toContain('successfully rolled out');
    const image = await k(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']);
    expect(image.stdout).toBe('nginx');
    const rs = JSON.parse((await k(['get', 'rs', '-l', 'app=web', '-o', 'json'])).stdout).items;
    expect(rs).toHaveLength(2);
    const revs = rs.map((r: any) => [r.spec.template.spec.containers[0].image, r.metadata.annotations['deployment.kubernetes.io/revision'], r.spec.replicas]).sort();
    expect(revs).toEqual([['nginx', '3', 3], ['nginx:1.27', '2', 0]]);

    expect((await k(['scale', 'deployment/web', '--replicas=5'])).code).toBe(0);
    expect((await k(['rollout', 'status', 'deployment/web', '--timeout=30s'])).stdout).toContain('successfully rolled out');
    // the replaced pods terminate (containers stop) and disappear
    await until(async () => JSON.parse((await k(['get', 'pods', '-l', 'app=web', '-o', 'json'])).stdout).items.length === 5, 'five pods');

    const events = await k(['events', '--for', 'deployment/web']);
    expect(events.stdout).toMatch(/ScalingReplicaSet\s+.*Scaled up replica set web-\w+ from 0 to 3/);
    const describe = await k(['describe', 'deployment', 'web']);
    expect(describe.stdout).toMatch(/Events:[\s\S]*ScalingReplicaSet/);
    const current = JSON.parse((await k(['get', 'pods', '-l', 'app=web', '-o', 'json'])).stdout).items[0];
    const podDescribe = await k(['describe', 'pod', current.metadata.name]);
    expect(podDescribe.stdout).toMatch(/Scheduled .*Successfully assigned default\//);

    expect((await k(['delete', 'deployment', 'web'])).code).toBe(0);
    await until(async () => JSON.parse((await k(['get', 'pods', '-l', 'app=web', '-o', 'json'])).stdout).items.length === 0, 'pods gone');
  });

  it('a Job runs to Complete', async () => {
    expect((await k(['create', 'job', 'pi', '--image=perl'])).code).toBe(0);
    const w = await k(['wait', '--for=condition=Complete', 'job/pi', '--timeout=30s']);
    expect(w.stdout).toContain('job.batch/pi condition met');
    const job = JSON.parse((await k(['get', 'job', 'pi', '-o', 'json'])).stdout);
    expect(job.status).toMatchObject({ succeeded: 1 });
    expect((await k(['get', 'pods', '-l', 'job-name=pi'])).stdout).toMatch(/Completed/);
  });

  it("a crash-looping pod's events are shown", async () => {
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'crasher', annotations: { 'sim.periscope.dev/fail': 'crash' } }, spec: { containers: [{ name: 'app', image: 'busybox' }] } });
    expect((await k(['apply', '-f', '-'], manifest)).code).toBe(0);
    await until(async () => /CrashLoopBackOff/.test((await k(['get', 'pod', 'crasher'])).stdout), 'CrashLoopBackOff');
    const ev = await until(async () => {
      const r = await k(['events', '--for', 'pod/crasher']);
      return /BackOff/.test(r.stdout) ? r : undefined;
    }, 'BackOff event');
    expect(ev.stdout).toMatch(/Warning\s+BackOff\s+Pod\/crasher\s+Back-off restarting failed container app/);
  });

  it('a CronJob fires on its schedule, and create job --from=cronjob works', async () => {
    expect((await k(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=* * * * *'])).code).toBe(0);
    const manual = await k(['create', 'job', 'tick-manual', '--from=cronjob/tick']);
    expect(manual.stdout).toContain('job.batch/tick-manual created');
    clockOffset += 61_000;
    await k(['annotate', 'cronjob', 'tick', 'nudge=1']); // a change makes the controller look at the moved clock now
    const job = await until(async () => {
      const jobs = JSON.parse((await k(['get', 'jobs', '-o', 'json'])).stdout).items;
      return jobs.find((j: any) => j.metadata.ownerReferences?.[0]?.kind === 'CronJob' && /^tick-\d+$/.test(j.metadata.name));
    }, 'a scheduled job');
    expect(job.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBeTruthy();
    await k(['wait', '--for=condition=Complete', `job/${job.metadata.name}`, '--timeout=30s']);
    const cj = await until(async () => {
      const c = JSON.parse((await k(['get', 'cronjob', 'tick', '-o', 'json'])).stdout);
      return c.status.lastSuccessfulTime ? c : undefined;
    }, 'lastSuccessfulTime');
    expect(cj.status.lastScheduleTime).toBeTruthy();
    expect((await k(['events', '--for', 'cronjob/tick'])).stdout).toMatch(/SuccessfulCreate\s+CronJob\/tick\s+Created job tick-\d+/);
  });

  it('a DaemonSet runs one pod on every node', async () => {
    const ds = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'fluentd' }] } } } };
    expect((await k(['apply', '-f', '-'], JSON.stringify(ds))).code).toBe(0);
    expect((await k(['rollout', 'status', 'ds/agent', '--timeout=30s'])).stdout).toContain('daemon set "agent" successfully rolled out');
    const pods = JSON.parse((await k(['get', 'pods', '-l', 'app=agent', '-o', 'json'])).stdout).items;
    expect(pods.map((p: any) => p.spec.nodeName).sort()).toEqual(['periscope-worker-1', 'periscope-worker-2', 'periscope-worker-3']);
    expect((await k(['set', 'image', 'ds/agent', 'agent=fluentd:2'])).code).toBe(0);
    expect((await k(['rollout', 'status', 'ds/agent', '--timeout=30s'])).stdout).toContain('successfully rolled out');
  });

  it('a StatefulSet creates ordered pods with their PersistentVolumeClaims', async () => {
    const sts = {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' },
      spec: {
        serviceName: 'db', replicas: 3, selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres', volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql' }] }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    };
    expect((await k(['apply', '-f', '-'], JSON.stringify(sts))).code).toBe(0);
    expect((await k(['rollout', 'status', 'sts/db', '--timeout=30s'])).stdout).toContain('partitioned roll out complete');
    const pods = JSON.parse((await k(['get', 'pods', '-l', 'app=db', '-o', 'json'])).stdout).items;
    expect(pods.map((p: any) => [p.metadata.name, p.status.phase, p.spec.hostname]).sort()).toEqual([['db-0', 'Running', 'db-0'], ['db-1', 'Running', 'db-1'], ['db-2', 'Running', 'db-2']]);
    expect(pods.find((p: any) => p.metadata.name === 'db-1').spec.volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName: 'data-db-1' } });
    const pvcs = (await k(['get', 'pvc', '-o', 'name'])).stdout.trim().split('\n').sort();
    expect(pvcs).toEqual(['persistentvolumeclaim/data-db-0', 'persistentvolumeclaim/data-db-1', 'persistentvolumeclaim/data-db-2']);
    // ordered: db-1 was created only once db-0 was running and ready
    const created = (n: string) => Date.parse(pods.find((p: any) => p.metadata.name === n).metadata.creationTimestamp);
    expect(created('db-0')).toBeLessThanOrEqual(created('db-1'));
    expect((await k(['scale', 'sts/db', '--replicas=1'])).code).toBe(0);
    await until(async () => (await k(['get', 'pods', '-l', 'app=db', '-o', 'name'])).stdout.trim() === 'pod/db-0', 'scaled down to db-0');
    expect((await k(['get', 'pvc', '-o', 'name'])).stdout).toContain('data-db-2'); // claims outlive their pods
  });

  it('Endpoints follow a Service and its ready pods', async () => {
    expect((await k(['create', 'deployment', 'api', '--image=nginx', '--replicas=2', '--port=80'])).code).toBe(0);
    expect((await k(['expose', 'deployment', 'api', '--port=8080', '--target-port=80'])).code).toBe(0);
    const ep = await until(async () => {
      const e = JSON.parse((await k(['get', 'endpoints', 'api', '-o', 'json'])).stdout || '{}');
      return e.subsets?.[0]?.addresses?.length === 2 ? e : undefined;
    }, 'two endpoint addresses');
    expect(ep.subsets[0].ports).toEqual([{ port: 80, protocol: 'TCP' }]);
  });
});
