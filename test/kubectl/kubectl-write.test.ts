// Stock kubectl writing: server-side and client-side apply, patch types, diff, server dry-run,
// replace with a stale resourceVersion, and strict validation.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let kc: string;
let api: ReturnType<typeof client>;
const dir = mkdtempSync(join(tmpdir(), 'kubectl-write-'));
const k = (args: string[], input?: string) => kubectl(kc, args, input);

const deploymentYaml = (replicas: number, image = 'nginx:1.27', extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
${extra}`;

beforeAll(async () => {
  server = await testServer();
  kc = kubeconfigFor(server.url);
  api = client(server.url);
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(() => server.close());

describe('kubectl writes', () => {
  it('apply --server-side, a conflict, and --force-conflicts', async () => {
    const a = await k(['apply', '--server-side', '-f', '-'], deploymentYaml(2));
    expect(a.stderr).toBe('');
    expect(a.stdout).toContain('deployment.apps/web serverside-applied');
    const s = await k(['scale', 'deployment', 'web', '--replicas=4']);
    expect(s.stdout).toContain('scaled');
    const c = await k(['apply', '--server-side', '-f', '-'], deploymentYaml(3));
    expect(c.code).not.toBe(0);
    expect(c.stderr).toContain('conflict');
    expect(c.stderr).toContain('.spec.replicas');
    const f = await k(['apply', '--server-side', '--force-conflicts', '-f', '-'], deploymentYaml(3));
    expect(f.stderr).toBe('');
    expect((await api.get('/apis/apps/v1/namespaces/default/deployments/web')).body.spec.replicas).toBe(3);
  });

  it('client-side apply creates, then patches with a three-way strategic merge', async () => {
    const yaml = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa\n  namespace: default\ndata:\n  a: "1"\n  b: "${v}"\n`;
    const c = await k(['apply', '-f', '-'], yaml('x'));
    expect(c.stderr).toBe('');
    expect(c.stdout).toContain('configmap/csa created');
    const got = await api.get('/api/v1/namespaces/default/configmaps/csa');
    expect(got.body.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"b":"x"');
    await api.patch('/api/v1/namespaces/default/configmaps/csa', { data: { other: 'kept' } }, 'application/merge-patch+json');
    const u = await k(['apply', '-f', '-'], yaml('y'));
    expect(u.stdout).toContain('configmap/csa configured');
    const after = await api.get('/api/v1/namespaces/default/configmaps/csa');
    expect(after.body.data).toEqual({ a: '1', b: 'y', other: 'kept' });
  });

  it('patch --type json|merge|strategic', async () => {
    await api.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' }, data: { a: '1' } });
    expect((await k(['patch', 'cm', 'p', '--type', 'merge', '-p', '{"data":{"b":"2"}}'])).stdout).toContain('configmap/p patched');
    expect((await k(['patch', 'cm', 'p', '--type', 'json', '-p', '[{"op":"remove","path":"/data/a"}]'])).stdout).toContain('patched');
    const smp = await k(['patch', 'deployment', 'web', '--type', 'strategic', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}}}']);
    expect(smp.stderr).toBe('');
    expect((await api.get('/api/v1/namespaces/default/configmaps/p')).body.data).toEqual({ b: '2' });
    const d = (await api.get('/apis/apps/v1/namespaces/default/deployments/web')).body;
    expect(d.spec.template.spec.containers).toHaveLength(1);
    expect(d.spec.template.spec.containers[0].image).toBe('nginx:1.28');
  });

  it('diff shows a server dry-run of the change, and create --dry-run=server stores nothing', async () => {
    const file = join(dir, 'web.yaml');
    writeFileSync(file, deploymentYaml(3, 'nginx:1.29'));
    const d = await k(['diff', '-f', file]);
    expect(d.stdout).toContain('nginx:1.29');
    expect((await api.get('/apis/apps/v1/namespaces/default/deployments/web')).body.spec.template.spec.containers[0].image).toBe('nginx:1.28');
    const dry = await k(['create', 'configmap', 'dry', '--from-literal=a=b', '--dry-run=server']);
    expect(dry.stdout).toContain('configmap/dry created (server dry run)');
    expect((await api.get('/api/v1/namespaces/default/configmaps/dry')).status).toBe(404);
  });

  it('replace with a stale resourceVersion gets a conflict', async () => {
    const cur = (await api.get('/api/v1/namespaces/default/configmaps/p')).body;
    await api.patch('/api/v1/namespaces/default/configmaps/p', { data: { c: '3' } }, 'application/merge-patch+json');
    const file = join(dir, 'stale.json');
    writeFileSync(file, JSON.stringify({ ...cur, data: { stale: 'yes' } }));
    const r = await k(['replace', '-f', file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the object has been modified');
  });

  it('apply --validate=strict names an unknown field', async () => {
    const r = await k(['apply', '--validate=strict', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strict\n  namespace: default\ndata:\n  a: "1"\nbogus: true\n');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown field "bogus"');
  });
});
