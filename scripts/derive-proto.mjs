#!/usr/bin/env node
// Derives src/api/protobuf/descriptors.json from upstream Kubernetes generated.proto files.
//
// Usage: node scripts/derive-proto.mjs <proto-root> [out.json]
//        node scripts/derive-proto.mjs --add <proto-root> [out.json]   (further groups, merged into out.json)
//   <proto-root> holds the .proto texts laid out by import path, e.g.
//   <proto-root>/k8s.io/api/core/v1/generated.proto. The texts are kept outside the repository;
//   only the derived facts (message/field names, numbers, types, repeated/map) are committed.
//
// Sources used for the committed descriptors.json (kubernetes/kubernetes staging/src/k8s.io/...):
//   api/core/v1 @0032f46b (1.35-era), api/apps/v1 @0122c43a, api/batch/v1 @008b3652, api/coordination/v1 @1672e6d6,
//   api/policy/v1 (LogicalShark fork @af8834bd), kubernetes/api rbac/v1 @426b1b99 + autoscaling/v1 (Scale only),
//   apimachinery meta/v1 (1.21-era tenstad fork @65075ef1, plus DeleteOptions field 6 from the 1.32 API),
//   api/authorization/v1 is added by scripts/add-authorization-proto.mjs (upstream field numbers): run it after regenerating.
//   runtime, util/intstr, api/resource, apiextensions-apiserver apiextensions/v1 (lalitc375 fork @44e034a1).
//   api/authentication/v1 (SelfSubjectReview, TokenReview, TokenRequest and their parts) was added to
//   descriptors.json by hand from upstream's field numbers (kubernetes/kubernetes 1.33
//   staging/src/k8s.io/api/authentication/v1/generated.proto): keep it when regenerating.
//
// Output is a protobufjs JSON descriptor (loadable with protobuf.Root.fromJSON), pruned to the
// messages reachable from the kinds the API server serves. Field options carry the few JSON facts
// the wire format itself does not:
//   json_name  - Go json tag when it differs from the proto field name ($ref, x-kubernetes-*)
//   keep_zero  - a numeric/bool field whose zero value is still shown in JSON (Go pointer, or no omitempty)
//   inline     - an embedded Go struct whose fields appear inline in the parent JSON object
import { readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const SCALARS = new Set(['double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64',
  'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes']);
const ZEROABLE = new Set(['double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64',
  'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool']);

const CORE = 'k8s.io.api.core.v1';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

// Embedded Go structs (json:",inline") — a fact of the Go types, not visible in the .proto text.
const INLINE_FIELDS = [
  `${CORE}.ConfigMapEnvSource.localObjectReference`,
  `${CORE}.ConfigMapKeySelector.localObjectReference`,
  `${CORE}.ConfigMapProjection.localObjectReference`,
  `${CORE}.ConfigMapVolumeSource.localObjectReference`,
  `${CORE}.SecretEnvSource.localObjectReference`,
  `${CORE}.SecretKeySelector.localObjectReference`,
  `${CORE}.SecretProjection.localObjectReference`,
  `${CORE}.EphemeralContainer.ephemeralContainerCommon`,
  `${CORE}.Probe.handler`,
  `${CORE}.Volume.volumeSource`,
  `${CORE}.PersistentVolumeSpec.persistentVolumeSource`,
];

// Go pointer scalars (*int32, *int64, *bool) that upstream marks +optional: an explicit zero is
// meaningful and shown in JSON, so it must survive a decode.
const POINTER_FIELDS = [
  ...['ConfigMap.immutable', 'Secret.immutable', 'ConfigMapEnvSource.optional', 'ConfigMapKeySelector.optional',
    'ConfigMapProjection.optional', 'ConfigMapVolumeSource.optional', 'ConfigMapVolumeSource.defaultMode',
    'SecretEnvSource.optional', 'SecretKeySelector.optional', 'SecretProjection.optional',
    'SecretVolumeSource.optional', 'SecretVolumeSource.defaultMode', 'DownwardAPIVolumeFile.mode',
    'DownwardAPIVolumeSource.defaultMode', 'KeyToPath.mode', 'ProjectedVolumeSource.defaultMode',
    'FileKeySelector.optional', 'ClusterTrustBundleProjection.optional', 'PodCertificateProjection.maxExpirationSeconds',
    'PodSpec.terminationGracePeriodSeconds', 'PodSpec.activeDeadlineSeconds', 'PodSpec.automountServiceAccountToken',
    'PodSpec.shareProcessNamespace', 'PodSpec.priority', 'PodSpec.enableServiceLinks', 'PodSpec.setHostnameAsFQDN',
    'PodSpec.hostUsers', 'PodSecurityContext.runAsUser', 'PodSecurityContext.runAsGroup',
    'PodSecurityContext.runAsNonRoot', 'PodSecurityContext.fsGroup', 'SecurityContext.privileged',
    'SecurityContext.runAsUser', 'SecurityContext.runAsGroup', 'SecurityContext.runAsNonRoot',
    'SecurityContext.readOnlyRootFilesystem', 'SecurityContext.allowPrivilegeEscalation',
    'WindowsSecurityContextOptions.hostProcess', 'Probe.terminationGracePeriodSeconds', 'ContainerStatus.started',
    'ServiceSpec.allocateLoadBalancerNodePorts', 'ClientIPConfig.timeoutSeconds',
    'ServiceAccount.automountServiceAccountToken', 'ServiceAccountTokenProjection.expirationSeconds',
    'Toleration.tolerationSeconds', 'TopologySpreadConstraint.minDomains', 'NodeSwapStatus.capacity',
    'NodeFeatures.supplementalGroupsPolicy', 'NodeRuntimeHandlerFeatures.recursiveReadOnlyMounts',
    'NodeRuntimeHandlerFeatures.userNamespaces', 'ReplicationControllerSpec.replicas',
    'CSIVolumeSource.readOnly'].map((f) => `${CORE}.${f}`),
  ...['DeploymentSpec.replicas', 'DeploymentSpec.revisionHistoryLimit', 'ReplicaSetSpec.replicas',
    'StatefulSetSpec.replicas', 'DaemonSetSpec.revisionHistoryLimit', 'DeploymentStatus.collisionCount',
    'DaemonSetStatus.collisionCount', 'StatefulSetStatus.collisionCount', 'RollingUpdateStatefulSetStrategy.partition',
    'DeploymentStatus.terminatingReplicas', 'ReplicaSetStatus.terminatingReplicas'].map((f) => `k8s.io.api.apps.v1.${f}`),
  ...['CronJobSpec.startingDeadlineSeconds', 'CronJobSpec.suspend', 'CronJobSpec.successfulJobsHistoryLimit',
    'CronJobSpec.failedJobsHistoryLimit', 'JobSpec.parallelism', 'JobSpec.completions', 'JobSpec.activeDeadlineSeconds',
    'JobSpec.backoffLimit', 'JobSpec.backoffLimitPerIndex', 'JobSpec.maxFailedIndexes', 'JobSpec.manualSelector',
    'JobSpec.ttlSecondsAfterFinished', 'JobSpec.suspend', 'JobStatus.terminating',
    'SuccessPolicyRule.succeededCount'].map((f) => `k8s.io.api.batch.v1.${f}`),
  'k8s.io.api.coordination.v1.LeaseSpec.leaseDurationSeconds',
  'k8s.io.api.coordination.v1.LeaseSpec.leaseTransitions',
  ...['DeleteOptions.gracePeriodSeconds', 'DeleteOptions.orphanDependents',
    'DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential', 'ObjectMeta.deletionGracePeriodSeconds',
    'ListMeta.remainingItemCount', 'OwnerReference.controller', 'OwnerReference.blockOwnerDeletion',
    'PatchOptions.force'].map((f) => `${META}.${f}`),
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.ServiceReference.port',
];

// Strings without omitempty whose empty value still shows in JSON (metav1.Condition's reason and message: the
// ServiceCIDR controllers write Ready conditions without a reason).
const KEEP_EMPTY_STRINGS = [`${META}.Condition.reason`, `${META}.Condition.message`];

// Roots: every kind the server serves in protobuf, plus the meta kinds used around them.
const ROOTS = [
  ...['Namespace', 'Pod', 'Service', 'ConfigMap', 'Secret', 'Node', 'ServiceAccount', 'Event', 'Endpoints',
    'PersistentVolumeClaim', 'PersistentVolume', 'PodTemplate', 'ReplicationController', 'LimitRange',
    'ResourceQuota', 'ComponentStatus'].flatMap((k) => [`${CORE}.${k}`, `${CORE}.${k}List`]),
  `${CORE}.Binding`, `${CORE}.List`,
  ...['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'ControllerRevision']
    .flatMap((k) => [`k8s.io.api.apps.v1.${k}`, `k8s.io.api.apps.v1.${k}List`]),
  ...['Job', 'CronJob'].flatMap((k) => [`k8s.io.api.batch.v1.${k}`, `k8s.io.api.batch.v1.${k}List`]),
  'k8s.io.api.coordination.v1.Lease', 'k8s.io.api.coordination.v1.LeaseList',
  ...['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']
    .flatMap((k) => [`k8s.io.api.rbac.v1.${k}`, `k8s.io.api.rbac.v1.${k}List`]),
  'k8s.io.api.policy.v1.PodDisruptionBudget', 'k8s.io.api.policy.v1.PodDisruptionBudgetList',
  'k8s.io.api.policy.v1.Eviction', 'k8s.io.api.autoscaling.v1.Scale',
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionList',
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.ConversionReview',
  ...['Status', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'GetOptions', 'WatchEvent',
    'PartialObjectMetadata', 'PartialObjectMetadataList', 'APIResourceList', 'APIGroupList', 'APIGroup',
    'APIVersions', 'List', 'Duration', 'Timestamp'].map((k) => `${META}.${k}`),
  'k8s.io.apimachinery.pkg.runtime.Unknown',
];

/** Parses one go-to-protobuf generated.proto text into { pkg, messages: [{ name, fields }] }. */
export function parseProto(text) {
  const src = text.replace(/\/\*[\s\S]*?\*\//g, '');
  let pkg = '';
  const messages = [];
  let current = null;
  let comments = [];
  for (const raw of src.split('\n')) {
    const line = raw.trim();
    if (line === '') { comments = []; continue; }
    if (line.startsWith('//')) { comments.push(line); continue; }
    let m;
    if ((m = /^package\s+([\w.]+)\s*;/.exec(line))) { pkg = m[1]; comments = []; continue; }
    if ((m = /^message\s+(\w+)\s*\{\s*(\})?/.exec(line))) {
      if (current) throw new Error(`nested message ${m[1]} not supported`);
      current = { name: m[1], fields: [] };
      messages.push(current);
      if (m[2]) current = null;
      comments = [];
      continue;
    }
    if (line === '}') { current = null; comments = []; continue; }
    if (!current) { comments = []; continue; }
    const trailing = /\/\/(.*)$/.exec(line)?.[1] ?? '';
    const body = line.replace(/\/\/.*$/, '').trim();
    const optionalMarked = comments.some((c) => /\+optional\b/.test(c)) || /\+optional\b/.test(trailing);
    const opts = {};
    const optText = /\[([^\]]*)\]/.exec(body)?.[1];
    if (optText) {
      for (const part of optText.split(',')) {
        const om = /^\s*(\w+)\s*=\s*"([^"]*)"\s*$/.exec(part);
        if (om) opts[om[1]] = om[2];
      }
    }
    if ((m = /^map<\s*(\w+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)/.exec(body))) {
      current.fields.push({ name: m[3], id: Number(m[4]), keyType: m[1], type: m[2], rule: 'map', optionalMarked, opts });
    } else if ((m = /^(optional|repeated|required)?\s*([\w.]+)\s+(\w+)\s*=\s*(\d+)/.exec(body))) {
      current.fields.push({ name: m[3], id: Number(m[4]), type: m[2], rule: m[1] === 'repeated' ? 'repeated' : 'optional', optionalMarked, opts });
    } else {
      throw new Error(`cannot parse line in ${current.name}: ${line}`);
    }
    comments = [];
  }
  return { pkg, messages };
}

function listProtoFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listProtoFiles(p));
    else if (name.endsWith('.proto')) out.push(p);
  }
  return out.sort();
}

function resolveType(type, pkg, known) {
  if (SCALARS.has(type)) return type;
  if (type.startsWith('.')) type = type.slice(1);
  if (known.has(`${pkg}.${type}`)) return `${pkg}.${type}`;
  if (known.has(type)) return type;
  throw new Error(`unresolved type ${type} in package ${pkg}`);
}

/** Builds the pruned protobufjs JSON descriptor from parsed files. */
export function buildDescriptor(parsed) {
  const messages = new Map(); // full name -> { pkg, name, fields }
  for (const file of parsed) for (const msg of file.messages) messages.set(`${file.pkg}.${msg.name}`, { pkg: file.pkg, ...msg });
  const known = new Set(messages.keys());
  for (const [full, msg] of messages) {
    for (const f of msg.fields) f.type = resolveType(f.type, msg.pkg, known);
    for (const f of msg.fields) if (f.keyType && !SCALARS.has(f.keyType)) throw new Error(`bad map key in ${full}.${f.name}`);
  }
  for (const ref of [...INLINE_FIELDS, ...POINTER_FIELDS]) {
    const at = ref.lastIndexOf('.');
    const msg = messages.get(ref.slice(0, at));
    if (!msg || !msg.fields.some((f) => f.name === ref.slice(at + 1))) throw new Error(`overlay names unknown field ${ref}`);
  }
  const inline = new Set(INLINE_FIELDS);
  const pointer = new Set(POINTER_FIELDS);

  const reachable = new Set();
  const queue = ROOTS.filter((r) => { if (!known.has(r)) throw new Error(`root ${r} missing`); return true; });
  while (queue.length) {
    const name = queue.pop();
    if (reachable.has(name)) continue;
    reachable.add(name);
    for (const f of messages.get(name).fields) if (!SCALARS.has(f.type)) queue.push(f.type);
  }

  const root = { nested: {} };
  for (const name of [...reachable].sort()) {
    const msg = messages.get(name);
    let ns = root;
    for (const part of msg.pkg.split('.')) {
      ns.nested ??= {};
      ns = ns.nested[part] ??= {};
    }
    ns.nested ??= {};
    const fields = {};
    for (const f of msg.fields) {
      const full = `${name}.${f.name}`;
      const out = { type: SCALARS.has(f.type) ? f.type : `.${f.type}`, id: f.id };
      if (f.rule === 'repeated') out.rule = 'repeated';
      if (f.rule === 'map') out.keyType = f.keyType;
      const options = {};
      if (f.opts.json_name) options.json_name = f.opts.json_name;
      if (f.rule === 'optional' && ZEROABLE.has(f.type) && (!f.optionalMarked || pointer.has(full))) options.keep_zero = true;
      if (KEEP_EMPTY_STRINGS.includes(full)) options.keep_zero = true;
      if (inline.has(full)) options.inline = true;
      if (Object.keys(options).length) out.options = options;
      fields[f.name] = out;
    }
    ns.nested[msg.name] = { edition: 'proto2', fields };
  }
  return root;
}

