// Watch over WebSocket (upstream's watch handler serves `Upgrade: websocket`): one event per message,
// the same event objects as the streamed form, through the same chain (Host/Origin, authentication),
// and passed through by proxy mode with the kubeconfig's credentials.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import type { ApiServer } from '../../src/server/app.js';
import { startProxyServer, type ProxyServer } from '../../src/server/proxy/proxy.js';
import { client, testServer } from '../helpers/server.js';

type Opened = { ws: WebSocket; messages: { data: string; binary: boolean }[]; protocol: string; next: (n?: number) => Promise<any[]> };

/** Opens a WebSocket; rejects with the HTTP status when the server answers without upgrading. */
function open(url: string, opts: { protocols?: string[]; headers?: Record<string, string> } = {}): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, opts.protocols ?? [], { headers: opts.headers });
    const messages: Opened['messages'] = [];
    const waiters: (() => void)[] = [];
    ws.on('message', (data, binary) => {
      messages.push({ data: data.toString(), binary });
      for (const w of waiters.splice(0)) w();
    });
    let taken = 0;
    const next = async (n = 1) => {
      while (messages.length < taken + n) await new Promise<void>((r) => waiters.push(r));
      const out = messages.slice(taken, taken + n).map((m) => JSON.parse(m.data));
      taken += n;
      return out;
    };
    ws.once('open', () => resolve({ ws, messages, protocol: ws.protocol, next }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body })));
    });
    ws.once('error', reject);
  });
}

const statusOf = (p: Promise<unknown>) => p.then(() => 101, (e: { status?: number }) => e.status ?? -1);
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });

describe('watch over WebSocket', () => {
  let s: ApiServer;
  let ws: string;
  beforeAll(async () => {
    s = await testServer();
    ws = s.url.replace('http:', 'ws:');
    expect((await client(s.url).post('/api/v1/namespaces/default/configmaps', cm('first'))).status).toBe(201);
  });
  afterAll(() => s.close());

  test('each event is one text message holding the same event object as the stream', async () => {
    const c = await open(`${ws}/api/v1/namespaces/default/configmaps?watch=true`);
    const [added] = await c.next();
    expect(added).toMatchObject({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'first' } } });
    await client(s.url).post('/api/v1/namespaces/default/configmaps', cm('second'));
    const [second] = await c.next();
    expect(second).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'second' } } });
    expect(c.messages.every((m) => !m.binary && !m.data.endsWith('\n'))).toBe(true);
    // the streamed form carries the very same event
    const streamed = await client(s.url).get(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${added.object.metadata.resourceVersion}&timeoutSeconds=1`);
    expect(streamed.text.trim().split('\n').map((l) => JSON.parse(l))).toContainEqual(second);
    c.ws.close();
  });

  test('the Accept header can travel as a subprotocol (browsers set no headers): Table events, and the protocol is echoed', async () => {
    const accept = `base64url.accept.service.io.${Buffer.from('application/json;as=Table;v=v1;g=meta.k8s.io').toString('base64url')}`;
    const c = await open(`${ws}/api/v1/namespaces/default/configmaps?watch=true`, { protocols: [accept] });
    expect(c.protocol).toBe(accept);
    const [ev] = await c.next();
    expect(ev).toMatchObject({ type: 'ADDED', object: { kind: 'Table', apiVersion: 'meta.k8s.io/v1' } });
    expect(ev.object.rows[0].cells[0]).toBe('first');
    c.ws.close();
  });

  test('a watch that ends closes the socket', async () => {
    const c = await open(`${ws}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1`);
    const code = await new Promise<number>((r) => c.ws.once('close', (n) => r(n)));
    expect(code).toBe(1000);
  });

  test('errors before the stream are plain HTTP answers: 400 for a non-watch, 404, 410 as an ERROR event', async () => {
    expect(await statusOf(open(`${ws}/api/v1/namespaces/default/configmaps`))).toBe(400);
    expect(await statusOf(open(`${ws}/api/v1/namespaces/default/nothings?watch=true`))).toBe(404);
  });

  test('a cross-site upgrade is refused (403); the same origin is served', async () => {
    const port = new URL(s.url).port;
    expect(await statusOf(open(`${ws}/api/v1/namespaces/default/configmaps?watch=true`, { headers: { Origin: 'http://evil.example' } }))).toBe(403);
    expect(await statusOf(open(`${ws}/api/v1/namespaces/default/configmaps?watch=true`, { headers: { Origin: `http://127.0.0.1:${port}` } }))).toBe(101);
  });
});

