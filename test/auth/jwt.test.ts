// JWT authenticators against a real local HTTPS OIDC issuer: discovery, JWKS rotation, time and
// audience checks, claim validation rules, claim mappings (claims and CEL), user validation rules,
// an issuer that is down at start, and configuration reload.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { OidcIssuer, makeKey } from '../helpers/oidc-issuer.js';
import { client, testServer } from '../helpers/server.js';
import { whoamiBody } from '../helpers/https.js';
import { TestCA } from '../helpers/tls.js';

let tls: TestCA;
let issuer: OidcIssuer;

const whoami = async (s: ApiServer, token: string) => {
  const r = await client(s.url).post('/apis/authentication.k8s.io/v1/selfsubjectreviews', whoamiBody, { Authorization: `Bearer ${token}` });
  return r.status === 201 ? r.body.status.userInfo : { status: r.status, body: r.body };
};
const unauthorized = { status: 401, body: expect.objectContaining({ reason: 'Unauthorized', message: 'Unauthorized' }) };

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, tries = 100): Promise<T> {
  let v = await f();
  for (let i = 0; i < tries && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 50));
    v = await f();
  }
  return v;
}

/** An AuthenticationConfiguration (JSON is YAML) with a claim-mapped and an expression-mapped authenticator. */
function config(over: { usernamePrefix?: string; discoveryURL?: string } = {}) {
  const ca = tls.ca.pem;
  return {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthenticationConfiguration',
    anonymous: { enabled: false },
    jwt: [
      {
        issuer: { url: issuer.url('/claims'), audiences: ['periscope', 'other'], audienceMatchPolicy: 'MatchAny', certificateAuthority: ca, ...(over.discoveryURL ? { discoveryURL: over.discoveryURL } : {}) },
        claimValidationRules: [
          { claim: 'hd', requiredValue: 'example.com' },
          { expression: "!has(claims.blocked) || claims.blocked != true", message: 'blocked users may not sign in' },
        ],
        claimMappings: {
          username: { claim: 'email', prefix: over.usernamePrefix ?? 'oidc:' },
          groups: { claim: 'groups', prefix: 'g:' },
          uid: { claim: 'sub' },
          extra: [
            { key: 'example.com/tenant', valueExpression: 'has(claims.tenant) ? claims.tenant : null' },
            { key: 'example.com/scopes', valueExpression: "has(claims.scopes) ? claims.scopes.split(' ') : []" },
          ],
        },
        userValidationRules: [{ expression: "!user.username.startsWith('oidc:system:')", message: 'username cannot use the system: prefix' }],
      },
      {
        issuer: { url: issuer.url('/cel'), audiences: ['periscope'], certificateAuthority: ca },
        claimValidationRules: [{ expression: 'claims.email_verified == true', message: 'email must be verified' }],
        claimMappings: {
          username: { expression: "'cel:' + claims.email" },
          groups: { expression: 'has(claims.roles) ? claims.roles : ""' },
          uid: { expression: "'uid-' + claims.sub" },
          // a cubic mapping: cheap for a short list, past the per-call cost limit for a long one
          extra: [{ key: 'example.com/cost', valueExpression: "has(claims.many) ? claims.many.filter(a, claims.many.all(b, claims.many.all(c, a != '' && b != '' && c != ''))) : []" }],
        },
        userValidationRules: [{ expression: "user.groups.all(g, g != 'banned')", message: 'banned' }],
      },
    ],
  };
}

let cfgFile: string;
let s: ApiServer;
const now = () => Math.floor(Date.now() / 1000);
const good = () => ({ iss: issuer.url('/claims'), aud: 'periscope', sub: 's-1', email: 'ann@example.com', hd: 'example.com', groups: ['dev', 'ops'] });

beforeAll(async () => {
  tls = new TestCA();
  const cert = tls.issue('issuer', '127.0.0.1', [], 'IP:127.0.0.1');
  issuer = new OidcIssuer(cert);
  issuer.keys = [await makeKey('k1'), await makeKey('e1', 'ES256')];
  // the issuer is down when the API server starts: reserve its port, then stop
  await issuer.start();
  const port = issuer.port;
  await issuer.stop();
  issuer.port = port;
  cfgFile = tls.file('authn.json', JSON.stringify(config()));
  s = await testServer({ authenticationConfig: cfgFile });
});
afterAll(async () => {
  await s?.close();
  await issuer.stop();
  tls.cleanup();
});

