// Protobuf for the API groups real bundles and Go clients use beyond the first set: objects written in protobuf
// (as typed clients and `kubectl create` send them) read back the same in JSON, and protobuf reads match JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/api/protobuf/index.js';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

const PB = 'application/vnd.kubernetes.protobuf';
let server: ApiServer;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
});
afterAll(() => server.close());

const CASES: [string, string, Record<string, unknown>][] = [
  ['/apis/networking.k8s.io/v1/namespaces/default/ingresses', 'web', { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' }, spec: { ingressClassName: 'nginx', rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }] } }],
  ['/apis/networking.k8s.io/v1/ingressclasses', 'nginx', { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p' } } }],
  ['/apis/scheduling.k8s.io/v1/priorityclasses', 'zero', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'zero' }, value: 0 }],
  ['/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', 'hpa', { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'hpa' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } }] } }],
  ['/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', 'slice', { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'slice' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: false, serving: true } }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }],
  ['/apis/events.k8s.io/v1/namespaces/default/events', 'ev', { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev' }, eventTime: '2025-01-01T00:00:00.000000Z', reportingController: 'x.io/c', reportingInstance: 'c-1', action: 'Sync', reason: 'Synced', type: 'Normal', note: 'done', regarding: { kind: 'Pod', name: 'p', namespace: 'default' } }],
  ['/apis/apiregistration.k8s.io/v1/apiservices', 'v1beta1.metrics.example.com', { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.example.com' }, spec: { group: 'metrics.example.com', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics', port: 443 }, caBundle: 'Y2E=' } }],
  ['/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', 'jail', { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'jail' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 2, queueLengthLimit: 10 } } } } }],
  ['/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', 'jailed', { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'jailed' }, spec: { priorityLevelConfiguration: { name: 'jail' }, matchingPrecedence: 500, distinguisherMethod: { type: 'ByNamespace' }, rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ci', name: '*' } }], resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'], clusterScope: true, namespaces: ['*'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }] }] } }],
  ['/apis/node.k8s.io/v1/runtimeclasses', 'gvisor', { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'gvisor' }, handler: 'runsc', overhead: { podFixed: { cpu: '250m' } }, scheduling: { nodeSelector: { sandbox: 'true' } } }],
  ['/apis/storage.k8s.io/v1/storageclasses', 'fast', { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'ebs.csi.aws.com', parameters: { type: 'gp3' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: false, mountOptions: ['noatime'] }],
  ['/apis/storage.k8s.io/v1/csidrivers', 'csi.example.com', { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'csi.example.com' }, spec: { attachRequired: false, podInfoOnMount: true, storageCapacity: false, requiresRepublish: false, seLinuxMount: false, fsGroupPolicy: 'File', volumeLifecycleModes: ['Persistent', 'Ephemeral'], tokenRequests: [{ audience: 'vault', expirationSeconds: 3600 }] } }],
  ['/apis/storage.k8s.io/v1/volumeattachments', 'va', { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va' }, spec: { attacher: 'csi.example.com', nodeName: 'node-a', source: { persistentVolumeName: 'pv-1' } } }],
  ['/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities', 'cap', { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name: 'cap' }, storageClassName: 'fast', capacity: '100Gi', nodeTopology: { matchLabels: { zone: 'a' } } }],
  [
    '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    'vwc',
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'vwc' },
      webhooks: [{ name: 'v.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Ignore', matchPolicy: 'Equivalent', timeoutSeconds: 5, namespaceSelector: {}, objectSelector: {}, clientConfig: { service: { namespace: 'default', name: 'hook', path: '/v', port: 8443 }, caBundle: 'Y2E=' }, rules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], scope: '*' }] }],
    },
  ],
  [
    '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
    'mwc',
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'mwc' },
      webhooks: [{ name: 'm.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail', matchPolicy: 'Equivalent', reinvocationPolicy: 'IfNeeded', timeoutSeconds: 10, namespaceSelector: {}, objectSelector: {}, clientConfig: { url: 'https://hook.example.com/m' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }], matchConditions: [{ name: 'not-system', expression: "!request.namespace.startsWith('kube-')" }] }],
    },
  ],
];

describe('protobuf for networking, scheduling, autoscaling/v2, discovery, events, node, storage and admissionregistration', () => {
  it.each(CASES)('%s: a protobuf body creates what JSON reads, and a protobuf read decodes to the JSON form', async (path, name, body) => {
    const created = await fetch(server.url + path, { method: 'POST', headers: { 'Content-Type': PB, Accept: 'application/json' }, body: encodeProtobufObject(body as never) as unknown as BodyInit });
    expect(created.status, await created.clone().text()).toBe(201);
    const json = (await api.get(`${path}/${name}`)).body;
    for (const [k, v] of Object.entries(body)) if (k !== 'metadata' && k !== 'apiVersion') expect(json[k], k).toEqual(v);
    const pb = await fetch(`${server.url}${path}/${name}`, { headers: { Accept: PB } });
    expect(pb.headers.get('content-type')).toBe(PB);
    const decoded = decodeProtobufObject(new Uint8Array(await pb.arrayBuffer()));
    expect(decoded).toEqual(json);
  });
});
