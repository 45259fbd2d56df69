// Authentication through the handler chain: default posture, 401s, token file, anonymous rules,
// client certificates, service account tokens, TokenReview, impersonation.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { httpsCall, whoamiBody } from '../helpers/https.js';
import { TestCA } from '../helpers/tls.js';

const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const whoami = async (base: string, headers: Record<string, string> = {}) => {
  const r = await client(base).post('/apis/authentication.k8s.io/v1/selfsubjectreviews', whoamiBody, headers);
  return r.status === 201 ? r.body.status.userInfo : r;
};

let tls: TestCA;
let tokenFile: string;
beforeAll(() => {
  tls = new TestCA();
  tokenFile = tls.file('tokens.csv', 'alice-token,alice,1001,"dev,ops"\nbob-token,bob,1002\n');
});
afterAll(() => tls.cleanup());

describe('default posture: no authentication flags on loopback', () => {
  let s: ApiServer;
  beforeAll(async () => (s = await testServer({}, { adminToken: 'local-admin-secret' })));
  afterAll(() => s.close());

  test('requests without credentials run as the local admin', async () => {
    expect(await whoami(s.url)).toEqual({ username: 'system:admin', groups: ['system:masters', 'system:authenticated'] });
    expect((await client(s.url).get('/api/v1/namespaces')).status).toBe(200);
  });
  test('the admin token is the local admin; a bad token is 401 with upstream\'s Status', async () => {
    expect(await whoami(s.url, bearer('local-admin-secret'))).toMatchObject({ username: 'system:admin' });
    const r = await client(s.url).get('/api/v1/namespaces', bearer('garbage'));
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHORIZED);
    expect(r.headers.get('www-authenticate')).toBeNull();
    expect((await client(s.url).get('/api/v1/namespaces', { Authorization: 'Bearer  garbage' })).status).toBe(401);
  });
});

describe('exposed without authentication flags', () => {
  test('a non-loopback bind address does not make requests admin: they are anonymous', async () => {
    const s = await testServer({ bindAddress: '0.0.0.0', authorizationMode: ['AlwaysAllow'] }, { adminToken: 'adm' });
    try {
      const base = s.url.replace('0.0.0.0', '127.0.0.1');
      expect(await whoami(base)).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
      expect(await whoami(base, bearer('adm'))).toMatchObject({ username: 'system:admin' });
    } finally {
      await s.close();
    }
  });
});

describe('--anonymous-auth=false without other flags', () => {
  test('requests without credentials are 401; health and version stay public', async () => {
    const s = await testServer({ anonymousAuth: false }, { adminToken: 'adm' });
    try {
      const c = client(s.url);
      expect((await c.get('/api/v1/secrets')).body).toEqual(UNAUTHORIZED);
      expect((await c.get('/apis')).status).toBe(401);
      expect((await c.get('/openapi/v2')).status).toBe(401);
      for (const p of ['/healthz', '/livez', '/readyz', '/version']) expect((await c.get(p)).status).toBe(200);
      expect(await whoami(s.url, bearer('adm'))).toMatchObject({ username: 'system:admin' });
    } finally {
      await s.close();
    }
  });
});

describe('token file', () => {
  let s: ApiServer;
  beforeAll(async () => (s = await testServer({ tokenAuthFile: tokenFile, authorizationMode: ['AlwaysAllow'] })));
  afterAll(() => s.close());

  test('a listed token is its user with system:authenticated added', async () => {
    expect(await whoami(s.url, bearer('alice-token'))).toEqual({ username: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] });
    expect(await whoami(s.url, bearer('bob-token'))).toEqual({ username: 'bob', uid: '1002', groups: ['system:authenticated'] });
    expect(await whoami(s.url, { Authorization: 'bearer alice-token' })).toMatchObject({ username: 'alice' });
  });
  test('an unknown token is 401, never anonymous', async () => {
    expect((await client(s.url).get('/api/v1/namespaces/default/secrets', bearer('alice-tokenX'))).body).toEqual(UNAUTHORIZED);
    expect((await client(s.url).get('/api/v1/namespaces/default/secrets', { Authorization: 'Bearer a b' })).status).toBe(401);
  });
  test('no credentials: anonymous (--anonymous-auth defaults to true upstream)', async () => {
    expect(await whoami(s.url)).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
  });
  test('a token file without the uid column stops the start', async () => {
    const bad = tls.file('bad.csv', 'tok,user\n');
    await expect(testServer({ tokenAuthFile: bad })).rejects.toThrow(/must have at least 3 columns/);
  });
});