describe('issuer availability', () => {
  test('tokens fail while the issuer is down and work once it is reachable', async () => {
    const token = await issuer.sign(good());
    expect(await whoami(s, token)).toEqual(unauthorized);
    await issuer.start(issuer.port);
    // discovery is retried in the background every 10 s (upstream), not by requests
    expect(await until(() => whoami(s, token), (u) => 'username' in u, 300)).toMatchObject({ username: 'oidc:ann@example.com' });
  });
  test('tokens of an issuer whose discovery is down fail at once, without a fetch per request', async () => {
    const file = tls.file('down.json', JSON.stringify(config()));
    issuer.discoveryDown = 503;
    const before = issuer.discoveryFetches;
    const s2 = await testServer({ authenticationConfig: file });
    try {
      // the background attempt made at start
      await until(async () => issuer.discoveryFetches, (n) => n >= before + 2);
      const started = issuer.discoveryFetches;
      const token = await issuer.sign(good());
      for (let i = 0; i < 20; i++) expect(await whoami(s2, token)).toEqual(unauthorized);
      // at most the background retry may have run meanwhile
      expect(issuer.discoveryFetches - started).toBeLessThanOrEqual(2);
    } finally {
      issuer.discoveryDown = undefined;
      await s2.close();
    }
  });
  test('the authenticator retries discovery in the background until the issuer answers', async () => {
    const { JwtAuthenticator } = await import('../../src/server/auth/jwt.js');
    issuer.discoveryDown = 500;
    const a = new JwtAuthenticator(config().jwt[0] as any, () => {}, { retryMs: 50 });
    try {
      const token = await issuer.sign(good());
      const before = issuer.discoveryFetches;
      a.start();
      await a.firstAttempt();
      expect(a.initialized).toBe(false);
      const fetched = issuer.discoveryFetches;
      await expect(Promise.all(Array.from({ length: 20 }, () => a.authenticate(token)))).rejects.toThrow(/not initialized/);
      expect(issuer.discoveryFetches).toBeGreaterThan(before);
      expect(issuer.discoveryFetches - fetched).toBeLessThanOrEqual(2);
      issuer.discoveryDown = undefined;
      await until(async () => a.initialized, (v) => v);
      expect(await a.authenticate(token)).toMatchObject({ name: 'oidc:ann@example.com' });
    } finally {
      a.stop();
      issuer.discoveryDown = undefined;
    }
  });
});

describe('claim mappings by claim', () => {
  test('username with prefix, groups with prefix, uid, extra by CEL', async () => {
    const token = await issuer.sign({ ...good(), tenant: 'acme', scopes: 'read write' });
    expect(await whoami(s, token)).toEqual({
      username: 'oidc:ann@example.com',
      uid: 's-1',
      groups: ['g:dev', 'g:ops', 'system:authenticated'],
      extra: { 'example.com/tenant': ['acme'], 'example.com/scopes': ['read', 'write'] },
    });
  });
  test('ES256 keys verify too; a string groups claim is one group; null and absent extra are absent', async () => {
    expect(await whoami(s, await issuer.sign({ ...good(), groups: 'solo' }, issuer.keys[1]))).toEqual({ username: 'oidc:ann@example.com', uid: 's-1', groups: ['g:solo', 'system:authenticated'] });
    const { groups: _g, ...noGroups } = good();
    expect(await whoami(s, await issuer.sign(noGroups))).toEqual({ username: 'oidc:ann@example.com', uid: 's-1', groups: ['system:authenticated'] });
  });
  test('email with email_verified false is rejected; true or absent is accepted', async () => {
    expect(await whoami(s, await issuer.sign({ ...good(), email_verified: false }))).toEqual(unauthorized);
    expect(await whoami(s, await issuer.sign({ ...good(), email_verified: 'true' }))).toEqual(unauthorized);
    expect(await whoami(s, await issuer.sign({ ...good(), email_verified: true }))).toMatchObject({ username: 'oidc:ann@example.com' });
  });
  test('claim validation rules: required value and CEL', async () => {
    expect(await whoami(s, await issuer.sign({ ...good(), hd: 'evil.com' }))).toEqual(unauthorized);
    const { hd: _hd, ...noHd } = good();
    expect(await whoami(s, await issuer.sign(noHd))).toEqual(unauthorized);
    expect(await whoami(s, await issuer.sign({ ...good(), blocked: true }))).toEqual(unauthorized);
    expect(await whoami(s, await issuer.sign({ ...good(), blocked: false }))).toMatchObject({ username: 'oidc:ann@example.com' });
  });
  test('user validation rules', async () => {
    expect(await whoami(s, await issuer.sign({ ...good(), email: 'system:admin' }))).toEqual(unauthorized);
  });
  test('missing username or uid claims, wrong types', async () => {
    const { email: _e, ...noEmail } = good();
    expect(await whoami(s, await issuer.sign(noEmail))).toEqual(unauthorized);
    const { sub: _s, ...noSub } = good();
    expect(await whoami(s, await issuer.sign(noSub))).toEqual(unauthorized);
    expect(await whoami(s, await issuer.sign({ ...good(), email: 42 }))).toEqual(unauthorized);
    expect(await whoami(s, await issuer.sign({ ...good(), groups: [1, 2] }))).toEqual(unauthorized);
  });
});

