// The connect sub-resources at the wire level: discovery, upstream's errors for plain and malformed
// requests, PodLogOptions validation, the WebSocket channel protocols (v4 and base64 exec; the legacy
// port-forward channels), authorization as `create` for a WebSocket GET, and the idle timeout.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ApiServer } from '../../src/server/app.js';
import { authzServer, type AuthzFixture } from '../authz/support.js';

let fx: AuthzFixture;
let srv: ApiServer;
let http: Server;
let httpPort: number;
const admin = () => fx.as('admin');
const wsURL = (path: string) => srv.url.replace(/^http/, 'ws') + path;

async function until<T>(fn: () => Promise<T | undefined>, what: string, tries = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Opens a WebSocket and collects its messages until it closes. */
function session(path: string, protocols: string[], token = 'admin-token', send: (ws: WebSocket) => void = () => {}) {
  const ws = new WebSocket(wsURL(path), protocols, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const messages: { data: Buffer; binary: boolean }[] = [];
  let status: number | undefined;
  ws.on('unexpected-response', (_req, res) => {
    status = res.statusCode;
    let body = '';
    res.on('data', (b) => (body += b));
    res.on('end', () => ws.emit('close-http', body));
  });
  ws.on('open', () => send(ws));
  ws.on('message', (data: Buffer, binary: boolean) => messages.push({ data: Buffer.from(data), binary }));
  const done = new Promise<{ messages: typeof messages; protocol: string; status?: number; body?: string }>((resolve) => {
    ws.on('close', () => resolve({ messages, protocol: ws.protocol }));
    ws.on('close-http' as any, (body: string) => resolve({ messages, protocol: '', status, body }));
    ws.on('error', () => {});
  });
  return { ws, done };
}

beforeAll(async () => {
  http = createServer((req, res) => res.end(`local ${req.url}`));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  httpPort = (http.address() as AddressInfo).port;
  fx = await authzServer({ controllers: ['*'], simulatedNodes: 1, simulatedPodStartMs: 50, simulatedPodReadyMs: 50, simulatedPodRunMs: 300, streamingConnectionIdleTimeoutMs: 1500 }, []);
  srv = fx.srv;
  const a = admin();
  await a.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  await a.post('/api/v1/namespaces/team/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', annotations: { 'sim.periscope.dev/port-forward': `80=127.0.0.1:${httpPort}`, 'sim.periscope.dev/log': 'one\ntwo\nthree' } },
    spec: { containers: [{ name: 'web', image: 'nginx' }, { name: 'sidecar', image: 'busybox' }] },
  });
  // a pod naming a non-loopback target: ignored by the annotation parser, so nothing is ever dialled for it
  await a.post('/api/v1/namespaces/team/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'outside', annotations: { 'sim.periscope.dev/port-forward': '80=10.244.0.9:80' } }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  await a.post('/api/v1/namespaces/team/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'puller', annotations: { 'sim.periscope.dev/fail': 'image' } }, spec: { containers: [{ name: 'app', image: 'nope' }] } });
  await until(async () => (await a.get('/api/v1/namespaces/team/pods/web')).body.status?.containerStatuses?.every((s: any) => s.state?.running), 'web running');
  await until(async () => (await a.get('/api/v1/namespaces/team/pods/puller')).body.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 'puller failing');
  // dave may get pods/exec but not create it; erin may create it
  await a.post('/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'exec-get' }, rules: [{ apiGroups: [''], resources: ['pods', 'pods/exec', 'pods/log'], verbs: ['get'] }] });
  await a.post('/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'exec-create' }, rules: [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] }] });
  for (const [user, role] of [['dave', 'exec-get'], ['erin', 'exec-create']])
    await a.post('/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: `${user}-${role}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role }, subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.k8s.io' }],
    });
}, 60_000);
afterAll(async () => {
  await fx.close();
  http.close();
});

