// A living cluster, driven with stock kubectl (1.33): Deployments roll out on simulated nodes, Jobs complete,
// crash-looping pods show their events. Simulated kubelet delays are small so the whole file stays fast.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let kc: string;
const k = (args: string[], input?: string) => kubectl(kc, args, input, 60_000);

beforeAll(async () => {
  server = await testServer({ controllers: ['*'], simulatedNodes: 3, simulatedPodStartMs: 50, simulatedPodReadyMs: 50, simulatedPodRunMs: 300 });
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
      expect(p.metadata.managedFields.map((m: { manager: string }) => m.manager)).toEqual(expect.arrayContaining(['kube-controller-manager', 'kube-scheduler', 'kubelet']));
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
});