// ---- --add: further API groups merged into an existing descriptor ----
// Sources used (kubernetes/kubernetes staging/src/k8s.io/api/...): networking/v1 @008b3652, scheduling/v1 @01d0b727,
// autoscaling/v2 @030880a5, discovery/v1 @025f2834 (+ EndpointHints.forNodes, 1.33), events/v1 @0a893867, node/v1,
// admissionregistration/v1 @01f7553b, storage/v1 @00a7fbe7 with core/v1 TopologySelectorTerm (messages of the served kinds; the texts stay outside the
// repository); autoscaling/v1 HorizontalPodAutoscaler (field numbers as in kubernetes/api autoscaling/v1); certificates/v1 @023207f4,
// kube-aggregator apiregistration/v1 @0a2f5b12, flowcontrol/v1 @09d8c148; networking/v1 ServiceCIDR and IPAddress from
// kubernetes/api v0.33.1 networking/v1/generated.proto.
const ADD_ROOTS = [
  ...['StorageClass', 'CSIDriver', 'CSINode', 'VolumeAttachment', 'CSIStorageCapacity']
    .flatMap((k) => [`k8s.io.api.storage.v1.${k}`, `k8s.io.api.storage.v1.${k}List`]),
  ...['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']
    .flatMap((k) => [`k8s.io.api.admissionregistration.v1.${k}`, `k8s.io.api.admissionregistration.v1.${k}List`]),
  'k8s.io.api.discovery.v1.EndpointSlice', 'k8s.io.api.discovery.v1.EndpointSliceList',
  'k8s.io.api.events.v1.Event', 'k8s.io.api.events.v1.EventList',
  'k8s.io.api.node.v1.RuntimeClass', 'k8s.io.api.node.v1.RuntimeClassList',
  ...['Ingress', 'IngressClass', 'NetworkPolicy', 'ServiceCIDR', 'IPAddress'].flatMap((k) => [`k8s.io.api.networking.v1.${k}`, `k8s.io.api.networking.v1.${k}List`]),
  'k8s.io.api.scheduling.v1.PriorityClass', 'k8s.io.api.scheduling.v1.PriorityClassList',
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler', 'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerList',
  'k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler', 'k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerList',
  'k8s.io.api.certificates.v1.CertificateSigningRequest', 'k8s.io.api.certificates.v1.CertificateSigningRequestList',
  'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIService', 'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIServiceList',
  ...['FlowSchema', 'PriorityLevelConfiguration'].flatMap((k) => [`k8s.io.api.flowcontrol.v1.${k}`, `k8s.io.api.flowcontrol.v1.${k}List`]),
];
/** Go json names that differ from the proto field name. */
const ADD_JSON_NAMES = {
  'k8s.io.api.networking.v1.IngressClassParametersReference.aPIGroup': 'apiGroup',
  'k8s.io.api.admissionregistration.v1.ValidatingWebhookConfiguration.Webhooks': 'webhooks',
  'k8s.io.api.admissionregistration.v1.MutatingWebhookConfiguration.Webhooks': 'webhooks',
};
/** Embedded Go structs (json:",inline"). */
const ADD_INLINE = ['k8s.io.api.networking.v1.IngressRule.ingressRuleValue', 'k8s.io.api.admissionregistration.v1.RuleWithOperations.rule'];
/** Go pointers (or fields without omitempty) whose zero value shows in JSON. */
const ADD_KEEP_ZERO = [
  'k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerSpec.minReplicas', 'k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerSpec.targetCPUUtilizationPercentage',
  'k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerStatus.currentCPUUtilizationPercentage', 'k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerStatus.observedGeneration',
  ...['CSIDriverSpec.attachRequired', 'CSIDriverSpec.podInfoOnMount', 'CSIDriverSpec.storageCapacity', 'CSIDriverSpec.requiresRepublish',
    'CSIDriverSpec.seLinuxMount', 'StorageClass.allowVolumeExpansion', 'VolumeNodeResources.count'].map((f) => `k8s.io.api.storage.v1.${f}`),
  ...['ValidatingWebhook.timeoutSeconds', 'MutatingWebhook.timeoutSeconds', 'ServiceReference.port'].map((f) => `k8s.io.api.admissionregistration.v1.${f}`),
  ...['ready', 'serving', 'terminating'].map((f) => `k8s.io.api.discovery.v1.EndpointConditions.${f}`),
  'k8s.io.api.scheduling.v1.PriorityClass.value', 'k8s.io.api.networking.v1.NetworkPolicyPort.endPort',
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerSpec.minReplicas', 'k8s.io.api.autoscaling.v2.MetricTarget.averageUtilization',
  'k8s.io.api.autoscaling.v2.MetricValueStatus.averageUtilization', 'k8s.io.api.autoscaling.v2.HPAScalingRules.stabilizationWindowSeconds',
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerStatus.observedGeneration',
  'k8s.io.api.certificates.v1.CertificateSigningRequestSpec.expirationSeconds', 'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.ServiceReference.port',
  ...['ExemptPriorityLevelConfiguration.nominalConcurrencyShares', 'ExemptPriorityLevelConfiguration.lendablePercent',
    'LimitedPriorityLevelConfiguration.nominalConcurrencyShares', 'LimitedPriorityLevelConfiguration.lendablePercent',
    'LimitedPriorityLevelConfiguration.borrowingLimitPercent'].map((f) => `k8s.io.api.flowcontrol.v1.${f}`),
];

