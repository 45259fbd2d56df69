// Hardening of the handler chain's first filters: path names, Host and Origin checks, requests in
// flight, request deadlines, private data files, remote binding, explorer page headers, proxy filters.
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { FlagError, parseFlags } from '../../src/server/flags.js';
import { startProxyServer, type ProxyServer } from '../../src/server/proxy/proxy.js';
import { client, testServer } from '../helpers/server.js';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

/** A request with exactly the headers given (fetch would set Host, Origin rules of its own). */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: any = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const cm = (name: string, ns = 'victim') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { a: '1' } });
const json = { 'Content-Type': 'application/json', Accept: 'application/json' };

describe('path segments never name another resource', () => {
  let server: ApiServer;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    server = await testServer();
    c = client(server.url);
    expect((await c.post('/api/v1/namespaces', { metadata: { name: 'victim' } })).status).toBe(201);
    expect((await c.post('/api/v1/namespaces/victim/configmaps', cm('keep'))).status).toBe(201);
  });
  afterAll(() => server.close());

  it.each(['..', '%2e%2e', '%2E%2E', '.', '%2e'])('DELETE and GET configmaps/%s answer 400 and leave the namespace alone', async (seg) => {
    const del = await raw(server.url, 'DELETE', `/api/v1/namespaces/victim/configmaps/${seg}`, json);
    expect(del.status).toBe(400);
    expect(del.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(del.body.message).toMatch(/^Name parameter invalid: "\.{1,2}": may not be '\.{1,2}'$/);
    const get = await raw(server.url, 'GET', `/api/v1/namespaces/victim/configmaps/${seg}`, json);
    expect(get.status).toBe(400);
    expect(get.body.kind).toBe('Status');
    const ns = await c.get('/api/v1/namespaces/victim');
    expect(ns.status).toBe(200);
    expect(ns.body.metadata.deletionTimestamp).toBeUndefined();
  });

  it('an encoded slash separates segments (Go\'s URL.Path, as go-restful routes it); a percent sign is invalid', async () => {
    // configmaps/a%2Fb is configmaps/a/b: a sub-resource configmaps do not have
    const slash = await raw(server.url, 'GET', '/api/v1/namespaces/victim/configmaps/a%2Fb', json);
    expect(slash.status).toBe(404);
    const pct = await raw(server.url, 'GET', '/api/v1/namespaces/victim/configmaps/a%25b', json);
    expect(pct.status).toBe(400);
    expect(pct.body.message).toBe(`Name parameter invalid: "a%b": may not contain '%'`);
    const ns = await raw(server.url, 'GET', '/api/v1/namespaces/%2e%2e/configmaps/keep', json);
    expect(ns.status).toBe(400);
    expect(ns.body.message).toMatch(/^Namespace parameter invalid/);
  });

  it('a query pair with a malformed escape is dropped, as Go drops it: watch=%ZZ lists', async () => {
    const r = await raw(server.url, 'GET', '/api/v1/namespaces/victim/configmaps?watch=%ZZ', json);
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('ConfigMapList');
    const semi = await raw(server.url, 'GET', '/api/v1/namespaces/victim/configmaps?watch=true;x=1', json);
    expect(semi.body.kind).toBe('ConfigMapList');
  });

  it('an empty segment names nothing instead of shifting the path', async () => {
    // `namespaces//configmaps` would otherwise read as the Namespace "configmaps"
    const r = await raw(server.url, 'DELETE', '/api/v1/namespaces//configmaps', json);
    expect(r.status).toBe(404);
    expect(r.body.kind).toBe('Status');
    expect((await c.get('/api/v1/namespaces/victim/configmaps/keep')).status).toBe(200);
  });
});

