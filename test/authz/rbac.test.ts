// RBAC takes effect: per verb, sub-resource, resourceNames, nonResourceURLs, aggregation, escalation
// prevention, impersonation, dry-run, the unsafe-delete verb, and upstream's 403 Status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authzServer, bind, forbiddenMessage, grant, type AuthzFixture } from './support.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
let f: AuthzFixture;

beforeAll(async () => {
  f = await authzServer({}, ['team', 'other']);
});
afterAll(() => f.close());

describe('denials', () => {
  it('answers upstream 403 Status for a resource request with no grant', async () => {
    const r = await f.as('carol').get('/api/v1/namespaces/team/pods');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: 'pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "team"',
      details: { kind: 'pods' },
    });
    const named = await f.as('carol').get('/apis/apps/v1/namespaces/team/deployments/web');
    expect(named.body.message).toBe('deployments.apps "web" is forbidden: User "carol" cannot get resource "deployments" in API group "apps" in the namespace "team"');
    expect(named.body.details).toEqual({ name: 'web', group: 'apps', kind: 'deployments' });
    const cluster = await f.as('carol').get(`${RBAC}/clusterroles`);
    expect(cluster.body.message).toBe(forbiddenMessage('clusterroles.rbac.authorization.k8s.io', 'carol', 'list', 'clusterroles', 'rbac.authorization.k8s.io'));
  });

  it('authorizes an unknown resource before looking it up (403, not 404)', async () => {
    const r = await f.as('carol').get('/apis/example.com/v1/widgets');
    expect(r.status).toBe(403);
  });

  it('denies non-resource paths with the path message, and grants them by nonResourceURLs', async () => {
    const r = await f.as('dave').get('/metrics');
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('forbidden: User "dave" cannot get path "/metrics"');
    await grant(f, 'dave', 'metrics-reader', [{ nonResourceURLs: ['/met*'], verbs: ['get'] }]);
    expect((await f.as('dave').get('/metrics')).status).toBe(200);
    expect((await f.as('dave').call('POST', '/metrics', {})).status).toBe(403);
  });

  it('lets every authenticated user use discovery and public info (bootstrap roles)', async () => {
    for (const p of ['/api', '/apis', '/api/v1', '/apis/apps/v1', '/version', '/healthz', '/openapi/v3']) expect((await f.as('carol').get(p)).status, p).toBe(200);
  });
});

