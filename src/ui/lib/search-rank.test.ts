import { describe, expect, it } from 'vitest';
import type { ApiResource } from '../../client/index.js';
import { matchTier, rankHits, searchableKinds } from './search-rank.js';

const r = (group: string, resource: string, kind: string): ApiResource => ({ group, version: 'v1', resource, kind, singular: '', namespaced: true, verbs: ['list'], shortNames: [], categories: [], subresources: [], preferred: true });
const deploy = r('apps', 'deployments', 'Deployment');
const svc = r('', 'services', 'Service');
const cm = r('', 'configmaps', 'ConfigMap');
const pod = r('', 'pods', 'Pod');
const ev = r('', 'events', 'Event');
const ev2 = r('events.k8s.io', 'events', 'Event');

describe('search ranking', () => {
  it('tiers: exact, prefix, word start, anywhere', () => {
    expect(matchTier('checkout', 'check')).toBe(1);
    expect(matchTier('checkout', 'Checkout')).toBe(0);
    expect(matchTier('shop-checkout', 'check')).toBe(2);
    expect(matchTier('precheck', 'check')).toBe(3);
  });
  it('the exact match of the heaviest kind first, Events last and once', () => {
    const hits = [
      { resource: ev, namespace: 'shop', name: 'checkout-abc.1', uid: 'e1' },
      { resource: ev2, namespace: 'shop', name: 'checkout-abc.1', uid: 'e1' },
      { resource: cm, namespace: 'shop', name: 'checkout-config' },
      { resource: pod, namespace: 'shop', name: 'checkout-6d-x' },
      { resource: svc, namespace: 'shop', name: 'checkout' },
      { resource: deploy, namespace: 'shop', name: 'checkout' },
      { resource: deploy, namespace: 'shop', name: 'precheckout' },
    ];
    const g = rankHits(hits, 'checkout', false);
    expect(g.map((x) => x.resource.kind)).toEqual(['Deployment', 'Service', 'Pod', 'ConfigMap', 'Event']);
    expect(g[0]!.hits.map((h) => h.name)).toEqual(['checkout', 'precheckout']);
    expect(g.at(-1)!.hits).toHaveLength(1);
  });
  it('searchable kinds: workloads first, events.k8s.io dropped beside core Events', () => {
    expect(searchableKinds([ev2, cm, ev, svc, deploy]).map((x) => `${x.group}/${x.kind}`)).toEqual(['apps/Deployment', '/Service', '/ConfigMap', '/Event']);
    expect(searchableKinds([ev2]).map((x) => x.group)).toEqual(['events.k8s.io']);
  });
});
