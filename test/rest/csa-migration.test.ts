// Client-side → server-side apply migration (upstream lastAppliedManager): kubectl's first server-side apply may
// take over fields its client-side apply set (per kubectl.kubernetes.io/last-applied-configuration) when they still
// hold that value; other managers, and fields someone else changed since, still conflict.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { KUBECTL, kubeconfigFor } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

const APPLY = 'application/apply-patch+yaml';
let server: ApiServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
});
afterAll(() => server.close());

const manifest = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'default' }, data });

async function clientSideCreate(name: string, data: Record<string, string>) {
  const m = { ...manifest(data), metadata: { name, namespace: 'default' } };
  const body = { ...m, metadata: { ...m.metadata, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(m) } } };
  const r = await api.post('/api/v1/namespaces/default/configmaps?fieldManager=kubectl-client-side-apply', body);
  expect(r.status).toBe(201);
}

describe('client-side to server-side apply migration', () => {
  it('lets kubectl take over a field its client-side apply set', async () => {
    await clientSideCreate('m1', { a: '1', b: '2' });
    const r = await api.patch('/api/v1/namespaces/default/configmaps/m1?fieldManager=kubectl', { ...manifest({ a: 'changed', b: '2' }), metadata: { name: 'm1' } }, APPLY);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ a: 'changed', b: '2' });
    const kubectlEntry = r.body.metadata.managedFields.find((m: any) => m.manager === 'kubectl');
    expect(kubectlEntry.operation).toBe('Apply');
    expect(kubectlEntry.fieldsV1['f:data']).toEqual({ 'f:a': {}, 'f:b': {} });
  });

  it('keeps the conflict for another field manager', async () => {
    await clientSideCreate('m2', { a: '1' });
    const r = await api.patch('/api/v1/namespaces/default/configmaps/m2?fieldManager=helm', { ...manifest({ a: 'changed' }), metadata: { name: 'm2' } }, APPLY);
    expect(r.status).toBe(409);
    expect(r.body.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.a' }]);
  });

  it('keeps the conflict on a field changed since the client-side apply', async () => {
    await clientSideCreate('m3', { a: '1' });
    expect((await api.patch('/api/v1/namespaces/default/configmaps/m3?fieldManager=editor', { data: { a: 'edited' } }, 'application/merge-patch+json')).status).toBe(200);
    const r = await api.patch('/api/v1/namespaces/default/configmaps/m3?fieldManager=kubectl', { ...manifest({ a: 'mine' }), metadata: { name: 'm3' } }, APPLY);
    expect(r.status).toBe(409);
    expect(r.body.details.causes.map((c: any) => c.field)).toEqual(['.data.a']);
  });
});

describe('RBAC subject defaults', () => {
  it('defaults User/Group apiGroup and leaves ServiceAccount subjects without one', async () => {
    const r = await api.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
        { kind: 'ServiceAccount', name: 'other', namespace: 'default', apiGroup: '' },
        { kind: 'User', name: 'jane' },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
      { kind: 'ServiceAccount', name: 'other', namespace: 'default' },
      { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.service.io' },
    ]);
  });
});

/** A Deployment with env from fieldRef/resourceFieldRef (server-defaulted apiVersion/divisor), probes and ports, and a StatefulSet with volumeClaimTemplates. */
const workloads = (ns: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports: [{containerPort: 80, name: http}]
        env:
        - name: POD_NAME
          valueFrom: {fieldRef: {fieldPath: metadata.name}}
        - name: MEM
          valueFrom: {resourceFieldRef: {resource: limits.memory, containerName: web}}
        - {name: PLAIN, value: x}
        resources: {limits: {memory: 128Mi}}
        readinessProbe: {httpGet: {path: /, port: http}}
        livenessProbe: {tcpSocket: {port: 80}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: ${ns}}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: db
        image: postgres:16
        volumeMounts: [{name: data, mountPath: /data}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`;

const kubectlBinary = (v: string) => join(dirname(KUBECTL), `kubectl.${v}`);
const versions = ['1.27', '1.33'].filter((v) => existsSync(kubectlBinary(v)));

function run(v: string, kubeconfig: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(kubectlBinary(v), ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000, env: { ...process.env, HOME: dirname(kubeconfig) } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

describe.skipIf(versions.length === 0)('kubectl client-side apply, then server-side apply', () => {
  it.each(versions)('kubectl %s hands ownership over without conflicts, and a second server-side apply changes nothing', async (v) => {
    const kubeconfig = kubeconfigFor(server.url);
    const ns = `csa-${v.replace('.', '')}`;
    expect((await api.post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    const doc = workloads(ns);
    const csa = await run(v, kubeconfig, ['apply', '-f', '-'], doc);
    expect(csa.stderr).toBe('');
    const ssa = await run(v, kubeconfig, ['apply', '--server-side', '-f', '-'], doc);
    expect(ssa.stderr).toBe('');
    expect(ssa.stdout).toBe('deployment.apps/web serverside-applied\nstatefulset.apps/db serverside-applied\n');
    const paths = [`/apis/apps/v1/namespaces/${ns}/deployments/web`, `/apis/apps/v1/namespaces/${ns}/statefulsets/db`];
    const before = await Promise.all(paths.map((p) => api.get(p)));
    for (const r of before) {
      // kubectl migrated the client-side apply's fields into its Apply entry (JSON patch on metadata.managedFields)
      expect(r.body.metadata.managedFields.map((m: any) => `${m.manager}/${m.operation}`).sort()).toEqual(['kubectl-last-applied/Apply', 'kubectl/Apply']);
    }
    const again = await run(v, kubeconfig, ['apply', '--server-side', '-f', '-'], doc);
    expect(again.stderr).toBe('');
    const after = await Promise.all(paths.map((p) => api.get(p)));
    after.forEach((r, i) => {
      expect(r.body.metadata.resourceVersion).toBe(before[i]!.body.metadata.resourceVersion);
      expect(r.body.metadata.generation).toBe(before[i]!.body.metadata.generation);
    });
    expect(after[0]!.body.spec.template.spec.containers[0].env[0].valueFrom.fieldRef).toEqual({ apiVersion: 'v1', fieldPath: 'metadata.name' });
  });
});