describe('anonymous block of the AuthenticationConfiguration', () => {
  test('anonymous only on the listed paths', async () => {
    const cfg = tls.file(
      'anon.yaml',
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt: []\nanonymous:\n  enabled: true\n  conditions:\n  - path: /api\n',
    );
    const s = await testServer({ authenticationConfig: cfg, tokenAuthFile: tokenFile, authorizationMode: ['AlwaysAllow'] });
    try {
      const c = client(s.url);
      expect((await c.get('/api')).status).toBe(200);
      expect((await c.get('/api/v1/namespaces')).body).toEqual(UNAUTHORIZED);
      expect((await c.get('/api/v1/namespaces', bearer('bob-token'))).status).toBe(200);
    } finally {
      await s.close();
    }
  });
  test('an anonymous block together with --anonymous-auth stops the start', async () => {
    const cfg = tls.file('anon-conflict.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt: []\nanonymous:\n  enabled: true\n');
    await expect(testServer({ authenticationConfig: cfg, anonymousAuth: true })).rejects.toThrow(/anonymous/);
  });
  test('anonymous.enabled false rejects requests without credentials', async () => {
    const cfg = tls.file('anon-off.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt: []\nanonymous:\n  enabled: false\n');
    const s = await testServer({ authenticationConfig: cfg });
    try {
      expect((await client(s.url).get('/api')).status).toBe(401);
    } finally {
      await s.close();
    }
  });
});

