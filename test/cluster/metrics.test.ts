// metrics.k8s.io served from the simulated kubelets: discovery in metrics-server's shape, NodeMetrics and PodMetrics
// (from the `sim.periscope.dev/usage` annotation or derived from requests), `kubectl top` with kubectl 1.27 and
// 1.33, Table output, and the HPA controller scaling a Deployment on CPU utilisation: up when usage exceeds the
// target, down once the (behavior-configured) stabilization window allows, held by the default 300s window.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { parseUsageAnnotation } from '../../src/server/sim/usage.js';
import { KUBECTL, kubeconfigFor } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

const binary = (v: string) => join(dirname(KUBECTL), `kubectl.${v}`);
const versions = ['1.27', '1.33'].filter((v) => existsSync(binary(v)));
const home = mkdtempSync(join(tmpdir(), 'metrics-kubectl-'));

let server: ApiServer;
let kc: string;
let api: ReturnType<typeof client>;

function run(v: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(binary(v), ['--kubeconfig', kc, ...args], { timeout: 60_000, env: { ...process.env, HOME: join(home, v) } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}
const k = (args: string[], input?: string) => run('1.33', args, input);

async function until<T>(fn: () => Promise<T | undefined | false>, what: string, tries = 600): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const pod = (name: string, annotations: Record<string, string>, requests?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: name }, annotations },
  spec: { containers: [{ name: 'app', image: 'nginx', ...(requests ? { resources: { requests } } : {}) }] },
});

const running = async (name: string) => until(async () => (await api.get(`/api/v1/namespaces/default/pods/${name}`)).body?.status?.phase === 'Running', `${name} Running`);