describe('rules', () => {
  it('grants each verb separately', async () => {
    await grant(f, 'alice', 'pod-getter', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }], 'team');
    const a = f.as('alice');
    expect((await a.get('/api/v1/namespaces/team/pods/p1')).status).toBe(404); // allowed, absent
    expect((await a.get('/api/v1/namespaces/team/pods')).status).toBe(403);
    expect((await a.get('/api/v1/namespaces/team/pods?watch=true')).body.message).toContain('cannot watch resource "pods"');
    expect((await a.post('/api/v1/namespaces/team/pods', { metadata: { name: 'p' } })).body.message).toContain('cannot create resource "pods"');
    expect((await a.del('/api/v1/namespaces/team/pods/p1')).body.message).toContain('cannot delete resource "pods"');
    expect((await a.del('/api/v1/namespaces/team/pods')).body.message).toContain('cannot deletecollection resource "pods"');
    expect((await a.patch('/api/v1/namespaces/team/pods/p1', {}, 'application/merge-patch+json')).body.message).toContain('cannot patch resource "pods"');
    // a RoleBinding grants only in its namespace
    expect((await a.get('/api/v1/namespaces/other/pods/p1')).status).toBe(403);
  });

  it('authorizes sub-resources separately, with */sub wildcards', async () => {
    await grant(f, 'bob', 'pods-only', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }], 'team');
    const b = f.as('bob');
    const st = await b.get('/api/v1/namespaces/team/pods/p1/status');
    expect(st.body.message).toBe('pods "p1" is forbidden: User "bob" cannot get resource "pods/status" in API group "" in the namespace "team"');
    await grant(f, 'bob', 'any-scale', [{ apiGroups: ['apps'], resources: ['*/scale'], verbs: ['get'] }], 'team');
    expect((await b.get('/apis/apps/v1/namespaces/team/deployments/d1/scale')).status).toBe(404);
    expect((await b.get('/apis/apps/v1/namespaces/team/deployments/d1')).status).toBe(403);
  });

  it('limits rules with resourceNames (list stays denied unless narrowed by metadata.name)', async () => {
    const admin = f.as('admin');
    for (const n of ['a', 'b']) expect((await admin.post('/api/v1/namespaces/team/configmaps', { metadata: { name: n } })).status).toBe(201);
    await grant(f, 'erin', 'cm-a', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get', 'list'] }], 'team');
    const e = f.as('erin');
    expect((await e.get('/api/v1/namespaces/team/configmaps/a')).status).toBe(200);
    expect((await e.get('/api/v1/namespaces/team/configmaps/b')).status).toBe(403);
    expect((await e.get('/api/v1/namespaces/team/configmaps')).status).toBe(403);
    const one = await e.get('/api/v1/namespaces/team/configmaps?fieldSelector=metadata.name%3Da');
    expect(one.status).toBe(200);
    expect(one.body.items.map((i: any) => i.metadata.name)).toEqual(['a']);
  });

  it('matches groups in either spelling and User, Group and ServiceAccount subjects', async () => {
    const admin = f.as('admin');
    await admin.post(`${RBAC}/namespaces/team/roles`, { metadata: { name: 'leases' }, rules: [{ apiGroups: ['coordination.service.io'], resources: ['leases'], verbs: ['list'] }] });
    await admin.post(`${RBAC}/namespaces/team/rolebindings`, {
      metadata: { name: 'leases-ops' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'leases' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'ops' }],
    });
    expect((await f.as('bob').get('/apis/coordination.k8s.io/v1/namespaces/team/leases')).status).toBe(200);
    expect((await f.as('carol').get('/apis/coordination.k8s.io/v1/namespaces/team/leases')).status).toBe(403);
  });

  it('a ClusterRoleBinding grants in every namespace and at the cluster scope', async () => {
    await bind(f, 'frank', 'view', 'ClusterRole');
    const fr = f.as('frank');
    expect((await fr.get('/api/v1/namespaces/team/configmaps')).status).toBe(200);
    expect((await fr.get('/api/v1/namespaces/other/configmaps')).status).toBe(200);
    expect((await fr.get('/api/v1/namespaces')).status).toBe(200);
    // view holds no secrets and no writes
    expect((await fr.get('/api/v1/namespaces/team/secrets')).status).toBe(403);
    expect((await fr.post('/api/v1/namespaces/team/configmaps', { metadata: { name: 'x' } })).status).toBe(403);
  });

  it('authorizes dry-run writes as the real write', async () => {
    const r = await f.as('frank').post('/api/v1/namespaces/team/configmaps?dryRun=All', { metadata: { name: 'x' } });
    expect(r.status).toBe(403);
  });

  it('needs both delete and unsafe-delete-ignore-read-errors for the unsafe corrupt-object delete', async () => {
    const g = await authzServer({ featureGates: { ...f.srv.deps.gates, AllowUnsafeMalformedObjectDeletion: true } });
    try {
      await g.as('admin').post('/api/v1/namespaces/team/configmaps', { metadata: { name: 'c' } });
      await grant(g, 'alice', 'cm-deleter', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] }], 'team');
      const body = { kind: 'DeleteOptions', apiVersion: 'v1', ignoreStoreReadErrorWithClusterBreakingPotential: true };
      const r = await g.as('alice').del('/api/v1/namespaces/team/configmaps/c', body);
      expect(r.status).toBe(403);
      expect(r.body.message).toBe('configmaps "c" is forbidden: User "alice" cannot unsafe-delete-ignore-read-errors resource "configmaps" in API group "" in the namespace "team"');
      await grant(g, 'alice', 'cm-unsafe', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['unsafe-delete-ignore-read-errors'] }], 'team');
      // authorized now: what remains is upstream's refusal for an object that is not corrupt
      const ok = await g.as('alice').del('/api/v1/namespaces/team/configmaps/c', body);
      expect(ok.status, ok.text).toBe(422);
      expect(ok.body.message).toContain('corrupt');
    } finally {
      await g.close();
    }
  });
});

