// kubectl auth can-i against the server over TLS with bearer tokens (kubectl sends the reviews as Protobuf):
// allowed and denied answers, --list, and --as impersonation allowed and denied.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl } from '../helpers/kubectl.js';
import { authzServer, type AuthzFixture, type TestUser } from './support.js';

let f: AuthzFixture;
const configs = new Map<string, string>();

function kubeconfig(user: TestUser): string {
  let file = configs.get(user);
  if (file) return file;
  file = join(f.dir, `kubeconfig-${user}`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: c',
      '  cluster:',
      `    server: ${f.srv.url}`,
      `    certificate-authority: ${join(f.dir, 'server.crt')}`,
      'contexts:',
      '- name: c',
      '  context: {cluster: c, user: u, namespace: team}',
      'current-context: c',
      'users:',
      '- name: u',
      `  user: {token: ${user}-token}`,
      '',
    ].join('\n'),
  );
  configs.set(user, file);
  return file;
}

beforeAll(async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const certDir = mkdtempSync(join(tmpdir(), 'periscope-authz-tls-'));
  const cert = join(certDir, 'server.crt');
  const key = join(certDir, 'server.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  f = await authzServer({ tlsCertFile: cert, tlsPrivateKeyFile: key }, []);
  execFileSync('cp', [cert, join(f.dir, 'server.crt')]);
  // set-up as admin through kubectl (the test's fetch client does not trust the self-signed server)
  const rbac = 'rbac.authorization.k8s.io';
  const binding = (kind: string, name: string, ns: string | undefined, roleKind: string, role: string, user: string) =>
    `apiVersion: ${rbac}/v1\nkind: ${kind}\nmetadata: {name: ${name}${ns ? `, namespace: ${ns}` : ''}}\nroleRef: {apiGroup: ${rbac}, kind: ${roleKind}, name: ${role}}\nsubjects: [{kind: User, apiGroup: ${rbac}, name: ${user}}]\n`;
  const docs = [
    'apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n',
    `apiVersion: ${rbac}/v1\nkind: Role\nmetadata: {name: pod-reader, namespace: team}\nrules: [{apiGroups: [""], resources: [pods], verbs: [get, list, watch]}]\n`,
    binding('RoleBinding', 'pod-reader-alice', 'team', 'Role', 'pod-reader', 'alice'),
    binding('ClusterRoleBinding', 'view-bob', undefined, 'ClusterRole', 'view', 'bob'),
    `apiVersion: ${rbac}/v1\nkind: ClusterRole\nmetadata: {name: impersonate-bob}\nrules: [{apiGroups: [authentication.k8s.io], resources: [users], verbs: [impersonate], resourceNames: [bob]}]\n`,
    binding('ClusterRoleBinding', 'impersonate-bob-alice', undefined, 'ClusterRole', 'impersonate-bob', 'alice'),
  ];
  for (const d of docs) {
    const r = await kubectl(kubeconfig('admin'), ['create', '-f', '-'], d);
    if (r.code !== 0) throw new Error(`${d}: ${r.stderr}`);
  }
});
afterAll(() => f.close());

const canI = async (user: TestUser, ...args: string[]) => kubectl(kubeconfig(user), ['auth', 'can-i', ...args]);

describe('kubectl auth can-i', () => {
  it('answers yes and no', async () => {
    const yes = await canI('alice', 'list', 'pods');
    expect(yes.stdout.trim(), yes.stderr).toBe('yes');
    expect(yes.code).toBe(0);
    const no = await canI('alice', 'delete', 'pods');
    expect(no.stdout.trim(), no.stderr).toBe('no');
    expect(no.code).toBe(1);
    expect((await canI('alice', 'list', 'pods', '-n', 'default')).stdout.trim()).toBe('no');
    expect((await canI('admin', '*', '*', '--all-namespaces')).stdout.trim()).toBe('yes');
    expect((await canI('carol', 'get', '/healthz')).stdout.trim()).toBe('yes');
  });

  it('lists the rules with --list', async () => {
    const r = await canI('alice', '--list');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
    expect(lines.some((l) => /^pods\s+\[\]\s+\[\]\s+\[get list watch\]/.test(l)), r.stdout).toBe(true);
    expect(lines.some((l) => /selfsubjectaccessreviews\.authorization\.service\.io\s+\[\]\s+\[\]\s+\[create\]/.test(l)), r.stdout).toBe(true);
  });

  it('impersonates with --as when allowed, and refuses it otherwise', async () => {
    const asBob = await canI('alice', 'list', 'configmaps', '--as', 'bob');
    expect(asBob.stdout.trim(), asBob.stderr).toBe('yes');
    const asBobPods = await canI('alice', 'delete', 'pods', '--as', 'bob');
    expect(asBobPods.stdout.trim()).toBe('no');
    const asCarol = await canI('alice', 'list', 'pods', '--as', 'carol');
    expect(asCarol.code).not.toBe(0);
    expect(asCarol.stderr).toContain('users.authentication.service.io "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "authentication.service.io" at the cluster scope');
  });
});
