// Stock kubectl against a TLS server with authentication on: a static token, a client certificate,
// `kubectl create token` and the token it prints, and `kubectl auth whoami` (Protobuf) for each.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubectl } from '../helpers/kubectl.js';
import { testServer } from '../helpers/server.js';
import { TestCA } from '../helpers/tls.js';
import { OidcIssuer, makeKey } from '../helpers/oidc-issuer.js';

let tls: TestCA;
let s: ApiServer;
let issuer: OidcIssuer;

function kubeconfig(name: string, user: Record<string, string>): string {
  const file = join(tls.dir, `${name}.kubeconfig`);
  const userYaml = Object.entries(user).map(([k, v]) => `    ${k}: ${v}`).join('\n');
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${s.url}
    certificate-authority: ${tls.ca.cert}
users:
- name: u
  user:
${userYaml}
contexts:
- name: c
  context: {cluster: c, user: u, namespace: default}
current-context: c
`,
  );
  return file;
}

const whoamiRows = (out: string) =>
  Object.fromEntries(
    out
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s{2,}/) as [string, string]),
  );

beforeAll(async () => {
  tls = new TestCA();
  const server = tls.issue('server', '127.0.0.1', [], 'IP:127.0.0.1');
  const tokens = tls.file('tokens.csv', 'admin-token,admin,1,system:masters\n');
  issuer = new OidcIssuer(server);
  issuer.keys = [await makeKey('k1')];
  await issuer.start();
  const authn = tls.file(
    'authn.json',
    JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthenticationConfiguration',
      jwt: [{ issuer: { url: issuer.url(), audiences: ['periscope'], certificateAuthority: tls.ca.pem }, claimMappings: { username: { claim: 'sub', prefix: 'oidc:' }, groups: { claim: 'groups', prefix: '' } } }],
    }),
  );
  s = await testServer({ tlsCertFile: server.cert, tlsPrivateKeyFile: server.key, clientCaFile: tls.ca.cert, tokenAuthFile: tokens, authenticationConfig: authn, anonymousAuth: false });
});
afterAll(async () => {
  await s?.close();
  await issuer?.stop();
  tls?.cleanup();
});

describe('kubectl with authentication', () => {
  test('a static token: requests work and whoami shows the user', async () => {
    const kc = kubeconfig('token', { token: 'admin-token' });
    const ns = await kubectl(kc, ['create', 'namespace', 'team-a']);
    expect(ns.stderr).toBe('');
    const who = await kubectl(kc, ['auth', 'whoami']);
    expect(who.code).toBe(0);
    expect(whoamiRows(who.stdout)).toEqual({ Username: 'admin', UID: '1', Groups: '[system:masters system:authenticated]' });
  });

  test('a wrong token: kubectl reports Unauthorized', async () => {
    const r = await kubectl(kubeconfig('bad', { token: 'nope' }), ['get', 'namespaces']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/the server has asked for the client to provide credentials/);
  });

  test('an OIDC token: whoami shows the mapped user', async () => {
    const token = await issuer.sign({ iss: issuer.url(), aud: 'periscope', sub: 'erin', groups: ['eng'] });
    const who = await kubectl(kubeconfig('oidc', { token }), ['auth', 'whoami']);
    expect(who.stderr).toBe('');
    expect(whoamiRows(who.stdout)).toEqual({ Username: 'oidc:erin', Groups: '[eng system:authenticated]' });
  });

  test('a client certificate: whoami shows CN and O', async () => {
    const cert = tls.issue('carol', 'carol', ['dev', 'qa']);
    const who = await kubectl(kubeconfig('cert', { 'client-certificate': cert.cert, 'client-key': cert.key }), ['auth', 'whoami']);
    expect(who.stderr).toBe('');
    expect(whoamiRows(who.stdout)).toMatchObject({ Username: 'carol', Groups: '[dev qa system:authenticated]' });
  });

  test('kubectl create token, then use the token', async () => {
    const admin = kubeconfig('token2', { token: 'admin-token' });
    expect((await kubectl(admin, ['create', 'serviceaccount', 'robot'])).stderr).toBe('');
    const created = await kubectl(admin, ['create', 'token', 'robot', '--duration', '20m']);
    expect(created.stderr).toBe('');
    const token = created.stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    const who = await kubectl(kubeconfig('sa', { token }), ['auth', 'whoami', '-o', 'json']);
    expect(who.stderr).toBe('');
    const review = JSON.parse(who.stdout);
    expect(review).toMatchObject({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' });
    expect(review.status.userInfo).toMatchObject({ username: 'system:serviceaccount:default:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] });
    const tooShort = await kubectl(admin, ['create', 'token', 'robot', '--duration', '5m']);
    expect(tooShort.stderr).toMatch(/may not specify a duration less than 10 minutes/);
  });
});
