// Proxy mode: our own server behind TLS, reached through the proxy with a generated kubeconfig;
// and a recording HTTPS server to see exactly which credentials the proxy sends.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { startProxyServer, type ProxyServer } from '../../src/server/proxy/proxy.js';
import { ApiClient, Informer, discover, readFeatureGates, type KubeObject } from '../../src/client/index.js';
import { configMap, createNamespace, waitFor } from './fixtures.js';

let dir: string;
const b64 = (p: string) => readFileSync(p).toString('base64');

/** A self-signed certificate for 127.0.0.1 (server) or a client identity. */
function makeCert(name: string, cn: string, san?: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', `/CN=${cn}`];
  if (san) args.push('-addext', `subjectAltName=${san}`);
  execFileSync('openssl', args, { stdio: 'ignore' });
  return { cert, key };
}

function kubeconfig(file: string, doc: { server: string; context?: string; cluster: Record<string, unknown>; user: Record<string, unknown>; extraContexts?: string }): string {
  const yaml = `apiVersion: v1
kind: Config
current-context: ${doc.context ?? 'main'}
clusters:
- name: c1
  cluster:
    server: ${doc.server}
${Object.entries(doc.cluster)
  .map(([k, v]) => `    ${k}: ${v}`)
  .join('\n')}
- name: elsewhere
  cluster:
    server: https://127.0.0.1:1
users:
- name: u1
  user:
${Object.entries(doc.user)
  .map(([k, v]) => `    ${k}: ${v}`)
  .join('\n') || '    {}'}
contexts:
- name: main
  context: {cluster: c1, user: u1}
- name: other
  context: {cluster: elsewhere, user: u1}
`;
  writeFileSync(file, yaml);
  return file;
}

let serverCert: { cert: string; key: string };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'periscope-proxy-'));
  serverCert = makeCert('server', '127.0.0.1', 'IP:127.0.0.1,DNS:localhost');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('proxy to our own server behind TLS', () => {
  let api: ApiServer;
  let proxy: ProxyServer;
  let staticDir: string;

  beforeAll(async () => {
    api = await startServer({ port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, tlsCertFile: serverCert.cert, tlsPrivateKeyFile: serverCert.key }, { adminToken: 'secret-token' });
    staticDir = join(dir, 'dist');
    mkdirSync(staticDir);
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Periscope</title>');
    const kc = kubeconfig(join(dir, 'kc-tls.yaml'), { server: api.url, cluster: { 'certificate-authority-data': b64(serverCert.cert) }, user: { token: 'secret-token' } });
    proxy = await startProxyServer({ port: 0, kubeconfig: kc, staticDir, requestLog: false });
  });
  afterAll(async () => {
    await proxy?.close();
    await api?.close();
  });

  it('forwards discovery, reads and writes, and serves the explorer itself', async () => {
    expect(api.url.startsWith('https://')).toBe(true);
    const client = new ApiClient({ baseUrl: proxy.url });
    const version = await client.request<{ gitVersion: string }>('GET', '/version');
    expect(version.body.gitVersion).toMatch(/^v1\./);
    const d = await discover(client);
    expect(d.aggregated).toBe(true);
    expect(d.resources.some((r) => r.resource === 'deployments')).toBe(true);
    const openapi = await client.request<{ paths: Record<string, unknown> }>('GET', '/openapi/v3');
    expect(Object.keys(openapi.body.paths).length).toBeGreaterThan(3);
    await createNamespace(proxy.url, 'via-proxy');
    await client.create({ group: '', version: 'v1', resource: 'configmaps', namespace: 'via-proxy' }, configMap('via-proxy', 'c1'));
    const err: any = await client.get({ group: '', version: 'v1', resource: 'configmaps', namespace: 'via-proxy', name: 'nope' }).catch((e: unknown) => e);
    expect(err.code).toBe(404);
    expect(err.reason).toBe('NotFound');
    const page = await fetch(`${proxy.url}/r/core/v1/configmaps`);
    expect(await page.text()).toContain('<title>Periscope</title>');
    expect((await fetch(`${proxy.url}/readyz`)).status).toBe(200);
  });

  it('forwards /metrics: the overview reads the cluster feature gates through it', async () => {
    const { gates } = await readFeatureGates(new ApiClient({ baseUrl: proxy.url }));
    expect(gates).toContainEqual({ name: 'WatchList', stage: 'BETA', enabled: true });
  });

  it('streams watches through as they happen', async () => {
    const client = new ApiClient({ baseUrl: proxy.url });
    const inf = new Informer<KubeObject>({ client, ref: { group: '', version: 'v1', resource: 'configmaps', namespace: 'via-proxy' } }).start();
    await inf.whenSynced();
    await new ApiClient({ baseUrl: proxy.url }).create({ group: '', version: 'v1', resource: 'configmaps', namespace: 'via-proxy' }, configMap('via-proxy', 'live-1'));
    await waitFor(() => inf.get('via-proxy/live-1') !== undefined, 'the watch event through the proxy');
    expect(inf.snapshot().state).toBe('live');
    inf.stop();
  });

  it('picks another context with --context, and answers 502 when the cluster cannot be reached', async () => {
    const kc = join(dir, 'kc-tls.yaml');
    const other = await startProxyServer({ port: 0, kubeconfig: kc, context: 'other', staticDir: '', requestLog: false });
    try {
      expect(other.context).toBe('other');
      const r = await fetch(`${other.url}/api`);
      expect(r.status).toBe(502);
      expect(await r.json()).toMatchObject({ kind: 'Status', code: 502 });
    } finally {
      await other.close();
    }
    await expect(startProxyServer({ port: 0, kubeconfig: kc, context: 'missing', staticDir: '' })).rejects.toThrow(/context "missing" not found/);
  });

  it('refuses a server certificate the kubeconfig does not trust', async () => {
    const untrusted = makeCert('other-ca', 'someone-else');
    const kc = kubeconfig(join(dir, 'kc-untrusted.yaml'), { server: api.url, cluster: { 'certificate-authority-data': b64(untrusted.cert) }, user: { token: 't' } });
    const p = await startProxyServer({ port: 0, kubeconfig: kc, staticDir: '', requestLog: false });
    try {
      const r = await fetch(`${p.url}/version`);
      expect(r.status).toBe(502);
    } finally {
      await p.close();
    }
  });
});

