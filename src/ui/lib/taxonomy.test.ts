import { describe, expect, it } from 'vitest';
import type { ApiResource } from '../../client/index.js';
import { kindWeight, placeOf, taskSections } from './taxonomy.js';

const r = (group: string, resource: string, kind: string): ApiResource => ({ group, version: 'v1', resource, kind, singular: '', namespaced: true, verbs: ['list'], shortNames: [], categories: [], subresources: [], preferred: true });

describe('task taxonomy', () => {
  it('places kinds by task in either group spelling; unknown groups are custom resources', () => {
    expect(placeOf(r('apps', 'deployments', 'Deployment')).task).toBe('workloads');
    expect(placeOf(r('networking.k8s.io', 'ingresses', 'Ingress')).task).toBe('network');
    expect(placeOf(r('networking.service.io', 'ingresses', 'Ingress')).task).toBe('network');
    expect(placeOf(r('rbac.authorization.k8s.io', 'roles', 'Role')).task).toBe('access');
    expect(placeOf(r('', 'nodes', 'Node')).task).toBe('cluster');
    expect(placeOf(r('stable.example.com', 'crontabs', 'CronTab')).task).toBe('custom');
  });
  it('lists Event once (core and events.k8s.io), workloads in task order, custom resources by group', () => {
    const s = taskSections([
      r('events.k8s.io', 'events', 'Event'),
      r('', 'events', 'Event'),
      r('apps', 'replicasets', 'ReplicaSet'),
      r('', 'pods', 'Pod'),
      r('apps', 'deployments', 'Deployment'),
      r('b.example.com', 'widgets', 'Widget'),
      r('a.example.com', 'gadgets', 'Gadget'),
    ]);
    expect(s.map((x) => x.id)).toEqual(['workloads', 'cluster', 'custom']);
    expect(s[0]!.groups[0]!.resources.map((x) => x.kind)).toEqual(['Pod', 'Deployment', 'ReplicaSet']);
    const events = s[1]!.groups[0]!.resources;
    expect(events).toHaveLength(1);
    expect(events[0]!.group).toBe('');
    expect(s[2]!.groups.map((g) => g.group)).toEqual(['a.example.com', 'b.example.com']);
  });
  it('weights: workloads and services before config, Events last', () => {
    const w = (g: string, res: string) => kindWeight(r(g, res, ''));
    expect(w('apps', 'deployments')).toBeGreaterThan(w('', 'services'));
    expect(w('', 'services')).toBeGreaterThan(w('', 'pods'));
    expect(w('', 'pods')).toBeGreaterThan(w('apps', 'controllerrevisions'));
    expect(w('', 'services')).toBeGreaterThan(w('', 'configmaps'));
    expect(w('', 'configmaps')).toBeGreaterThan(w('', 'nodes'));
    expect(w('', 'nodes')).toBeGreaterThan(w('', 'events'));
    expect(w('events.k8s.io', 'events')).toBe(0);
  });
});