describe('client certificates', () => {
  let s: ApiServer;
  let alice: { cert: string; key: string };
  let stranger: { cert: string; key: string };
  beforeAll(async () => {
    const server = tls.issue('server', '127.0.0.1', [], 'IP:127.0.0.1');
    alice = tls.issue('alice', 'alice', ['dev', 'ops']);
    const other = new TestCA('other-ca');
    stranger = other.issue('stranger', 'mallory', ['system:masters']);
    s = await testServer({ tlsCertFile: server.cert, tlsPrivateKeyFile: server.key, clientCaFile: tls.ca.cert, anonymousAuth: false });
  });
  afterAll(() => s.close());

  test('a certificate signed by the client CA: user = CN, groups = O', async () => {
    const r = await httpsCall(`${s.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, 'POST', { ca: tls.ca.pem, cert: readPem(alice.cert), key: readPem(alice.key) }, whoamiBody);
    expect(r.status).toBe(201);
    expect(r.body.status.userInfo).toMatchObject({ username: 'alice', groups: ['dev', 'ops', 'system:authenticated'] });
    expect(r.body.status.userInfo.extra['authentication.kubernetes.io/credential-id'][0]).toMatch(/^X509SHA256=[0-9a-f]{64}$/);
  });
  test('a certificate of another CA is 401; no certificate and no token is 401', async () => {
    const r = await httpsCall(`${s.url}/api/v1/namespaces`, 'GET', { ca: tls.ca.pem, cert: readPem(stranger.cert), key: readPem(stranger.key) });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHORIZED);
    expect((await httpsCall(`${s.url}/api/v1/namespaces`, 'GET', { ca: tls.ca.pem })).status).toBe(401);
  });
});

describe('service account tokens', () => {
  let s: ApiServer;
  const c = () => client(s.url);
  const tokenFor = async (name: string, spec: Record<string, unknown> = {}) => c().post(`/api/v1/namespaces/default/serviceaccounts/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec }, bearer('alice-token'));
  beforeAll(async () => {
    s = await testServer({ tokenAuthFile: tokenFile, anonymousAuth: false, authorizationMode: ['AlwaysAllow'] });
    await c().post('/api/v1/namespaces', { metadata: { name: 'default' } }, bearer('alice-token'));
    for (const n of ['builder', 'doomed', 'bound']) await c().post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: n } }, bearer('alice-token'));
  });
  afterAll(() => s.close());

  test('TokenRequest issues a token that authenticates as the service account', async () => {
    const r = await tokenFor('builder');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: { expirationSeconds: 3600 } });
    const token = r.body.status.token as string;
    expect(Date.parse(r.body.status.expirationTimestamp) - Date.now()).toBeGreaterThan(3500_000);
    const sa = (await c().get('/api/v1/namespaces/default/serviceaccounts/builder', bearer('alice-token'))).body;
    expect(await whoami(s.url, bearer(token))).toMatchObject({
      username: 'system:serviceaccount:default:builder',
      uid: sa.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
  });
  test('deleting the service account invalidates its tokens', async () => {
    const token = (await tokenFor('doomed')).body.status.token;
    expect((await c().get('/api', bearer(token))).status).toBe(200);
    await c().del('/api/v1/namespaces/default/serviceaccounts/doomed', undefined, bearer('alice-token'));
    expect((await c().get('/api', bearer(token))).status).toBe(401);
  });
  test('a token bound to a secret dies with the secret', async () => {
    const secret = (await c().post('/api/v1/namespaces/default/secrets', { metadata: { name: 'bound-secret' } }, bearer('alice-token'))).body;
    const r = await tokenFor('bound', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'bound-secret' }, audiences: ['https://kubernetes.default.svc.cluster.local', 'vault'] });
    expect(r.status).toBe(201);
    expect(r.body.spec.boundObjectRef.uid).toBe(secret.metadata.uid);
    const token = r.body.status.token;
    expect((await c().get('/api', bearer(token))).status).toBe(200);
    await c().del('/api/v1/namespaces/default/secrets/bound-secret', undefined, bearer('alice-token'));
    expect((await c().get('/api', bearer(token))).status).toBe(401);
  });
  test('TokenRequest limits and references', async () => {
    const short = await tokenFor('builder', { expirationSeconds: 599 });
    expect(short.status).toBe(422);
    expect(short.body.details.causes[0]).toMatchObject({ field: 'spec.expirationSeconds', message: 'Invalid value: 599: may not specify a duration less than 10 minutes' });
    expect((await tokenFor('builder', { expirationSeconds: 2 ** 32 + 1 })).status).toBe(422);
    expect((await tokenFor('builder', { boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'x' } })).status).toBe(400);
    expect((await tokenFor('builder', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'missing' } })).status).toBe(404);
    expect((await tokenFor('nobody')).status).toBe(404);
    const dry = await c().post('/api/v1/namespaces/default/serviceaccounts/builder/token?dryRun=All', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }, bearer('alice-token'));
    expect(dry.status).toBe(201);
    expect(dry.body.status).toEqual({ token: '', expirationTimestamp: null });
    expect((await c().post('/api/v1/namespaces/default/serviceaccounts/builder/token', 'not json', bearer('alice-token'))).status).toBe(400);
  });
  test('a token for another audience is rejected by the API; TokenReview checks requested audiences', async () => {
    const token = (await tokenFor('builder', { audiences: ['vault'] })).body.status.token;
    expect((await c().get('/api', bearer(token))).status).toBe(401);
    const review = async (spec: Record<string, unknown>) =>
      (await c().post('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec }, bearer('alice-token'))).body;
    expect((await review({ token, audiences: ['vault'] })).status).toMatchObject({ authenticated: true, audiences: ['vault'], user: { username: 'system:serviceaccount:default:builder' } });
    expect((await review({ token })).status.authenticated).toBeUndefined();
    expect((await review({ token: 'bob-token' })).status).toMatchObject({ authenticated: true, user: { username: 'bob', groups: ['system:authenticated'] } });
    // audience-agnostic authenticators (token file) authenticate only for the API audiences (upstream audagnostic.go)
    const api = 'https://kubernetes.default.svc.cluster.local';
    expect((await review({ token: 'bob-token', audiences: ['vault.example'] })).status.authenticated).toBeUndefined();
    expect((await review({ token: 'bob-token', audiences: ['vault.example', api] })).status).toMatchObject({ authenticated: true, audiences: [api] });
    expect((await review({ token: 'bob-token' })).status.audiences).toEqual([api]);
    // a service account token reports the intersection of its audiences and the requested ones
    const both = (await tokenFor('builder', { audiences: ['vault', api] })).body.status.token;
    expect((await review({ token: both, audiences: ['vault', 'elsewhere'] })).status).toMatchObject({ authenticated: true, audiences: ['vault'] });
    expect((await review({ token: both, audiences: ['elsewhere'] })).status.authenticated).toBeUndefined();
    const empty = await c().post('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {} }, bearer('alice-token'));
    expect(empty.status).toBe(400);
  });
});

describe('impersonation headers', () => {
  let s: ApiServer;
  beforeAll(async () => (s = await testServer({ tokenAuthFile: tokenFile }, { adminToken: 'adm' })));
  afterAll(() => s.close());

  test('the admin may impersonate a user with groups, uid and extra', async () => {
    const u = await whoami(s.url, { ...bearer('adm'), 'Impersonate-User': 'carol', 'Impersonate-Group': 'g1', 'Impersonate-Uid': 'u-7', 'Impersonate-Extra-Scopes%2Fa': 'view' });
    expect(u).toEqual({ username: 'carol', uid: 'u-7', groups: ['g1', 'system:authenticated'], extra: { 'scopes/a': ['view'] } });
    // repeated Impersonate-Group headers are separate groups, even with ", " inside one
    const groups = await new Promise<string[]>((resolve, reject) => {
      const req = httpRequest(`${s.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { method: 'POST' }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(JSON.parse(text).status.userInfo.groups));
      });
      req.on('error', reject);
      req.setHeader('Authorization', 'Bearer adm');
      req.setHeader('Content-Type', 'application/json');
      req.setHeader('Impersonate-User', 'dave');
      req.setHeader('Impersonate-Group', ['a, b', 'c']);
      req.end(JSON.stringify(whoamiBody));
    });
    expect(groups).toEqual(['a, b', 'c', 'system:authenticated']);
    const sa = await whoami(s.url, { ...bearer('adm'), 'Impersonate-User': 'system:serviceaccount:ns1:robot' });
    expect(sa.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated']);
  });
  test('others are forbidden until authorization allows them; malformed headers are 400', async () => {
    const r = await whoami(s.url, { ...bearer('bob-token'), 'Impersonate-User': 'carol' });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('users.authentication.service.io "carol" is forbidden: User "bob" cannot impersonate resource "users" in API group "authentication.service.io" at the cluster scope');
    const bad = await whoami(s.url, { ...bearer('adm'), 'Impersonate-Group': 'g1' });
    expect(bad.status).toBe(400);
  });
});

describe('logs never hold credentials', () => {
  test('the request log has paths and statuses, not tokens', async () => {
    const lines: string[] = [];
    const { startServer } = await import('../../src/server/app.js');
    const s = await startServer({ port: 0, store: 'memory', demoData: false, requestLog: true, staticDir: '', compactionIntervalMs: 0, tokenAuthFile: tokenFile }, { log: (l) => lines.push(l) });
    try {
      await client(s.url).get('/api/v1/namespaces', bearer('alice-token'));
      await client(s.url).get('/api/v1/namespaces', bearer('wrong-secret-token'));
    } finally {
      await s.close();
    }
    expect(lines.some((l) => l.includes('"status":401'))).toBe(true);
    expect(lines.join('\n')).not.toMatch(/alice-token|wrong-secret-token/);
  });
});

function readPem(p: string): string {
  return readFileSync(p, 'utf8');
}
