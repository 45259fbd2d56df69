// Wire compatibility with a real kubectl: a tiny HTTP server records what `kubectl create ...`
// POSTs (kubectl 1.33 sends application/vnd.kubernetes.protobuf for built-in kinds) and answers
// with our own protobuf, which kubectl must decode back to the same JSON (-o json).
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject, hasProtobufPrefix, type JsonObject } from './index.js';
import { configMap, cronJob, deployment, pod, secret, service } from './testdata.js';

/** A Deployment whose pod template carries the full realistic PodSpec. */
const richDeployment: JsonObject = {
  ...deployment,
  spec: { ...(deployment.spec as JsonObject), template: { metadata: { labels: { app: 'web' }, annotations: { a: 'b' } }, spec: pod.spec } },
};

/** Objects the fake server answers a create with (our protobuf), keyed by the requested name. */
const REPLIES: Record<string, JsonObject> = {
  rich: richDeployment,
  'web-config': configMap,
  'web-creds': secret,
  'web-svc': service,
};

/** Objects the fake server serves on GET (protobuf when the client prefers it, else JSON). */
const OBJECTS: Record<string, JsonObject> = {
  '/apis/batch/v1/namespaces/default/cronjobs/nightly': { ...cronJob, metadata: { ...(cronJob.metadata as JsonObject), namespace: 'default' } },
};

/** Go prints unset Time/pointer fields as null; our JSON omits them. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
  }
  return v;
}

const run = promisify(execFile);

/** kubectl pinned to 1.33 (the machine's dispatcher re-executes per server version; call the pinned one). */
function findKubectl(): string {
  const candidates = [process.env.KUBECTL_BIN, '/usr/lib/google-cloud-sdk/bin/kubectl.1.33'];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) candidates.push(join(dir, 'kubectl.1.33'));
  for (const dir of (process.env.PATH ?? '').split(delimiter)) candidates.push(join(dir, 'kubectl'));
  for (const c of candidates) {
    if (!c) continue;
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // try the next one
    }
  }
  throw new Error('no kubectl binary found (set KUBECTL_BIN)');
}

interface Recorded {
  method: string;
  path: string;
  contentType: string;
  accept: string;
  body: Uint8Array;
}

