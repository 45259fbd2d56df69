// RBAC decisions do not depend on the group's spelling: a rule written with `*.k8s.io` or `*.service.io` matches a
// request (and a SubjectAccessReview) in either spelling, for every aliased group (registry/names.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GROUP_ALIASES } from '../../src/server/registry/names.js';
import { authzServer, type AuthzFixture } from './support.js';

let f: AuthzFixture;
const ALIASES = Object.entries(GROUP_ALIASES);

beforeAll(async () => {
  f = await authzServer({}, []);
  const admin = f.as('admin');
  const roleFor = async (name: string, user: string, spell: (up: string, canon: string) => string) => {
    const rules = ALIASES.map(([up, canon]) => ({ apiGroups: [spell(up, canon)], resources: ['widgets', 'clusterroles'], verbs: ['get', 'list'] }));
    expect((await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name }, rules })).status).toBe(201);
    const b = await admin.post('/apis/rbac.authorization.service.io/v1/clusterrolebindings', {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
    });
    expect(b.status).toBe(201);
  };
  await roleFor('spelled-upstream', 'alice', (up) => up);
  await roleFor('spelled-canonical', 'bob', (_up, canon) => canon);
});
afterAll(() => f.close());

const sar = async (user: string, verb: string, group: string) => {
  const r = await f.as('admin').post('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user, resourceAttributes: { verb, group, resource: 'widgets' } },
  });
  expect(r.status).toBe(201);
  return r.body.status.allowed === true;
};

describe('RBAC matches a group in either spelling', () => {
  it('requests: a rule in either spelling allows both spellings; no rule denies both', async () => {
    for (const g of ['rbac.authorization.k8s.io', 'rbac.authorization.service.io']) {
      expect((await f.as('alice').get(`/apis/${g}/v1/clusterroles`)).status, `alice ${g}`).toBe(200);
      expect((await f.as('bob').get(`/apis/${g}/v1/clusterroles`)).status, `bob ${g}`).toBe(200);
      expect((await f.as('carol').get(`/apis/${g}/v1/clusterroles`)).status, `carol ${g}`).toBe(403);
    }
  });

  it('SubjectAccessReview: the same decision for both spellings of every aliased group (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ALIASES), fc.constantFrom('alice', 'bob', 'carol'), fc.constantFrom('get', 'list', 'delete'), async ([up, canon], user, verb) => {
        const a = await sar(user, verb, up);
        const b = await sar(user, verb, canon);
        expect(a).toBe(b);
        expect(a).toBe(user !== 'carol' && verb !== 'delete');
      }),
      { numRuns: 60 },
    );
  });
});