describe('connect sub-resources', () => {
  it('are listed in discovery with upstream verbs', async () => {
    const list = (await admin().get('/api/v1')).body.resources as { name: string; verbs: string[]; kind: string }[];
    const of = (n: string) => list.find((r) => r.name === n);
    expect(of('pods/log')).toMatchObject({ kind: 'Pod', verbs: ['get'] });
    expect(of('pods/exec')).toMatchObject({ kind: 'PodExecOptions', verbs: ['create', 'get'] });
    expect(of('pods/attach')).toMatchObject({ kind: 'PodAttachOptions', verbs: ['create', 'get'] });
    expect(of('pods/portforward')).toMatchObject({ kind: 'PodPortForwardOptions', verbs: ['create', 'get'] });
    expect(of('pods/proxy')).toMatchObject({ kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] });
    expect(of('services/proxy')).toMatchObject({ kind: 'ServiceProxyOptions' });
    expect(of('nodes/proxy')).toMatchObject({ kind: 'NodeProxyOptions' });
  });

  it('answer plain requests as upstream', async () => {
    const a = admin();
    const plain = await a.post('/api/v1/namespaces/team/pods/web/exec?command=env&stdout=true&container=web', '');
    expect(plain.status).toBe(400);
    expect(plain.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'Upgrade request required' });
    expect((await a.post('/api/v1/namespaces/team/pods/web/portforward', '')).body.message).toBe('Upgrade request required');
    expect((await a.post('/api/v1/namespaces/team/pods/nope/exec?command=env&stdout=true', '')).status).toBe(404);
    const none = await a.post('/api/v1/namespaces/team/pods/web/exec?command=env&container=web', '');
    expect(none.body.message).toBe('you must specify at least 1 of stdin, stdout, stderr');
    const which = await a.post('/api/v1/namespaces/team/pods/web/exec?command=env&stdout=true', '');
    expect(which.body.message).toBe('a container name must be specified for pod web, choose one of: [web sidecar]');
    expect((await a.get('/api/v1/namespaces/team/pods/web/proxy/')).status).toBe(503);
  });

  it('serve logs with upstream validation and kubelet errors', async () => {
    const a = admin();
    const base = '/api/v1/namespaces/team/pods/web/log';
    expect((await a.get(`${base}?container=web`)).text).toMatch(/started \(image nginx, restart 0\)\none\ntwo\nthree\n$/);
    expect((await a.get(`${base}?container=web&tailLines=2`)).text).toBe('two\nthree\n');
    expect((await a.get(`${base}?container=web&tailLines=2&limitBytes=5`)).text).toBe('two\nt');
    expect((await a.get(`${base}?container=web&sinceTime=2099-01-01T00:00:00Z`)).text).toBe('');
    expect((await a.get(`${base}?container=web&sinceTime=2000-01-01T00:00:00Z`)).text).toMatch(/three\n$/);
    expect((await a.get(`${base}?container=web&stream=Stderr`)).text).toBe('');
    expect((await a.get(`${base}?container=web&stream=Stdout&timestamps=true`)).text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \[periscope-sim\]/);
    const neg = await a.get(`${base}?container=web&tailLines=-1`);
    expect(neg.status).toBe(422);
    expect(neg.body).toMatchObject({ reason: 'Invalid', details: { kind: 'PodLogOptions' } });
    expect(neg.body.message).toContain('must be greater than or equal to 0');
    const both = await a.get(`${base}?container=web&sinceSeconds=10&sinceTime=2024-01-01T00:00:00Z`);
    expect(both.status).toBe(422);
    expect(both.body.message).toContain('at most one of `sinceTime` or `sinceSeconds` may be specified');
    expect((await a.get(`${base}?container=web&limitBytes=0`)).body.message).toContain('must be greater than 0');
    const which = await a.get(base);
    expect(which.status).toBe(400);
    expect(which.body.message).toBe('a container name must be specified for pod web, choose one of: [web sidecar]');
    const pull = await a.get('/api/v1/namespaces/team/pods/puller/log');
    expect(pull.status).toBe(400);
    expect(pull.body.message).toBe('container "app" in pod "puller" is waiting to start: trying and failing to pull image');
    expect((await a.get(`${base}?container=web&previous=true`)).body.message).toBe('previous terminated container "web" in pod "web" not found');
    expect((await a.post(`${base}?container=web`, '')).status).toBe(405);
  });

  it('exec over v4.channel.k8s.io: a ready message, stdout, and the Status on the error channel', async () => {
    const ok = await session('/api/v1/namespaces/team/pods/web/exec?container=web&stdout=true&stderr=true&command=echo&command=hi', ['v4.channel.k8s.io']).done;
    expect(ok.protocol).toBe('v4.channel.k8s.io');
    expect(ok.messages.map((m) => [...m.data])).toEqual([[1], [1, ...Buffer.from('hi\n')], [3, ...Buffer.from('{"metadata":{},"status":"Success"}')]]);
    const bad = await session('/api/v1/namespaces/team/pods/web/exec?container=web&stdout=true&stderr=true&command=sh&command=-c&command=exit%2042', ['v4.channel.k8s.io']).done;
    const status = JSON.parse(bad.messages.find((m) => m.data[0] === 3)!.data.subarray(1).toString());
    expect(status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '42' }] } });
  });

  it('exec over base64.channel.k8s.io: text messages, channel digit then base64', async () => {
    const r = await session('/api/v1/namespaces/team/pods/web/exec?container=web&stdout=true&command=hostname', ['base64.channel.k8s.io']).done;
    expect(r.protocol).toBe('base64.channel.k8s.io');
    expect(r.messages.every((m) => !m.binary)).toBe(true);
    expect(r.messages.map((m) => m.data.toString())).toContain('1' + Buffer.from('web\n').toString('base64'));
  });

  it('v5 stdin closes with the close signal', async () => {
    const r = await session('/api/v1/namespaces/team/pods/web/exec?container=web&stdin=true&stdout=true&command=cat', ['v5.channel.k8s.io'], 'admin-token', (ws) => {
      ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('typed\n')]));
      ws.send(Buffer.from([255, 0]));
    }).done;
    expect(Buffer.concat(r.messages.filter((m) => m.data[0] === 1).map((m) => m.data.subarray(1))).toString()).toBe('typed\n');
    expect(r.messages.at(-1)!.data.subarray(1).toString()).toBe('{"metadata":{},"status":"Success"}');
  });

  it('reads Go-style booleans and text frames as the kubelet does (Python client), and Origin rules apply', async () => {
    const path = '/api/v1/namespaces/team/pods/web/exec?container=web&stdin=True&stdout=True&stderr=True&tty=False&command=cat';
    const r = await session(path, ['v4.channel.k8s.io'], 'admin-token', (ws) => {
      ws.send('\u0000as text\n', { binary: false });
      setTimeout(() => ws.close(), 300);
    }).done;
    expect(Buffer.concat(r.messages.filter((m) => m.data[0] === 1).map((m) => m.data.subarray(1))).toString()).toBe('as text\n');
    const host = new URL(srv.url).host;
    // Python's websocket-client sends http:// even over TLS: with an explicit port, the other scheme is this listener
    const sameListener = await new Promise<number>((resolve) => {
      const ws = new WebSocket(wsURL('/api/v1/namespaces/team/pods/web/exec?container=web&stdout=true&command=true'), ['v5.channel.k8s.io'], { headers: { Authorization: 'Bearer admin-token', Origin: `https://${host}` } });
      ws.on('open', () => resolve(101));
      ws.on('unexpected-response', (_q, res) => resolve(res.statusCode!));
      ws.on('error', () => {});
    });
    expect(sameListener).toBe(101);
    const other = await new Promise<number>((resolve) => {
      const ws = new WebSocket(wsURL('/api/v1/namespaces/team/pods/web/exec?container=web&stdout=true&command=true'), ['v5.channel.k8s.io'], { headers: { Authorization: 'Bearer admin-token', Origin: 'http://127.0.0.1:1' } });
      ws.on('open', () => resolve(101));
      ws.on('unexpected-response', (_q, res) => resolve(res.statusCode!));
      ws.on('error', () => {});
    });
    expect(other).toBe(403);
  });

  it('exec with a terminal (-it, the explorer’s xterm.js): prompt, echo, backspace, CR LF, resize ignored', async () => {
    const r = await session('/api/v1/namespaces/team/pods/web/exec?container=web&stdin=true&stdout=true&tty=true&command=sh', ['v5.channel.k8s.io'], 'admin-token', (ws) => {
      const send = (ch: number, text: string) => ws.send(Buffer.concat([Buffer.from([ch]), Buffer.from(text)]));
      send(4, '{"Width":80,"Height":24}\n');
      send(0, 'ecx\x7fho hi\r');
      // the next line once the shell prompts again (typed ahead, its echo would come first, as on a pty)
      let seen = '';
      ws.on('message', (d: Buffer) => {
        if (d[0] === 1) seen += d.subarray(1).toString();
        if (seen.endsWith('hi\r\n/ # ')) send(0, '\x1b[Aexit 2\r');
      });
    }).done;
    const out = Buffer.concat(r.messages.filter((m) => m.data[0] === 1).map((m) => m.data.subarray(1))).toString();
    expect(out).toBe('/ # ecx\b \bho hi\r\nhi\r\n/ # exit 2\r\n');
    expect(JSON.parse(r.messages.find((m) => m.data[0] === 3)!.data.subarray(1).toString()).details.causes[0].message).toBe('2');
  });

  it('a WebSocket GET exec is authorized as create', async () => {
    const path = '/api/v1/namespaces/team/pods/web/exec?container=web&stdout=true&command=hostname';
    const dave = await session(path, ['v5.channel.k8s.io'], 'dave-token').done;
    expect(dave.status).toBe(403);
    expect(JSON.parse(dave.body!).message).toContain('cannot create resource "pods/exec"');
    const erin = await session(path, ['v5.channel.k8s.io'], 'erin-token').done;
    expect(erin.protocol).toBe('v5.channel.k8s.io');
    expect(Buffer.concat(erin.messages.filter((m) => m.data[0] === 1).map((m) => m.data.subarray(1))).toString()).toBe('web\n');
    // a browser cannot set Authorization: the token comes as a subprotocol, which is never echoed back
    const viaProtocol = await session(path, [`base64url.bearer.authorization.k8s.io.${Buffer.from('erin-token').toString('base64url')}`, 'v5.channel.k8s.io'], '').done;
    expect(viaProtocol.protocol).toBe('v5.channel.k8s.io');
    expect(Buffer.concat(viaProtocol.messages.filter((m) => m.data[0] === 1).map((m) => m.data.subarray(1))).toString()).toBe('web\n');
    // pods/log is a get
    expect((await fx.as('dave').get('/api/v1/namespaces/team/pods/web/log?container=web&tailLines=1')).text).toBe('three\n');
    expect((await fx.as('erin').get('/api/v1/namespaces/team/pods/web/log?container=web')).status).toBe(403);
  });

  it('port-forward over the legacy channel protocol: port prefixes, data, and errors for ports with no target', async () => {
    let ws!: WebSocket;
    const got: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      ws = new WebSocket(wsURL('/api/v1/namespaces/team/pods/web/portforward?ports=80,81'), ['v4.channel.k8s.io'], { headers: { Authorization: 'Bearer admin-token' } });
      ws.on('message', (d: Buffer) => {
        got.push(Buffer.from(d));
        if (got.some((g) => g[0] === 0 && g.length > 3) && got.some((g) => g[0] === 3 && g.length > 3)) resolve();
      });
      ws.on('open', () => ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('GET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')])));
      ws.on('error', reject);
    });
    ws.close();
    expect(got.slice(0, 4).map((g) => [...g])).toEqual([[0, 80, 0], [1, 80, 0], [2, 81, 0], [3, 81, 0]]);
    const data = Buffer.concat(got.filter((g) => g[0] === 0).map((g) => g.subarray(1))).toString('latin1');
    expect(data).toContain('local /through');
    const err = got.find((g) => g[0] === 3 && g.length > 3)!.subarray(1).toString();
    expect(err).toMatch(/^error forwarding port 81 to pod web, uid [0-9a-f-]+: .*connection refused/);
  });

  it('never dials a simulated or non-loopback address', async () => {
    await until(async () => (await admin().get('/api/v1/namespaces/team/pods/outside')).body.status?.phase === 'Running', 'outside running');
    const got: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(wsURL('/api/v1/namespaces/team/pods/outside/portforward?ports=80'), ['v4.channel.k8s.io'], { headers: { Authorization: 'Bearer admin-token' } });
      ws.on('message', (d: Buffer) => {
        got.push(Buffer.from(d));
        if (d[0] === 1 && d.length > 3) {
          ws.close();
          resolve();
        }
      });
      ws.on('error', reject);
    });
    expect(got.find((g) => g[0] === 1 && g.length > 3)!.subarray(1).toString()).toContain('names no target for this port');
  });

  it('idle connections are cut after --streaming-connection-idle-timeout', async () => {
    const r = session('/api/v1/namespaces/team/pods/web/exec?container=web&stdin=true&stdout=true&command=cat', ['v5.channel.k8s.io']);
    const closed = await r.done;
    // the only message is the ready one: nothing else happened before the server closed the idle stream
    expect(closed.messages.map((m) => [...m.data])).toEqual([[1]]);
  });
});