describe('Host and Origin (DNS rebinding, cross-site writes)', () => {
  let server: ApiServer;
  let port: string;
  beforeAll(async () => {
    server = await testServer();
    port = new URL(server.url).port;
  });
  afterAll(() => server.close());

  it('refuses a Host that is not accepted, on every path', async () => {
    for (const path of ['/api/v1/namespaces', '/version', '/', '/healthz']) {
      const r = await raw(server.url, 'GET', path, { Host: `evil.example:${port}`, Accept: 'application/json' });
      expect(r.status, path).toBe(403);
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    }
    expect((await raw(server.url, 'GET', '/api/v1/namespaces', { Host: `localhost:${port}` })).status).toBe(200);
    expect((await raw(server.url, 'GET', '/api/v1/namespaces', { Host: `127.0.0.1:${port}` })).status).toBe(200);
    expect((await raw(server.url, 'GET', '/api/v1/namespaces', { Host: `127.0.0.1.evil.example:${port}` })).status).toBe(403);
  });

  it('--accept-hosts adds names; --disable-filter turns the check off', async () => {
    const named = await testServer({ acceptHosts: String.raw`^cluster\.internal$` });
    try {
      const p = new URL(named.url).port;
      expect((await raw(named.url, 'GET', '/version', { Host: `cluster.internal:${p}` })).status).toBe(200);
      // the bind address itself stays accepted
      expect((await raw(named.url, 'GET', '/version', { Host: `127.0.0.1:${p}` })).status).toBe(200);
      expect((await raw(named.url, 'GET', '/version', { Host: `localhost:${p}` })).status).toBe(403);
    } finally {
      await named.close();
    }
    const open = await testServer({ disableFilter: true });
    try {
      expect((await raw(open.url, 'GET', '/version', { Host: 'evil.example' })).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('refuses writes from another origin and cross-site fetches; same-origin writes work', async () => {
    const body = JSON.stringify(cm('x', 'default'));
    await raw(server.url, 'POST', '/api/v1/namespaces', json, JSON.stringify({ metadata: { name: 'default' } }));
    const evil = await raw(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { ...json, Origin: 'http://evil.example' }, body);
    expect(evil.status).toBe(403);
    expect(evil.body.reason).toBe('Forbidden');
    const otherPort = await raw(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { ...json, Origin: 'http://127.0.0.1:1' }, body);
    expect(otherPort.status).toBe(403);
    const site = await raw(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { ...json, 'Sec-Fetch-Site': 'cross-site' }, body);
    expect(site.status).toBe(403);
    const nullOrigin = await raw(server.url, 'DELETE', '/api/v1/namespaces/default', { ...json, Origin: 'null' });
    expect(nullOrigin.status).toBe(403);
    expect((await raw(server.url, 'GET', '/api/v1/namespaces/default/configmaps/x', json)).status).toBe(404);
    // reads stay readable (the browser's CORS rules keep other origins from seeing them)
    expect((await raw(server.url, 'GET', '/api/v1/namespaces', { Accept: 'application/json', Origin: 'http://evil.example' })).status).toBe(200);
    const same = await raw(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { ...json, Origin: server.url, 'Sec-Fetch-Site': 'same-origin' }, body);
    expect(same.status).toBe(201);
  });
});

/** Sends a write's headers and part of its body, then holds the request open. */
function holdWrite(base: string, path: string): Promise<Socket> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => {
      s.write(`POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"apiVersion":`);
      resolve(s);
    });
    s.on('error', reject);
  });
}

async function waitUntil(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition not reached');
}

describe('requests in flight', () => {
  it('over --max-mutating-requests-inflight a write gets 429 with Retry-After; watches and reads are not held back', async () => {
    const server = await testServer({ maxMutatingRequestsInflight: 2, maxRequestsInflight: 1 });
    const c = client(server.url);
    const held: Socket[] = [];
    try {
      await c.post('/api/v1/namespaces', { metadata: { name: 'default' } });
      held.push(await holdWrite(server.url, '/api/v1/namespaces/default/configmaps'));
      held.push(await holdWrite(server.url, '/api/v1/namespaces/default/configmaps'));
      await waitUntil(async () => (await c.post('/api/v1/namespaces/default/configmaps', cm('probe', 'default'))).status === 429);
      const r = await c.post('/api/v1/namespaces/default/configmaps', cm('over', 'default'));
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', message: 'Too many requests, please try again later.', details: { retryAfterSeconds: 1 } });
      // watches are long-running: many may be open while the read budget is 1
      const watches = await Promise.all([0, 1, 2].map(() => fetch(`${server.url}/api/v1/namespaces/default/configmaps?watch=true`)));
      expect(watches.map((w) => w.status)).toEqual([200, 200, 200]);
      expect((await c.get('/api/v1/namespaces/default/configmaps')).status).toBe(200);
      expect((await c.get('/readyz')).status).toBe(200);
      for (const w of watches) await w.body?.cancel();
      for (const s of held.splice(0)) s.destroy();
      await waitUntil(async () => (await c.post('/api/v1/namespaces/default/configmaps', cm('after', 'default'))).status === 201);
      expect((await c.get('/api/v1/namespaces/default/configmaps/over')).status).toBe(404);
    } finally {
      for (const s of held) s.destroy();
      await server.close();
    }
  });
});

