// Proxy mode (--kubeconfig): pod logs stream through; exec/attach/port-forward stay refused by kubectl
// proxy's --reject-paths default except for the explorer's own same-origin WebSocket carrying the session's
// CSRF token, which is forwarded with the kubeconfig's credentials (and never passed to the cluster).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { startProxyServer, type ProxyServer } from '../../src/server/proxy/proxy.js';
import { client } from '../helpers/server.js';

let api: ApiServer;
let proxy: ProxyServer;

async function until<T>(fn: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function open(path: string, protocols: string[], headers: Record<string, string>) {
  return new Promise<{ status?: number; body?: string; protocol?: string; out?: string }>((resolve) => {
    const ws = new WebSocket(proxy.url.replace('http', 'ws') + path, protocols, { headers });
    const msgs: Buffer[] = [];
    ws.on('unexpected-response', (_q, res) => {
      let body = '';
      res.on('data', (b) => (body += b));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    ws.on('message', (d: Buffer) => msgs.push(Buffer.from(d)));
    ws.on('close', () => resolve({ protocol: ws.protocol, out: Buffer.concat(msgs.filter((m) => m[0] === 1).map((m) => m.subarray(1))).toString() }));
    ws.on('error', () => {});
  });
}

beforeAll(async () => {
  api = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, controllers: ['*'], simulatedNodes: 1, simulatedPodStartMs: 50, simulatedPodReadyMs: 50 },
    { log: () => {} },
  );
  const c = client(api.url);
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  await c.post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', annotations: { 'sim.periscope.dev/log': 'through the proxy' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } });
  await until(async () => (await c.get('/api/v1/namespaces/default/pods/web')).body.status?.containerStatuses?.[0]?.state?.running, 'web running');
  const dir = mkdtempSync(join(tmpdir(), 'periscope-proxy-streams-'));
  const kc = join(dir, 'config');
  writeFileSync(kc, `apiVersion: v1\nkind: Config\ncurrent-context: main\nclusters:\n- name: c\n  cluster: {server: '${api.url}'}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: main\n  context: {cluster: c, user: u}\n`);
  proxy = await startProxyServer({ kubeconfig: kc, port: 0, staticDir: '', requestLog: false }, { log: () => {} });
}, 60_000);
afterAll(async () => {
  await proxy.close();
  await api.close();
});

const EXEC = '/api/v1/namespaces/default/pods/web/exec?container=web&stdout=true&command=hostname';

describe('streams through the proxy', () => {
  it('logs stream through', async () => {
    const r = await fetch(`${proxy.url}/api/v1/namespaces/default/pods/web/log?container=web&tailLines=1`);
    expect(await r.text()).toBe('through the proxy\n');
  });

  it('exec is refused without the explorer session', async () => {
    const r = await open(EXEC, ['v5.channel.k8s.io'], {});
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body!).message).toContain('is not forwarded by this proxy');
    const plain = await fetch(proxy.url + EXEC, { method: 'POST' });
    expect(plain.status).toBe(403);
  });

  it('the explorer’s same-origin WebSocket with the session token is forwarded', async () => {
    const { csrfToken } = (await (await fetch(`${proxy.url}/periscope/session`, { headers: { 'Sec-Fetch-Site': 'same-origin' } })).json()) as { csrfToken: string };
    expect(csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const origin = proxy.url;
    const ok = await open(EXEC, ['v5.channel.k8s.io', `csrf.periscope.dev.${csrfToken}`], { Origin: origin });
    expect(ok.protocol).toBe('v5.channel.k8s.io');
    expect(ok.out).toBe('web\n');
    // another site's page, a wrong token, no Origin: refused
    expect((await open(EXEC, ['v5.channel.k8s.io', `csrf.periscope.dev.${csrfToken}`], { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await open(EXEC, ['v5.channel.k8s.io', `csrf.periscope.dev.${csrfToken.slice(1)}x`], { Origin: origin })).status).toBe(403);
    expect((await open(EXEC, ['v5.channel.k8s.io', `csrf.periscope.dev.${csrfToken}`], {})).status).toBe(403);
  });

  it('the session token is not served to other sites', async () => {
    const r = await fetch(`${proxy.url}/periscope/session`, { headers: { 'Sec-Fetch-Site': 'cross-site' } });
    expect(r.status).toBe(403);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});