function existingNames(ns, prefix, out) {
  for (const [k, v] of Object.entries(ns.nested ?? {})) {
    const full = prefix ? `${prefix}.${k}` : k;
    if (v.fields) out.add(full);
    existingNames(v, full, out);
  }
  return out;
}

/** Adds the messages reachable from ADD_ROOTS (and not yet present) to an existing descriptor. */
export function addToDescriptor(existing, parsed) {
  const have = existingNames(existing, '', new Set());
  const messages = new Map();
  for (const file of parsed) for (const msg of file.messages) messages.set(`${file.pkg}.${msg.name}`, { pkg: file.pkg, ...msg });
  const known = new Set([...messages.keys(), ...have]);
  for (const msg of messages.values()) for (const f of msg.fields) f.type = resolveType(f.type, msg.pkg, known);
  const keepZero = new Set(ADD_KEEP_ZERO);
  const reachable = new Set();
  const queue = [...ADD_ROOTS];
  while (queue.length) {
    const name = queue.pop();
    if (reachable.has(name) || have.has(name)) continue;
    const msg = messages.get(name);
    if (!msg) throw new Error(`root or field type ${name} missing`);
    reachable.add(name);
    for (const f of msg.fields) if (!SCALARS.has(f.type)) queue.push(f.type);
  }
  for (const name of [...reachable].sort()) {
    const msg = messages.get(name);
    let ns = existing;
    for (const part of msg.pkg.split('.')) {
      ns.nested ??= {};
      ns = ns.nested[part] ??= {};
    }
    ns.nested ??= {};
    const fields = {};
    for (const f of msg.fields) {
      const full = `${name}.${f.name}`;
      const out = { type: SCALARS.has(f.type) ? f.type : `.${f.type}`, id: f.id };
      if (f.rule === 'repeated') out.rule = 'repeated';
      if (f.rule === 'map') out.keyType = f.keyType;
      const options = {};
      if (ADD_JSON_NAMES[full]) options.json_name = ADD_JSON_NAMES[full];
      if (ADD_INLINE.includes(full)) options.inline = true;
      if (f.rule === 'optional' && ZEROABLE.has(f.type) && (!f.optionalMarked || keepZero.has(full))) options.keep_zero = true;
      if (Object.keys(options).length) out.options = options;
      fields[f.name] = out;
    }
    ns.nested[msg.name] = { edition: 'proto2', fields };
  }
  return reachable.size;
}

