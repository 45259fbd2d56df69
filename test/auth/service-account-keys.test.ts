// Service account signing keys: generated and kept in the data directory (tokens survive a restart),
// or given with --service-account-signing-key-file; --service-account-key-file adds verification keys.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { afterAll, describe, expect, test } from 'vitest';
import { client, testServer } from '../helpers/server.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'periscope-sa-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ADMIN = { Authorization: 'Bearer adm' };
async function saToken(url: string, ns = 'default', name = 'robot'): Promise<string> {
  const c = client(url);
  await c.post('/api/v1/namespaces', { metadata: { name: ns } }, ADMIN);
  await c.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } }, ADMIN);
  const r = await c.post(`/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }, ADMIN);
  expect(r.status).toBe(201);
  return r.body.status.token;
}
const who = async (url: string, token: string) =>
  (await client(url).post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { Authorization: `Bearer ${token}` })).status;

describe('service account signing keys', () => {
  test('a generated key is kept in the data directory: tokens stay valid across a restart', async () => {
    const dataDir = tmp();
    let s = await testServer({ store: 'sqlite', dataDir, anonymousAuth: false }, { adminToken: 'adm' });
    const token = await saToken(s.url);
    expect(decodeProtectedHeader(token).alg).toBe('ES256');
    await s.close();
    s = await testServer({ store: 'sqlite', dataDir, anonymousAuth: false }, { adminToken: 'adm' });
    try {
      expect(await who(s.url, token)).toBe(201);
    } finally {
      await s.close();
    }
  });

  test('--service-account-signing-key-file signs (RSA: RS256); another server trusts it only through --service-account-key-file', async () => {
    const d = tmp();
    const key = join(d, 'sa.key');
    const pub = join(d, 'sa.pub');
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', key], { stdio: 'ignore' });
    execFileSync('openssl', ['pkey', '-in', key, '-pubout', '-out', pub], { stdio: 'ignore' });
    const dataDir = tmp();
    const a = await testServer({ store: 'sqlite', dataDir, serviceAccountSigningKeyFile: key, anonymousAuth: false }, { adminToken: 'adm' });
    const token = await saToken(a.url);
    expect(decodeProtectedHeader(token).alg).toBe('RS256');
    expect(await who(a.url, token)).toBe(201);
    await a.close();
    // same store, a different signing key: the old token verifies only with the old public key listed
    const b = await testServer({ store: 'sqlite', dataDir, anonymousAuth: false }, { adminToken: 'adm' });
    try {
      expect(await who(b.url, token)).toBe(401);
    } finally {
      await b.close();
    }
    const c = await testServer({ store: 'sqlite', dataDir, serviceAccountKeyFiles: [pub], anonymousAuth: false }, { adminToken: 'adm' });
    try {
      expect(await who(c.url, token)).toBe(201);
    } finally {
      await c.close();
    }
  });

  test('--service-account-issuer is the tokens\' iss and the default API audience', async () => {
    const a = await testServer({ serviceAccountIssuer: 'https://a.example', anonymousAuth: false }, { adminToken: 'adm' });
    try {
      const token = await saToken(a.url);
      expect(await who(a.url, token)).toBe(201);
      // the API audience defaults to the issuer
      const r = await client(a.url).post('/api/v1/namespaces/default/serviceaccounts/robot/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }, ADMIN);
      expect(r.body.spec.audiences).toEqual(['https://a.example']);
    } finally {
      await a.close();
    }
  });
});