describe('proxy credentials', () => {
  let recorder: Server;
  let url: string;
  const seen: { path: string; headers: Record<string, unknown>; clientCN?: string }[] = [];
  let clientCert: { cert: string; key: string };

  beforeAll(async () => {
    clientCert = makeCert('client', 'periscope-user');
    recorder = createHttpsServer({ cert: readFileSync(serverCert.cert), key: readFileSync(serverCert.key), ca: readFileSync(clientCert.cert), requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({ path: req.url ?? '', headers: { ...req.headers }, clientCN: peer && peer.subject ? String(peer.subject.CN) : undefined });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': 'leak=1' });
      res.end('{"kind":"APIVersions","versions":["v1"]}');
    });
    await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', () => r()));
    url = `https://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => recorder.close(() => r()));
  });

  it('sends the kubeconfig bearer token in place of anything the browser sent', async () => {
    const kc = kubeconfig(join(dir, 'kc-token.yaml'), { server: url, cluster: { 'certificate-authority-data': b64(serverCert.cert) }, user: { token: 'kube-token-1' } });
    const p = await startProxyServer({ port: 0, kubeconfig: kc, staticDir: '', requestLog: false });
    try {
      seen.length = 0;
      const r = await fetch(`${p.url}/api?x=1`, { headers: { Authorization: 'Bearer from-browser', Cookie: 'session=abc', Accept: 'application/json;as=Table' } });
      expect(r.status).toBe(200);
      expect(r.headers.get('set-cookie')).toBeNull();
      expect(seen).toHaveLength(1);
      expect(seen[0]!.path).toBe('/api?x=1');
      expect(seen[0]!.headers['authorization']).toBe('Bearer kube-token-1');
      expect(seen[0]!.headers['cookie']).toBeUndefined();
      expect(seen[0]!.headers['accept']).toBe('application/json;as=Table');
      expect(seen[0]!.headers['host']).toBe(new URL(url).host);
    } finally {
      await p.close();
    }
  });

  it('presents the client certificate from files relative to the kubeconfig, and reads tokenFile', async () => {
    writeFileSync(join(dir, 'token.txt'), 'file-token\n');
    const kc = kubeconfig(join(dir, 'kc-cert.yaml'), {
      server: url + '/prefix',
      cluster: { 'certificate-authority': 'server.crt' },
      user: { 'client-certificate': 'client.crt', 'client-key': 'client.key', tokenFile: 'token.txt' },
    });
    const p = await startProxyServer({ port: 0, kubeconfig: kc, staticDir: '', requestLog: false });
    try {
      seen.length = 0;
      expect((await fetch(`${p.url}/apis/apps/v1`)).status).toBe(200);
      expect(seen[0]!.clientCN).toBe('periscope-user');
      expect(seen[0]!.path).toBe('/prefix/apis/apps/v1');
      expect(seen[0]!.headers['authorization']).toBe('Bearer file-token');
    } finally {
      await p.close();
    }
  });

  it('uses the client certificate data forms and no Authorization when the user has no token', async () => {
    const kc = kubeconfig(join(dir, 'kc-certdata.yaml'), {
      server: url,
      cluster: { 'certificate-authority-data': b64(serverCert.cert) },
      user: { 'client-certificate-data': b64(clientCert.cert), 'client-key-data': b64(clientCert.key) },
    });
    const p = await startProxyServer({ port: 0, kubeconfig: kc, staticDir: '', requestLog: false });
    try {
      seen.length = 0;
      expect((await fetch(`${p.url}/api`, { headers: { Authorization: 'Bearer from-browser' } })).status).toBe(200);
      expect(seen[0]!.clientCN).toBe('periscope-user');
      expect(seen[0]!.headers['authorization']).toBeUndefined();
      // only the API paths go to the cluster
      expect((await fetch(`${p.url}/secret-elsewhere`)).status).toBe(404);
      expect(seen).toHaveLength(1);
    } finally {
      await p.close();
    }
  });
});
