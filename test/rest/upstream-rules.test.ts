// Validation and defaulting cases where upstream answers differently from a permissive server: a table per rule
// with upstream's message (field: detail, as the Status causes carry them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
});
afterAll(() => server.close());

const NS = '/api/v1/namespaces/default';
const ctr = (extra: Record<string, unknown> = {}) => ({ name: 'c', image: 'nginx:1.27', ...extra });
const pod = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [ctr()], ...spec } });

const INVALID: [string, string, Record<string, unknown>, string[]][] = [
  ['negative cpu request', `${NS}/pods`, pod('p1', { containers: [ctr({ resources: { requests: { cpu: '-1' } } })] }), ['spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0']],
  ['volumeMount of an undefined volume', `${NS}/pods`, pod('p2', { containers: [ctr({ volumeMounts: [{ name: 'data', mountPath: '/d' }] })] }), ['spec.containers[0].volumeMounts[0].name: Not found: "data"']],
  ['probe with two handlers', `${NS}/pods`, pod('p3', { containers: [ctr({ readinessProbe: { httpGet: { port: 80 }, tcpSocket: { port: 80 } } })] }), ['spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type']],
  ['toleration Exists with a value', `${NS}/pods`, pod('p4', { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] }), ["spec.tolerations[0].operator: Invalid value: \"Exists\": value must be empty when `operator` is 'Exists'"]],
  ['volume with two sources', `${NS}/pods`, pod('p5', { volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }] }), ['spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type']],
  [
    'named targetPort over 15 characters',
    `${NS}/services`,
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 's1' }, spec: { ports: [{ port: 80, targetPort: 'a-very-long-port-name' }] } },
    ['spec.ports[0].targetPort: Invalid value: "a-very-long-port-name": must be no more than 15 characters'],
  ],
  [
    'Service type Magic, reported once',
    `${NS}/services`,
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 's2' }, spec: { type: 'Magic', ports: [{ port: 80 }] } },
    ['spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'],
  ],
  [
    'CronJob with an unknown time zone',
    '/apis/batch/v1/namespaces/default/cronjobs',
    { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj' }, spec: { schedule: '0 * * * *', timeZone: 'Mars/Olympus', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [ctr()] } } } } } },
    ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus'],
  ],
  ['restartPolicy on a regular container', `${NS}/pods`, pod('p6', { containers: [ctr({ restartPolicy: 'Always' })] }), ['spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers']],
  ['an init container restartPolicy other than Always', `${NS}/pods`, pod('p7', { initContainers: [ctr({ name: 'i', restartPolicy: 'OnFailure' })] }), ['spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"']],
  [
    'Service trafficDistribution other than PreferClose',
    `${NS}/services`,
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 's3' }, spec: { ports: [{ port: 80 }], trafficDistribution: 'Nearby' } },
    ['spec.trafficDistribution: Unsupported value: "Nearby": supported values: "PreferClose"'],
  ],
  [
    'Job podReplacementPolicy outside its values',
    '/apis/batch/v1/namespaces/default/jobs',
    { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j1' }, spec: { podReplacementPolicy: 'Sometimes', template: { spec: { restartPolicy: 'Never', containers: [ctr()] } } } },
    ['spec.podReplacementPolicy: Unsupported value: "Sometimes": supported values: "Failed", "TerminatingOrFailed"'],
  ],
  [
    'Role rule without verbs, reported once',
    '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'] }] },
    ['rules[0].verbs: Required value: verbs must contain at least one value'],
  ],
];

describe('validation as upstream (422 with its message)', () => {
  it.each(INVALID)('%s', async (_what, path, body, expected) => {
    const r = await api.post(path, body);
    expect(r.status).toBe(422);
    expect(r.body.details.causes.map((c: any) => `${c.field}: ${c.message}`)).toEqual(expected);
  });
});

describe('fields of features off by default in 1.33 are dropped, as upstream drops them', () => {
  it('pod-level resources and container stop signals on a Pod, volumeAttributesClassName on a PVC', async () => {
    const r = await api.post(`${NS}/pods`, pod('gated', { resources: { limits: { cpu: '1' } }, containers: [ctr({ lifecycle: { stopSignal: 'SIGUSR1' } })] }));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.spec.resources).toBeUndefined();
    expect(r.body.spec.containers[0].lifecycle).toEqual({});
    const pvc = await api.post(`${NS}/persistentvolumeclaims`, {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'gated' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeAttributesClassName: 'gold' },
    });
    expect(pvc.status, JSON.stringify(pvc.body)).toBe(201);
    expect(pvc.body.spec.volumeAttributesClassName).toBeUndefined();
  });
});