describe('verification', () => {
  test('audiences: any configured audience matches (MatchAny); others fail', async () => {
    expect(await whoami(s, await issuer.sign({ ...good(), aud: ['x', 'other'] }))).toMatchObject({ username: 'oidc:ann@example.com' });
    expect(await whoami(s, await issuer.sign({ ...good(), aud: 'kubernetes' }))).toEqual(unauthorized);
  });
  test('TokenReview audiences: JWT authenticators are audience-agnostic, wrapped with the API audiences (upstream)', async () => {
    const a = s.deps.authentication!.authenticator;
    const api = 'https://kubernetes.default.svc.cluster.local';
    const token = await issuer.sign(good());
    expect(await a.authenticateToken(token)).toMatchObject({ user: { name: 'oidc:ann@example.com' }, audiences: [api] });
    expect(await a.authenticateToken(token, ['vault.example'])).toEqual({ error: 'invalid bearer token' });
    expect(await a.authenticateToken(token, ['vault.example', api])).toMatchObject({ user: { name: 'oidc:ann@example.com' }, audiences: [api] });
  });
  test('exp is strict, nbf has five minutes of skew', async () => {
    expect(await whoami(s, await issuer.sign({ ...good(), exp: now() - 5 }))).toEqual(unauthorized);
    // exp is required (spec: the minimum payload has iss, aud, exp and the username claim)
    expect(await whoami(s, await issuer.sign({ ...good(), exp: undefined }))).toEqual(unauthorized);
    expect(await whoami(s, await issuer.sign({ ...good(), nbf: now() + 120 }))).toMatchObject({ username: 'oidc:ann@example.com' });
    expect(await whoami(s, await issuer.sign({ ...good(), nbf: now() + 600 }))).toEqual(unauthorized);
  });
  test('an issuer no authenticator has, a tampered token, a key the issuer never published', async () => {
    expect(await whoami(s, await issuer.sign({ ...good(), iss: issuer.url('/unknown') }))).toEqual(unauthorized);
    const t = await issuer.sign(good());
    const [h, p, sig] = t.split('.');
    const forged = Buffer.from(JSON.stringify({ ...good(), email: 'root@example.com', exp: now() + 60 })).toString('base64url');
    expect(await whoami(s, `${h}.${forged}.${sig}`)).toEqual(unauthorized);
    expect(p).toBeTruthy();
    const rogue = await makeKey('k1');
    expect(await whoami(s, await issuer.sign(good(), rogue))).toEqual(unauthorized);
  });
  test('JWKS rotation: a token with a new kid refetches the key set', async () => {
    const k2 = await makeKey('k2', 'PS256');
    const t = await issuer.sign(good(), k2);
    expect(await whoami(s, t)).toEqual(unauthorized);
    issuer.keys = [...issuer.keys, k2];
    const before = issuer.jwksFetches;
    expect(await whoami(s, t)).toMatchObject({ username: 'oidc:ann@example.com' });
    expect(issuer.jwksFetches).toBeGreaterThan(before);
  });
});

