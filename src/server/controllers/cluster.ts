// Starts the simulated cluster: the workload controllers named by --controllers (kube-controller-manager's
// names), and with --simulated-nodes N the nodes, the scheduler and their kubelets; all share one informer
// cache on the object feed and write through the API as the upstream component they stand for.
import { ApiWriter } from './api-writer.js';
import { COMPONENTS, controllerComponent, kubeletComponent } from './identities.js';
import type { Component, ControllerClient } from './client.js';
import { ClusterCache } from './cluster-cache.js';
import type { ControllerDeps } from './controller-support.js';
import { DeploymentController } from './deployment-controller.js';
import { EventRecorder, EventTtl } from './event-recorder.js';
import { ObjectFeed, type Feed } from './object-feed.js';
import type { ClusterContext, Reconciler } from './reconciler.js';
import { ReplicaSetController } from './replicaset-controller.js';
import { Scheduler } from './scheduler.js';
import { DEFAULT_KUBELET_TIMINGS, SimulatedKubelet, type KubeletTimings } from './simulated-kubelet.js';
import { SimulatedNodes } from './simulated-nodes.js';
import { JobController } from './job-controller.js';
import { CronJobController } from './cronjob-controller.js';
import { DaemonSetController } from './daemonset-controller.js';
import { StatefulSetController } from './statefulset-controller.js';
import { EndpointsController, EndpointSliceController } from './endpoints-controller.js';
import { HpaController } from './hpa-controller.js';
import { ResourceQuotaController } from './resourcequota-controller.js';

export interface ClusterOptions {
  /** --controllers, as kube-controller-manager spells it: '*', 'foo', '-foo'; empty = none. */
  controllers: string[];
  simulatedNodes: number;
  eventTtlMs: number;
  /** --horizontal-pod-autoscaler-sync-period */
  hpaSyncPeriodMs?: number;
  kubelet?: Partial<KubeletTimings>;
  /** The clock of the controllers (tests move it). */
  now?: () => number;
  /** --use-service-account-credentials: each controller writes as its own service account (default true). */
  useServiceAccountCredentials?: boolean;
  /**
   * What this replica runs (both by default): `controllerManager` = the workload controllers, the Event TTL and
   * the simulated nodes with their kubelets (held with the kube-controller-manager Lease); `scheduler` = the
   * scheduler (held with the kube-scheduler Lease).
   */
  roles?: { controllerManager: boolean; scheduler: boolean };
}

/** Whether nodes run pods and Deployments make them with these flags (demo data needs no hand-made pods then). */
export function clusterLives(controllers: string[], simulatedNodes: number): boolean {
  return simulatedNodes > 0 && controllerEnabled(controllers, 'deployment-controller') && controllerEnabled(controllers, 'replicaset-controller');
}

/** The simulated cluster's controllers under kube-controller-manager's names (1.33), with their old aliases. */
export const CONTROLLER_ALIASES: Record<string, string> = {
  deployment: 'deployment-controller',
  replicaset: 'replicaset-controller',
  statefulset: 'statefulset-controller',
  daemonset: 'daemonset-controller',
  job: 'job-controller',
  cronjob: 'cronjob-controller',
  endpoint: 'endpoints-controller',
  endpointslice: 'endpointslice-controller',
  replicationcontroller: 'replicationcontroller-controller',
  horizontalpodautoscaling: 'horizontal-pod-autoscaler-controller',
  garbagecollector: 'garbage-collector-controller',
  namespace: 'namespace-controller',
  disruption: 'disruption-controller',
  'ttl-after-finished': 'ttl-after-finished-controller',
  resourcequota: 'resourcequota-controller',
};

export const KNOWN_CONTROLLERS = new Set(Object.values(CONTROLLER_ALIASES));

/** Whether --controllers enables the named controller (canonical name). */
export function controllerEnabled(list: string[], name: string): boolean {
  const norm = (s: string) => (s.startsWith('-') ? '-' + (CONTROLLER_ALIASES[s.slice(1)] ?? s.slice(1)) : (CONTROLLER_ALIASES[s] ?? s));
  const items = list.map((s) => norm(s.trim())).filter(Boolean);
  if (items.includes('-' + name)) return false;
  if (items.includes(name)) return true;
  return items.includes('*');
}

export interface SimulatedCluster {
  cache: ClusterCache;
  /** Nodes run pods and Deployments make them: demo data needs no hand-made pods. */
  living: boolean;
  controllers: Reconciler[];
  stop(): Promise<void>;
}

/**
 * How the cluster's components reach the API: in-process (the watch caches and the server's write path) or
 * remote (HTTP with a kubeconfig's credentials, src/client).
 */
export interface ClusterTransport {
  log: (line: string) => void;
  /** The term: aborted when this replica stops leading, or shuts down (writes stop, start-up ends). */
  signal?: AbortSignal;
  /** A client writing as `c` (its user and field manager). */
  client(c: Component): ControllerClient;
  /** The informer feed of `cache`'s kinds. */
  feed(cache: ClusterCache): Feed;
  /** The resource quota controller counts objects in the store: in-process only. */
  quota?: (ctx: ClusterContext) => Reconciler;
}

/** The in-process transport: the API server's watch caches and write path. */
export function inProcessTransport(deps: ControllerDeps): ClusterTransport {
  return {
    log: deps.log,
    signal: deps.signal,
    client: (c) => new ApiWriter(deps, c),
    feed: (cache) => {
      const feed = new ObjectFeed(deps, deps.log, deps.signal);
      feed.subscribe(cache);
      return feed;
    },
    quota: (ctx) => new ResourceQuotaController(ctx, deps.store, deps.types),
  };
}

