// Controllers of the kinds added with the real-manifest work: ReplicationController, ControllerRevisions
// (StatefulSet and DaemonSet history), HorizontalPodAutoscaler on pods without requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

async function until<T>(fn: () => Promise<T | undefined | false>, what: string, tries = 150): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('kinds served by the registry later', () => {
  let server: ApiServer;
  let kc: string;
  const k = (args: string[], input?: string) => kubectl(kc, args, input, 60_000);
  beforeAll(async () => {
    server = await testServer({ controllers: ['*'], simulatedNodes: 2, simulatedPodStartMs: 30, simulatedPodReadyMs: 30 });
    kc = kubeconfigFor(server.url);
    await client(server.url).post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  afterAll(() => server?.close());

  it('a ReplicationController keeps its replicas', async () => {
    const rc = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'legacy' }, spec: { replicas: 2, selector: { app: 'legacy' }, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
    expect((await k(['apply', '-f', '-'], JSON.stringify(rc))).code).toBe(0);
    await until(async () => JSON.parse((await k(['get', 'rc', 'legacy', '-o', 'json'])).stdout).status?.readyReplicas === 2, 'two ready');
    const pods = JSON.parse((await k(['get', 'pods', '-l', 'app=legacy', '-o', 'json'])).stdout).items;
    expect(pods[0].metadata.ownerReferences[0]).toMatchObject({ kind: 'ReplicationController', name: 'legacy', controller: true });
  });

  it('StatefulSet and DaemonSet history: rollout history lists revisions, undo goes back', async () => {
    const ds = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'fluentd:1' }] } } } };
    expect((await k(['apply', '-f', '-'], JSON.stringify(ds))).code).toBe(0);
    expect((await k(['rollout', 'status', 'ds/agent', '--timeout=30s'])).stdout).toContain('successfully rolled out');
    expect((await k(['set', 'image', 'ds/agent', 'agent=fluentd:2'])).code).toBe(0);
    expect((await k(['rollout', 'status', 'ds/agent', '--timeout=30s'])).stdout).toContain('successfully rolled out');
    const hist = await k(['rollout', 'history', 'ds/agent']);
    expect(hist.stdout).toMatch(/^1\s+/m);
    expect(hist.stdout).toMatch(/^2\s+/m);
    const undo = await k(['rollout', 'undo', 'ds/agent']);
    expect(undo.stdout).toContain('rolled back');
    await until(async () => (await k(['get', 'ds', 'agent', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).stdout === 'fluentd:1', 'image back');
    expect((await k(['rollout', 'status', 'ds/agent', '--timeout=30s'])).stdout).toContain('successfully rolled out');
    const revs = JSON.parse((await k(['get', 'controllerrevisions', '-o', 'json'])).stdout).items.filter((r: any) => r.metadata.ownerReferences[0].name === 'agent');
    expect(revs.map((r: any) => r.revision).sort()).toEqual([2, 3]);

    const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' }, spec: { serviceName: 'web', replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } } } };
    expect((await k(['apply', '-f', '-'], JSON.stringify(sts))).code).toBe(0);
    expect((await k(['rollout', 'status', 'sts/web', '--timeout=30s'])).code).toBe(0);
    expect((await k(['set', 'image', 'sts/web', 'web=nginx:2'])).code).toBe(0);
    const st = await k(['rollout', 'status', 'sts/web', '--timeout=30s']);
    expect(st.stdout).toContain('partitioned roll out complete: 2 new pods have been updated');
    expect((await k(['rollout', 'history', 'sts/web'])).stdout).toMatch(/^2\s+/m);
  });

  it('an HPA on pods without CPU requests: min replicas enforced, then ScalingActive=False (FailedGetResourceMetric)', async () => {
    expect((await k(['create', 'deployment', 'scaled', '--image=nginx', '--replicas=1'])).code).toBe(0);
    const hpaObj = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'scaled' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'scaled' }, minReplicas: 2, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
    };
    const applied = await k(['apply', '-f', '-'], JSON.stringify(hpaObj));
    expect(applied.stderr).toBe('');
    await until(async () => JSON.parse((await k(['get', 'deploy', 'scaled', '-o', 'json'])).stdout).spec.replicas === 2, 'scaled to min');
    // the next sync (a change to the HPA) finds the target within bounds and pods without CPU requests
    await k(['annotate', 'hpa', 'scaled', 'nudge=1']);
    const hpa = await until(async () => {
      const h = JSON.parse((await k(['get', 'hpa', 'scaled', '-o', 'json'])).stdout);
      return h.status?.conditions?.some((c: any) => c.type === 'ScalingActive') && h;
    }, 'ScalingActive');
    expect(hpa.status.conditions.find((c: any) => c.type === 'AbleToScale')).toMatchObject({ status: 'True', reason: 'SucceededGetScale' });
    expect(hpa.status.conditions.find((c: any) => c.type === 'ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetResourceMetric' });
    expect(hpa.status.currentReplicas).toBe(2);
    const ev = await until(async () => {
      const r = await k(['events', '--for', 'hpa/scaled']);
      return /FailedGetResourceMetric/.test(r.stdout) && r;
    }, 'FailedGetResourceMetric event');
    expect(ev.stdout).toMatch(/SuccessfulRescale\s+HorizontalPodAutoscaler\/scaled\s+New size: 2; reason: Current number of replicas below Spec.MinReplicas/);
  });
});
