// The controller manager as its own process (`npm run controller-manager -- --kubeconfig F`) against a server
// started with --disable-controller-manager: the Deployment controller, the ReplicaSet controller, the
// scheduler and a simulated node run in the child, over HTTP with the kubeconfig's token, so every write goes
// through the server's chain as system:kube-controller-manager: recorded under its field manager, and refused
// once RBAC no longer grants it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { testServer } from '../helpers/server.js';

const tsx = import.meta.resolve('tsx');
const MAIN = new URL('../../src/server/controller-manager-main.ts', import.meta.url).pathname;
const ADMIN = 'admin-token-remote-cm';
const KCM = 'kcm-token-remote-cm';

let dir: string;
let server: ApiServer;
let child: ChildProcess | undefined;
let childLog = '';
let child2: ChildProcess | undefined;
let child2Log = '';
let kubeconfig = '';

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(server.url + path, { method, headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

async function until<T>(fn: () => Promise<T | undefined | false>, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; controller manager said:\n${childLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// what the workload controllers, the scheduler and the kubelet write (upstream grants these through
// per-controller service accounts and the Node authorizer; here one identity holds them)
const CONTROLLERS_ROLE = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'periscope-test:controllers' },
  rules: [
    { apiGroups: [''], resources: ['pods', 'pods/status', 'pods/binding', 'nodes', 'nodes/status', 'namespaces'], verbs: ['get', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: ['apps'], resources: ['replicasets', 'replicasets/status', 'deployments', 'deployments/status', 'controllerrevisions'], verbs: ['get', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
  ],
};
const BINDING = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'periscope-test:controllers' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'periscope-test:controllers' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-controller-manager' }],
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'periscope-remote-cm-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${ADMIN},admin,uid-admin,"system:masters"\n${KCM},system:kube-controller-manager,uid-kcm\n`);
  server = await testServer({ tokenAuthFile: tokens, disableControllerManager: true, controllers: ['*'], simulatedNodes: 0 });
  expect((await api('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', CONTROLLERS_ROLE)).status).toBe(201);
  expect((await api('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', BINDING)).status).toBe(201);
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${server.url}`, 'contexts:', '- name: kcm', '  context: {cluster: c, user: kcm}', 'current-context: kcm', 'users:', '- name: kcm', `  user: {token: ${KCM}}`, ''].join('\n'),
  );
  const args = ['--kubeconfig', kubeconfig, '--controllers', 'deployment-controller,replicaset-controller', '--simulated-nodes', '1', '--simulated-pod-start-time', '100ms', '--simulated-pod-ready-time', '100ms'];
  child = spawn(process.execPath, ['--import', tsx, MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (childLog += d));
  child.stderr!.on('data', (d) => (childLog += d));
}, 60_000);

afterAll(async () => {
  for (const c of [child, child2]) {
    if (!c || c.exitCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  }
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run controller-manager -- --kubeconfig F, against a server with --disable-controller-manager', () => {
  it('a Deployment becomes Available; the writes are kube-controller-manager\'s, and refused without RBAC', async () => {
    // the child leads kube-system/kube-controller-manager (the server holds its own storage-side Lease only)
    const lease = await until(async () => {
      const r = await api('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager');
      return r.status === 200 && r.body.spec?.holderIdentity && r.body;
    }, 'the controller manager to lead');
    expect(lease.metadata.managedFields.map((m: any) => m.manager)).toContain('kube-controller-manager');
    expect((await api('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/periscope-apiserver-controllers')).status).toBe(200);

    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    expect((await api('POST', '/apis/apps/v1/namespaces/default/deployments', dep)).status).toBe(201);
    const available = await until(async () => {
      const d = (await api('GET', '/apis/apps/v1/namespaces/default/deployments/web')).body;
      return d.status?.availableReplicas === 2 && d.status.conditions?.some((c: any) => c.type === 'Available' && c.status === 'True') && d;
    }, 'the Deployment to be Available');
    expect(available.metadata.managedFields.some((m: any) => m.manager === 'kube-controller-manager' && m.subresource === 'status')).toBe(true);
    const rs = (await api('GET', '/apis/apps/v1/namespaces/default/replicasets')).body.items;
    expect(rs).toHaveLength(1);
    expect(rs[0].metadata.managedFields.map((m: any) => m.manager)).toContain('kube-controller-manager');
    const pods = (await api('GET', '/api/v1/namespaces/default/pods')).body.items;
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(p.metadata.managedFields.find((m: any) => m.operation === 'Update' && !m.subresource)?.manager).toBe('kube-controller-manager');
      expect(p.spec.nodeName).toBe('periscope-worker-1');
      expect(p.status.phase).toBe('Running');
    }

    // without the binding the same user may no longer create pods: a scale-up is refused by authorization
    expect((await api('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/periscope-test:controllers')).status).toBe(200);
    const d = (await api('GET', '/apis/apps/v1/namespaces/default/deployments/web')).body;
    d.spec.replicas = 3;
    expect((await api('PUT', '/apis/apps/v1/namespaces/default/deployments/web', d)).status).toBe(200);
    await until(async () => /forbidden: User "system:kube-controller-manager" cannot (get|update|create) resource "(replicasets|pods)"/.test(childLog), 'a 403 for system:kube-controller-manager');
    expect((await api('GET', '/api/v1/namespaces/default/pods')).body.items).toHaveLength(2);
  }, 120_000);

  it("with --use-service-account-credentials a controller writes with its service account's token (TokenRequest)", async () => {
    // the first process's identity is refused by now (its binding is gone); a second one, not electing, runs the
    // ReplicaSet controller with the replicaset-controller account's token, which upstream's bootstrap role grants
    const args = ['--kubeconfig', kubeconfig, '--use-service-account-credentials', '--leader-elect=false', '--controllers', 'replicaset-controller', '--simulated-nodes', '0'];
    child2 = spawn(process.execPath, ['--import', tsx, MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child2.stdout!.on('data', (d) => (child2Log += d));
    child2.stderr!.on('data', (d) => (child2Log += d));
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'direct', namespace: 'default' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'direct' } }, template: { metadata: { labels: { app: 'direct' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    expect((await api('POST', '/apis/apps/v1/namespaces/default/replicasets', rs)).status).toBe(201);
    await until(async () => (await api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Ddirect')).body.items.length === 1, 'the ReplicaSet pod', 20_000).catch((e) => {
      throw new Error(`${e.message}\nsecond process said:\n${child2Log}`);
    });
    // the account was made by the controller manager, and the token it got is the account's
    expect((await api('GET', '/api/v1/namespaces/kube-system/serviceaccounts/replicaset-controller')).status).toBe(200);
    expect(childLog).toMatch(/User "system:kube-controller-manager" cannot create resource "pods"|forbidden: User "system:kube-controller-manager"/);
    expect(child2Log).not.toMatch(/forbidden/);
  }, 60_000);
});
