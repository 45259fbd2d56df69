// Aggregated discovery answers in the request's spelling: kubectl (g=apidiscovery.k8s.io, v2 or v2beta1) sees each
// aliased group once, as upstream spells it, so api-resources lists it once, short names resolve without warnings,
// and typed commands (kubectl certificate) work by bare name; manifests in the upstream spelling still apply.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { KUBECTL, kubeconfigFor } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

const binary = (v: string) => join(dirname(KUBECTL), `kubectl.${v}`);
const versions = ['1.27', '1.33'].filter((v) => existsSync(binary(v)));
const home = mkdtempSync(join(tmpdir(), 'discovery-spelling-'));

let server: ApiServer;
let kubeconfig: string;

function run(v: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(binary(v), ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000, env: { ...process.env, HOME: join(home, v) } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

// a CSR request from test/rest/certificates.test.ts (CN=alice, O=dev, P-256)
const REQUEST =
  'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIWk1JR0FBZ0VBTUI0eERqQU1CZ05WQkFNTUJXRnNhV05sTVF3d0NnWURWUVFLREFOa1pYWXdXVEFUQmdjcQpoa2pPUFFJQkJnZ3Foa2pPUFFNQkJ3TkNBQVRlYlM0dkFzSlM0UDNSUWIwVWxWQmlzYWxOaFZxRW8zNm83Z0N0CkxJbUZ3N1hsUTdRdzR5U0RqaFNxeE5hUTZRZ0V6SXViRTZ0RUk0YmhFOVhZVms4OW9BQXdDZ1lJS29aSXpqMEUKQXdJRFNBQXdSUUlnWTkrWFk1bHdrLzA5Q1B3NEVaczU0dENiUElWellxZU04MERNWkN4RkVZNENJUUNoWE5rMgpsSEJHZGdXcHptQ3JzSVhhWEJPS0NkRExNaWlQOW5hdHB2MWtpUT09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=';

beforeAll(async () => {
  server = await testServer();
  kubeconfig = kubeconfigFor(server.url);
});
afterAll(() => server.close());

describe.skipIf(versions.length === 0)('discovery spelling with real kubectl', () => {
  it.each(versions)('kubectl %s api-resources lists every group once, in the upstream spelling', async (v) => {
    const r = await run(v, ['api-resources', '--no-headers', '-o', 'wide']);
    expect(r.stderr).toBe('');
    const rows = r.stdout.trim().split('\n');
    const byResource = rows.map((l) => l.trim().split(/\s+/)).map((cols) => `${cols[0]} ${cols.find((c) => c.includes('/') || c === 'v1')}`);
    expect(new Set(byResource).size).toBe(byResource.length);
    expect(r.stdout).not.toMatch(/\.service\.io\//);
    for (const g of ['rbac.authorization.k8s.io/v1', 'apiextensions.k8s.io/v1', 'coordination.k8s.io/v1', 'certificates.k8s.io/v1']) expect(r.stdout).toContain(g);
    const crd = rows.find((l) => l.startsWith('customresourcedefinitions'))!;
    expect(crd).toMatch(/crd,crds\s+apiextensions\.k8s\.io\/v1/);
  });

  it.each(versions)('kubectl %s get and explain by short name print no alias warnings', async (v) => {
    const get = await run(v, ['get', 'crd,roles,leases', '-A']);
    expect(get.code).toBe(0);
    expect(get.stderr).not.toMatch(/Warning/);
    const explain = await run(v, ['explain', 'crd.spec.names']);
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toContain('GROUP:      apiextensions.k8s.io');
  });

  it.each(versions)('kubectl %s certificate approve and deny by bare name', async (v) => {
    const api = client(server.url);
    const n = v.replace('.', '');
    for (const name of [`ok-${n}`, `no-${n}`]) {
      const r = await api.post('/apis/certificates.k8s.io/v1/certificatesigningrequests', {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name },
        spec: { request: REQUEST, signerName: 'example.com/signer', usages: ['client auth'] },
      });
      expect(r.status).toBe(201);
    }
    const ok = await run(v, ['certificate', 'approve', `ok-${n}`]);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toBe(`certificatesigningrequest.certificates.k8s.io/ok-${n} approved\n`);
    const no = await run(v, ['certificate', 'deny', `no-${n}`]);
    expect(no.stderr).toBe('');
    expect(no.stdout).toBe(`certificatesigningrequest.certificates.k8s.io/no-${n} denied\n`);
    const conditions = async (name: string) => (await api.get(`/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}`)).body.status.conditions.map((c: any) => c.type);
    expect(await conditions(`ok-${n}`)).toEqual(['Approved']);
    expect(await conditions(`no-${n}`)).toEqual(['Denied']);
  });

  it.each(versions)('kubectl %s applies RBAC manifests in the upstream spelling, and a re-apply is unchanged', async (v) => {
    const ns = `rbac-${v.replace('.', '')}`;
    const doc = `apiVersion: v1
kind: Namespace
metadata: {name: ${ns}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: ${ns}}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader, namespace: ${ns}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects: [{kind: User, name: jane, apiGroup: rbac.authorization.k8s.io}]
`;
    const first = await run(v, ['apply', '-f', '-'], doc);
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(`namespace/${ns} created\nrole.rbac.authorization.k8s.io/reader created\nrolebinding.rbac.authorization.k8s.io/reader created\n`);
    const again = await run(v, ['apply', '-f', '-'], doc);
    expect(again.stdout).toBe(`namespace/${ns} unchanged\nrole.rbac.authorization.k8s.io/reader unchanged\nrolebinding.rbac.authorization.k8s.io/reader unchanged\n`);
  });
});
