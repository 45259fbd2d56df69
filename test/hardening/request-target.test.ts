// One decoded request target, classified once (issue 27 items 1-3, 9, 11): a percent-encoded spelling of
// a path is the same path for authentication, routing, request info and authorization; only a short
// public list skips authentication; /debug/* is a non-resource URL like any other.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import fc from 'fast-check';
import { StatusError } from '../../src/api/status.js';
import { crossSiteReason, decodePath } from '../../src/server/http/request-guard.js';
import { requestInfo } from '../../src/server/request/info.js';
import { HTTP_SERVER_OPTIONS, limitConnections } from '../../src/server/http/listen.js';
import { client, testServer } from '../helpers/server.js';

const TOKENS = 'admin-token,admin,1,system:masters\nnobody-token,nobody,2\n';
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const binding = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'owned' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ kind: 'User', name: 'mallory', apiGroup: 'rbac.authorization.k8s.io' }],
};

/** Opens a WebSocket; resolves with 101 or the HTTP status of a refusal. */
export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.terminate();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res: IncomingMessage) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', reject);
  });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'request-target-'));
  writeFileSync(join(dir, 'tokens.csv'), TOKENS);
  mkdirStatic(join(dir, 'www'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mkdirStatic(www: string) {
  mkdirSync(www, { recursive: true });
  writeFileSync(join(www, 'index.html'), '<!doctype html><title>explorer</title>');
  writeFileSync(join(www, 'app.js'), 'console.log(1)');
}

describe('encoded paths with --anonymous-auth=false (critical)', () => {
  let s: ApiServer;
  beforeAll(async () => {
    s = await testServer({ tokenAuthFile: join(dir, 'tokens.csv'), anonymousAuth: false, staticDir: join(dir, 'www') });
    const c = client(s.url);
    expect((await c.post('/api/v1/namespaces', { metadata: { name: 'x' } }, bearer('admin-token'))).status).toBe(201);
    expect((await c.post('/api/v1/namespaces/x/secrets', { metadata: { name: 's' }, stringData: { k: 'v' } }, bearer('admin-token'))).status).toBe(201);
  });
  afterAll(() => s.close());

  it.each(['/%61pi/v1/secrets', '/ap%69/v1/namespaces', '/%61%70%69/v1/namespaces/x/secrets/s', '/api/v1/%73ecrets'])('GET %s without credentials is 401', async (p) => {
    const r = await client(s.url).get(p);
    expect(r.status).toBe(401);
    expect(r.text).not.toContain('"data"');
  });
  it('POST of a cluster-admin binding through /%61pis without credentials is 401 and nothing is stored', async () => {
    const c = client(s.url);
    expect((await c.post('/%61pis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding)).status).toBe(401);
    expect((await c.get('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/owned', bearer('admin-token'))).status).toBe(404);
  });
  it('a user without rights gets 403 for the encoded path as for the plain one; the admin 200', async () => {
    const c = client(s.url);
    expect((await c.get('/%61pi/v1/secrets', bearer('nobody-token'))).status).toBe(403);
    expect((await c.post('/%61pis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding, bearer('nobody-token'))).status).toBe(403);
    const admin = await c.get('/%61pi/v1/namespaces/x/secrets', bearer('admin-token'));
    expect(admin.status).toBe(200);
    expect(admin.body.items.map((i: any) => i.metadata.name)).toEqual(['s']);
  });
  it('a WebSocket watch of /%61pi/... without credentials is refused (401), for a user without rights 403', async () => {
    const ws = s.url.replace('http', 'ws');
    expect(await upgradeStatus(`${ws}/%61pi/v1/namespaces/x/secrets?watch=1`)).toBe(401);
    expect(await upgradeStatus(`${ws}/%61pi/v1/namespaces/x/secrets?watch=1`, bearer('nobody-token'))).toBe(403);
    expect(await upgradeStatus(`${ws}/%61pi/v1/namespaces/x/secrets?watch=1`, bearer('admin-token'))).toBe(101);
  });
  it('/debug/* is authenticated and authorized as a non-resource URL (cluster-admin only)', async () => {
    const c = client(s.url);
    const p = '/debug/encryption-at-rest?path=/api/v1/namespaces/x/secrets/s';
    expect((await c.get(p)).status).toBe(401);
    expect((await c.get(p, bearer('nobody-token'))).status).toBe(403);
    expect((await c.get(p.replace('/debug', '/d%65bug'), bearer('nobody-token'))).status).toBe(403);
    expect((await c.get(p, bearer('admin-token'))).status).toBe(200);
  });
  it('the public list: health, version and the explorer\'s files answer without credentials', async () => {
    const c = client(s.url);
    for (const p of ['/healthz', '/livez', '/readyz', '/readyz/ping', '/version', '/%68ealthz', '/index.html', '/app.js', '/some/client/route']) expect([p, (await c.get(p)).status]).toEqual([p, 200]);
  });
  it('a request neither public nor routable is authenticated first, then 404', async () => {
    const c = client(s.url);
    for (const p of ['/missing.js', '/nothing/here.txt', '/api/v1/namespaces//secrets', '/.well-known/openid-configuration', '/openid/v1/jwks', '/debug/pprof']) {
      expect([p, (await c.get(p)).status]).toEqual([p, 401]);
      expect([p, (await c.get(p, bearer('admin-token'))).status]).toEqual([p, 404]);
    }
    expect((await c.post('/index.html', {})).status).toBe(401);
  });
  it('a malformed escape is 400 for every caller, as Go\'s net/http answers before any filter', async () => {
    const c = client(s.url);
    expect((await c.get('/api/v1/%zz')).status).toBe(400);
    expect((await c.get('/api/v1/%zz', bearer('admin-token'))).status).toBe(400);
  });
  it('an encoded slash is a separator, as Go\'s URL.Path: no name ever holds "/"', async () => {
    const c = client(s.url);
    // /api/v1/namespaces/x%2Fsecrets is /api/v1/namespaces/x/secrets
    expect((await c.get('/api/v1/namespaces/x%2Fsecrets')).status).toBe(401);
    expect((await c.get('/api/v1/namespaces/x%2Fsecrets', bearer('nobody-token'))).status).toBe(403);
    expect((await c.get('/api/v1/namespaces/x%2Fsecrets', bearer('admin-token'))).body.kind).toBe('SecretList');
  });
});

describe('no user is never "allowed"', () => {
  let s: ApiServer;
  beforeAll(async () => (s = await testServer({ tokenAuthFile: join(dir, 'tokens.csv') })));
  afterAll(() => s.close());
  it('authorization of a request that never went through authentication fails', async () => {
    const fake = { headers: {}, method: 'GET', url: '/api/v1/secrets' } as IncomingMessage;
    const q = new URLSearchParams();
    await expect(s.deps.authorization!.authorizeResource(fake, requestInfo('GET', '/api/v1/secrets', q), q)).rejects.toThrow();
    await expect(s.deps.authorization!.authorizeNonResource(fake, 'GET', '/debug/encryption-at-rest')).rejects.toThrow();
  });
});

describe('WebSocket Origin (item 11)', () => {
  const req = (headers: Record<string, string>) => ({ method: 'GET', headers: { upgrade: 'websocket', ...headers } }) as unknown as IncomingMessage;
  it('an Origin naming the request\'s own host and port is same-origin whatever its scheme', () => {
    expect(crossSiteReason(req({ host: '127.0.0.1:6443', origin: 'http://127.0.0.1:6443' }), 'https')).toBeUndefined();
    expect(crossSiteReason(req({ host: '127.0.0.1:6443', origin: 'https://127.0.0.1:6443' }), 'http')).toBeUndefined();
    expect(crossSiteReason(req({ host: 'localhost:8001', origin: 'HTTP://LOCALHOST:8001' }), 'http')).toBeUndefined();
  });
  it('another host or port is still cross-site', () => {
    expect(crossSiteReason(req({ host: '127.0.0.1:6443', origin: 'http://127.0.0.1:6444' }), 'https')).toBeDefined();
    expect(crossSiteReason(req({ host: '127.0.0.1:6443', origin: 'http://evil.example:6443' }), 'https')).toBeDefined();
    expect(crossSiteReason(req({ host: '127.0.0.1:6443', origin: 'null' }), 'https')).toBeDefined();
    expect(crossSiteReason(req({ host: '127.0.0.1:6443', origin: 'http://127.0.0.1:6443', 'sec-fetch-site': 'cross-site' }), 'https')).toBeDefined();
  });
});

describe('header timeout (item 9)', () => {
  it('a client that never finishes its headers is cut within a few seconds of the header timeout', async () => {
    const server = createServer(HTTP_SERVER_OPTIONS, (_req, res) => res.end('ok'));
    limitConnections(server, 60_000, 1000);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const answer = await new Promise<string>((resolve) => {
        const sock = connect(port, '127.0.0.1', () => sock.write('GET / HTTP/1.1\r\nHost: x\r\n'));
        let got = '';
        sock.on('data', (d) => (got += d.toString()));
        sock.on('close', () => resolve(got));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      server.close();
    }
  }, 6000);
});

describe('upgrades in the request log (issue 32)', () => {
  it('each upgrade is logged once, with its final status: refused, upgraded, and SPDY', async () => {
    const lines: string[] = [];
    const s = await startServer(
      { port: 0, store: 'memory', demoData: false, requestLog: true, staticDir: '', compactionIntervalMs: 0, tokenAuthFile: join(dir, 'tokens.csv'), anonymousAuth: false },
      { log: (l) => lines.push(l) },
    );
    try {
      const ws = s.url.replace('http', 'ws');
      expect(await upgradeStatus(`${ws}/api/v1/namespaces/default/configmaps?watch=1`)).toBe(401);
      expect(await upgradeStatus(`${ws}/api/v1/namespaces/default/configmaps?watch=1`, bearer('admin-token'))).toBe(101);
      const spdy = await new Promise<string>((resolve) => {
        const sock = connect(s.port, '127.0.0.1', () =>
          sock.write('POST /api/v1/namespaces/default/pods/p/exec?command=sh HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n'),
        );
        let got = '';
        sock.on('data', (d) => (got += d.toString()));
        sock.on('close', () => resolve(got));
      });
      expect(spdy).toMatch(/^HTTP\/1\.1 400/);
      const upgrades = () => lines.filter((l) => l.includes('"upgrade"')).map((l) => JSON.parse(l) as { path: string; upgrade: string; status: number });
      await expect.poll(() => upgrades().length).toBe(3);
      expect(upgrades().map((u) => [u.upgrade.toLowerCase(), u.status])).toEqual([
        ['websocket', 401],
        ['websocket', 101],
        ['spdy/3.1', 400],
      ]);
    } finally {
      await s.close();
    }
  });
});

describe('decodePath (fuzz)', () => {
  it('decodes any percent-encoding of a path to the path, in one pass', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), (text, mask) => {
        const path = '/' + text;
        // Node reads the request line as latin1: the client sends UTF-8 bytes, encoded or not
        let sent = '/';
        let i = 0;
        for (const b of Buffer.from(text, 'utf8')) sent += mask[i++ % mask.length] || b >= 0x80 || b === 0x25 ? `%${b.toString(16).padStart(2, '0')}` : String.fromCharCode(b);
        expect(decodePath(sent)).toBe(path);
      }),
      { numRuns: 2000 },
    );
    expect(decodePath('/%2561pi')).toBe('/%61pi'); // never decoded twice
    expect(decodePath('/a%2Fb')).toBe('/a/b');
    expect(decodePath('/plain/path')).toBe('/plain/path');
  });
  it('any input decodes or is a 400 StatusError, never another failure', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('%', '2', 'f', 'G', 'a', '/', '\u00e9', '0', 'Z'), maxLength: 30 }), (raw) => {
        try {
          expect(typeof decodePath('/' + raw)).toBe('string');
        } catch (e) {
          expect(e).toBeInstanceOf(StatusError);
          expect((e as StatusError).status.code).toBe(400);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
