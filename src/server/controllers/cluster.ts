// Starts the simulated cluster: the workload controllers named by --controllers (kube-controller-manager's
// names), and with --simulated-nodes N the nodes, the scheduler and their kubelets; all share one informer
// cache on the object feed and write through the API as the upstream component they stand for.
import { ApiWriter, COMPONENTS, type Component as WriterComponent } from './api-writer.js';
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
    client: (c) => new ApiWriter(deps, c as WriterComponent),
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
  // each controller reports under its own component name, as upstream's recorders do
  const recorder = (component: string) => new EventRecorder(kcm, { component }, t.log);
  const roles = opts.roles ?? { controllerManager: true, scheduler: true };
  const on = (name: string) => roles.controllerManager && controllerEnabled(opts.controllers, name);
  const controllers: Reconciler[] = [];
  if (on('replicaset-controller')) controllers.push(new ReplicaSetController({ ...ctx, events: recorder('replicaset-controller') }));
  if (on('deployment-controller')) controllers.push(new DeploymentController({ ...ctx, events: recorder('deployment-controller') }));
  if (on('job-controller')) controllers.push(new JobController({ ...ctx, events: recorder('job-controller') }, on('ttl-after-finished-controller')));
  if (on('cronjob-controller')) controllers.push(new CronJobController({ ...ctx, events: recorder('cronjob-controller') }));
  if (on('daemonset-controller')) controllers.push(new DaemonSetController({ ...ctx, events: recorder('daemonset-controller') }));
  if (on('statefulset-controller')) controllers.push(new StatefulSetController({ ...ctx, events: recorder('statefulset-controller') }));
  if (on('endpoints-controller')) controllers.push(new EndpointsController({ ...ctx, events: recorder('endpoints-controller') }));
  // the kinds below are served once the registry holds them (ReplicationController, EndpointSlice): the
  // controllers run from the start and act when their kind appears
  if (on('endpointslice-controller')) controllers.push(new EndpointSliceController({ ...ctx, events: recorder('endpointslice-controller') }));
  if (on('replicationcontroller-controller'))
    controllers.push(new ReplicaSetController({ ...ctx, events: recorder('replication-controller') }, 'core/replicationcontrollers', 'replicationcontroller-controller'));
  if (on('horizontal-pod-autoscaler-controller')) controllers.push(new HpaController({ ...ctx, events: recorder('horizontal-pod-autoscaler') }, opts.hpaSyncPeriodMs));
  if (on('resourcequota-controller')) {
    if (t.quota) controllers.push(t.quota(ctx));
    else t.log('resourcequota-controller: runs inside the API server only (it counts stored objects); not started here');
  }
  let nodes: SimulatedNodes | undefined;
  if (opts.simulatedNodes > 0 && roles.scheduler) {
    const scheduler = t.client(COMPONENTS.scheduler);
    controllers.push(new Scheduler(ctx, scheduler, new EventRecorder(scheduler, { component: 'default-scheduler' }, t.log)));
  }
  if (opts.simulatedNodes > 0 && roles.controllerManager) {
    const kubelet = t.client(COMPONENTS.kubelet);
    const byNode = new Map<string, EventRecorder>();
    const eventsFor = (node: string) => {
      let r = byNode.get(node);
      if (!r) byNode.set(node, (r = new EventRecorder(kubelet, { component: 'kubelet', host: node }, t.log)));
      return r;
    };
    controllers.push(new SimulatedKubelet(ctx, kubelet, eventsFor, { ...DEFAULT_KUBELET_TIMINGS, ...Object.fromEntries(Object.entries(opts.kubelet ?? {}).filter(([, v]) => v !== undefined)) }));
    nodes = new SimulatedNodes(kubelet, opts.simulatedNodes, t.log);
  }
  const ttl = controllers.length > 0 && roles.controllerManager ? new EventTtl(cache, kcm, opts.eventTtlMs, now, t.log) : undefined;
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
