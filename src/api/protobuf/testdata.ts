// Realistic API objects, shaped as the JSON API shows them, shared by the protobuf codec tests.
import type { JsonObject } from './codec.js';

const meta = (name: string, extra: JsonObject = {}): JsonObject => ({
  name,
  namespace: 'team-a',
  uid: `uid-${name}`,
  resourceVersion: '4711',
  generation: 2,
  creationTimestamp: '2024-01-02T03:04:05Z',
  labels: { app: name, 'app.kubernetes.io/part-of': 'shop', empty: '' },
  annotations: { 'note.example.com/a': 'line1\nline2 ünïcødé ✓' },
  ...extra,
});

export const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: meta('web-0', {
    generateName: 'web-',
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true }],
    finalizers: ['example.com/guard'],
    managedFields: [{
      manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', time: '2024-01-02T03:04:05Z',
      fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
    }],
  }),
  spec: {
    volumes: [
      { name: 'config', configMap: { name: 'web-config', items: [{ key: 'nginx.conf', path: 'nginx.conf', mode: 420 }], defaultMode: 420 } },
      { name: 'creds', secret: { secretName: 'web-creds', optional: false } },
      { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } },
      { name: 'token', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { downwardAPI: { items: [{ path: 'labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' } }] } }], defaultMode: 420 } },
    ],
    initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['sh', '-c', 'echo ready'], resources: {} }],
    containers: [{
      name: 'nginx',
      image: 'nginx:1.25',
      args: ['-g', 'daemon off;'],
      ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { containerPort: 9090, hostPort: 19090, protocol: 'UDP' }],
      envFrom: [{ configMapRef: { name: 'web-env' } }, { prefix: 'S_', secretRef: { name: 'web-secret-env', optional: true } }],
      env: [
        { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
        { name: 'MEM', valueFrom: { resourceFieldRef: { containerName: 'nginx', resource: 'limits.memory', divisor: '1Mi' } } },
        { name: 'KEY', valueFrom: { secretKeyRef: { name: 'web-creds', key: 'key' } } },
        { name: 'PLAIN', value: 'x' },
      ],
      resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m', memory: '128Mi', 'ephemeral-storage': '2Gi' } },
      volumeMounts: [{ name: 'config', mountPath: '/etc/nginx', readOnly: true }, { name: 'data', mountPath: '/data', subPath: 'web' }],
      livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: '1' }] }, initialDelaySeconds: 10, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
      readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 5, successThreshold: 1, failureThreshold: 3, timeoutSeconds: 1 },
      startupProbe: { exec: { command: ['cat', '/tmp/ready'] }, failureThreshold: 30, periodSeconds: 2, timeoutSeconds: 1, successThreshold: 1, terminationGracePeriodSeconds: 0 },
      lifecycle: { preStop: { sleep: { seconds: 5 } } },
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'IfNotPresent',
      securityContext: { capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] }, readOnlyRootFilesystem: false, allowPrivilegeEscalation: false, runAsNonRoot: true, runAsUser: 0 },
    }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    serviceAccountName: 'web',
    serviceAccount: 'web',
    automountServiceAccountToken: false,
    nodeName: 'node-1',
    securityContext: { fsGroup: 2000, supplementalGroups: [1000, 3000], seccompProfile: { type: 'RuntimeDefault' } },
    hostname: 'web-0',
    subdomain: 'web',
    affinity: {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }] } },
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' } }] },
    },
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' },
    ],
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }],
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True', lastTransitionTime: '2024-01-02T03:05:00Z' },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: '2024-01-02T03:04:06Z' },
    ],
    hostIP: '10.0.0.5',
    hostIPs: [{ ip: '10.0.0.5' }],
    podIP: '10.244.1.7',
    podIPs: [{ ip: '10.244.1.7' }, { ip: 'fd00::7' }],
    startTime: '2024-01-02T03:04:06Z',
    containerStatuses: [{
      name: 'nginx',
      state: { running: { startedAt: '2024-01-02T03:04:30Z' } },
      lastState: { terminated: { exitCode: 0, reason: 'Completed', startedAt: '2024-01-02T03:04:10Z', finishedAt: '2024-01-02T03:04:20Z', containerID: 'containerd://abc' } },
      ready: true,
      restartCount: 1,
      image: 'docker.io/library/nginx:1.25',
      imageID: 'docker.io/library/nginx@sha256:0123',
      containerID: 'containerd://def',
      started: true,
    }],
    qosClass: 'Burstable',
  },
};

