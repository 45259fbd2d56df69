// Property (issue 27, "Done when"): any percent-encoding of a route's path is the same request as the
// plain path — the same status, and the same body where the body is deterministic — for an anonymous
// caller, a caller without rights and an admin; resource, non-resource, public and WebSocket routes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

interface Route {
  method: 'GET' | 'POST' | 'DELETE' | 'WS';
  path: string;
  query?: string;
  body?: unknown;
  /** Compare the status only (bodies that change from one answer to the next). */
  statusOnly?: boolean;
}

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made' }, data: { a: '1' } };
const ROUTES: Route[] = [
  // resource requests
  { method: 'GET', path: '/api/v1/namespaces/team/configmaps/cm1' },
  { method: 'GET', path: '/api/v1/namespaces/team/secrets' },
  { method: 'GET', path: '/api/v1/secrets' },
  { method: 'GET', path: '/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin' },
  { method: 'GET', path: '/apis/apps/v1/namespaces/team/deployments' },
  { method: 'GET', path: '/api/v1/namespaces/team/configmaps/missing' },
  { method: 'GET', path: '/api/v1/namespaces/team/widgets' },
  { method: 'POST', path: '/api/v1/namespaces/team/configmaps', query: 'dryRun=All', body: cm, statusOnly: true },
  { method: 'POST', path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', query: 'dryRun=All', statusOnly: true, body: {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'owned' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'User', name: 'mallory', apiGroup: 'rbac.authorization.k8s.io' }],
  } },
  { method: 'DELETE', path: '/api/v1/namespaces/team/configmaps/missing' },
  // non-resource requests
  { method: 'GET', path: '/api' },
  { method: 'GET', path: '/apis' },
  { method: 'GET', path: '/apis/apps/v1' },
  { method: 'GET', path: '/openapi/v2', statusOnly: true },
  { method: 'GET', path: '/metrics', statusOnly: true },
  { method: 'GET', path: '/debug/encryption-at-rest', query: 'path=/api/v1/namespaces/team/secrets/s1' },
  { method: 'GET', path: '/nothing/here.txt' },
  // the public list
  { method: 'GET', path: '/version' },
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/readyz/ping' },
  { method: 'GET', path: '/index.html' },
  { method: 'GET', path: '/assets/app.js' },
  { method: 'GET', path: '/some/client/route' },
  // WebSocket watches
  { method: 'WS', path: '/api/v1/namespaces/team/secrets', query: 'watch=1' },
  { method: 'WS', path: '/api/v1/namespaces/team/configmaps', query: 'watch=1&resourceVersion=0' },
];

const CALLERS = { anonymous: undefined, nobody: 'nobody-token', admin: 'admin-token' } as const;
type Caller = keyof typeof CALLERS;

interface Answer {
  status: number;
  body?: string;
}

/** Percent-encodes the path's characters where the mask says so (any case of hex digits); the leading `/` stays. */
export function encodePath(path: string, mask: number[]): string {
  let out = '/';
  for (let i = 1; i < path.length; i++) {
    const m = mask[i % mask.length]!;
    const hex = path.charCodeAt(i).toString(16).padStart(2, '0');
    out += m === 1 ? `%${hex.toUpperCase()}` : m === 2 ? `%${hex.toLowerCase()}` : m === 3 ? `%${hex[0]!.toUpperCase()}${hex[1]!.toLowerCase()}` : path[i];
  }
  return out;
}

function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
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

describe('a percent-encoded path is the plain path (property)', () => {
  let s: ApiServer;
  let dir: string;
  const plain = new Map<string, Answer>();

  const ask = async (route: Route, path: string, caller: Caller): Promise<Answer> => {
    const token = CALLERS[caller];
    const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
    const target = path + (route.query ? `?${route.query}` : '');
    if (route.method === 'WS') return { status: await upgradeStatus(s.url.replace('http', 'ws') + target, headers) };
    const r = await client(s.url).call(route.method, target, route.body, headers);
    // a list's own resourceVersion is the store's newest revision, which moves on between two asks (the
    // controller manager renews its Lease every 2 s): compared without it
    return route.statusOnly ? { status: r.status } : { status: r.status, body: r.text.replace(/^(\{"kind":"\w+List","apiVersion":"[^"]*","metadata":\{"resourceVersion":")\d+"/, '$1…"') };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'encoded-routes-'));
    writeFileSync(join(dir, 'tokens.csv'), 'admin-token,admin,1,system:masters\nnobody-token,nobody,2\n');
    mkdirSync(join(dir, 'www', 'assets'), { recursive: true });
    writeFileSync(join(dir, 'www', 'index.html'), '<!doctype html><title>explorer</title>');
    writeFileSync(join(dir, 'www', 'assets', 'app.js'), 'console.log(1)');
    // anonymous requests allowed (system:anonymous, as upstream's default), RBAC decides
    s = await testServer({ tokenAuthFile: join(dir, 'tokens.csv'), staticDir: join(dir, 'www') });
    const admin = client(s.url);
    const h = { Authorization: 'Bearer admin-token' };
    expect((await admin.post('/api/v1/namespaces', { metadata: { name: 'team' } }, h)).status).toBe(201);
    expect((await admin.post('/api/v1/namespaces/team/configmaps', { metadata: { name: 'cm1' }, data: { k: 'v' } }, h)).status).toBe(201);
    expect((await admin.post('/api/v1/namespaces/team/secrets', { metadata: { name: 's1' }, stringData: { k: 'v' } }, h)).status).toBe(201);
    // the namespace's default service account is written before answers are kept (lists carry the store's revision)
    while ((await admin.get('/api/v1/namespaces/team/serviceaccounts/default', h)).status !== 200) await new Promise((r) => setTimeout(r, 20));
    for (const route of ROUTES) for (const caller of Object.keys(CALLERS) as Caller[]) plain.set(`${route.method} ${route.path} ${caller}`, await ask(route, route.path, caller));
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the plain answers differ by caller where they should (the property compares something)', () => {
    expect(plain.get('GET /api/v1/secrets anonymous')!.status).toBe(403);
    expect(plain.get('GET /api/v1/secrets nobody')!.status).toBe(403);
    expect(plain.get('GET /api/v1/secrets admin')!.status).toBe(200);
    expect(plain.get('WS /api/v1/namespaces/team/secrets admin')!.status).toBe(101);
    expect(plain.get('WS /api/v1/namespaces/team/secrets anonymous')!.status).toBe(403);
    expect(plain.get('GET /debug/encryption-at-rest nobody')!.status).toBe(403);
    expect(plain.get('GET /nothing/here.txt admin')!.status).toBe(404);
    expect(plain.get('GET /index.html anonymous')!.status).toBe(200);
  });

  it('random percent-encodings of every route get the plain path\'s answer, for every caller', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        fc.constantFrom(...(Object.keys(CALLERS) as Caller[])),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 80 }),
        async (route, caller, mask) => {
          const encoded = encodePath(route.path, mask);
          const got = await ask(route, encoded, caller);
          expect({ encoded, caller, ...got }).toEqual({ encoded, caller, ...plain.get(`${route.method} ${route.path} ${caller}`)! });
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);

  it('every route, fully encoded, for every caller', async () => {
    for (const route of ROUTES)
      for (const caller of Object.keys(CALLERS) as Caller[]) {
        const encoded = encodePath(route.path, [1]);
        expect({ encoded, caller, ...(await ask(route, encoded, caller)) }).toEqual({ encoded, caller, ...plain.get(`${route.method} ${route.path} ${caller}`)! });
      }
  }, 60_000);
});
