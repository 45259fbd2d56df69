// Which protobuf message carries a given apiVersion + kind. Groups are spelled canonically
// (`*.service.io`) on our objects; the upstream spellings are accepted as aliases.
import { lookupMessage, type MessageInfo } from './schema.js';

const CORE = 'k8s.io.api.core.v1';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** group (as written in apiVersion) -> protobuf package of its v1 messages */
const GROUP_PACKAGES: Record<string, string> = {
  '': CORE,
  apps: 'k8s.io.api.apps.v1',
  batch: 'k8s.io.api.batch.v1',
  policy: 'k8s.io.api.policy.v1',
  autoscaling: 'k8s.io.api.autoscaling.v1',
  'coordination.service.io': 'k8s.io.api.coordination.v1',
  'coordination.k8s.io': 'k8s.io.api.coordination.v1',
  'rbac.authorization.service.io': 'k8s.io.api.rbac.v1',
  'rbac.authorization.k8s.io': 'k8s.io.api.rbac.v1',
  'apiextensions.service.io': 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1',
  'apiextensions.k8s.io': 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1',
  'authentication.service.io': 'k8s.io.api.authentication.v1',
  'authentication.k8s.io': 'k8s.io.api.authentication.v1',
  'authorization.service.io': 'k8s.io.api.authorization.v1',
  'authorization.k8s.io': 'k8s.io.api.authorization.v1',
  'meta.service.io': META,
  'meta.k8s.io': META,
  'networking.service.io': 'k8s.io.api.networking.v1',
  'networking.k8s.io': 'k8s.io.api.networking.v1',
  'scheduling.service.io': 'k8s.io.api.scheduling.v1',
  'scheduling.k8s.io': 'k8s.io.api.scheduling.v1',
  'discovery.service.io': 'k8s.io.api.discovery.v1',
  'discovery.k8s.io': 'k8s.io.api.discovery.v1',
  'events.service.io': 'k8s.io.api.events.v1',
  'events.k8s.io': 'k8s.io.api.events.v1',
  'node.service.io': 'k8s.io.api.node.v1',
  'node.k8s.io': 'k8s.io.api.node.v1',
  'admissionregistration.service.io': 'k8s.io.api.admissionregistration.v1',
  'admissionregistration.k8s.io': 'k8s.io.api.admissionregistration.v1',
  'storage.service.io': 'k8s.io.api.storage.v1',
  'storage.k8s.io': 'k8s.io.api.storage.v1',
  'certificates.service.io': 'k8s.io.api.certificates.v1',
  'certificates.k8s.io': 'k8s.io.api.certificates.v1',
  'apiregistration.service.io': 'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1',
  'apiregistration.k8s.io': 'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1',
  'flowcontrol.apiserver.service.io': 'k8s.io.api.flowcontrol.v1',
  'flowcontrol.apiserver.k8s.io': 'k8s.io.api.flowcontrol.v1',
};

/** Packages of group versions other than v1. */
const VERSION_PACKAGES: Record<string, string> = {
  'autoscaling/v2': 'k8s.io.api.autoscaling.v2',
};

const withLists = (kinds: string[]) => kinds.flatMap((k) => [k, `${k}List`]);

/** Kinds served in protobuf, per package. Custom resources never are. */
const PACKAGE_KINDS: Record<string, string[]> = {
  [CORE]: [
    ...withLists(['Namespace', 'Pod', 'Service', 'ConfigMap', 'Secret', 'Node', 'ServiceAccount', 'Event', 'Endpoints',
      'PersistentVolumeClaim', 'PersistentVolume', 'PodTemplate', 'ReplicationController', 'LimitRange', 'ResourceQuota',
      'ComponentStatus']),
    'Binding', 'List',
  ],
  'k8s.io.api.apps.v1': withLists(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'ControllerRevision']),
  'k8s.io.api.batch.v1': withLists(['Job', 'CronJob']),
  'k8s.io.api.coordination.v1': withLists(['Lease']),
  'k8s.io.api.rbac.v1': withLists(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']),
  'k8s.io.api.policy.v1': [...withLists(['PodDisruptionBudget']), 'Eviction'],
  'k8s.io.api.autoscaling.v1': ['Scale', ...withLists(['HorizontalPodAutoscaler'])],
  'k8s.io.api.autoscaling.v2': withLists(['HorizontalPodAutoscaler']),
  'k8s.io.api.networking.v1': withLists(['Ingress', 'IngressClass', 'NetworkPolicy', 'ServiceCIDR', 'IPAddress']),
  'k8s.io.api.scheduling.v1': withLists(['PriorityClass']),
  'k8s.io.api.discovery.v1': withLists(['EndpointSlice']),
  'k8s.io.api.events.v1': withLists(['Event']),
  'k8s.io.api.node.v1': withLists(['RuntimeClass']),
  'k8s.io.api.storage.v1': withLists(['StorageClass', 'CSIDriver', 'CSINode', 'VolumeAttachment', 'CSIStorageCapacity']),
  'k8s.io.api.admissionregistration.v1': withLists(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']),
  'k8s.io.api.certificates.v1': withLists(['CertificateSigningRequest']),
  'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1': withLists(['APIService']),
  'k8s.io.api.flowcontrol.v1': withLists(['FlowSchema', 'PriorityLevelConfiguration']),
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1': [...withLists(['CustomResourceDefinition']), 'ConversionReview'],
  'k8s.io.api.authentication.v1': ['SelfSubjectReview', 'TokenReview', 'TokenRequest'],
  'k8s.io.api.authorization.v1': ['SubjectAccessReview', 'SelfSubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview'],
  [META]: ['PartialObjectMetadata', 'PartialObjectMetadataList', 'List'],
};

/** meta/v1 kinds registered in every group version (upstream AddToGroupVersion). */
const META_KINDS = new Set(['Status', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'GetOptions',
  'WatchEvent', 'APIResourceList', 'APIGroupList', 'APIGroup', 'APIVersions', 'PartialObjectMetadata',
  'PartialObjectMetadataList']);

const cache = new Map<string, MessageInfo | null>();

function resolve(apiVersion: string, kind: string): MessageInfo | null {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const pkg = version === 'v1' ? GROUP_PACKAGES[group] : VERSION_PACKAGES[`${group}/${version}`];
  if (!pkg) return null;
  if (PACKAGE_KINDS[pkg]?.includes(kind)) return lookupMessage(`${pkg}.${kind}`) ?? null;
  if (META_KINDS.has(kind)) return lookupMessage(`${META}.${kind}`) ?? null;
  return null;
}

/** The message for apiVersion + kind, or undefined when that type has no protobuf form. */
export function messageForKind(apiVersion: string, kind: string): MessageInfo | undefined {
  const key = `${apiVersion}\u0000${kind}`;
  let hit = cache.get(key);
  if (hit === undefined) {
    hit = resolve(apiVersion, kind);
    // unknown pairs come from request bodies: remember them only while the cache is small
    if (hit || cache.size < 512) cache.set(key, hit);
  }
  return hit ?? undefined;
}

export function hasProtobufType(apiVersion: string, kind: string): boolean {
  return messageForKind(apiVersion, kind) !== undefined;
}