describe('bodies sent by kubectl', () => {
  const recorded: Recorded[] = [];
  let server: Server;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const kubectl = findKubectl();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const path = (req.url ?? '').split('?')[0];
        const json = (code: number, obj: unknown) => {
          res.writeHead(code, { 'content-type': 'application/json' });
          res.end(JSON.stringify(obj));
        };
        if (req.method === 'POST') {
          recorded.push({ method: req.method, path, contentType: String(req.headers['content-type']), accept: String(req.headers.accept), body: new Uint8Array(body) });
          // answer with our own encoding: kubectl (Go) must decode it
          const sent = new Uint8Array(body);
          const requested = (hasProtobufPrefix(sent) ? decodeProtobufObject(sent) : {}) as { metadata?: { name?: string } };
          const reply = REPLIES[requested.metadata?.name ?? ''];
          res.writeHead(201, { 'content-type': String(req.headers['content-type']) });
          res.end(reply ? encodeProtobufObject(reply) : body);
          return;
        }
        const served = OBJECTS[path];
        if (req.method === 'GET' && served) {
          if (String(req.headers.accept).startsWith('application/vnd.kubernetes.protobuf')) {
            res.writeHead(200, { 'content-type': 'application/vnd.kubernetes.protobuf' });
            res.end(encodeProtobufObject(served));
            return;
          }
          return json(200, served);
        }
        if (path === '/version') return json(200, { major: '1', minor: '33', gitVersion: 'v1.33.0' });
        if (path === '/api') return json(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
        if (path === '/apis') {
          const batch = { groupVersion: 'batch/v1', version: 'v1' };
          return json(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: 'batch', versions: [batch], preferredVersion: batch }] });
        }
        if (path === '/apis/batch/v1') {
          return json(200, {
            kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'batch/v1',
            resources: [
              { name: 'cronjobs', singularName: 'cronjob', namespaced: true, kind: 'CronJob', verbs: ['create', 'get', 'list'], shortNames: ['cj'] },
              { name: 'jobs', singularName: 'job', namespaced: true, kind: 'Job', verbs: ['create', 'get', 'list'] },
            ],
          });
        }
        if (path === '/api/v1') {
          return json(200, {
            kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'v1',
            resources: [
              { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['create', 'get', 'list'] },
              { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['create', 'get', 'list'] },
            ],
          });
        }
        json(404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    dir = mkdtempSync(join(tmpdir(), 'kubectl-wire-'));
    writeFileSync(join(dir, 'kubeconfig'), [
      'apiVersion: v1', 'kind: Config',
      'clusters:', `- cluster: {server: "http://127.0.0.1:${port}"}`, '  name: c',
      'contexts:', '- context: {cluster: c, user: u, namespace: default}', '  name: x',
      'current-context: x',
      'users:', '- name: u', '  user: {}', '',
    ].join('\n'));
    env = { PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') };
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  async function kubectlPost(args: string[]): Promise<{ sent: Recorded; stdout: string }> {
    const before = recorded.length;
    const { stdout } = await run(kubectl, args, { env, timeout: 30_000 });
    expect(recorded.length).toBe(before + 1);
    return { sent: recorded[before], stdout };
  }

  async function create(...args: string[]): Promise<Recorded> {
    const { sent, stdout } = await kubectlPost(['create', ...args]);
    expect(stdout).toMatch(/created/);
    return sent;
  }

  it('kubectl create configmap sends a protobuf ConfigMap', async () => {
    const r = await create('configmap', 'x', '--from-literal=a=b', '--from-literal=empty=');
    expect(r.path).toBe('/api/v1/namespaces/default/configmaps');
    expect(r.contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(r.accept).toBe('application/vnd.kubernetes.protobuf,application/json');
    expect(Array.from(r.body.subarray(0, 4))).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(decodeProtobufObject(r.body)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b', empty: '' } });
  });

  it('kubectl create secret generic: data bytes come out base64', async () => {
    const r = await create('secret', 'generic', 's', '--from-literal=pw=s3cr3t');
    expect(decodeProtobufObject(r.body)).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { pw: 'czNjcjN0' } });
  });

  it('kubectl create namespace', async () => {
    const r = await create('namespace', 'ns1');
    expect(r.path).toBe('/api/v1/namespaces');
    expect(decodeProtobufObject(r.body)).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' }, spec: {}, status: {} });
  });

  it('kubectl create deployment keeps replicas: 0', async () => {
    const r = await create('deployment', 'd', '--image=nginx', '--replicas=0', '--port=8080');
    expect(r.path).toBe('/apis/apps/v1/namespaces/default/deployments');
    expect(decodeProtobufObject(r.body)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', labels: { app: 'd' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 8080 }], resources: {} }] } },
        strategy: {},
      },
      status: {},
    });
  });

  it('kubectl create service clusterip: IntOrString targetPort', async () => {
    const r = await create('service', 'clusterip', 's', '--tcp=80:8080');
    expect(decodeProtobufObject(r.body)).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', labels: { app: 's' } },
      spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 's' }, type: 'ClusterIP' },
      status: { loadBalancer: {} },
    });
  });

  it('kubectl create poddisruptionbudget: percentage and non-omitempty zero counters', async () => {
    const r = await create('poddisruptionbudget', 'p', '--selector=app=x', '--min-available=50%');
    expect(decodeProtobufObject(r.body)).toEqual({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'p' },
      spec: { minAvailable: '50%', selector: { matchLabels: { app: 'x' } } },
      status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    });
  });

  it('kubectl create clusterrolebinding and cronjob', async () => {
    const crb = await create('clusterrolebinding', 'crb', '--clusterrole=view', '--user=jane', '--serviceaccount=default:web');
    expect(crb.path).toBe('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings');
    expect(decodeProtobufObject(crb.body)).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'crb' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' }, { kind: 'ServiceAccount', name: 'web', namespace: 'default' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    });
    const cj = await create('cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *', '--', 'true');
    expect(decodeProtobufObject(cj.body)).toEqual({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'cj' },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: { metadata: { name: 'cj' }, spec: { template: { metadata: {}, spec: { containers: [{ name: 'cj', image: 'busybox', command: ['true'], resources: {} }], restartPolicy: 'OnFailure' } } } },
      },
      status: {},
    });
  });

  it('kubectl decodes our protobuf Deployment (full pod spec) to the same JSON', async () => {
    const { stdout } = await kubectlPost(['create', 'deployment', 'rich', '--image=nginx', '-o', 'json']);
    expect(dropNulls(JSON.parse(stdout))).toEqual(richDeployment);
  });

  it('kubectl decodes our protobuf ConfigMap, Secret and Service to the same JSON', async () => {
    const cm = await kubectlPost(['create', 'configmap', 'web-config', '-o', 'json']);
    expect(dropNulls(JSON.parse(cm.stdout))).toEqual(configMap);
    const sec = await kubectlPost(['create', 'secret', 'generic', 'web-creds', '-o', 'json']);
    expect(dropNulls(JSON.parse(sec.stdout))).toEqual(secret);
    const svc = await kubectlPost(['create', 'service', 'nodeport', 'web-svc', '--tcp=80:8080', '-o', 'json']);
    expect(dropNulls(JSON.parse(svc.stdout))).toEqual(service);
  });

  it('kubectl create job --from=cronjob sends the rich job template in protobuf', async () => {
    const { sent } = await kubectlPost(['create', 'job', 'manual', '--from=cronjob/nightly']);
    expect(sent.path).toBe('/apis/batch/v1/namespaces/default/jobs');
    const job = decodeProtobufObject(sent.body) as { metadata: JsonObject; spec: JsonObject };
    const template = (cronJob.spec as { jobTemplate: { spec: JsonObject } }).jobTemplate;
    expect(job.metadata).toMatchObject({ name: 'manual', labels: { job: 'nightly' }, annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' } });
    expect((job.metadata.ownerReferences as JsonObject[])[0]).toMatchObject({ kind: 'CronJob', name: 'nightly', uid: 'uid-nightly', controller: true });
    // Go always writes the (empty) pod template metadata struct; the JSON API shows it as {}
    const want = template.spec as { template: JsonObject };
    expect(job.spec).toEqual({ ...want, template: { metadata: {}, ...want.template } });
  });
});