/** KEEP_EMPTY_STRINGS on a descriptor derived before the list existed. */
function markKeepEmptyStrings(root) {
  for (const ref of KEEP_EMPTY_STRINGS) {
    const parts = ref.split('.');
    let ns = root;
    for (const p of parts.slice(0, -1)) ns = ns?.nested?.[p];
    const field = ns?.fields?.[parts[parts.length - 1]];
    if (field) field.options = { ...field.options, keep_zero: true };
  }
}

function main() {
  if (process.argv[2] === '--add') {
    const [, protoRoot, outPath = 'src/api/protobuf/descriptors.json'] = process.argv.slice(2);
    const files = listProtoFiles(protoRoot);
    const parsed = files.map((p) => ({ path: relative(protoRoot, p), ...parseProto(readFileSync(p, 'utf8')) }));
    const existing = JSON.parse(readFileSync(outPath, 'utf8'));
    const added = addToDescriptor(existing, parsed);
    markKeepEmptyStrings(existing);
    writeFileSync(outPath, JSON.stringify(existing) + '\n');
    console.log(`${files.length} proto files -> ${added} messages added to ${outPath}`);
    return;
  }
  const [protoRoot, outPath = 'src/api/protobuf/descriptors.json'] = process.argv.slice(2);
  if (!protoRoot) {
    console.error('usage: node scripts/derive-proto.mjs <proto-root> [out.json]');
    process.exit(2);
  }
  const files = listProtoFiles(protoRoot);
  const parsed = files.map((p) => ({ path: relative(protoRoot, p), ...parseProto(readFileSync(p, 'utf8')) }));
  const descriptor = buildDescriptor(parsed);
  writeFileSync(outPath, JSON.stringify(descriptor) + '\n');
  let count = 0;
  const walk = (ns) => { for (const v of Object.values(ns.nested ?? {})) { if (v.fields) count++; walk(v); } };
  walk(descriptor);
  console.log(`${files.length} proto files -> ${count} messages -> ${outPath}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
