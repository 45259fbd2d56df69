// The NodeRestriction admission plugin (upstream plugin/pkg/admission/noderestriction): a kubelet, user
// system:node:<name> in system:nodes, may only create, update and delete its own Node (without touching
// node-restriction.kubernetes.io/ labels, labels of the kubernetes.io namespaces outside the kubelet's list, or
// taints after registration), only change the status of pods bound to it, only create mirror pods bound to it,
// only delete pods bound to it, and only use its own Lease in kube-node-lease. Other users pass untouched.
import { errors, type StatusError } from '../../api/status.js';
import { nodeIdentity, type UserInfo } from '../auth/user.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../http/admission.js';
import type { KubeObject } from '../registry/types.js';

type Obj = Record<string, any>;
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const RESTRICTED_PREFIX = 'node-restriction.kubernetes.io/';

/** Labels a kubelet may set in the kubernetes.io / k8s.io namespaces (upstream kubeletapis.KubeletLabels and label namespaces). */
const ALLOWED_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'topology.kubernetes.io/zone',
]);
const ALLOWED_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

/** Whether a kubelet may set label `key` on its Node (upstream's node label policy). */
export function kubeletMaySetLabel(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return true;
  const ns = key.slice(0, slash);
  if (key.startsWith(RESTRICTED_PREFIX)) return false;
  if (ALLOWED_LABELS.has(key)) return true;
  if (ALLOWED_LABEL_NAMESPACES.some((n) => ns === n || ns.endsWith('.' + n))) return true;
  const isK8s = (n: string) => ns === n || ns.endsWith('.' + n);
  return !(isK8s('kubernetes.io') || isK8s('k8s.io'));
}

const toUser = (a: AdmissionAttributes): UserInfo | undefined =>
  a.userInfo ? { name: a.userInfo.username, uid: a.userInfo.uid ?? '', groups: a.userInfo.groups ?? [], extra: a.userInfo.extra ?? {} } : undefined;

const nodeNameOf = (pod: KubeObject | undefined): string => String(((pod as Obj | undefined)?.spec ?? {}).nodeName ?? '');

export function nodeRestriction(): AdmissionPlugin {
  return {
    name: 'NodeRestriction',
    admit(a) {
      const user = toUser(a);
      const node = user && nodeIdentity(user);
      if (!node) return;
      const me = node.name;
      const deny = (msg: string): StatusError => errors.forbidden({ group: a.type.group, resource: a.subresource ? `${a.type.plural}/${a.subresource}` : a.type.plural, name: a.name }, msg);
      if (!me) throw deny(`could not determine node from user ${JSON.stringify(user!.name)}`);
      const { group, plural } = a.type;
      if (group === '' && plural === 'pods') return admitPod(a, me, deny);
      if (group === '' && plural === 'nodes') return admitNode(a, me, deny);
      if (plural === 'leases' && group === 'coordination.service.io') {
        if (a.namespace !== NODE_LEASE_NAMESPACE) throw deny(`can only access leases in the ${NODE_LEASE_NAMESPACE} namespace`);
        if (a.name !== me) throw deny('can only access node lease with the same name as the requesting node');
        return;
      }
      if (group === '' && plural === 'serviceaccounts' && a.subresource === 'token') {
        // a node's token requests must be bound to a pod on that node (upstream admitServiceAccount)
        const ref = ((a.object as Obj | undefined)?.spec ?? {}).boundObjectRef;
        if (!ref || ref.kind !== 'Pod') throw deny(`node requested token not bound to a pod`);
      }
    },
  };
}

function admitPod(a: AdmissionAttributes, me: string, deny: (m: string) => StatusError): void {
  switch (a.subresource) {
    case '':
      if (a.operation === 'CREATE') {
        const pod = a.object as Obj | undefined;
        if (!pod?.metadata?.annotations?.[MIRROR_ANNOTATION]) throw deny('pod does not have "kubernetes.io/config.mirror" annotation, node can only create mirror pods');
        if (nodeNameOf(pod as KubeObject) !== me) throw deny(`node ${JSON.stringify(me)} can only create pods with spec.nodeName set to itself`);
        return;
      }
      if (a.operation === 'DELETE') {
        if (nodeNameOf(a.oldObject) !== me) throw deny(`node ${JSON.stringify(me)} can only delete pods with spec.nodeName set to itself`);
        return;
      }
      throw deny(`unexpected operation ${a.operation}, node ${JSON.stringify(me)} can only create and delete mirror pods`);
    case 'status':
      if (a.operation !== 'UPDATE') throw deny(`unexpected operation ${a.operation}`);
      if (nodeNameOf(a.oldObject) !== me) throw deny(`node ${JSON.stringify(me)} can only update pod status for pods with spec.nodeName set to itself`);
      return;
    case 'eviction':
      // the pod is not among the attributes here: the eviction handler checks nothing more for nodes
      return;
    default:
      throw deny(`unexpected subresource ${a.subresource}`);
  }
}

function admitNode(a: AdmissionAttributes, me: string, deny: (m: string) => StatusError): void {
  const name = a.operation === 'CREATE' ? String((a.object as Obj | undefined)?.metadata?.name ?? a.name) : a.name;
  if (name !== me) throw deny(`node ${JSON.stringify(me)} is not allowed to modify node ${JSON.stringify(name)}`);
  if (a.operation === 'DELETE') return;
  const labels: Record<string, string> = (a.object as Obj | undefined)?.metadata?.labels ?? {};
  if (a.operation === 'CREATE') {
    const bad = Object.keys(labels).filter((k) => !kubeletMaySetLabel(k)).sort();
    if (bad.length) throw deny(`node ${JSON.stringify(me)} is not allowed to set the following labels: ${bad.join(', ')}`);
    return;
  }
  const old: Record<string, string> = (a.oldObject as Obj | undefined)?.metadata?.labels ?? {};
  const changed = [...new Set([...Object.keys(labels), ...Object.keys(old)])].filter((k) => labels[k] !== old[k] && !kubeletMaySetLabel(k)).sort();
  if (changed.length) throw deny(`node ${JSON.stringify(me)} is not allowed to modify labels: ${changed.join(', ')}`);
  const taints = (o: KubeObject | undefined) => JSON.stringify(((o as Obj | undefined)?.spec ?? {}).taints ?? []);
  if (a.subresource === '' && taints(a.object) !== taints(a.oldObject)) throw deny(`node ${JSON.stringify(me)} is not allowed to modify taints`);
  if (((a.object as Obj | undefined)?.spec ?? {}).configSource !== undefined && JSON.stringify(((a.object as Obj).spec ?? {}).configSource) !== JSON.stringify(((a.oldObject as Obj | undefined)?.spec ?? {}).configSource))
    throw deny(`node ${JSON.stringify(me)} is not allowed to modify spec.configSource`);
}
