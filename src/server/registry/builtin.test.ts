import { describe, expect, it } from 'vitest';
import { builtinResourceTypes, findBuiltinType } from './builtin.js';
import { cronScheduleError } from './builtin-workloads.js';
import { defaultPullPolicy, podView } from './builtin-pod.js';
import { serviceIPs } from './builtin-service.js';
import { builtinSchemas } from './schema/registry.js';
import { validateObject } from './schema/validate.js';
import type { KubeObject, ResourceType } from './types.js';

const EXPECTED: [string, string, string, string, string, string[], string][] = [
  // group, version, kind, plural, scope, shortNames, subresources
  ['', 'v1', 'Namespace', 'namespaces', 'Cluster', ['ns'], 'status,finalize'],
  ['', 'v1', 'Pod', 'pods', 'Namespaced', ['po'], 'status,eviction,binding,attach,exec,log,portforward,proxy'],
  ['', 'v1', 'Service', 'services', 'Namespaced', ['svc'], 'status,proxy'],
  ['', 'v1', 'ConfigMap', 'configmaps', 'Namespaced', ['cm'], ''],
  ['', 'v1', 'Secret', 'secrets', 'Namespaced', [], ''],
  ['', 'v1', 'Node', 'nodes', 'Cluster', ['no'], 'status,proxy'],
  ['', 'v1', 'ServiceAccount', 'serviceaccounts', 'Namespaced', ['sa'], 'token'],
  ['', 'v1', 'Event', 'events', 'Namespaced', ['ev'], ''],
  ['', 'v1', 'Endpoints', 'endpoints', 'Namespaced', ['ep'], ''],
  ['', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', 'Namespaced', ['pvc'], 'status'],
  ['', 'v1', 'PersistentVolume', 'persistentvolumes', 'Cluster', ['pv'], 'status'],
  ['apps', 'v1', 'Deployment', 'deployments', 'Namespaced', ['deploy'], 'status,scale'],
  ['apps', 'v1', 'ReplicaSet', 'replicasets', 'Namespaced', ['rs'], 'status,scale'],
  ['apps', 'v1', 'StatefulSet', 'statefulsets', 'Namespaced', ['sts'], 'status,scale'],
  ['apps', 'v1', 'DaemonSet', 'daemonsets', 'Namespaced', ['ds'], 'status'],
  ['batch', 'v1', 'Job', 'jobs', 'Namespaced', [], 'status'],
  ['batch', 'v1', 'CronJob', 'cronjobs', 'Namespaced', ['cj'], 'status'],
  ['coordination.service.io', 'v1', 'Lease', 'leases', 'Namespaced', [], ''],
  ['rbac.authorization.service.io', 'v1', 'Role', 'roles', 'Namespaced', [], ''],
  ['rbac.authorization.service.io', 'v1', 'ClusterRole', 'clusterroles', 'Cluster', [], ''],
  ['rbac.authorization.service.io', 'v1', 'RoleBinding', 'rolebindings', 'Namespaced', [], ''],
  ['rbac.authorization.service.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', 'Cluster', [], ''],
  ['apiextensions.service.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', 'Cluster', ['crd', 'crds'], 'status'],
  ['policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', 'Namespaced', ['pdb'], 'status'],
  ['authentication.service.io', 'v1', 'SelfSubjectReview', 'selfsubjectreviews', 'Cluster', [], ''],
  ['authentication.service.io', 'v1', 'TokenReview', 'tokenreviews', 'Cluster', [], ''],
  ['authorization.service.io', 'v1', 'LocalSubjectAccessReview', 'localsubjectaccessreviews', 'Namespaced', [], ''],
  ['authorization.service.io', 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', 'Cluster', [], ''],
  ['authorization.service.io', 'v1', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', 'Cluster', [], ''],
  ['authorization.service.io', 'v1', 'SubjectAccessReview', 'subjectaccessreviews', 'Cluster', [], ''],
  ['admissionregistration.service.io', 'v1', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', 'Cluster', [], ''],
  ['admissionregistration.service.io', 'v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', 'Cluster', [], ''],
  ['admissionregistration.service.io', 'v1', 'ValidatingAdmissionPolicy', 'validatingadmissionpolicies', 'Cluster', [], 'status'],
  ['admissionregistration.service.io', 'v1', 'ValidatingAdmissionPolicyBinding', 'validatingadmissionpolicybindings', 'Cluster', [], ''],
  ['', 'v1', 'ResourceQuota', 'resourcequotas', 'Namespaced', ['quota'], 'status'],
  ['', 'v1', 'LimitRange', 'limitranges', 'Namespaced', ['limits'], ''],
  ['', 'v1', 'ReplicationController', 'replicationcontrollers', 'Namespaced', ['rc'], 'status,scale'],
  ['', 'v1', 'PodTemplate', 'podtemplates', 'Namespaced', [], ''],
  ['apps', 'v1', 'ControllerRevision', 'controllerrevisions', 'Namespaced', [], ''],
  ['networking.service.io', 'v1', 'Ingress', 'ingresses', 'Namespaced', ['ing'], 'status'],
  ['networking.service.io', 'v1', 'IngressClass', 'ingressclasses', 'Cluster', [], ''],
  ['networking.service.io', 'v1', 'NetworkPolicy', 'networkpolicies', 'Namespaced', ['netpol'], ''],
  ['autoscaling', 'v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', 'Namespaced', ['hpa'], 'status'],
  ['autoscaling', 'v1', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', 'Namespaced', ['hpa'], 'status'],
  ['storage.service.io', 'v1', 'StorageClass', 'storageclasses', 'Cluster', ['sc'], ''],
  ['storage.service.io', 'v1', 'CSIDriver', 'csidrivers', 'Cluster', [], ''],
  ['storage.service.io', 'v1', 'CSINode', 'csinodes', 'Cluster', [], ''],
  ['storage.service.io', 'v1', 'VolumeAttachment', 'volumeattachments', 'Cluster', [], 'status'],
  ['storage.service.io', 'v1', 'CSIStorageCapacity', 'csistoragecapacities', 'Namespaced', [], ''],
  ['scheduling.service.io', 'v1', 'PriorityClass', 'priorityclasses', 'Cluster', ['pc'], ''],
  ['discovery.service.io', 'v1', 'EndpointSlice', 'endpointslices', 'Namespaced', [], ''],
  ['events.service.io', 'v1', 'Event', 'events', 'Namespaced', ['ev'], ''],
  ['node.service.io', 'v1', 'RuntimeClass', 'runtimeclasses', 'Cluster', [], ''],
  ['certificates.service.io', 'v1', 'CertificateSigningRequest', 'certificatesigningrequests', 'Cluster', ['csr'], 'status,approval'],
  ['apiregistration.service.io', 'v1', 'APIService', 'apiservices', 'Cluster', [], 'status'],
  ['flowcontrol.apiserver.service.io', 'v1', 'FlowSchema', 'flowschemas', 'Cluster', [], 'status'],
  ['flowcontrol.apiserver.service.io', 'v1', 'PriorityLevelConfiguration', 'prioritylevelconfigurations', 'Cluster', [], 'status'],
  ['networking.service.io', 'v1', 'ServiceCIDR', 'servicecidrs', 'Cluster', [], 'status'],
  ['networking.service.io', 'v1', 'IPAddress', 'ipaddresses', 'Cluster', [], ''],
];

function type(plural: string, group = ''): ResourceType {
  const t = builtinResourceTypes.find((x) => x.plural === plural && x.group === group);
  if (!t) throw new Error(plural);
  return t;
}

function defaulted(t: ResourceType, o: KubeObject, old?: KubeObject): KubeObject {
  t.strategy.defaults?.(o, old);
  return o;
}

const errorsOf = (t: ResourceType, o: KubeObject, old?: KubeObject) => (t.strategy.validate?.(o, old) ?? []).map((e) => `${e.field}: ${e.detail}`);

function podTemplate(labels: Record<string, string> = { app: 'web' }, restartPolicy?: string) {
  const spec: Record<string, unknown> = { containers: [{ name: 'c', image: 'nginx:1.25' }] };
  if (restartPolicy) spec.restartPolicy = restartPolicy;
  return { metadata: { labels }, spec };
}

describe('built-in resource types', () => {
  it('has exactly the listed kinds with upstream names, scopes and sub-resources', () => {
    expect(builtinResourceTypes.map((t) => t.kind).sort()).toEqual(EXPECTED.map((e) => e[2]).sort());
    for (const [group, version, kind, plural, scope, shortNames, subs] of EXPECTED) {
      const t = builtinResourceTypes.find((x) => x.kind === kind && x.group === group && x.version === version)!;
      expect([t.group, t.version, t.plural, t.scope, t.singular, t.listKind], kind).toEqual([group, version, plural, scope, kind.toLowerCase(), `${kind}List`]);
      expect(t.shortNames, kind).toEqual(shortNames);
      expect(t.subresources.map((s) => s.name).join(','), kind).toBe(subs);
      // access reviews are create-only (upstream)
      expect(t.verbs.length, kind).toBe(group === 'authentication.service.io' || group === 'authorization.service.io' ? 1 : 8);
      expect(t.custom).toBe(false);
      expect(t.served).toBe(true);
    }
  });

  it('resolves every schema from the registry, carrying the kind GVK', () => {
    for (const t of builtinResourceTypes) {
      expect(t.schema, t.kind).toBe(builtinSchemas.get(t.schemaRef!));
      expect(t.schema!['x-kubernetes-group-version-kind']).toContainEqual({ group: t.group, kind: t.kind, version: t.version });
      // create-only review kinds have no list (upstream)
      expect(builtinSchemas.has(`${t.schemaRef}List`), t.kind).toBe(t.verbs.includes('list'));
    }
  });

  it('puts the workload kinds in category all and scale on autoscaling/v1', () => {
    const all = builtinResourceTypes.filter((t) => t.categories.includes('all')).map((t) => t.plural).sort();
    expect(all).toEqual(['cronjobs', 'daemonsets', 'deployments', 'horizontalpodautoscalers', 'horizontalpodautoscalers', 'jobs', 'pods', 'replicasets', 'replicationcontrollers', 'services', 'statefulsets']);
    const scale = type('deployments', 'apps').subresources.find((s) => s.name === 'scale')!;
    expect(scale).toMatchObject({ kind: 'Scale', group: 'autoscaling', version: 'v1', specReplicasPath: '.spec.replicas' });
    expect(findBuiltinType('rbac.authorization.k8s.io', 'v1', 'roles')?.kind).toBe('Role');
  });

  it('declares the upstream field selectors', () => {
    const keys = (p: string, g = '') => Object.keys(type(p, g).strategy.fieldSelectors ?? {});
    expect(keys('pods')).toEqual(expect.arrayContaining(['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.nominatedNodeName']));
    expect(keys('events')).toEqual(expect.arrayContaining(['involvedObject.kind', 'involvedObject.name', 'involvedObject.namespace', 'involvedObject.uid', 'reason', 'source', 'type']));
    expect(keys('secrets')).toEqual(['type']);
    expect(keys('namespaces')).toEqual(['status.phase']);
    expect(keys('nodes')).toEqual(['spec.unschedulable']);
    expect(keys('replicasets', 'apps')).toEqual(['status.replicas']);
    expect(keys('jobs', 'batch')).toEqual(['status.successful']);
    const pod = { spec: { nodeName: 'n1' }, status: {} };
    expect(type('pods').strategy.fieldSelectors!['spec.nodeName']!(pod)).toBe('n1');
    expect(type('pods').strategy.fieldSelectors!['status.phase']!(pod)).toBe('');
  });
});

describe('pod strategy', () => {
  it('fills the visible upstream defaults', () => {
    const pod = defaulted(type('pods'), { metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] } });
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
      serviceAccountName: 'default',
    });
    const [a, b] = (pod.spec as any).containers;
    expect(a).toMatchObject({ imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
    expect(b.imagePullPolicy).toBe('IfNotPresent');
    expect(b.ports[0].protocol).toBe('TCP');
    expect(pod.status).toMatchObject({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('picks the image pull policy from the tag', () => {
    expect(defaultPullPolicy('nginx')).toBe('Always');
    expect(defaultPullPolicy('nginx:latest')).toBe('Always');
    expect(defaultPullPolicy('registry:5000/nginx')).toBe('Always');
    expect(defaultPullPolicy('registry:5000/nginx:1.2')).toBe('IfNotPresent');
    expect(defaultPullPolicy('nginx@sha256:abc')).toBe('IfNotPresent');
  });

  it('validates containers', () => {
    const t = type('pods');
    expect(errorsOf(t, { spec: { containers: [] } })).toEqual(['spec.containers: Required value']);
    expect(errorsOf(t, { spec: { containers: [{ name: 'a' }, { name: 'a', image: 'x', ports: [{ containerPort: 70000 }] }, { name: 'Bad_Name', image: 'x' }] } })).toEqual([
      'spec.containers[0].image: Required value',
      'spec.containers[1].name: Duplicate value: "a"',
      'spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      "spec.containers[2].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });

  it('allows only image and a few other spec changes on update', () => {
    const t = type('pods');
    const old = defaulted(t, { metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'x:1' }] } });
    const next = structuredClone(old);
    (next.spec as any).containers[0].image = 'x:2';
    (next.spec as any).nodeName = 'node-1';
    expect(errorsOf(t, next, old)).toEqual([]);
    (next.spec as any).containers[0].name = 'b';
    expect(errorsOf(t, next, old)[0]).toMatch(/^spec: Forbidden: pod updates may not change fields other than/);
  });

  it('prints kubectl-like Ready / Status / Restarts', () => {
    const now = Date.parse('2024-01-01T01:00:00Z');
    const pod: KubeObject = {
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 0, state: { running: {} } },
          { name: 'b', ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { finishedAt: '2024-01-01T00:55:00Z' } } },
        ],
      },
    };
    expect(podView(pod, now)).toEqual({ ready: '1/2', status: 'CrashLoopBackOff', restarts: '3 (5m ago)' });
    expect(podView({ metadata: { deletionTimestamp: 'x' }, spec: { containers: [] }, status: { phase: 'Running' } }).status).toBe('Terminating');
    expect(podView({ spec: { initContainers: [{}, {}], containers: [{}] }, status: { phase: 'Pending', initContainerStatuses: [{ state: { terminated: { exitCode: 0 } } }, { state: { running: {} } }] } }).status).toBe('Init:1/2');
    const t = type('pods');
    expect(t.columns!.map((c) => [c.name, c.priority ?? 0])).toEqual([
      ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1],
    ]);
  });
});

describe('workload strategies', () => {
  it('defaults a Deployment as upstream', () => {
    const d = defaulted(type('deployments', 'apps'), { spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate() } });
    expect(d.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      template: { spec: { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', containers: [{ imagePullPolicy: 'IfNotPresent' }] } },
    });
    expect((d.spec as any).template.spec.serviceAccountName).toBeUndefined();
  });

  it('requires a selector matching the template labels', () => {
    const t = type('deployments', 'apps');
    expect(errorsOf(t, defaulted(t, { spec: { template: podTemplate() } }))).toEqual(['spec.selector: Required value']);
    expect(errorsOf(t, defaulted(t, { spec: { selector: { matchLabels: { app: 'other' } }, template: podTemplate() } }))).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ]);
    expect(errorsOf(t, defaulted(t, { spec: { replicas: -1, selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }, 'Never') } }))).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ]);
    const old = defaulted(t, { spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate() } });
    const next = structuredClone(old);
    (next.spec as any).selector = { matchLabels: { app: 'web', v: '2' } };
    (next.spec as any).template.metadata.labels.v = '2';
    expect(errorsOf(t, next, old)).toEqual(['spec.selector: Invalid value: {"matchLabels":{"app":"web","v":"2"}}: field is immutable']);
  });

  it('generates a Job selector from the uid and rejects restartPolicy Always', () => {
    const t = type('jobs', 'batch');
    const job = defaulted(t, { metadata: { name: 'pi', uid: 'u-1' }, spec: { template: podTemplate({}, 'Never') } });
    expect(job.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } },
      template: { metadata: { labels: { 'batch.kubernetes.io/job-name': 'pi', 'job-name': 'pi' } } },
    });
    expect(errorsOf(t, job)).toEqual([]);
    const always = defaulted(t, { metadata: { name: 'x', uid: 'u-2' }, spec: { template: podTemplate({}) } });
    expect(errorsOf(t, always)).toEqual(['spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"']);
  });

  it('defaults and validates CronJobs', () => {
    const t = type('cronjobs', 'batch');
    const cj = defaulted(t, { metadata: { name: 'c' }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: podTemplate({}, 'OnFailure') } } } });
    expect(cj.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    expect(errorsOf(t, cj)).toEqual([]);
    (cj.spec as any).schedule = 'every minute';
    expect(errorsOf(t, cj)).toEqual(['spec.schedule: Invalid value: "every minute": Expected exactly 5 fields, found 2: every minute']);
    expect(cronScheduleError('0 0 * * MON-FRI')).toBeUndefined();
    expect(cronScheduleError('@hourly')).toBeUndefined();
    expect(cronScheduleError('61 * * * *')).toMatch(/above maximum/);
  });

  it('prints deployment columns', () => {
    const t = type('deployments', 'apps');
    const d: KubeObject = {
      metadata: { creationTimestamp: new Date(Date.now() - 5 * 60_000).toISOString() },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'c', image: 'nginx' }, { name: 's', image: 'envoy' }] } } },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    expect(t.columns!.map((c) => c.name)).toEqual(['Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector']);
    expect(t.columns!.map((c) => c.cell(d))).toEqual(['2/3', 3, 2, '5m', 'c,s', 'nginx,envoy', 'app=web']);
  });
});

