import { describe, expect, test } from 'vitest';
import { API_VERSION } from '../test-support.js';
import { evaluateAuthentication, evaluateJwtAuthenticator, sampleClaimsFor } from './authn.js';
import { buildUnsignedJwt, generateSigningKey, signJwt } from './jwt.js';

const NOW = Date.UTC(2030, 0, 1);
const nowS = NOW / 1000;

const config = {
  apiVersion: API_VERSION,
  kind: 'AuthenticationConfiguration',
  jwt: [
    {
      issuer: { url: 'https://other.example.com', audiences: ['other'] },
      claimMappings: { username: { claim: 'sub', prefix: 'other:' } },
    },
    {
      issuer: { url: 'https://issuer.example.com', audiences: ['kubernetes', 'periscope'], audienceMatchPolicy: 'MatchAny' },
      claimValidationRules: [
        { claim: 'hd', requiredValue: 'example.com' },
        { expression: "claims.exp - claims.iat <= 86400", message: 'token lives too long' },
      ],
      claimMappings: {
        username: { claim: 'email', prefix: '' },
        groups: { claim: 'groups', prefix: 'oidc:' },
        uid: { claim: 'sub' },
        extra: [
          { key: 'example.com/team', valueExpression: 'claims.team' },
          { key: 'example.com/empty', valueExpression: "''" },
        ],
      },
      userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'no system users' }],
    },
  ],
};

const good = {
  iss: 'https://issuer.example.com',
  aud: ['periscope'],
  sub: 'u-123',
  email: 'jane@example.com',
  email_verified: true,
  hd: 'example.com',
  groups: ['dev', 'ops'],
  team: ['blue', ''],
  iat: nowS - 60,
  exp: nowS + 3600,
};

const run = (claims: Record<string, unknown>, opts: { jwks?: unknown } = {}) => evaluateAuthentication(config, buildUnsignedJwt(claims), { now: NOW, ...opts });

