// The cluster's components are API clients with upstream's identities under authentication and Node,RBAC (issue
// 31): the controllers as their kube-system service accounts (--use-service-account-credentials), the scheduler as
// system:kube-scheduler, each simulated kubelet as system:node:<name>, none in system:masters. A Deployment still
// becomes Available; a validating webhook sees who made each write; a controller whose binding is gone is refused
// (403) and the server stays up; a kubelet's own token is held to the Node authorizer and NodeRestriction.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { eventually } from '../deletion/support.js';
import { client } from '../helpers/server.js';
import { AR, allow, hook, makeCert, WebhookServer } from '../helpers/webhook.js';

const N1 = 'periscope-worker-1';
const N2 = 'periscope-worker-2';
let dir: string;
let srv: ApiServer;
let wh: WebhookServer;
let cleanupCert = () => {};
const logs: string[] = [];

type C = ReturnType<typeof client>;
const as = (token: string): C => {
  const c = client(srv.url);
  const h = (x?: Record<string, string>) => ({ Authorization: `Bearer ${token}`, ...x });
  return {
    ...c,
    get: (p: string, x?: Record<string, string>) => c.get(p, h(x)),
    post: (p: string, b: unknown, x?: Record<string, string>) => c.post(p, b, h(x)),
    put: (p: string, b: unknown, x?: Record<string, string>) => c.put(p, b, h(x)),
    patch: (p: string, b: unknown, ct: string, x?: Record<string, string>) => c.patch(p, b, ct, h(x)),
    del: (p: string, b?: unknown, x?: Record<string, string>) => c.del(p, b, h(x)),
  } as C;
};
let admin: C;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'periscope-identity-'));
  const tokens = join(dir, 'tokens.csv');
  // the admin, and a kubelet credential as kubeadm issues them (CN system:node:<name>, O system:nodes)
  writeFileSync(tokens, [`admin-token,admin,u-admin,"system:masters"`, `n1-token,system:node:${N1},u-n1,"system:nodes"`].join('\n') + '\n');
  const made = makeCert('IP:127.0.0.1');
  cleanupCert = made.cleanup;
  wh = await new WebhookServer(made.cert).start();
  srv = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, tokenAuthFile: tokens, controllers: ['*'], simulatedNodes: 2, simulatedPodStartMs: 20, simulatedPodReadyMs: 20 },
    { log: (l) => logs.push(l) },
  );
  admin = as('admin-token');
  // every pod create, binding and status update is shown to a webhook that allows it
  const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/binding', 'pods/status'] }];
  const r = await admin.post(`${AR}/validatingwebhookconfigurations`, { metadata: { name: 'who' }, webhooks: [hook('who.example.com', wh.url('/who'), made.cert.caBundle, { rules, failurePolicy: 'Ignore' })] });
  expect(r.status, r.text).toBe(201);
  wh.reply = (rev) => allow(rev);
});

afterAll(async () => {
  await srv?.close();
  await wh?.close();
  cleanupCert();
  rmSync(dir, { recursive: true, force: true });
});

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

