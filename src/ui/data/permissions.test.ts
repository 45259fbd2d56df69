import { describe, expect, it } from 'vitest';
import { ruleAllows } from './permissions.js';

describe('ruleAllows (explorer side of RBAC matching)', () => {
  it('matches verbs, groups in either spelling, sub-resources and names', () => {
    const r = { verbs: ['get', 'list'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', '*/status'], resourceNames: [] };
    expect(ruleAllows(r, 'get', 'rbac.authorization.service.io', 'roles')).toBe(true);
    expect(ruleAllows(r, 'delete', 'rbac.authorization.service.io', 'roles')).toBe(false);
    expect(ruleAllows(r, 'get', 'apps', 'roles')).toBe(false);
    expect(ruleAllows(r, 'get', 'rbac.authorization.k8s.io', 'roles', 'status')).toBe(true);
    expect(ruleAllows(r, 'get', 'rbac.authorization.k8s.io', 'rolebindings')).toBe(false);
    const named = { verbs: ['*'], apiGroups: ['*'], resources: ['configmaps'], resourceNames: ['a'] };
    expect(ruleAllows(named, 'update', '', 'configmaps', '', 'a')).toBe(true);
    expect(ruleAllows(named, 'update', '', 'configmaps', '', 'b')).toBe(false);
    expect(ruleAllows(named, 'create', '', 'configmaps')).toBe(false);
  });
});
