import { describe, expect, it } from 'vitest';
import type { Attributes } from './attributes.js';
import { compactRules, covers, missingPieces, ruleAllows, subjectMatches } from './rbac.js';

const user = { name: 'system:serviceaccount:ns1:robot', uid: '', groups: ['system:serviceaccounts', 'system:authenticated'], extra: {} };
const res = (over: Partial<Attributes>): Attributes => ({ user, verb: 'get', resourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', namespace: 'ns1', name: '', ...over });

describe('RBAC rule matching (upstream RuleAllows)', () => {
  it('matches verbs, groups (either spelling), resources, sub-resources and names', () => {
    expect(ruleAllows(res({}), { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).toBe(true);
    expect(ruleAllows(res({ verb: 'list' }), { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).toBe(false);
    expect(ruleAllows(res({ apiGroup: 'coordination.k8s.io', resource: 'leases' }), { verbs: ['*'], apiGroups: ['coordination.service.io'], resources: ['leases'] })).toBe(true);
    expect(ruleAllows(res({ subresource: 'log' }), { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).toBe(false);
    expect(ruleAllows(res({ subresource: 'log' }), { verbs: ['get'], apiGroups: [''], resources: ['*/log'] })).toBe(true);
    expect(ruleAllows(res({ subresource: 'log' }), { verbs: ['get'], apiGroups: [''], resources: ['*'] })).toBe(true);
    expect(ruleAllows(res({ name: 'a' }), { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] })).toBe(true);
    expect(ruleAllows(res({ name: '' }), { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] })).toBe(false);
  });

  it('matches non-resource URLs exactly or by a trailing * prefix', () => {
    const nr = (path: string) => res({ resourceRequest: false, path, resource: '' });
    const r = { verbs: ['get'], nonResourceURLs: ['/healthz', '/logs/*'] };
    expect(ruleAllows(nr('/healthz'), r)).toBe(true);
    expect(ruleAllows(nr('/healthz/etcd'), r)).toBe(false);
    expect(ruleAllows(nr('/logs/a/b'), r)).toBe(true);
    expect(ruleAllows(nr('/logs'), r)).toBe(false);
    // a resource rule never grants a path
    expect(ruleAllows(nr('/healthz'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] })).toBe(false);
  });

  it('matches subjects as upstream appliesToUser', () => {
    expect(subjectMatches({ kind: 'ServiceAccount', name: 'robot', namespace: 'ns1' }, user, '')).toBe(true);
    expect(subjectMatches({ kind: 'ServiceAccount', name: 'robot' }, user, 'ns1')).toBe(true);
    expect(subjectMatches({ kind: 'ServiceAccount', name: 'robot' }, user, 'ns2')).toBe(false);
    expect(subjectMatches({ kind: 'Group', name: 'system:serviceaccounts' }, user, '')).toBe(true);
    expect(subjectMatches({ kind: 'User', name: 'robot' }, user, '')).toBe(false);
  });
});

describe('escalation coverage (upstream validation.Covers)', () => {
  it('breaks rules into single permissions and reports the missing ones compacted', () => {
    const held = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'configmaps'] }, { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] }];
    expect(covers(held, { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['x'] })).toBe(true);
    expect(covers(held, { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] })).toBe(true);
    expect(covers(held, { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] })).toBe(false);
    const missing = missingPieces(held, [{ verbs: ['get', 'delete', 'patch'], apiGroups: [''], resources: ['pods'] }]);
    expect(compactRules(missing)).toEqual([{ verbs: ['delete', 'patch'], apiGroups: [''], resources: ['pods'], resourceNames: [] }]);
    const named = [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }];
    expect(covers(named, { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] })).toBe(true);
    expect(covers(named, { verbs: ['get'], apiGroups: [''], resources: ['secrets'] })).toBe(false);
    expect(covers([{ verbs: ['get'], nonResourceURLs: ['/api/*'] }], { verbs: ['get'], nonResourceURLs: ['/api/v1'] })).toBe(true);
  });
});