beforeAll(async () => {
  server = await testServer({ controllers: ['*'], simulatedNodes: 2, simulatedPodStartMs: 30, simulatedPodReadyMs: 30, hpaSyncPeriodMs: 500 });
  kc = kubeconfigFor(server.url);
  api = client(server.url);
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(() => server?.close());

describe('the usage annotation', () => {
  it('parses for all containers or per container, and reports what it ignores', () => {
    const a = parseUsageAnnotation('cpu=250m,memory=64Mi');
    expect(a.all).toEqual({ cpu: 250_000_000, memory: 64 * 1024 * 1024 });
    const b = parseUsageAnnotation('app:cpu=1;sidecar:memory=1Gi;cpu=5m');
    expect(b.byContainer.get('app')).toEqual({ cpu: 1e9 });
    expect(b.byContainer.get('sidecar')).toEqual({ memory: 2 ** 30 });
    expect(b.all).toEqual({ cpu: 5e6 });
    expect(parseUsageAnnotation('gpu=1,cpu=-1,memory=lots').errors).toHaveLength(3);
  });
});

describe('metrics.k8s.io from the simulated kubelets', () => {
  it('discovery and the local APIService have metrics-server’s shape', async () => {
    const r = await api.get('/apis/metrics.k8s.io/v1beta1');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'metrics.k8s.io/v1beta1' });
    const byName = Object.fromEntries(r.body.resources.map((x: any) => [x.name, x]));
    expect(byName.nodes).toMatchObject({ name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] });
    expect(byName.pods).toMatchObject({ name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] });
    const svc = await until(async () => {
      const s = await api.get('/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io');
      return s.status === 200 && s.body.status?.conditions && s.body;
    }, 'APIService');
    expect(svc.spec.service).toBeUndefined();
    expect(svc.status.conditions[0]).toMatchObject({ type: 'Available', status: 'True', reason: 'Local' });
    expect((await api.del('/apis/metrics.k8s.io/v1beta1/nodes/x')).status).toBe(405);
    const v3 = await api.get('/openapi/v3/apis/metrics.k8s.io/v1beta1');
    expect(v3.status).toBe(200);
    expect(Object.keys(v3.body.components.schemas)).toEqual(expect.arrayContaining(['io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics', 'io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetricsList']));
    expect((await api.get('/openapi/v2')).status).toBe(200);
  });

  it('PodMetrics follow the usage annotation; NodeMetrics add the node’s pods to its own share', async () => {
    await api.post('/api/v1/namespaces/default/pods', pod('busy', { 'sim.periscope.dev/usage': 'cpu=250m,memory=64Mi' }, { cpu: '500m', memory: '128Mi' }));
    await running('busy');
    const pm = await api.get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/busy');
    expect(pm.status).toBe(200);
    expect(pm.body).toMatchObject({
      kind: 'PodMetrics',
      apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: { name: 'busy', namespace: 'default', labels: { app: 'busy' } },
      window: '15s',
      containers: [{ name: 'app', usage: { cpu: '250000000n', memory: '65536Ki' } }],
    });
    expect(pm.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // the canonical spelling answers too
    expect((await api.get('/apis/metrics.service.io/v1beta1/namespaces/default/pods/busy')).body.apiVersion).toBe('metrics.service.io/v1beta1');
    const p = (await api.get('/api/v1/namespaces/default/pods/busy')).body;
    const nm = await api.get(`/apis/metrics.k8s.io/v1beta1/nodes/${p.spec.nodeName}`);
    expect(nm.body).toMatchObject({ kind: 'NodeMetrics', metadata: { name: p.spec.nodeName, labels: { 'kubernetes.io/hostname': p.spec.nodeName } }, window: '15s' });
    const cpu = Number(/^(\d+)n$/.exec(nm.body.usage.cpu)![1]);
    expect(cpu).toBeGreaterThanOrEqual(250_000_000 + 100_000_000);
    const list = await api.get('/apis/metrics.k8s.io/v1beta1/nodes');
    expect(list.body.kind).toBe('NodeMetricsList');
    expect(list.body.items.map((x: any) => x.metadata.name)).toEqual(['periscope-worker-1', 'periscope-worker-2']);
    // derived from requests: within 40-60% of the CPU request, steady between reads
    await api.post('/api/v1/namespaces/default/pods', pod('idle', {}, { cpu: '200m', memory: '100Mi' }));
    await running('idle');
    const a = (await api.get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/idle')).body.containers[0].usage;
    const idleCpu = Number(/^(\d+)n$/.exec(a.cpu)![1]);
    expect(idleCpu).toBeGreaterThanOrEqual(80_000_000);
    expect(idleCpu).toBeLessThanOrEqual(120_000_000);
    const sel = await api.get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dbusy');
    expect(sel.body.items.map((x: any) => x.metadata.name)).toEqual(['busy']);
    // no metrics for a pod that does not exist (metrics-server's NotFound)
    const nf = await api.get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope');
    expect(nf.status).toBe(404);
    expect(nf.body.message).toBe('podmetrics.metrics.k8s.io "default/nope" not found');
  });

  it.each(versions)('kubectl %s top nodes and top pods', async (v) => {
    const nodes = await run(v, ['top', 'nodes']);
    expect(nodes.stderr).toBe('');
    expect(nodes.stdout).toMatch(/^NAME\s+CPU\(cores\)\s+CPU(\(%\)|%)\s+MEMORY\(bytes\)\s+MEMORY(\(%\)|%)/);
    expect(nodes.stdout).toMatch(/periscope-worker-1\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%/);
    expect(nodes.stdout).toMatch(/periscope-worker-2\s+\d+m/);
    const pods = await run(v, ['top', 'pods']);
    expect(pods.stderr).toBe('');
    expect(pods.stdout).toMatch(/^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/);
    expect(pods.stdout).toMatch(/busy\s+250m\s+64Mi/);
    expect((await run(v, ['top', 'pod', 'busy', '--containers'])).stdout).toMatch(/busy\s+app\s+250m\s+64Mi/);
  });

  it('applying metrics-server’s APIService keeps the built-in serving: Available (Local), kubectl top still works', async () => {
    const manifest = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.metrics.k8s.io', labels: { 'k8s-app': 'metrics-server' } },
      spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true, service: { name: 'metrics-server', namespace: 'kube-system' } },
    };
    for (const mode of [[], ['--server-side']]) {
      const r = await k(['apply', ...mode, '-f', '-'], JSON.stringify(manifest));
      // (client-side apply warns that the object it patches was not made by apply, as upstream's does)
      expect(r.stderr.replace(/^Warning: resource apiservices\/v1beta1.metrics.k8s.io is missing the kubectl.kubernetes.io\/last-applied-configuration annotation.*\n/, ''), r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    const svc = await until(async () => {
      const s = (await api.get('/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io')).body;
      return s.status?.conditions?.[0]?.message?.includes('spec.service is not used') && s;
    }, 'Local condition');
    expect(svc.spec.service).toMatchObject({ name: 'metrics-server', namespace: 'kube-system' });
    expect(svc.status.conditions[0]).toMatchObject({ type: 'Available', status: 'True', reason: 'Local' });
    const top = await k(['top', 'nodes']);
    expect(top.stderr).toBe('');
    expect(top.stdout).toMatch(/periscope-worker-1\s+\d+m/);
  });

  it('Table output as metrics-server prints it', async () => {
    const r = await k(['get', 'pods.metrics.k8s.io', 'busy']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^NAME\s+CPU\s+MEMORY\s+WINDOW/);
    expect(r.stdout).toMatch(/busy\s+250m\s+64Mi\s+15s/);
  });
});

