// An APIService for an external group (metrics-server's `v1beta1.metrics.k8s.io`, pointing at a Service): its
// Available condition with upstream's reasons (ServiceNotFound, ServicePortError, EndpointsNotFound,
// MissingEndpoints, FailedDiscoveryCheck, Passed), 503 for its group while unavailable, and — never dialing a
// simulated address — the discovery check and proxy reaching only the loopback target an endpoint pod names.
import { createServer, type Server } from 'node:https';
import { Socket } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { TestCA } from '../helpers/tls.js';

const KS = '/api/v1/namespaces/kube-system';
const APISVC = '/apis/apiregistration.k8s.io/v1/apiservices';
const apiService = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1beta1.metrics.k8s.io', labels: { 'k8s-app': 'metrics-server' } },
  spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { name: 'metrics-server', namespace: 'kube-system' }, ...extra },
});

let api: ApiServer;
let c: ReturnType<typeof client>;
let backend: Server;
let backendPort = 0;
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
const ca = new TestCA();

// every outgoing connection this process makes is recorded: none may go to a simulated (non-loopback) address
const dialed: string[] = [];
const connect = Socket.prototype.connect;
Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
  const o = args[0];
  if (o && typeof o === 'object' && 'host' in o) dialed.push(String((o as { host?: string }).host));
  else if (typeof args[1] === 'string') dialed.push(args[1]);
  return (connect as (...a: unknown[]) => Socket).apply(this, args);
} as typeof Socket.prototype.connect;

