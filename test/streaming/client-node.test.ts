// @kubernetes/client-node's Exec (WebSocket, v5 offered first), Log (plain and followed) and PortForward
// (legacy channel protocol) against the simulated kubelet.
import * as k8s from '@kubernetes/client-node';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { client } from '../helpers/server.js';

let server: ApiServer;
let kc: k8s.KubeConfig;
let http: Server;
let httpPort: number;

function sink(): { stream: Writable; text: () => string; ended: Promise<void> } {
  const chunks: Buffer[] = [];
  let end!: () => void;
  const ended = new Promise<void>((r) => (end = r));
  const stream = new Writable({
    write(c, _e, cb) {
      chunks.push(Buffer.from(c));
      cb();
    },
    final(cb) {
      end();
      cb();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString(), ended };
}

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, what: string, tries = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  http = createServer((req, res) => res.end(`local ${req.url}`));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  httpPort = (http.address() as AddressInfo).port;
  server = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, controllers: ['*'], simulatedNodes: 1, simulatedPodStartMs: 50, simulatedPodReadyMs: 50 },
    { log: () => {} },
  );
  kc = new k8s.KubeConfig();
  kc.loadFromOptions({ clusters: [{ name: 'p', server: server.url, skipTLSVerify: true }], users: [{ name: 'u' }], contexts: [{ name: 'p', cluster: 'p', user: 'u' }], currentContext: 'p' });
  const c = client(server.url);
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cn' } });
  await c.post('/api/v1/namespaces/cn/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { password: Buffer.from('s3cret').toString('base64') } });
  await c.post('/api/v1/namespaces/cn/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'app', labels: { tier: 'web' }, annotations: { 'sim.periscope.dev/port-forward': `8080=127.0.0.1:${httpPort}`, 'sim.periscope.dev/log': JSON.stringify({ rate: 20, format: 'text', levels: { info: 1 } }) } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'example/app:1',
          resources: { limits: { memory: '64Mi' } },
          env: [{ name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } }],
          envFrom: [{ secretRef: { name: 'creds' }, prefix: 'DB_' }],
          volumeMounts: [{ name: 'info', mountPath: '/etc/podinfo' }, { name: 'creds', mountPath: '/secrets', readOnly: true }],
        },
      ],
      volumes: [
        { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'creds', secret: { secretName: 'creds' } },
      ],
    },
  });
  await until(async () => (await c.get('/api/v1/namespaces/cn/pods/app')).body.status?.containerStatuses?.[0]?.state?.running, 'app running');
}, 60_000);
afterAll(async () => {
  await server.close();
  http.close();
});

describe('@kubernetes/client-node streaming', () => {
  it('Exec runs a command and reports its status', async () => {
    const out = sink();
    const err = sink();
    let status: k8s.V1Status | undefined;
    await new k8s.Exec(kc).exec('cn', 'app', 'app', ['sh', '-c', 'echo $MEM $DB_password; cat /etc/podinfo/labels /secrets/password; echo oops >&2; exit 4'], out.stream, err.stream, null, false, (s) => (status = s));
    await until(() => status, 'exec status');
    expect(out.text()).toBe('64 s3cret\ntier="web"s3cret');
    expect(err.text()).toBe('oops\n');
    expect(status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '4' }] } });
  });

  it('Exec with stdin', async () => {
    const out = sink();
    let status: k8s.V1Status | undefined;
    await new k8s.Exec(kc).exec('cn', 'app', 'app', ['sh'], out.stream, null, Readable.from(['echo from stdin\n', 'hostname\n']), false, (s) => (status = s));
    await until(() => status, 'exec status');
    expect(out.text()).toBe('from stdin\napp\n');
    expect(status).toMatchObject({ status: 'Success' });
  });

  it('Log reads, tails and follows', async () => {
    const tail = sink();
    await new k8s.Log(kc).log('cn', 'app', 'app', tail.stream, { tailLines: 2, timestamps: true });
    await tail.ended;
    expect(tail.text().trim().split('\n')).toHaveLength(2);
    expect(tail.text()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \S+ INFO /);
    const follow = sink();
    const ac = await new k8s.Log(kc).log('cn', 'app', 'app', follow.stream, { follow: true, tailLines: 0 });
    await until(() => follow.text().split('\n').length > 3, 'followed lines');
    ac.abort();
    expect(follow.text()).toMatch(/INFO /);
  });

  it('PortForward reaches the pod’s loopback target', async () => {
    const input = new PassThrough();
    const out = sink();
    const err = sink();
    const ws = (await new k8s.PortForward(kc).portForward('cn', 'app', [8080], out.stream, err.stream, input)) as unknown as { close(): void };
    input.write('GET /via-client-node HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await until(() => out.text().includes('local /via-client-node'), 'forwarded response');
    expect(out.text()).toMatch(/^HTTP\/1.1 200 OK/);
    expect(err.text()).toBe('');
    ws.close();
  });
});