describe('core strategies', () => {
  it('defaults a Service and allocates a cluster IP from 10.96.0.0/12', () => {
    const t = type('services');
    const svc = defaulted(t, { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
    const spec = svc.spec as any;
    expect(spec).toMatchObject({ type: 'ClusterIP', sessionAffinity: 'None', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] });
    expect(serviceIPs.contains(spec.clusterIP)).toBe(true);
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
    expect(errorsOf(t, svc)).toEqual([]);
    // an update that omits the allocated IP keeps it
    const next: KubeObject = { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
    defaulted(t, next, svc);
    expect((next.spec as any).clusterIP).toBe(spec.clusterIP);
    const np = defaulted(t, { metadata: { name: 'np' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
    const nodePort = (np.spec as any).ports[0].nodePort;
    expect(nodePort).toBeGreaterThanOrEqual(30000);
    expect(nodePort).toBeLessThanOrEqual(32767);
    expect(t.columns!.find((c) => c.name === 'Port(s)')!.cell(np)).toBe(`80:${nodePort}/TCP`);
  });

  it('validates Service ports', () => {
    const t = type('services');
    expect(errorsOf(t, { metadata: { name: 's' }, spec: { type: 'ClusterIP', ports: [] } })).toEqual(['spec.ports: Required value']);
    expect(errorsOf(t, { metadata: { name: 's' }, spec: { type: 'ClusterIP', ports: [{ port: 0, name: 'a' }, { port: 80 }] } })).toEqual([
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[1].name: Required value',
    ]);
    expect(errorsOf(t, { metadata: { name: '1svc' }, spec: { ports: [{ port: 80 }] } })[0]).toMatch(/^metadata.name: Invalid value: "1svc": a DNS-1035 label/);
  });

  it('defaults Namespaces and validates their names as labels', () => {
    const t = type('namespaces');
    const ns = defaulted(t, { metadata: { name: 'team-a' } });
    expect(ns.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(ns.status).toEqual({ phase: 'Active' });
    expect(ns.metadata!.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a' });
    expect(t.strategy.nameValidation).toBe('label');
    expect(t.columns!.map((c) => c.name)).toEqual(['Status', 'Age']);
  });

  it('validates ConfigMap and Secret keys, defaults secret type, folds stringData', () => {
    const cm = type('configmaps');
    expect(errorsOf(cm, { data: { 'ok.key': 'v', 'bad key': 'v' } })).toEqual([
      "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    const sec = type('secrets');
    const s = defaulted(sec, { stringData: { user: 'admin' } });
    expect(s).toEqual({ type: 'Opaque', data: { user: 'YWRtaW4=' } });
    expect(errorsOf(sec, { type: 'kubernetes.io/tls', data: {} })).toEqual(['data[tls.crt]: Required value', 'data[tls.key]: Required value']);
    expect(errorsOf(sec, { type: 'Other', data: {} }, { type: 'Opaque' })).toEqual(['type: Invalid value: "Other": field is immutable']);
    expect(errorsOf(cm, { immutable: true, data: { a: '2' } }, { immutable: true, data: { a: '1' } })).toEqual(['data: Forbidden: field is immutable when `immutable` is set']);
    expect(sec.columns!.map((c) => c.cell({ type: 'Opaque', data: { a: 'x', b: 'y' } }))[0]).toBe('Opaque');
  });

  it('prints node status and roles', () => {
    const t = type('nodes');
    const node: KubeObject = {
      metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } },
      spec: { unschedulable: true },
      status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.32.0' } },
    };
    const cells = Object.fromEntries(t.columns!.map((c) => [c.name, c.cell(node)]));
    expect(cells).toMatchObject({ Status: 'Ready,SchedulingDisabled', Roles: 'control-plane', Version: 'v1.32.0' });
    expect(t.strategy.keepStatusOnCreate).toBe(true);
  });

  it('checks RBAC rules and bindings', () => {
    expect(errorsOf(type('roles', 'rbac.authorization.service.io'), { rules: [{ resources: ['pods'] }, { nonResourceURLs: ['/healthz'], verbs: ['get'] }] })).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[1].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
    ]);
    const crb = type('clusterrolebindings', 'rbac.authorization.service.io');
    const b = defaulted(crb, { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'jane' }, { kind: 'ServiceAccount', name: 'sa' }] });
    expect((b.subjects as any)[0].apiGroup).toBe('rbac.authorization.service.io');
    expect(errorsOf(crb, b)).toEqual(['subjects[1].namespace: Required value']);
    const changed = structuredClone(b);
    (changed.roleRef as any).name = 'edit';
    expect(errorsOf(crb, changed, b).at(-1)).toMatch(/^roleRef: Invalid value: .*: cannot change roleRef$/);
  });

  it('validates built-in objects end to end with the schema and the strategy', () => {
    const t = type('deployments', 'apps');
    const d: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate() } };
    const r = validateObject(d, t.schema!, builtinSchemas, { pruneUnknown: true });
    expect(r).toEqual({ errors: [], unknownFields: [] });
    t.strategy.defaults!(d);
    expect(validateObject(d, t.schema!, builtinSchemas, { pruneUnknown: false }).errors).toEqual([]);
    expect(errorsOf(t, d)).toEqual([]);
  });
});