describe('watch over WebSocket with authentication', () => {
  let s: ApiServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'periscope-ws-'));
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,1001,"system:masters"\n');
    s = await testServer({ tokenAuthFile: join(dir, 'tokens.csv'), anonymousAuth: false });
    expect((await client(s.url).post('/api/v1/namespaces', { metadata: { name: 'one' } }, { Authorization: 'Bearer alice-token' })).status).toBe(201);
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('no credentials is 401; a bearer token as a subprotocol (what a browser can send) is accepted and not echoed', async () => {
    const url = `${s.url.replace('http:', 'ws:')}/api/v1/namespaces?watch=true`;
    expect(await statusOf(open(url))).toBe(401);
    const bad = `base64url.bearer.authorization.k8s.io.${Buffer.from('wrong').toString('base64url')}`;
    expect(await statusOf(open(url, { protocols: [bad, 'watch'] }))).toBe(401);
    const good = `base64url.bearer.authorization.k8s.io.${Buffer.from('alice-token').toString('base64url')}`;
    const c = await open(url, { protocols: [good, 'watch'] });
    expect(c.protocol).toBe('watch');
    const [ev] = await c.next();
    expect(ev.type).toBe('ADDED');
    c.ws.close();
    const h = await open(url, { headers: { Authorization: 'Bearer alice-token' } });
    h.ws.close();
  });
});

describe('proxy mode passes WebSocket watches through', () => {
  let s: ApiServer;
  let proxy: ProxyServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'periscope-wsp-'));
    writeFileSync(join(dir, 'tokens.csv'), 'kube-secret,kube,1,"system:masters"\n');
    s = await testServer({ tokenAuthFile: join(dir, 'tokens.csv'), anonymousAuth: false });
    expect((await client(s.url).post('/api/v1/namespaces', { metadata: { name: 'one' } }, { Authorization: 'Bearer kube-secret' })).status).toBe(201);
    const kc = join(dir, 'kc.yaml');
    writeFileSync(kc, `apiVersion: v1\nkind: Config\ncurrent-context: main\nclusters:\n- name: c\n  cluster: {server: "${s.url}"}\nusers:\n- name: u\n  user: {token: kube-secret}\ncontexts:\n- name: main\n  context: {cluster: c, user: u}\n`);
    proxy = await startProxyServer({ port: 0, kubeconfig: kc, staticDir: '', requestLog: false });
  });
  afterAll(async () => {
    await proxy.close();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('with the kubeconfig credentials, after the proxy filters', async () => {
    const base = proxy.url.replace('http:', 'ws:');
    const port = new URL(proxy.url).port;
    const c = await open(`${base}/api/v1/namespaces?watch=true`);
    const [ev] = await c.next();
    expect(ev).toMatchObject({ type: 'ADDED', object: { kind: 'Namespace' } });
    await client(s.url).post('/api/v1/namespaces', { metadata: { name: 'via-proxy' } }, { Authorization: 'Bearer kube-secret' });
    await expect.poll(() => c.messages.some((m) => m.data.includes('"via-proxy"'))).toBe(true);
    c.ws.close();
    // the Accept subprotocol becomes the cluster's Accept header; the browser gets its protocol back
    const accept = `base64url.accept.service.io.${Buffer.from('application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io').toString('base64url')}`;
    const bearer = `base64url.bearer.authorization.k8s.io.${Buffer.from('not-the-kubeconfig-one').toString('base64url')}`;
    const m = await open(`${base}/api/v1/namespaces?watch=true`, { protocols: [accept, bearer] });
    expect(m.protocol).toBe(accept);
    expect((await m.next())[0].object.kind).toBe('PartialObjectMetadata');
    m.ws.close();
    expect(await statusOf(open(`${base}/api/v1/namespaces?watch=true`, { headers: { Origin: 'http://evil.example' } }))).toBe(403);
    expect(await statusOf(open(`${base}/api/v1/namespaces?watch=true`, { headers: { Host: `evil.example:${port}` } }))).toBe(403);
    expect(await statusOf(open(`${base}/api/v1/namespaces/default/pods/x/exec`))).toBe(403);
    // the cluster's refusal comes back as it is
    expect(await statusOf(open(`${base}/api/v1/namespaces`))).toBe(400);
  });
});

describe('a WebSocket watcher that stops reading', () => {
  let s: ApiServer;
  beforeAll(async () => {
    s = await testServer();
    await client(s.url).post('/api/v1/namespaces', { metadata: { name: 'slow' } });
  });
  afterAll(() => s.close());

  test('is cut off once its unsent events pass the per-watcher bound, and released', async () => {
    const cache = () => s.deps.caches.get('/registry/core/configmaps/').watcherCount;
    const c = await open(`${s.url.replace('http:', 'ws:')}/api/v1/namespaces/slow/configmaps?watch=true`);
    await expect.poll(cache).toBe(1);
    // stop reading: what the server sends piles up on its side
    (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const closed = new Promise<void>((r) => c.ws.once('close', () => r()));
    const big = 'x'.repeat(900 * 1024);
    for (let i = 0; i < 30; i++) expect((await client(s.url).post('/api/v1/namespaces/slow/configmaps', { metadata: { name: `big-${i}` }, data: { v: big } })).status).toBe(201);
    await expect.poll(cache, { timeout: 20_000 }).toBe(0);
    (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await closed;
  });
});
