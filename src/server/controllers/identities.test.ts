import { describe, expect, it } from 'vitest';
import { allow, deny, type Attributes } from '../authz/attributes.js';
import { podReferences } from '../authz/node.js';
import { kubeletMaySetLabel } from '../admission/node-restriction.js';
import type { KubeObject } from '../registry/types.js';
import { parseFlags } from '../flags.js';
import { authorizeAs, COMPONENTS, controllerComponent, kubeletComponent, userOf } from './identities.js';

describe('component identities', () => {
  it('a controller is its kube-system service account, or system:kube-controller-manager without --use-service-account-credentials', () => {
    expect(controllerComponent('daemonset-controller')).toEqual({
      manager: 'kube-controller-manager',
      user: 'system:serviceaccount:kube-system:daemon-set-controller',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    });
    expect(controllerComponent('endpoints-controller').user).toBe('system:serviceaccount:kube-system:endpoint-controller');
    expect(controllerComponent('garbage-collector-controller').user).toBe('system:serviceaccount:kube-system:generic-garbage-collector');
    expect(controllerComponent('replicaset-controller', false)).toBe(COMPONENTS.controllerManager);
    expect(COMPONENTS.controllerManager.groups).not.toContain('system:masters');
    expect(COMPONENTS.scheduler).toMatchObject({ user: 'system:kube-scheduler', groups: ['system:authenticated'] });
    expect(kubeletComponent('n1')).toEqual({ manager: 'kubelet', user: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] });
    expect(parseFlags([]).useServiceAccountCredentials).toBe(true);
    expect(parseFlags(['--use-service-account-credentials=false']).useServiceAccountCredentials).toBe(false);
  });

  it("builds the chain's attributes for a write; a denial is a 403 naming the user", async () => {
    const seen: Attributes[] = [];
    const z = { authorize: (a: Attributes) => (seen.push(a), a.verb === 'patch' ? allow() : deny('no')) };
    const user = userOf(kubeletComponent('n1'));
    const w = { verb: 'update' as const, group: '', resource: 'pods', subresource: 'status', namespace: 'default', name: 'p' };
    await expect(authorizeAs(z, user)!(w)).rejects.toMatchObject({ code: 403, status: { message: 'pods "p" is forbidden: User "system:node:n1" cannot update resource "pods/status" in API group "" in the namespace "default": no' } });
    await authorizeAs(z, user, true)!(w);
    expect(seen.map((a) => [a.verb, a.resource, a.subresource, a.user.name])).toEqual([
      ['update', 'pods', 'status', 'system:node:n1'],
      ['patch', 'pods', 'status', 'system:node:n1'],
    ]);
    expect(authorizeAs(undefined, user)).toBeUndefined();
  });
});

describe('the Node authorizer graph and NodeRestriction labels', () => {
  it("collects what a pod references: volumes, projected sources, env, envFrom, image pull secrets, its service account", () => {
    const pod = {
      metadata: { name: 'p' },
      spec: {
        serviceAccountName: 'sa',
        imagePullSecrets: [{ name: 'pull' }],
        volumes: [{ name: 'v1', secret: { secretName: 's1' } }, { name: 'v2', configMap: { name: 'c1' } }, { name: 'v3', persistentVolumeClaim: { claimName: 'claim' } }, { name: 'v4', projected: { sources: [{ secret: { name: 's2' } }, { configMap: { name: 'c2' } }] } }, { name: 'eph', ephemeral: {} }],
        containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's3', key: 'k' } } }, { name: 'B', valueFrom: { configMapKeyRef: { name: 'c3', key: 'k' } } }], envFrom: [{ secretRef: { name: 's4' } }, { configMapRef: { name: 'c4' } }] }],
        initContainers: [{ name: 'i', env: [{ name: 'C', valueFrom: { secretKeyRef: { name: 's5', key: 'k' } } }] }],
      },
    } as unknown as KubeObject;
    const r = podReferences(pod);
    expect([...r.secrets].sort()).toEqual(['pull', 's1', 's2', 's3', 's4', 's5']);
    expect([...r.configmaps].sort()).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect([...r.pvcs].sort()).toEqual(['claim', 'p-eph']);
    expect(r.serviceAccount).toBe('sa');
  });

  it('a kubelet may set its well-known labels, never node-restriction.kubernetes.io/ or other kubernetes.io ones', () => {
    for (const k of ['kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'node.kubernetes.io/instance-type', 'kubelet.kubernetes.io/x', 'example.com/team', 'plain']) expect(kubeletMaySetLabel(k), k).toBe(true);
    for (const k of ['node-restriction.kubernetes.io/pool', 'node-role.kubernetes.io/control-plane', 'foo.k8s.io/x', 'kubernetes.io/other']) expect(kubeletMaySetLabel(k), k).toBe(false);
  });
});