beforeAll(async () => {
  api = await testServer();
  c = client(api.url);
  // a local process a simulated pod fronts (what a developer runs), serving the group over TLS
  const cert = ca.issue('metrics-server', 'metrics-server', [], 'DNS:metrics-server.kube-system.svc');
  const { readFileSync } = await import('node:fs');
  backend = createServer({ cert: readFileSync(cert.cert), key: readFileSync(cert.key) }, (req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/apis/metrics.k8s.io/v1beta1') res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'metrics.k8s.io/v1beta1', resources: [{ name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] }] }));
    else if (req.url?.startsWith('/apis/metrics.k8s.io/v1beta1/nodes')) res.end(JSON.stringify({ kind: 'NodeMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items: [{ metadata: { name: 'from-backend' } }] }));
    else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
  backendPort = (backend.address() as { port: number }).port;
});
afterAll(async () => {
  Socket.prototype.connect = connect;
  await api?.close();
  backend?.close();
});

async function available(): Promise<Record<string, string>> {
  const r = await c.get(`${APISVC}/v1beta1.metrics.k8s.io`);
  return r.body.status?.conditions?.find((x: { type: string }) => x.type === 'Available') ?? {};
}

async function until(fn: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const reasonIs = (reason: string) => until(async () => (await available()).reason === reason, reason);

describe('an APIService backed by a Service', () => {
  it('reports why it is unavailable, step by step, and answers 503 for its group meanwhile', async () => {
    expect((await c.post(APISVC, apiService({ insecureSkipTLSVerify: true }))).status).toBe(201);
    await reasonIs('ServiceNotFound');
    expect(await available()).toMatchObject({ status: 'False', message: 'service/metrics-server in "kube-system" is not present' });
    for (const path of ['/apis/metrics.k8s.io/v1beta1/nodes', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/x', '/apis/metrics.k8s.io/v1beta1']) {
      const r = await c.get(path);
      expect(r.status, path).toBe(503);
      expect(r.text).toBe('service unavailable\n');
    }

    // discovery lists the group, as kube-aggregator does: Stale while unavailable
    const groups = (await c.get('/apis')).body.groups.map((g: { name: string }) => g.name);
    expect(groups).toContain('metrics.k8s.io');
    const agg = await c.get('/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    expect(agg.body.items.find((i: any) => i.metadata.name === 'metrics.k8s.io')).toEqual({ metadata: { name: 'metrics.k8s.io' }, versions: [{ version: 'v1beta1', resources: [], freshness: 'Stale' }] });

    await c.post(`${KS}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics-server' }, spec: { ports: [{ name: 'https', port: 8443, targetPort: 10250 }] } });
    await reasonIs('ServicePortError');
    expect((await available()).message).toBe('service/metrics-server in "kube-system" is not listening on port 443');
    const svc = (await c.get(`${KS}/services/metrics-server`)).body;
    await c.put(`${KS}/services/metrics-server`, { ...svc, spec: { ...svc.spec, ports: [{ name: 'https', port: 443, targetPort: 10250, protocol: 'TCP' }] } });
    await reasonIs('EndpointsNotFound');
    expect((await available()).message).toBe('cannot find endpoints for service/metrics-server in "kube-system"');

    await c.post(`${KS}/endpoints`, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'metrics-server' }, subsets: [] });
    await reasonIs('MissingEndpoints');
    expect((await available()).message).toBe('endpoints for service/metrics-server in "kube-system" have no addresses with port name "https"');
  });

  it('a simulated endpoint is never dialed: FailedDiscoveryCheck until its pod names a loopback target', async () => {
    await c.post(`${KS}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'metrics-server-0' }, spec: { containers: [{ name: 'm', image: 'metrics-server' }] } });
    const ep = (await c.get(`${KS}/endpoints/metrics-server`)).body;
    ep.subsets = [{ addresses: [{ ip: '10.244.1.7', targetRef: { kind: 'Pod', namespace: 'kube-system', name: 'metrics-server-0' } }], ports: [{ name: 'https', port: 10250, protocol: 'TCP' }] }];
    expect((await c.put(`${KS}/endpoints/metrics-server`, ep)).status).toBe(200);
    await reasonIs('FailedDiscoveryCheck');
    expect((await available()).message).toMatch(/^failing or missing response from https:\/\/10\.244\.1\.7:10250\/apis\/metrics\.k8s\.io\/v1beta1: .*never dialed/);
    expect(seen).toHaveLength(0);
    expect((await c.get('/apis/metrics.k8s.io/v1beta1/nodes')).status).toBe(503);

    // the pod fronts the local process: the discovery check passes, requests are proxied without credentials
    const pod = (await c.get(`${KS}/pods/metrics-server-0`)).body;
    pod.metadata.annotations = { 'sim.periscope.dev/port-forward': `10250=127.0.0.1:${backendPort}` };
    expect((await c.put(`${KS}/pods/metrics-server-0`, pod)).status).toBe(200);
    await reasonIs('Passed');
    expect(await available()).toMatchObject({ status: 'True', message: 'all checks passed' });
    const r = await c.get('/apis/metrics.k8s.io/v1beta1/nodes?limit=5', { Cookie: 'session=not-for-the-backend' });
    expect(r.status).toBe(200);
    expect(r.body.items[0].metadata.name).toBe('from-backend');
    const last = seen[seen.length - 1]!;
    expect(last.url).toBe('/apis/metrics.k8s.io/v1beta1/nodes?limit=5');
    expect(last.headers.authorization).toBeUndefined();
    expect(last.headers.cookie).toBeUndefined();
    expect(last.headers['x-remote-user']).toBeDefined();
    // discovery now carries the backend's resources, so kubectl finds and reads them through the proxy
    const agg = await c.get('/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    expect(agg.body.items.find((i: any) => i.metadata.name === 'metrics.k8s.io').versions[0]).toMatchObject({ version: 'v1beta1', freshness: 'Current', resources: [{ resource: 'nodes', scope: 'Cluster', verbs: ['get', 'list'], responseKind: { kind: 'NodeMetrics' } }] });
    const got = await kubectl(kubeconfigFor(api.url), ['get', 'nodes.metrics.k8s.io', '-o', 'json']);
    expect(got.stderr).toBe('');
    expect(JSON.parse(got.stdout).items[0].metadata.name).toBe('from-backend');
  });

  it('only loopback addresses were dialed', () => {
    expect(dialed.length).toBeGreaterThan(0);
    expect(dialed.filter((h) => h !== '127.0.0.1' && h !== 'localhost' && h !== '::1')).toEqual([]);
  });

  it('verifies the backend with caBundle against the Service name', async () => {
    const cur = (await c.get(`${APISVC}/v1beta1.metrics.k8s.io`)).body;
    const spec = { ...cur.spec, insecureSkipTLSVerify: false, caBundle: Buffer.from(new TestCA('other').ca.pem).toString('base64') };
    expect((await c.put(`${APISVC}/v1beta1.metrics.k8s.io`, { ...cur, spec })).status).toBe(200);
    await reasonIs('FailedDiscoveryCheck');
    expect((await c.get('/apis/metrics.k8s.io/v1beta1/nodes')).status).toBe(503);
    const again = (await c.get(`${APISVC}/v1beta1.metrics.k8s.io`)).body;
    expect((await c.put(`${APISVC}/v1beta1.metrics.k8s.io`, { ...again, spec: { ...again.spec, caBundle: Buffer.from(ca.ca.pem).toString('base64') } })).status).toBe(200);
    await reasonIs('Passed');
  });
});