describe('authentication playground', () => {
  test('a good token maps to a user; the signature is marked as skipped', async () => {
    const r = await run(good);
    expect(r.authenticator).toBe(1);
    expect(r.issuers.map((i) => i.matches)).toEqual([false, true]);
    expect(r.signature.status).toBe('skipped');
    expect(r.authenticated).toBe(true);
    expect(r.summary).toBe('authenticated as "jane@example.com" by jwt[1]');
    expect(r.result!.user).toEqual({ username: 'jane@example.com', uid: 'u-123', groups: ['oidc:dev', 'oidc:ops'], extra: { 'example.com/team': ['blue'] } });
    expect(r.result!.audience).toMatchObject({ status: 'pass', detail: 'audience "periscope" is accepted', path: 'jwt[1].issuer.audiences' });
    expect(r.result!.claimValidation.map((c) => [c.path, c.status])).toEqual([
      ['jwt[1].claimValidationRules[0]', 'pass'],
      ['jwt[1].claimValidationRules[1].expression', 'pass'],
    ]);
    expect(r.result!.mappings.find((m) => m.attribute === 'example.com/empty')).toMatchObject({ status: 'pass', value: [], detail: 'empty result: the attribute is left out' });
    expect(r.result!.userValidation).toEqual([{ path: 'jwt[1].userValidationRules[0].expression', label: "!user.username.startsWith('system:')", status: 'pass', detail: 'true' }]);
  });

  test('claims without a token (built in the form) are evaluated the same way', async () => {
    const r = await evaluateAuthentication(config, good, { now: NOW });
    expect(r.authenticated).toBe(true);
    expect(r.signature).toEqual({ status: 'skipped', detail: 'claims given without a token: no signature to check' });
  });

  test('an unknown issuer selects no authenticator', async () => {
    const r = await run({ ...good, iss: 'https://nobody.example.com' });
    expect(r.authenticator).toBeUndefined();
    expect(r.authenticated).toBe(false);
    expect(r.summary).toBe('no JWT authenticator has issuer url "https://nobody.example.com"; the token is left to other authenticators');
  });

  test('no iss claim', async () => {
    const { iss: _iss, ...rest } = good;
    expect((await run(rest)).summary).toBe('the token has no iss claim, so no JWT authenticator handles it');
  });

  test('audience mismatch', async () => {
    const r = await run({ ...good, aud: 'someone-else' });
    expect(r.authenticated).toBe(false);
    expect(r.summary).toBe('expected audience in ["kubernetes","periscope"] got ["someone-else"]');
  });

  test('expired and missing exp', async () => {
    expect((await run({ ...good, exp: nowS - 1 })).summary).toBe('token is expired (Token Expiry: 2029-12-31T23:59:59.000Z)');
    const { exp: _exp, ...rest } = good;
    expect((await run(rest)).summary).toBe('the token has no exp claim, so it counts as expired');
  });

  test('not yet valid beyond the leeway', async () => {
    expect((await run({ ...good, nbf: nowS + 30 })).authenticated).toBe(true);
    expect((await run({ ...good, nbf: nowS + 600 })).summary).toBe('current time is before the nbf (not before) time 2030-01-01T00:10:00.000Z');
  });

  test('claim rules: missing claim, wrong value, false expression with its message', async () => {
    const { hd: _hd, ...noHd } = good;
    expect((await run(noHd)).summary).toBe('required claim hd not present in ID token');
    expect((await run({ ...good, hd: 'evil.com' })).summary).toBe('required claim hd value does not match. Got = evil.com, want = example.com');
    const r = await run({ ...good, iat: nowS - 100_000 });
    expect(r.summary).toBe('token lives too long');
    expect(r.result!.claimValidation[1]).toMatchObject({ status: 'fail', detail: 'token lives too long' });
  });

  test('email claim: email_verified false is rejected, absent is fine', async () => {
    expect((await run({ ...good, email_verified: false })).summary).toBe('email not verified');
    const { email_verified: _v, ...rest } = good;
    expect((await run(rest)).authenticated).toBe(true);
  });

  test('groups as a single string; a non-string username claim is an error', async () => {
    const r = await run({ ...good, groups: 'dev' });
    expect(r.result!.user!.groups).toEqual(['oidc:dev']);
    const bad = await run({ ...good, email: 42 });
    expect(bad.result!.user).toBeUndefined();
    expect(bad.summary).toBe('claim email is 42, expected a string');
  });

  test('user validation failure uses its message', async () => {
    const r = await run({ ...good, email: 'system:admin' });
    expect(r.result!.user!.username).toBe('system:admin');
    expect(r.summary).toBe('no system users');
  });

  test('CEL evaluation errors are reported on the rule', async () => {
    const { team: _t, ...rest } = good;
    const r = await run(rest);
    expect(r.result!.mappings.find((m) => m.attribute === 'example.com/team')).toMatchObject({
      path: 'jwt[1].claimMappings.extra[0].valueExpression',
      status: 'error',
      detail: 'evaluation failed: No such key: team',
    });
    expect(r.authenticated).toBe(false);
  });

  test('expression mappings: username, groups and uid', () => {
    const authenticator = {
      issuer: { url: 'https://issuer.example.com', audiences: ['k'] },
      claimMappings: {
        username: { expression: "'user:' + claims.sub" },
        groups: { expression: "claims.roles.map(r, 'role:' + r)" },
        uid: { expression: 'claims.sub' },
      },
    };
    const r = evaluateJwtAuthenticator(authenticator, { aud: 'k', exp: nowS + 10, sub: 'bob', roles: ['a', 'b'] }, 'jwt[0]', nowS);
    expect(r.failure).toBeUndefined();
    expect(r.user).toEqual({ username: 'user:bob', uid: 'bob', groups: ['role:a', 'role:b'], extra: {} });
    const empty = evaluateJwtAuthenticator(
      { ...authenticator, claimMappings: { username: { expression: "''" } } },
      { aud: 'k', exp: nowS + 10 },
      'jwt[0]',
      nowS,
    );
    expect(empty.failure).toBe('empty username via CEL expression is not allowed');
  });

  test('JWKS: a signed token verifies; a token signed by another key fails', async () => {
    const key = await generateSigningKey('RS256', 'k');
    const jwks = { keys: [key.publicJwk] };
    const ok = await evaluateAuthentication(config, await signJwt(good, key), { now: NOW, jwks });
    expect(ok.signature.status).toBe('verified');
    expect(ok.authenticated).toBe(true);
    const other = await generateSigningKey('RS256', 'k');
    const bad = await evaluateAuthentication(config, await signJwt(good, other), { now: NOW, jwks });
    expect(bad.authenticated).toBe(false);
    expect(bad.summary).toBe('signature: the signature does not verify with the matching key');
    // the claims are still evaluated so the rest of the picture is visible
    expect(bad.result!.user!.username).toBe('jane@example.com');
  });

  test('a malformed token', async () => {
    const r = await evaluateAuthentication(config, 'nope', { now: NOW });
    expect(r).toMatchObject({ authenticated: false, tokenError: 'a JWT has 3 dot-separated parts, this has 1' });
  });

  test('sample claims fit the authenticator', () => {
    const c = sampleClaimsFor(config.jwt[1], NOW);
    expect(c).toMatchObject({ iss: 'https://issuer.example.com', aud: ['kubernetes'], exp: nowS + 3600 });
  });
});
