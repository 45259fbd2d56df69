// Who the in-process components are when they write: kube-controller-manager with
// --use-service-account-credentials (kubeadm's setting) runs each controller as its own service account in
// kube-system (upstream cmd/kube-controller-manager/names and bootstrappolicy/controller_policy.go), the
// scheduler as system:kube-scheduler, each kubelet as system:node:<name> in system:nodes. None is in
// system:masters: their writes are authorized by the server's authorizer as the chain authorizes a request.
import { ALL_AUTHENTICATED, nodeUser, serverComponent, serviceAccountUser, type UserInfo } from '../auth/user.js';
import { forbidden, type Attributes, type Authorizer } from '../authz/attributes.js';
import { identityContext, type WriteContext } from '../registry/pipeline/context.js';
import type { Component } from './client.js';

/** The namespace of the controllers' service accounts. */
export const CONTROLLER_SA_NAMESPACE = 'kube-system';

const plain = (name: string): UserInfo => ({ name, uid: '', groups: [ALL_AUTHENTICATED], extra: {} });
const component = (manager: string, user: UserInfo): Component => ({ manager, user: user.name, groups: user.groups });

/** Field managers and users of upstream's components (leader election Leases stay with these). */
export const COMPONENTS = {
  controllerManager: component('kube-controller-manager', plain('system:kube-controller-manager')),
  scheduler: component('kube-scheduler', plain('system:kube-scheduler')),
  /** The API server's loopback client (system:apiserver, system:masters): the Event TTL, as upstream's storage TTL. */
  apiserver: component('kube-apiserver', serverComponent('system:apiserver')),
} as const;

/**
 * Each controller's service account under --use-service-account-credentials (kube-controller-manager's controller
 * name → the account upstream's controller descriptor names; its ClusterRole is system:controller:<account>).
 */
export const CONTROLLER_SERVICE_ACCOUNTS: Record<string, string> = {
  'replicaset-controller': 'replicaset-controller',
  'deployment-controller': 'deployment-controller',
  'statefulset-controller': 'statefulset-controller',
  'daemonset-controller': 'daemon-set-controller',
  'job-controller': 'job-controller',
  'cronjob-controller': 'cronjob-controller',
  'endpoints-controller': 'endpoint-controller',
  'endpointslice-controller': 'endpointslice-controller',
  'replicationcontroller-controller': 'replication-controller',
  'horizontal-pod-autoscaler-controller': 'horizontal-pod-autoscaler',
  'garbage-collector-controller': 'generic-garbage-collector',
  'namespace-controller': 'namespace-controller',
  'disruption-controller': 'disruption-controller',
  'ttl-after-finished-controller': 'ttl-after-finished-controller',
  'resourcequota-controller': 'resourcequota-controller',
  'pod-garbage-collector-controller': 'pod-garbage-collector',
  'serviceaccount-controller': 'service-account-controller',
  'root-ca-certificate-publisher-controller': 'root-ca-cert-publisher',
  'service-cidr-controller': 'service-cidrs-controller',
  'clusterrole-aggregation-controller': 'clusterrole-aggregation-controller',
};

/**
 * The identity controller `name` writes as: its service account, or with useServiceAccountCredentials false
 * system:kube-controller-manager (whose role then must be bound broadly by the admin, as upstream says).
 */
export function controllerComponent(name: string, useServiceAccountCredentials = true): Component {
  const sa = CONTROLLER_SERVICE_ACCOUNTS[name];
  if (!sa) throw new Error(`no service account for controller ${name}`);
  return useServiceAccountCredentials ? component('kube-controller-manager', serviceAccountUser(CONTROLLER_SA_NAMESPACE, sa)) : COMPONENTS.controllerManager;
}

/** The user a controller's service account authenticates as (for contexts built without a client). */
export function controllerUser(name: string, useServiceAccountCredentials = true): UserInfo {
  const c = controllerComponent(name, useServiceAccountCredentials);
  return { name: c.user, uid: '', groups: [...c.groups], extra: {} };
}

/** The kubelet of simulated node `node`. */
export function kubeletComponent(node: string): Component {
  return component('kubelet', nodeUser(node));
}

export const userOf = (c: Component): UserInfo => ({ name: c.user, uid: '', groups: [...c.groups], extra: {} });

/** What authorizes components' writes: the server's authorizer chain (the union the HTTP chain asks). */
export type WriteAuthorizer = Pick<Authorizer, 'authorize'>;

/**
 * The pipeline's authorization hook for writes by `user`: the attributes the chain would build for the same
 * request (verb, group, resource, subresource, namespace, name); a denial is upstream's 403 Forbidden.
 * `patch`: this writer's updates are PATCH requests upstream (authorized as patch).
 */
export function authorizeAs(z: WriteAuthorizer | undefined, user: UserInfo, patch = false): WriteContext['authorize'] {
  if (!z) return undefined;
  return async (w) => {
    const a: Attributes = {
      user,
      verb: patch && w.verb === 'update' ? 'patch' : w.verb,
      resourceRequest: true,
      path: '',
      apiGroup: w.group,
      apiVersion: '',
      resource: w.resource,
      subresource: w.subresource,
      namespace: w.namespace,
      name: w.name,
    };
    const r = await z.authorize(a);
    if (r.decision !== 'Allow') throw forbidden(a, r.reason);
  };
}

/** The write context of controller `controller` running in process (deletion controllers, namespace defaults). */
export function controllerContext(
  deps: { authorizer?: WriteAuthorizer; useServiceAccountCredentials?: boolean; signal?: AbortSignal },
  controller: string,
  signal = deps.signal,
): WriteContext {
  const user = controllerUser(controller, deps.useServiceAccountCredentials ?? true);
  return identityContext(user, 'kube-controller-manager', authorizeAs(deps.authorizer, user), signal);
}

/** The write context of kubelet `node` (the pod grace controller finishes a bound pod's deletion as its kubelet). */
export function kubeletContext(deps: { authorizer?: WriteAuthorizer; signal?: AbortSignal }, node: string): WriteContext {
  const user = nodeUser(node);
  return identityContext(user, 'kubelet', authorizeAs(deps.authorizer, user), deps.signal);
}