describe('ClusterRole aggregation', () => {
  it('keeps admin/edit/view filled from labelled roles and follows changes', async () => {
    const admin = f.as('admin');
    const view = await admin.get(`${RBAC}/clusterroles/view`);
    expect(view.body.aggregationRule.clusterRoleSelectors).toEqual([{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }]);
    expect(view.body.rules.length).toBeGreaterThan(0);
    const extra = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list'] };
    expect((await admin.post(`${RBAC}/clusterroles`, { metadata: { name: 'widget-viewer', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [extra] })).status).toBe(201);
    const has = async (role: string) => ((await admin.get(`${RBAC}/clusterroles/${role}`)).body.rules ?? []).some((r: any) => JSON.stringify(r) === JSON.stringify(extra));
    await expect.poll(() => has('view')).toBe(true);
    // view is aggregated into edit, edit into admin
    await expect.poll(() => has('edit')).toBe(true);
    await expect.poll(() => has('admin')).toBe(true);
    expect((await admin.del(`${RBAC}/clusterroles/widget-viewer`)).status).toBe(200);
    await expect.poll(() => has('view')).toBe(false);
  });
});

describe('escalation prevention', () => {
  it('refuses a role granting more than the writer holds unless they may escalate it', async () => {
    await grant(f, 'grace', 'role-writer', [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'get'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    ], 'team');
    const g = f.as('grace');
    const ok = await g.post(`${RBAC}/namespaces/team/roles`, { metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
    expect(ok.status).toBe(201);
    const bad = await g.post(`${RBAC}/namespaces/team/roles`, { metadata: { name: 'pod-deleter' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete'] }] });
    expect(bad.status).toBe(403);
    expect(bad.body.reason).toBe('Forbidden');
    expect(bad.body.message).toBe(
      'roles.rbac.authorization.k8s.io "pod-deleter" is forbidden: user "grace" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
    );
    // dry-run gets the same answer
    expect((await g.post(`${RBAC}/namespaces/team/roles?dryRun=All`, { metadata: { name: 'pod-deleter' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['delete'] }] })).status).toBe(403);
    await grant(f, 'grace', 'escalator', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }], 'team');
    expect((await g.post(`${RBAC}/namespaces/team/roles`, { metadata: { name: 'pod-deleter' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['delete'] }] })).status).toBe(201);
  });

  it('refuses a binding to a role granting more than the writer holds unless they may bind it', async () => {
    const g = f.as('grace');
    const rb = (name: string, role: string, kind = 'ClusterRole') => ({
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'carol' }],
    });
    // grace holds get on pods: binding pod-reader (get pods) is fine
    expect((await g.post(`${RBAC}/namespaces/team/rolebindings`, rb('carol-reads', 'pod-reader', 'Role'))).status).toBe(201);
    const bad = await g.post(`${RBAC}/namespaces/team/rolebindings`, rb('carol-admin', 'cluster-admin'));
    expect(bad.status).toBe(403);
    expect(bad.body.message).toContain('rolebindings.rbac.authorization.k8s.io "carol-admin" is forbidden: user "grace"');
    expect(bad.body.message).toContain('is attempting to grant RBAC permissions not currently held');
    await grant(f, 'grace', 'binder', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] }]);
    expect((await g.post(`${RBAC}/namespaces/team/rolebindings`, rb('carol-admin', 'cluster-admin'))).status).toBe(201);
    // and carol now is admin of the namespace only
    expect((await f.as('carol').get('/api/v1/namespaces/team/secrets')).status).toBe(200);
    expect((await f.as('carol').get('/api/v1/namespaces/other/secrets')).status).toBe(403);
  });
});