describe('claim mappings by expression', () => {
  const cel = () => ({ iss: issuer.url('/cel'), aud: 'periscope', sub: '7', email: 'bo@example.com', email_verified: true });
  test('username, groups and uid from CEL', async () => {
    expect(await whoami(s, await issuer.sign({ ...cel(), roles: ['a', 'b'] }))).toEqual({ username: 'cel:bo@example.com', uid: 'uid-7', groups: ['a', 'b', 'system:authenticated'] });
    expect(await whoami(s, await issuer.sign(cel()))).toEqual({ username: 'cel:bo@example.com', uid: 'uid-7', groups: ['system:authenticated'] });
  });
  test('CEL claim and user validation rules', async () => {
    expect(await whoami(s, await issuer.sign({ ...cel(), email_verified: false }))).toEqual(unauthorized);
    expect(await whoami(s, await issuer.sign({ ...cel(), roles: ['banned'] }))).toEqual(unauthorized);
    // an expression reading a missing claim is an error, not a user
    const { email: _e, ...noEmail } = cel();
    expect(await whoami(s, await issuer.sign(noEmail))).toEqual(unauthorized);
  });
});

describe('claim mappings under the CEL runtime cost limit', () => {
  test('a mapping past the per-call limit fails the token instead of holding the server', async () => {
    const claims = { iss: issuer.url('/cel'), aud: 'periscope', sub: '8', email: 'cy@example.com', email_verified: true };
    expect(await whoami(s, await issuer.sign({ ...claims, many: ['x', 'y'] }))).toMatchObject({ username: 'cel:cy@example.com', extra: { 'example.com/cost': ['x', 'y'] } });
    const many = Array.from({ length: 200 }, (_, i) => `item-${i}`);
    expect(await whoami(s, await issuer.sign({ ...claims, many }))).toEqual(unauthorized);
  });
});

describe('discovery', () => {
  test('the discovery document must name the configured issuer', async () => {
    issuer.issuerOverride.set('/wrong', 'https://elsewhere.example.com');
    const file = tls.file('wrong.json', JSON.stringify({ ...config(), jwt: [{ ...config().jwt[0], issuer: { url: issuer.url('/claims'), discoveryURL: issuer.url('/wrong/.well-known/openid-configuration'), audiences: ['periscope'], certificateAuthority: tls.ca.pem } }] }));
    const s2 = await testServer({ authenticationConfig: file });
    try {
      expect(await whoami(s2, await issuer.sign(good()))).toEqual(unauthorized);
    } finally {
      await s2.close();
    }
  });
  test('without the issuer CA the connection is not trusted', async () => {
    const c = config();
    const file = tls.file('noca.json', JSON.stringify({ ...c, jwt: [{ ...c.jwt[0], issuer: { url: issuer.url('/claims'), audiences: ['periscope'] } }] }));
    const s2 = await testServer({ authenticationConfig: file });
    try {
      expect(await whoami(s2, await issuer.sign(good()))).toEqual(unauthorized);
    } finally {
      await s2.close();
    }
  });
});

describe('reload', () => {
  test('a valid new file replaces the configuration; an invalid one is logged and the old one kept', async () => {
    const logs: string[] = [];
    const file = tls.file('reload.json', JSON.stringify(config()));
    const { startServer } = await import('../../src/server/app.js');
    const s2 = await startServer({ port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, authenticationConfig: file }, { log: (l) => logs.push(l) });
    try {
      const token = await issuer.sign(good());
      // discovery runs in the background after start
      expect(await until(() => whoami(s2, token), (u) => 'username' in u)).toMatchObject({ username: 'oidc:ann@example.com' });
      writeFileSync(file, JSON.stringify(config({ usernamePrefix: 'new:' })));
      await s2.deps.authentication!.reload();
      expect(await whoami(s2, token)).toMatchObject({ username: 'new:ann@example.com' });
      const bad = config();
      (bad.jwt[0]!.claimMappings as any).username = { expression: 'claims.email +' };
      writeFileSync(file, JSON.stringify(bad));
      await s2.deps.authentication!.reload();
      expect(logs.some((l) => l.startsWith('error reloading AuthenticationConfiguration') && l.includes('jwt[0].claimMappings.username.expression'))).toBe(true);
      expect(await whoami(s2, token)).toMatchObject({ username: 'new:ann@example.com' });
      // the file watcher picks up a change on its own
      writeFileSync(file, JSON.stringify(config({ usernamePrefix: 'watched:' })));
      expect(await until(() => whoami(s2, token), (u) => u.username === 'watched:ann@example.com')).toMatchObject({ username: 'watched:ann@example.com' });
    } finally {
      await s2.close();
    }
  });
});
