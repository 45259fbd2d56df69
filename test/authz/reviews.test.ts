// Access reviews: SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview and
// SelfSubjectRulesReview answered from the authorizer chain, in either group spelling.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authzServer, bind, grant, type AuthzFixture } from './support.js';

let f: AuthzFixture;
beforeAll(async () => {
  f = await authzServer();
  await grant(f, 'alice', 'pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }], 'team');
  await bind(f, 'bob', 'view', 'ClusterRole');
});
afterAll(() => f.close());

const ssar = (attrs: Record<string, unknown>, spelling = 'authorization.k8s.io') => ({ apiVersion: `${spelling}/v1`, kind: 'SelfSubjectAccessReview', spec: attrs });

describe('SelfSubjectAccessReview', () => {
  it('answers for the requesting user, echoing the spec, in the spelling of the request', async () => {
    const a = f.as('alice');
    const yes = await a.post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', ssar({ resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' } }));
    expect(yes.status).toBe(201);
    expect(yes.body).toMatchObject({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' } } });
    expect(yes.body.status.allowed).toBe(true);
    expect(yes.body.status.reason).toBe('RBAC: allowed by RoleBinding "pod-reader-alice" in namespace "team" of Role "pod-reader" to User "alice"');
    const no = await a.post('/apis/authorization.service.io/v1/selfsubjectaccessreviews', ssar({ resourceAttributes: { namespace: 'team', verb: 'delete', resource: 'pods' } }, 'authorization.service.io'));
    expect(no.status).toBe(201);
    expect(no.body.apiVersion).toBe('authorization.service.io/v1');
    expect(no.body.status).toEqual({ allowed: false });
    const path = await a.post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', ssar({ nonResourceAttributes: { path: '/api', verb: 'get' } }));
    expect(path.body.status.allowed).toBe(true);
  });

  it('needs exactly one of resourceAttributes and nonResourceAttributes (422)', async () => {
    const r = await f.as('alice').post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', ssar({}));
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    const both = await f.as('alice').post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', ssar({ resourceAttributes: {}, nonResourceAttributes: {} }));
    expect(both.status).toBe(422);
    // reading is not a verb of the kind: 405 to whoever may try, 403 before that
    expect((await f.as('admin').get('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews')).status).toBe(405);
    expect((await f.as('alice').get('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews')).status).toBe(403);
  });

  it('is allowed to everyone authenticated (system:basic-user)', async () => {
    const r = await f.as('carol').post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', ssar({ resourceAttributes: { verb: 'get', resource: 'pods' } }));
    expect(r.status).toBe(201);
    expect(r.body.status.allowed).toBe(false);
  });
});

describe('SubjectAccessReview and LocalSubjectAccessReview', () => {
  const sar = (spec: Record<string, unknown>, kind = 'SubjectAccessReview') => ({ apiVersion: 'authorization.k8s.io/v1', kind, spec });

  it('asks about another user, needs permission to ask, and validates the subject', async () => {
    const admin = f.as('admin');
    const r = await admin.post('/apis/authorization.k8s.io/v1/subjectaccessreviews', sar({ user: 'bob', resourceAttributes: { namespace: 'x', verb: 'list', resource: 'configmaps' } }));
    expect(r.status).toBe(201);
    expect(r.body.status).toMatchObject({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "view-bob" of ClusterRole "view" to User "bob"' });
    const grp = await admin.post('/apis/authorization.k8s.io/v1/subjectaccessreviews', sar({ groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes' } }));
    expect(grp.body.status.allowed).toBe(true);
    const none = await admin.post('/apis/authorization.k8s.io/v1/subjectaccessreviews', sar({ resourceAttributes: { verb: 'get', resource: 'pods' } }));
    expect(none.status).toBe(422);
    expect(none.body.message).toContain('at least one of user or group must be specified');
    const denied = await f.as('alice').post('/apis/authorization.k8s.io/v1/subjectaccessreviews', sar({ user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods' } }));
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope');
  });

  it('LocalSubjectAccessReview defaults the namespace and refuses another one', async () => {
    const admin = f.as('admin');
    const ok = await admin.post('/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews', sar({ user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } }, 'LocalSubjectAccessReview'));
    expect(ok.status).toBe(201);
    expect(ok.body.spec.resourceAttributes.namespace).toBe('team');
    expect(ok.body.status.allowed).toBe(true);
    const other = await admin.post('/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews', sar({ user: 'alice', resourceAttributes: { namespace: 'else', verb: 'get', resource: 'pods' } }, 'LocalSubjectAccessReview'));
    expect(other.status).toBe(400);
    expect(other.body.message).toBe('spec.resourceAttributes.namespace must match namespace: team');
    const nonres = await admin.post('/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews', sar({ user: 'alice', nonResourceAttributes: { path: '/x', verb: 'get' } }, 'LocalSubjectAccessReview'));
    expect(nonres.status).toBe(422);
  });
});

describe('SelfSubjectRulesReview', () => {
  it('lists the rules the user holds in a namespace, cluster-wide ones included', async () => {
    const r = await f.as('alice').post('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'team' } });
    expect(r.status).toBe(201);
    const st = r.body.status;
    expect(st.incomplete).toBe(false);
    expect(st.resourceRules).toContainEqual({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] });
    expect(st.resourceRules).toContainEqual({ verbs: ['create'], apiGroups: ['authorization.service.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] });
    expect(st.nonResourceRules).toContainEqual({ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] });
    const elsewhere = await f.as('alice').post('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'other' } });
    expect(elsewhere.body.status.resourceRules).not.toContainEqual({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] });
  });
});