describe('impersonation', () => {
  it('authorizes each header with the impersonate verb, then runs as the impersonated user', async () => {
    const a = f.as('alice');
    const denied = await a.get('/api/v1/namespaces/team/pods/p1', { 'Impersonate-User': 'frank' });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('users.authentication.service.io "frank" is forbidden: User "alice" cannot impersonate resource "users" in API group "authentication.service.io" at the cluster scope');
    await grant(f, 'alice', 'impersonate-frank', [{ apiGroups: ['authentication.k8s.io'], resources: ['users'], verbs: ['impersonate'], resourceNames: ['frank'] }]);
    // frank (view) may list configmaps, alice may not
    expect((await a.get('/api/v1/namespaces/team/configmaps')).status).toBe(403);
    expect((await a.get('/api/v1/namespaces/team/configmaps', { 'Impersonate-User': 'frank' })).status).toBe(200);
    const asFrank = await a.get('/api/v1/namespaces/team/secrets', { 'Impersonate-User': 'frank' });
    expect(asFrank.body.message).toContain('User "frank" cannot list resource "secrets"');
    const group = await a.get('/api/v1/namespaces/team/configmaps', { 'Impersonate-User': 'frank', 'Impersonate-Group': 'system:masters' });
    expect(group.body.message).toBe('groups.authentication.service.io "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "authentication.service.io" at the cluster scope');
  });

  it('authorizes uids, extra values (userextras/<key>) and service accounts separately', async () => {
    const b = f.as('bob');
    const base = { 'Impersonate-User': 'frank' };
    await grant(f, 'bob', 'impersonate-frank-b', [{ apiGroups: ['authentication.k8s.io'], resources: ['users'], verbs: ['impersonate'], resourceNames: ['frank'] }]);
    const extra = await b.get('/api/v1/namespaces/team/configmaps', { ...base, 'Impersonate-Extra-Scopes': 'read' });
    expect(extra.body.message).toBe('userextras.authentication.service.io "read" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.service.io" at the cluster scope');
    const uid = await b.get('/api/v1/namespaces/team/configmaps', { ...base, 'Impersonate-Uid': 'u-9' });
    expect(uid.body.message).toContain('cannot impersonate resource "uids"');
    await grant(f, 'bob', 'impersonate-extras', [
      { apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes', 'uids'], verbs: ['impersonate'] },
    ]);
    expect((await b.get('/api/v1/namespaces/team/configmaps', { ...base, 'Impersonate-Extra-Scopes': 'read', 'Impersonate-Uid': 'u-9' })).status).toBe(200);
    const sa = await b.get('/api/v1/namespaces/team/configmaps', { 'Impersonate-User': 'system:serviceaccount:team:robot' });
    expect(sa.body.message).toBe('serviceaccounts "robot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team"');
  });
});

describe('modes', () => {
  it('AlwaysDeny denies all but system:masters; the flags exclude each other', async () => {
    const g = await authzServer({ authorizationMode: ['AlwaysDeny'] }, []);
    try {
      expect((await g.as('alice').get('/api/v1/namespaces')).status).toBe(403);
      expect((await g.as('admin').get('/api/v1/namespaces')).status).toBe(200);
    } finally {
      await g.close();
    }
    const { parseFlags } = await import('../../src/server/flags.js');
    expect(() => parseFlags(['--authorization-mode=RBAC', '--authorization-config=/x.yaml'])).toThrow('--authorization-config cannot be used with --authorization-mode');
    expect(() => parseFlags(['--authorization-mode=RBAC,ABAC'])).toThrow('"ABAC" is not a valid mode');
    expect(parseFlags(['--authorization-mode=Node,RBAC', '--token-auth-file=/t']).authorizationMode).toEqual(['Node', 'RBAC']);
    expect(() => parseFlags(['--authorization-mode=Webhook'])).toThrow('needs --authorization-webhook-config-file');
    expect(parseFlags(['--authorization-mode', 'Webhook,RBAC', '--authorization-webhook-config-file', '/k']).authorizationMode).toEqual(['Webhook', 'RBAC']);
  });

  it('without authentication flags the local admin may do anything (loopback AlwaysAllow)', async () => {
    const { testServer, client } = await import('../helpers/server.js');
    const s = await testServer();
    try {
      expect((await client(s.url).get('/api/v1/namespaces/default/secrets')).status).not.toBe(403);
      expect((await client(s.url).get('/api/v1/namespaces/default/secrets', { 'Impersonate-User': 'nobody' })).status).not.toBe(403);
    } finally {
      await s.close();
    }
  });
});