describe('defaults as upstream 1.33', () => {
  it('stores a negative terminationGracePeriodSeconds as 1 and mirrors serviceAccount', async () => {
    const r = await api.post(`${NS}/pods`, pod('g1', { terminationGracePeriodSeconds: -5, serviceAccountName: 'default' }));
    expect(r.status).toBe(201);
    expect(r.body.spec.terminationGracePeriodSeconds).toBe(1);
    expect(r.body.spec.serviceAccount).toBe('default');
  });

  it('mirrors serviceAccount in pod templates and defaults resourceFieldRef.divisor', async () => {
    const template = { metadata: { labels: { app: 'd' } }, spec: { serviceAccountName: 'builder', containers: [ctr({ env: [{ name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } }] })] } };
    const r = await api.post('/apis/apps/v1/namespaces/default/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'd' } }, template } });
    expect(r.status).toBe(201);
    expect(r.body.spec.template.spec.serviceAccount).toBe('builder');
    expect(r.body.spec.template.spec.containers[0].env[0].valueFrom.resourceFieldRef).toEqual({ resource: 'limits.memory', divisor: '0' });
  });

  it('gives headless services with a selector their IP families, LoadBalancers allocateLoadBalancerNodePorts', async () => {
    const headless = await api.post(`${NS}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'h' }, spec: { clusterIP: 'None', selector: { app: 'h' }, ports: [{ port: 80 }] } });
    expect(headless.body.spec).toMatchObject({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
    const lb = await api.post(`${NS}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', selector: { app: 'lb' }, ports: [{ port: 80 }] } });
    expect(lb.body.spec.allocateLoadBalancerNodePorts).toBe(true);
  });

  it('defaults Job podReplacementPolicy and StatefulSet claim templates apiVersion/kind', async () => {
    const job = await api.post('/apis/batch/v1/namespaces/default/jobs', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [ctr()] } } } });
    expect(job.body.spec.podReplacementPolicy).toBe('TerminatingOrFailed');
    const sts = await api.post('/apis/apps/v1/namespaces/default/statefulsets', {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'st' },
      // the container mounts a claim template, not a pod volume: allowed for StatefulSets
      spec: { serviceName: 'st', selector: { matchLabels: { app: 'st' } }, template: { metadata: { labels: { app: 'st' } }, spec: { containers: [ctr({ volumeMounts: [{ name: 'data', mountPath: '/d' }] })] } }, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] },
    });
    expect(sts.status).toBe(201);
    expect(sts.body.spec.volumeClaimTemplates[0]).toMatchObject({ apiVersion: 'v1', kind: 'PersistentVolumeClaim' });
  });

  it('sets metadata.generation only on kinds upstream tracks it on', async () => {
    const created = await Promise.all([
      api.post(`${NS}/secrets`, { metadata: { name: 'gen-s' }, data: {} }),
      api.post(`${NS}/configmaps`, { metadata: { name: 'gen-c' } }),
      api.post('/api/v1/namespaces', { metadata: { name: 'gen-ns' } }),
      api.post(`${NS}/persistentvolumeclaims`, { metadata: { name: 'gen-pvc' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }),
      api.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'gen-cr' }, rules: [] }),
    ]);
    for (const r of created) {
      expect(r.status).toBe(201);
      expect(r.body.metadata.generation).toBeUndefined();
    }
    expect((await api.get(`${NS}/services/h`)).body.metadata.generation).toBeUndefined();
    expect((await api.get('/apis/apps/v1/namespaces/default/deployments/d')).body.metadata.generation).toBe(1);
  });
});

describe('webhook rule resources as upstream validateResources', () => {
  const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
  const vwc = (name: string, resources: string[]) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: 'check.example.com',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        clientConfig: { url: 'https://127.0.0.1:9443/check' },
        rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE'], resources }],
      },
    ],
  });

  it("accepts '*' beside resources that name a sub-resource (Gatekeeper's webhook)", async () => {
    const r = await api.post(VWC, vwc('gatekeeper-like', ['*', 'pods/ephemeralcontainers', 'pods/exec', 'pods/log', 'pods/eviction', 'pods/portforward', 'pods/proxy', 'pods/attach', 'pods/binding', 'deployments/scale', 'replicasets/scale', 'statefulsets/scale', 'replicationcontrollers/scale', 'services/proxy', 'nodes/proxy', 'services/status']));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it.each([
    [['*', 'pods'], "webhooks[0].rules[0].resources: Invalid value: [\"*\",\"pods\"]: if '*' is present, must not specify other resources without subresources"],
    [['*/*', 'pods/status'], "webhooks[0].rules[0].resources: Invalid value: [\"*/*\",\"pods/status\"]: if '*/*' is present, must not specify other resources"],
    [['pods/*', 'pods/status'], 'webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if \'pods/*\' is present, must not specify pods/status'],
    [['*/status', 'pods/status'], 'webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if \'*/status\' is present, must not specify pods/status'],
  ])('refuses %j', async (resources, message) => {
    const r = await api.post(VWC, vwc(`bad-${resources.join('-').replace(/[^a-z]/g, 'x')}`, resources));
    expect(r.status).toBe(422);
    expect(r.body.details.causes.map((c: any) => `${c.field}: ${c.message}`)).toEqual([message]);
  });
});
