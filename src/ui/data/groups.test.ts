import { describe, expect, it } from 'vitest';
import type { ApiResource, Discovery } from '../../client/index.js';
import { apiVersionFor, groupVersionPath, servedResource } from './groups.js';

const res = (group: string, resource: string, preferred = true, version = 'v1'): ApiResource => ({
  group,
  version,
  resource,
  kind: 'X',
  singular: '',
  namespaced: false,
  verbs: ['list'],
  shortNames: [],
  categories: [],
  subresources: [],
  preferred,
});
const disc = (...resources: ApiResource[]): Discovery => ({ groups: [], resources, aggregated: true }) as unknown as Discovery;

describe('servedResource: a group named through discovery, in whichever spelling the server serves', () => {
  it('a real cluster (k8s.io only) gets the k8s.io spelling', () => {
    const d = disc(res('rbac.authorization.k8s.io', 'clusterrolebindings'));
    const r = servedResource(d, 'rbac.authorization.service.io', 'clusterrolebindings');
    expect(r?.group).toBe('rbac.authorization.k8s.io');
    expect(groupVersionPath(r!)).toBe('/apis/rbac.authorization.k8s.io/v1');
    expect(apiVersionFor(r!)).toBe('rbac.authorization.k8s.io/v1');
  });
  it('our server (both spellings) gets the neutral one; the preferred version wins', () => {
    const d = disc(res('rbac.authorization.k8s.io', 'clusterrolebindings'), res('rbac.authorization.service.io', 'clusterrolebindings', false, 'v1beta1'), res('rbac.authorization.service.io', 'clusterrolebindings'));
    expect(servedResource(d, 'rbac.authorization.k8s.io', 'clusterrolebindings')).toMatchObject({ group: 'rbac.authorization.service.io', version: 'v1' });
  });
  it('not served: undefined', () => {
    expect(servedResource(disc(res('apps', 'deployments')), 'rbac.authorization.k8s.io', 'clusterrolebindings')).toBeUndefined();
    expect(servedResource(undefined, 'apps', 'deployments')).toBeUndefined();
    expect(groupVersionPath({ group: '', version: 'v1' })).toBe('/api/v1');
  });
});