export function startCluster(deps: ControllerDeps, opts: ClusterOptions): Promise<SimulatedCluster> {
  return startClusterWith(inProcessTransport(deps), opts);
}

export async function startClusterWith(t: ClusterTransport, opts: ClusterOptions): Promise<SimulatedCluster> {
  const cache = new ClusterCache();
  const now = opts.now ?? Date.now;
  const kcm = t.client(COMPONENTS.controllerManager);
  let feed: Feed | undefined;
  const ctx: ClusterContext = {
    cache,
    writer: kcm,
    events: new EventRecorder(kcm, { component: 'controllermanager' }, t.log),
    now,
    log: t.log,
    caughtUp: (rv, objs) => feed?.caughtUp(rv, objs) ?? Promise.resolve(),
  };
  // each controller writes as its own service account (--use-service-account-credentials) and reports its
  // Events with that client under its own component name, as upstream's controllers and recorders do
  const useSA = opts.useServiceAccountCredentials ?? true;
  const clientOf = (controller: string) => t.client(controllerComponent(controller, useSA));
  const as = (controller: string, component = controller): ClusterContext => {
    const writer = clientOf(controller);
    return { ...ctx, writer, events: new EventRecorder(writer, { component }, t.log) };
  };
  const roles = opts.roles ?? { controllerManager: true, scheduler: true };
  const on = (name: string) => roles.controllerManager && controllerEnabled(opts.controllers, name);
  const controllers: Reconciler[] = [];
  if (on('replicaset-controller')) controllers.push(new ReplicaSetController(as('replicaset-controller')));
  if (on('deployment-controller')) controllers.push(new DeploymentController(as('deployment-controller')));
  if (on('job-controller')) controllers.push(new JobController(as('job-controller'), on('ttl-after-finished-controller') ? clientOf('ttl-after-finished-controller') : undefined));
  if (on('cronjob-controller')) controllers.push(new CronJobController(as('cronjob-controller')));
  if (on('daemonset-controller')) controllers.push(new DaemonSetController(as('daemonset-controller')));
  if (on('statefulset-controller')) controllers.push(new StatefulSetController(as('statefulset-controller')));
  if (on('endpoints-controller')) controllers.push(new EndpointsController(as('endpoints-controller')));
  // the kinds below are served once the registry holds them (ReplicationController, EndpointSlice): the
  // controllers run from the start and act when their kind appears
  if (on('endpointslice-controller')) controllers.push(new EndpointSliceController(as('endpointslice-controller')));
  if (on('replicationcontroller-controller'))
    controllers.push(new ReplicaSetController(as('replicationcontroller-controller', 'replication-controller'), 'core/replicationcontrollers', 'replicationcontroller-controller'));
  if (on('horizontal-pod-autoscaler-controller')) controllers.push(new HpaController(as('horizontal-pod-autoscaler-controller', 'horizontal-pod-autoscaler'), opts.hpaSyncPeriodMs));
  if (on('resourcequota-controller')) {
    if (t.quota) controllers.push(t.quota(as('resourcequota-controller')));
    else t.log('resourcequota-controller: runs inside the API server only (it counts stored objects); not started here');
  }
  let nodes: SimulatedNodes | undefined;
  if (opts.simulatedNodes > 0 && roles.scheduler) {
    const scheduler = t.client(COMPONENTS.scheduler);
    controllers.push(new Scheduler(ctx, scheduler, new EventRecorder(scheduler, { component: 'default-scheduler' }, t.log)));
  }
  if (opts.simulatedNodes > 0 && roles.controllerManager) {
    // each kubelet is its node's user, system:node:<name> (the Node authorizer and NodeRestriction apply)
    const kubelets = new Map<string, { client: ControllerClient; events: EventRecorder }>();
    const kubelet = (node: string) => {
      let k = kubelets.get(node);
      if (!k) {
        const client = t.client(kubeletComponent(node));
        kubelets.set(node, (k = { client, events: new EventRecorder(client, { component: 'kubelet', host: node }, t.log) }));
      }
      return k;
    };
    const timings = { ...DEFAULT_KUBELET_TIMINGS, ...Object.fromEntries(Object.entries(opts.kubelet ?? {}).filter(([, v]) => v !== undefined)) };
    controllers.push(new SimulatedKubelet(ctx, (node) => kubelet(node).client, (node) => kubelet(node).events, clientOf('pod-garbage-collector-controller'), timings));
    nodes = new SimulatedNodes((node) => kubelet(node).client, opts.simulatedNodes, t.log);
  }
  // the Event TTL is the API server's (upstream: etcd leases on Events), not a controller's
  const ttl = controllers.length > 0 && roles.controllerManager ? new EventTtl(cache, t.client(COMPONENTS.apiserver), opts.eventTtlMs, now, t.log) : undefined;
  for (const kind of ['core/pods', 'core/nodes']) cache.on(kind);
  feed = t.feed(cache);
  await feed.start();
  if (!t.signal?.aborted) await nodes?.start();
  ttl?.start();
  return {
    cache,
    living: clusterLives(opts.controllers, opts.simulatedNodes),
    controllers,
    async stop() {
      feed?.stop();
      nodes?.stop();
      ttl?.stop();
      await Promise.all(controllers.map((c) => c.stop()));
    },
  };
}
