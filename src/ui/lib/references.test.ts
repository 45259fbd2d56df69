import { describe, expect, test } from 'vitest';
import { bindsSubject, endpointSlicePods, podSpecRefs, roleOf } from './references.js';

describe('references', () => {
  test('a pod spec names its configmaps, secrets, claims and service account', () => {
    const refs = podSpecRefs(
      {
        serviceAccountName: 'runner',
        imagePullSecrets: [{ name: 'pull' }],
        volumes: [{ name: 'cfg', configMap: { name: 'app-config' } }, { name: 'data', persistentVolumeClaim: { claimName: 'data-0' } }, { name: 'p', projected: { sources: [{ secret: { name: 'proj' } }] } }],
        containers: [{ name: 'c', env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'db', key: 'pw' } } }], envFrom: [{ configMapRef: { name: 'env-cm' } }] }],
      },
      'ns',
    );
    expect(refs.map((r) => `${r.kind}/${r.name}`).sort()).toEqual(['ConfigMap/app-config', 'ConfigMap/env-cm', 'PersistentVolumeClaim/data-0', 'Secret/db', 'Secret/proj', 'Secret/pull', 'ServiceAccount/runner']);
    expect(podSpecRefs({ containers: [{ name: 'c' }] }, 'ns')).toEqual([{ kind: 'ServiceAccount', name: 'default', namespace: 'ns', via: 'serviceAccountName' }]);
  });
  test('bindings: subjects (service accounts by namespace) and roles', () => {
    const rb = { kind: 'RoleBinding', metadata: { name: 'b', namespace: 'ns' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }], roleRef: { kind: 'Role', name: 'reader', apiGroup: 'rbac.authorization.k8s.io' } };
    expect(bindsSubject(rb, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' })).toBe(true);
    expect(bindsSubject(rb, { kind: 'ServiceAccount', name: 'sa', namespace: 'other' })).toBe(false);
    expect(roleOf(rb)).toEqual({ kind: 'Role', name: 'reader', namespace: 'ns', via: 'RoleBinding' });
  });
  test('endpoint slices point at pods', () => {
    expect(endpointSlicePods({ metadata: { name: 's', namespace: 'ns' }, endpoints: [{ targetRef: { kind: 'Pod', name: 'web-1' } }, { targetRef: { kind: 'Node', name: 'n' } }] } as never)).toEqual([{ kind: 'Pod', name: 'web-1', namespace: 'ns', via: 'endpoint' }]);
  });
});

import { ingressServices, selectorMatches } from './references.js';

describe('more references', () => {
  test('an Ingress names its backend Services once each', () => {
    const ing = { metadata: { name: 'i' }, spec: { defaultBackend: { service: { name: 'fallback' } }, rules: [{ http: { paths: [{ backend: { service: { name: 'web', port: { number: 80 } } } }, { backend: { service: { name: 'web' } } }] } }] } };
    expect(ingressServices(ing).sort()).toEqual(['fallback', 'web']);
  });
  test('a Service selector: every pair, and an empty selector selects nothing', () => {
    expect(selectorMatches({ app: 'a' }, { app: 'a', tier: 'x' })).toBe(true);
    expect(selectorMatches({ app: 'a', tier: 'y' }, { app: 'a', tier: 'x' })).toBe(false);
    expect(selectorMatches({}, { app: 'a' })).toBe(false);
  });
});