export const deployment: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: meta('web', { annotations: { 'deployment.kubernetes.io/revision': '3' } }),
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.25', resources: {} }], restartPolicy: 'Always' },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
  status: {
    observedGeneration: 2,
    replicas: 3,
    updatedReplicas: 3,
    readyReplicas: 2,
    availableReplicas: 2,
    unavailableReplicas: 1,
    conditions: [
      { type: 'Available', status: 'False', lastUpdateTime: '2024-01-02T03:04:05Z', lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
    ],
  },
};

export const secret: JsonObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: meta('web-creds'),
  immutable: false,
  data: { key: 'czNjcjN0', binary: '/wD+AQID', empty: '' },
  type: 'Opaque',
};

export const configMap: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: meta('web-config'),
  data: { 'nginx.conf': 'server {\n  listen 8080;\n}\n', blank: '' },
  binaryData: { 'logo.png': 'iVBORw0KGgo=' },
};

export const namespace: JsonObject = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team-a', uid: 'uid-ns', resourceVersion: '12', creationTimestamp: '2024-01-02T03:04:05Z', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
};

export const status: JsonObject = {
  apiVersion: 'v1',
  kind: 'Status',
  metadata: {},
  status: 'Failure',
  message: 'pods "nope" not found',
  reason: 'NotFound',
  details: { name: 'nope', kind: 'pods', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'spec.containers[0].image' }] },
  code: 404,
};

export const service: JsonObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: meta('web'),
  spec: {
    ports: [
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 'http', nodePort: 30080 },
      { name: 'metrics', protocol: 'TCP', appProtocol: 'http', port: 9090, targetPort: 9090 },
    ],
    selector: { app: 'web' },
    clusterIP: '10.96.0.10',
    clusterIPs: ['10.96.0.10'],
    type: 'NodePort',
    sessionAffinity: 'ClientIP',
    sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    externalTrafficPolicy: 'Cluster',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
  },
  status: { loadBalancer: {} },
};