describe('the HPA controller on metrics', () => {
  const deployment = (name: string, usage: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name }, annotations: { 'sim.periscope.dev/usage': usage } }, spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } },
    },
  });
  const hpa = (name: string, behavior?: unknown) => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 1,
      maxReplicas: 6,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      ...(behavior ? { behavior } : {}),
    },
  });
  const replicas = async (name: string) => (await api.get(`/apis/apps/v1/namespaces/default/deployments/${name}`)).body.spec.replicas as number;
  const hpaOf = async (name: string) => (await api.get(`/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/${name}`)).body;
  const cond = (h: any, type: string) => h.status?.conditions?.find((c: any) => c.type === type);

  it('scales up when usage exceeds the target, and down once the behavior’s stabilization window (0s) allows', async () => {
    expect((await k(['apply', '-f', '-'], JSON.stringify(deployment('web', 'cpu=200m')))).code).toBe(0);
    expect((await k(['apply', '-f', '-'], JSON.stringify(hpa('web', { scaleDown: { stabilizationWindowSeconds: 0 } })))).code).toBe(0);
    // 200m of 100m requested is 200% against a 50% target: 4 replicas (pods count once a 15s window passed since Ready)
    await until(async () => (await replicas('web')) === 4, 'scaled up to 4');
    const up = await until(async () => {
      const h = await hpaOf('web');
      return h.status?.currentMetrics?.length && h;
    }, 'HPA status');
    expect(cond(up, 'ScalingActive')).toMatchObject({ status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' });
    expect(up.status.lastScaleTime).toBeDefined();
    expect(cond(up, 'ScalingLimited')).toMatchObject({ status: 'False', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' });
    const events = await until(async () => {
      const r = await k(['events', '--for', 'hpa/web']);
      return /SuccessfulRescale/.test(r.stdout) && r.stdout;
    }, 'SuccessfulRescale event');
    expect(events).toMatch(/New size: 4; reason: cpu resource utilization \(percentage of request\) above target/);
    expect((await k(['get', 'hpa', 'web'])).stdout).toMatch(/web\s+Deployment\/web\s+cpu: \d+%\/50%\s+1\s+6\s+4/);
    // usage drops on every pod: back to 1 replica at the next sync, the window being 0s
    await until(async () => {
      await k(['annotate', 'pods', '-l', 'app=web', '--overwrite', 'sim.periscope.dev/usage=cpu=10m']);
      return (await replicas('web')) === 1;
    }, 'scaled down to 1');
    const down = await until(async () => {
      const r = await k(['events', '--for', 'hpa/web']);
      return /New size: 1; reason: All metrics below target/.test(r.stdout) && r.stdout;
    }, 'scale-down event');
    expect(down).toMatch(/SuccessfulRescale/);
  });

  it('without behavior, the default 300s scale-down stabilization keeps the replicas', async () => {
    expect((await k(['apply', '-f', '-'], JSON.stringify(deployment('held', 'cpu=100m')))).code).toBe(0);
    expect((await k(['apply', '-f', '-'], JSON.stringify(hpa('held')))).code).toBe(0);
    // 100% of the request against 50%: 2 replicas
    await until(async () => (await replicas('held')) === 2, 'scaled up to 2');
    await k(['annotate', 'pods', '-l', 'app=held', '--overwrite', 'sim.periscope.dev/usage=cpu=5m']);
    const h = await until(async () => {
      const x = await hpaOf('held');
      return cond(x, 'AbleToScale')?.reason === 'ScaleDownStabilized' && x;
    }, 'ScaleDownStabilized');
    expect(cond(h, 'AbleToScale')).toMatchObject({ status: 'True', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
    expect(await replicas('held')).toBe(2);
  });

  it('memory utilisation scales too, capped at maxReplicas (ScalingLimited TooManyReplicas)', async () => {
    const dep = deployment('mem', 'memory=150Mi');
    dep.spec.template.spec.containers[0]!.resources = { requests: { memory: '100Mi' } } as never;
    expect((await k(['apply', '-f', '-'], JSON.stringify(dep))).code).toBe(0);
    const h = hpa('mem');
    h.spec.maxReplicas = 2;
    h.spec.metrics = [{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 50 } } }];
    expect((await k(['apply', '-f', '-'], JSON.stringify(h))).code).toBe(0);
    // 150% of the request against 50%: 3 wanted, 2 allowed
    await until(async () => (await replicas('mem')) === 2, 'scaled up to 2');
    const x = await until(async () => {
      const y = await hpaOf('mem');
      return cond(y, 'ScalingLimited')?.status === 'True' && y;
    }, 'ScalingLimited');
    expect(cond(x, 'ScalingLimited')).toMatchObject({ reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' });
    expect(x.status.currentMetrics[0]).toMatchObject({ type: 'Resource', resource: { name: 'memory', current: { averageUtilization: 150 } } });
  });

  it('pods without CPU requests: ScalingActive=False with upstream’s reason', async () => {
    expect((await k(['create', 'deployment', 'norequests', '--image=nginx'])).code).toBe(0);
    expect((await k(['apply', '-f', '-'], JSON.stringify(hpa('norequests')))).code).toBe(0);
    const h = await until(async () => {
      const x = await hpaOf('norequests');
      return cond(x, 'ScalingActive')?.status === 'False' && x;
    }, 'ScalingActive=False');
    expect(cond(h, 'ScalingActive').reason).toBe('FailedGetResourceMetric');
    expect(cond(h, 'ScalingActive').message).toMatch(/^the HPA was unable to compute the replica count: failed to get cpu utilization: (missing request for cpu in container nginx of Pod norequests-|did not receive metrics for any ready pods)/);
  });
});