describe('request deadline', () => {
  it('a write whose body never completes gets 504 after --request-timeout and the connection is closed', async () => {
    const server = await testServer({ requestTimeoutMs: 300 });
    try {
      await client(server.url).post('/api/v1/namespaces', { metadata: { name: 'default' } });
      const s = await holdWrite(server.url, '/api/v1/namespaces/default/configmaps');
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        s.on('data', (d) => (text += d.toString()));
        s.on('close', () => resolve(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 504 /);
      expect(answer).toContain('"reason":"Timeout"');
    } finally {
      await server.close();
    }
  });

  it('a malformed ?timeout= is a 400', async () => {
    const server = await testServer();
    try {
      const r = await client(server.url).get('/api/v1/namespaces?timeout=forever');
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/^invalid timeout specified in the request URL/);
      expect((await client(server.url).get('/api/v1/namespaces?timeout=32s')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('files and binding', () => {
  it('the SQLite data directory is 0700 and the database files 0600', async () => {
    const base = mkdtempSync(join(tmpdir(), 'periscope-perm-'));
    const dataDir = join(base, 'data');
    const server = await testServer({ store: 'sqlite', dataDir });
    try {
      await client(server.url).post('/api/v1/namespaces', { metadata: { name: 'default' } });
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      for (const f of ['periscope.db', 'periscope.db-wal']) expect(statSync(join(dataDir, f)).mode & 0o777, f).toBe(0o600);
    } finally {
      await server.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('an existing world-readable data directory of ours is tightened', async () => {
    const base = mkdtempSync(join(tmpdir(), 'periscope-perm-'));
    const dataDir = join(base, 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    writeFileSync(join(dataDir, 'periscope.db'), '', { mode: 0o644 });
    const server = await testServer({ store: 'sqlite', dataDir });
    try {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dataDir, 'periscope.db')).mode & 0o777).toBe(0o600);
    } finally {
      await server.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('a non-loopback --bind-address without authentication is refused, naming the flags', () => {
    expect(() => parseFlags(['--bind-address', '0.0.0.0'])).toThrow(FlagError);
    expect(() => parseFlags(['--bind-address', '0.0.0.0'])).toThrow(/--authentication-config.*--allow-unauthenticated-remote/);
    expect(() => parseFlags(['--bind-address', '0.0.0.0', '--kubeconfig', 'kc'])).toThrow(/--allow-unauthenticated-remote/);
    expect(parseFlags(['--bind-address', '0.0.0.0', '--allow-unauthenticated-remote']).bindAddress).toBe('0.0.0.0');
    expect(parseFlags(['--bind-address', '::1']).bindAddress).toBe('::1');
    expect(parseFlags(['--bind-address', '127.0.0.2']).bindAddress).toBe('127.0.0.2');
  });
});

describe('explorer pages', () => {
  it('are served with a strict Content-Security-Policy and no framing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-static-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Periscope</title>');
    const server = await testServer({ staticDir: dir });
    try {
      for (const path of ['/', '/some/client/route']) {
        const r = await raw(server.url, 'GET', path);
        expect(r.status).toBe(200);
        expect(r.headers['x-frame-options']).toBe('DENY');
        const csp = String(r.headers['content-security-policy']);
        expect(csp).toContain("default-src 'self'");
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      }
      // malformed percent-encoding and traversal never reach the file system outside the build
      // (a malformed escape is 400 before any filter, as Go's net/http answers it)
      expect((await raw(server.url, 'GET', '/%E0%A4%A.js')).status).toBe(400);
      expect((await raw(server.url, 'GET', '/%E0%A4.js')).status).toBe(404);
      expect((await raw(server.url, 'GET', '/..%2f..%2fetc%2fpasswd.txt')).status).toBe(404);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('explorer files', () => {
  it('are read once and read again when the build changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-static-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Periscope</title>');
    mkdirSync(join(dir, 'assets'));
    const asset = join(dir, 'assets', 'app.js');
    writeFileSync(asset, 'one();');
    const server = await testServer({ staticDir: dir });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await raw(server.url, 'GET', '/assets/app.js');
        expect([r.status, r.body, r.headers['content-length']]).toEqual([200, 'one();', '6']);
      }
      writeFileSync(asset, 'second();');
      utimesSync(asset, new Date(), new Date(Date.now() + 5000));
      const r = await raw(server.url, 'GET', '/assets/app.js');
      expect([r.body, r.headers['content-length']]).toEqual(['second();', '9']);
      const head = await raw(server.url, 'HEAD', '/assets/app.js');
      expect([head.status, head.body, head.headers['content-length']]).toEqual([200, '', '9']);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('proxy mode filters', () => {
  let upstream: Server;
  let seen: { method?: string; url?: string; authorization?: string }[];
  let proxy: ProxyServer;
  let dir: string;

  beforeAll(async () => {
    seen = [];
    upstream = createServer((req, res) => {
      seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Credentials': 'true' });
      res.end('{"kind":"Status"}');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    dir = mkdtempSync(join(tmpdir(), 'periscope-proxyf-'));
    const kc = join(dir, 'kc.yaml');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\ncurrent-context: main\nclusters:\n- name: c\n  cluster: {server: "http://127.0.0.1:${(upstream.address() as AddressInfo).port}"}\nusers:\n- name: u\n  user: {token: kube-secret}\ncontexts:\n- name: main\n  context: {cluster: c, user: u}\n`,
    );
    proxy = await startProxyServer({ port: 0, kubeconfig: kc, staticDir: '', requestLog: false });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => upstream.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('never forwards a request for another Host, a cross-site write, exec, attach or portforward', async () => {
    const port = new URL(proxy.url).port;
    const refused = [
      await raw(proxy.url, 'GET', '/api/v1/namespaces', { Host: `evil.example:${port}` }),
      await raw(proxy.url, 'POST', '/api/v1/namespaces/default/configmaps', { Host: `127.0.0.1:${port}`, Origin: 'http://evil.example', 'Content-Type': 'application/json' }, '{}'),
      await raw(proxy.url, 'POST', '/api/v1/namespaces/default/configmaps', { Host: `127.0.0.1:${port}`, 'Sec-Fetch-Site': 'cross-site', 'Content-Type': 'application/json' }, '{}'),
      await raw(proxy.url, 'POST', '/api/v1/namespaces/default/pods/p/exec?command=sh', { Host: `127.0.0.1:${port}` }),
      await raw(proxy.url, 'GET', '/api/v1/namespaces/default/pods/p/attach', { Host: `127.0.0.1:${port}` }),
      await raw(proxy.url, 'POST', '/api/v1/namespaces/default/pods/p/portforward', { Host: `127.0.0.1:${port}` }),
      await raw(proxy.url, 'POST', '/api/v1/namespaces/default/pods/p/%65xec', { Host: `127.0.0.1:${port}` }),
    ];
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(r.body.kind).toBe('Status');
    }
    expect(seen).toEqual([]);
  });

  it('forwards a request it accepts, without the cluster CORS headers', async () => {
    const r = await raw(proxy.url, 'GET', '/api/v1/namespaces', { Host: `localhost:${new URL(proxy.url).port}` });
    expect(r.status).toBe(200);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/api/v1/namespaces', authorization: 'Bearer kube-secret' });
    expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });
});