export const crd: JsonObject = {
  apiVersion: 'apiextensions.service.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com', uid: 'uid-crd', resourceVersion: '99', generation: 1, creationTimestamp: '2024-01-02T03:04:05Z' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', shortNames: ['wg'], kind: 'Widget', listKind: 'WidgetList', categories: ['all'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A widget.',
            required: ['spec'],
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                'x-kubernetes-validations': [{ rule: 'self.size <= self.max', message: 'size too big', reason: 'FieldValueInvalid', fieldPath: '.size' }],
                properties: {
                  size: { type: 'integer', format: 'int32', minimum: 0, maximum: 100, exclusiveMaximum: true, default: 1 },
                  max: { type: 'integer', default: 100 },
                  ratio: { type: 'number', minimum: 0.5, multipleOf: 0.25 },
                  color: { type: 'string', enum: ['red', 'green', null], pattern: '^[a-z]+$', maxLength: 16, minLength: 0, nullable: true },
                  port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                  tags: { type: 'array', items: { type: 'string' }, maxItems: 8, 'x-kubernetes-list-type': 'set', uniqueItems: true },
                  pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] },
                  labels: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'granular' },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, additionalProperties: true },
                  closed: { type: 'object', additionalProperties: false },
                  template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
                  items: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', properties: { name: { type: 'string' }, nested: { type: 'object', properties: { deep: { type: 'boolean', default: false } } } } },
                  },
                  defaults: { type: 'object', default: { a: [1, 'two', { three: true }] }, example: { a: [] } },
                  both: { type: 'object', dependencies: { a: ['b', 'c'], d: { properties: { e: { type: 'string' } } } } },
                },
              },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
            },
          },
        },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }, { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1, description: 'colour' }],
        selectableFields: [{ jsonPath: '.spec.color' }],
      },
      { name: 'v1beta1', served: false, storage: false, deprecated: true, deprecationWarning: 'use v1', schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    ],
    conversion: { strategy: 'None' },
  },
  status: {
    conditions: [{ type: 'Established', status: 'True', lastTransitionTime: '2024-01-02T03:04:06Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }],
    acceptedNames: { plural: 'widgets', singular: 'widget', shortNames: ['wg'], kind: 'Widget', listKind: 'WidgetList', categories: ['all'] },
    storedVersions: ['v1'],
  },
};

export const lease: JsonObject = {
  apiVersion: 'coordination.service.io/v1',
  kind: 'Lease',
  metadata: meta('leader'),
  spec: { holderIdentity: 'ctrl-1', leaseDurationSeconds: 15, acquireTime: '2024-01-02T03:04:05.123456Z', renewTime: '2024-01-02T03:04:35.000001Z', leaseTransitions: 0 },
};

export const roleBinding: JsonObject = {
  apiVersion: 'rbac.authorization.service.io/v1',
  kind: 'RoleBinding',
  metadata: meta('read-pods'),
  subjects: [
    { kind: 'ServiceAccount', name: 'web', namespace: 'team-a' },
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' },
  ],
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
};

export const clusterRole: JsonObject = {
  apiVersion: 'rbac.authorization.service.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'aggregate', uid: 'uid-cr', resourceVersion: '5', creationTimestamp: '2024-01-02T03:04:05Z' },
  rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }],
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] },
};

export const cronJob: JsonObject = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: meta('nightly'),
  spec: {
    schedule: '0 3 * * *',
    timeZone: 'Etc/UTC',
    concurrencyPolicy: 'Forbid',
    suspend: false,
    jobTemplate: {
      metadata: { labels: { job: 'nightly' } },
      spec: {
        backoffLimit: 0,
        activeDeadlineSeconds: 3600,
        ttlSecondsAfterFinished: 86400,
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }, { action: 'FailJob', onExitCodes: { operator: 'In', values: [1, 42] } }] },
        template: { spec: { containers: [{ name: 'job', image: 'busybox', command: ['true'], resources: {} }], restartPolicy: 'Never' } },
      },
    },
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
  },
  status: { active: [{ kind: 'Job', namespace: 'team-a', name: 'nightly-1', uid: 'uid-j', apiVersion: 'batch/v1', resourceVersion: '8' }], lastScheduleTime: '2024-01-02T03:00:00Z' },
};

export const pdb: JsonObject = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: meta('web'),
  spec: { minAvailable: '50%', selector: { matchLabels: { app: 'web' } }, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
  status: { observedGeneration: 2, disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 2, expectedPods: 3, conditions: [{ type: 'DisruptionAllowed', status: 'False', observedGeneration: 2, lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'InsufficientPods', message: 'Need 2 healthy pods' }] },
};

export const node: JsonObject = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-1', uid: 'uid-node', resourceVersion: '77', creationTimestamp: '2024-01-02T03:04:05Z', labels: { 'kubernetes.io/hostname': 'node-1' } },
  spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'], taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }], unschedulable: true },
  status: {
    capacity: { cpu: '4', memory: '16334148Ki', pods: '110' },
    allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2024-01-02T03:10:00Z', lastTransitionTime: '2024-01-02T03:04:10Z', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'node-1' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1.0', osImage: 'Debian', containerRuntimeVersion: 'containerd://1.7', kubeletVersion: 'v1.33.0', kubeProxyVersion: 'v1.33.0', operatingSystem: 'linux', architecture: 'amd64' },
    images: [{ names: ['nginx:1.25'], sizeBytes: 67108864 }],
  },
};