describe('components as API clients under Node,RBAC', () => {
  it('the default authorization with authentication is Node,RBAC', () => {
    expect(srv.deps.authorization?.description).toBe('authorization: Node,RBAC (default: credentials are configured or the server is reachable beyond loopback)');
  });

  it('a Deployment becomes Available; the webhook sees the ReplicaSet controller, the scheduler and the kubelet as themselves', async () => {
    expect((await admin.post('/apis/apps/v1/namespaces/default/deployments', deployment('web', 2))).status).toBe(201);
    await eventually(async () => {
      const d = await admin.get('/apis/apps/v1/namespaces/default/deployments/web');
      expect(d.body.status?.availableReplicas).toBe(2);
      expect((d.body.status?.conditions ?? []).find((c: any) => c.type === 'Available')?.status).toBe('True');
    });
    const reviews = wh.reviewsFor('/who').map((r) => r.request);
    const podCreate = reviews.find((q) => q.operation === 'CREATE' && q.subResource === undefined && q.object?.metadata?.labels?.app === 'web');
    expect(podCreate?.userInfo.username).toBe('system:serviceaccount:kube-system:replicaset-controller');
    expect(podCreate?.userInfo.groups).toEqual(expect.arrayContaining(['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated']));
    expect(podCreate?.userInfo.groups).not.toContain('system:masters');
    const binding = reviews.find((q) => q.subResource === 'binding');
    expect(binding?.userInfo.username).toBe('system:kube-scheduler');
    const status = reviews.find((q) => q.subResource === 'status' && q.operation === 'UPDATE' && q.oldObject?.spec?.nodeName);
    expect(status?.userInfo.username).toBe(`system:node:${status?.oldObject.spec.nodeName}`);
    expect(status?.userInfo.groups).toContain('system:nodes');
    // the controllers' accounts exist in kube-system, bound to upstream's controller roles
    expect((await admin.get('/api/v1/namespaces/kube-system/serviceaccounts/replicaset-controller')).status).toBe(200);
    const crb = await admin.get('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:controller:replicaset-controller');
    expect(crb.body.subjects).toEqual([{ kind: 'ServiceAccount', name: 'replicaset-controller', namespace: 'kube-system' }]);
  });

  it("a kubelet's token reads only the secrets its pods use, and cannot change another node", async () => {
    const n1 = as('n1-token');
    for (const name of ['mounted', 'unrelated']) expect((await admin.post('/api/v1/namespaces/default/secrets', { metadata: { name }, stringData: { k: 'v' } })).status).toBe(201);
    const pod = { metadata: { name: 'uses-secret' }, spec: { nodeName: N1, containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 's', secret: { secretName: 'mounted' } }] } };
    expect((await admin.post('/api/v1/namespaces/default/pods', pod)).status).toBe(201);
    expect((await n1.get('/api/v1/namespaces/default/secrets/mounted')).status).toBe(200);
    const other = await n1.get('/api/v1/namespaces/default/secrets/unrelated');
    expect(other.status).toBe(403);
    expect(other.body.message).toContain(`no relationship found between node '${N1}' and this object`);
    // its own Node's status, yes; another node's, no (NodeRestriction)
    const patchStatus = (node: string) => n1.patch(`/api/v1/nodes/${node}/status`, { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok' }] } }, 'application/strategic-merge-patch+json');
    expect((await patchStatus(N1)).status).toBe(200);
    const denied = await patchStatus(N2);
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain(`is not allowed to modify node "${N2}"`);
    // another node's Lease: the Node authorizer has no opinion and RBAC grants nothing
    expect((await n1.get(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${N2}`)).status).toBe(403);
    expect((await n1.get(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${N1}`)).status).toBe(200);
  });

  it('without its ClusterRoleBinding the ReplicaSet controller is refused (403, logged) and the server stays up', async () => {
    expect((await admin.del('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:controller:replicaset-controller')).status).toBe(200);
    expect((await admin.post('/apis/apps/v1/namespaces/default/deployments', deployment('starved', 1))).status).toBe(201);
    await eventually(async () => {
      // the pod create failed (its FailedCreate Event is refused too: the role held events create), then the sync
      // itself fails on the status write, is logged and retried with backoff
      expect(logs.some((l) => l.startsWith('replicaset-controller: default/starved-') && l.includes('error creating pod: pods is forbidden: User "system:serviceaccount:kube-system:replicaset-controller" cannot create resource "pods"'))).toBe(true);
      expect(logs.some((l) => l.startsWith('event FailedCreate for ReplicaSet default/starved-'))).toBe(true);
      expect(logs.some((l) => l.startsWith('replicaset-controller: default/starved-') && l.includes('User "system:serviceaccount:kube-system:replicaset-controller" cannot update resource "replicasets/status"'))).toBe(true);
    }).catch((e) => {
      throw new Error(`${e}\n${logs.filter((l) => !l.startsWith('leaderelection')).join('\n')}`);
    });
    const rs = await admin.get('/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dstarved');
    expect(rs.body.items).toHaveLength(1);
    const pods = await admin.get('/api/v1/namespaces/default/pods?labelSelector=app%3Dstarved');
    expect(pods.body.items).toHaveLength(0);
    expect((await admin.get('/readyz')).status).toBe(200);
  });
});