export const persistentVolume: JsonObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pv-1', uid: 'uid-pv', resourceVersion: '3', creationTimestamp: '2024-01-02T03:04:05Z' },
  spec: {
    capacity: { storage: '10Gi' },
    hostPath: { path: '/mnt/data', type: 'DirectoryOrCreate' },
    accessModes: ['ReadWriteOnce'],
    claimRef: { kind: 'PersistentVolumeClaim', namespace: 'team-a', name: 'data-web-0', uid: 'uid-pvc', apiVersion: 'v1', resourceVersion: '9' },
    persistentVolumeReclaimPolicy: 'Retain',
    storageClassName: 'manual',
    volumeMode: 'Filesystem',
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } },
  },
  status: { phase: 'Bound', lastPhaseTransitionTime: '2024-01-02T03:04:05Z' },
};

export const event: JsonObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: meta('web-0.17a'),
  involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'web-0', uid: 'uid-web-0', apiVersion: 'v1', resourceVersion: '4711', fieldPath: 'spec.containers{nginx}' },
  reason: 'Pulled',
  message: 'Container image "nginx:1.25" already present on machine',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-01-02T03:04:05Z',
  lastTimestamp: '2024-01-02T03:05:05Z',
  count: 2,
  type: 'Normal',
  eventTime: '2024-01-02T03:04:05.000123Z',
  series: { count: 2, lastObservedTime: '2024-01-02T03:05:05.654321Z' },
  reportingComponent: 'kubelet',
  reportingInstance: 'node-1',
};

export const statefulSet: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: meta('web'),
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }],
    serviceName: 'web',
    podManagementPolicy: 'OrderedReady',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    revisionHistoryLimit: 10,
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
  },
  status: { observedGeneration: 2, replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, currentRevision: 'web-1', updateRevision: 'web-1', collisionCount: 0 },
};

export const controllerRevision: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'ControllerRevision',
  metadata: meta('web-1'),
  data: { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } } },
  revision: 1,
};

export const deleteOptions: JsonObject = {
  apiVersion: 'meta.service.io/v1',
  kind: 'DeleteOptions',
  gracePeriodSeconds: 0,
  preconditions: { uid: 'uid-x', resourceVersion: '5' },
  propagationPolicy: 'Foreground',
  dryRun: ['All'],
};

export const eviction: JsonObject = {
  apiVersion: 'policy/v1',
  kind: 'Eviction',
  metadata: { name: 'web-0', namespace: 'team-a' },
  deleteOptions: { gracePeriodSeconds: 0, orphanDependents: false },
};

export const scale: JsonObject = {
  apiVersion: 'autoscaling/v1',
  kind: 'Scale',
  metadata: meta('web'),
  spec: { replicas: 5 },
  status: { replicas: 3, selector: 'app=web' },
};

export const partialObjectMetadata: JsonObject = {
  apiVersion: 'meta.service.io/v1',
  kind: 'PartialObjectMetadata',
  metadata: meta('web-0'),
};

export const apiResourceList: JsonObject = {
  apiVersion: 'v1',
  kind: 'APIResourceList',
  groupVersion: 'apps/v1',
  resources: [
    { name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['deploy'], categories: ['all'] },
    { name: 'deployments/scale', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
    { name: 'controllerrevisions', singularName: 'controllerrevision', namespaced: false, kind: 'ControllerRevision', verbs: [] },
  ],
};

/** Every fixture that must survive JSON -> protobuf -> JSON unchanged. */
export const roundTripFixtures: Record<string, JsonObject> = {
  pod, deployment, secret, configMap, namespace, status, service, crd, lease, roleBinding, clusterRole, cronJob, pdb,
  node, persistentVolume, event, statefulSet, controllerRevision, deleteOptions, eviction, scale, partialObjectMetadata,
  apiResourceList,
};
