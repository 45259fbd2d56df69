// What a replica runs of the simulated control plane, and when: with --leader-elect (the default) the
// controllers run only while this replica holds the kube-system/kube-controller-manager Lease and the scheduler
// only while it holds kube-system/kube-scheduler, as upstream's kube-controller-manager and kube-scheduler.
// Several API servers on one etcd thus never run two copies of a controller that would undo each other.
//
// Held with the kube-controller-manager Lease: the workload controllers, the deletion controllers (garbage
// collector, namespace, disruption, pod grace periods, namespace defaults), the Event TTL, and the simulated nodes
// with their kubelets: every simulated node is driven by the one replica leading kube-controller-manager (their
// Leases in kube-node-lease stay heartbeats, as upstream's, not an election). Each term starts them afresh from the
// store, as upstream's controller manager starts its informers only once elected.
import type { FeedListener } from './object-feed.js';
import { ApiWriter, COMPONENTS } from './api-writer.js';
import { ensureControllerServiceAccounts } from './controller-accounts.js';
import type { Component, ControllerClient } from './client.js';
import { startCluster, type ClusterOptions } from './cluster.js';
import type { ControllerDeps } from './controller-support.js';
import { startDeletionControllers } from './deletion.js';
import {
  CONTROLLER_MANAGER_LEASE,
  LEADER_ELECTION_NAMESPACE,
  LeaderElector,
  LeaseLock,
  leaderIdentity,
  SCHEDULER_LEASE,
  type LeaseTimings,
} from './leader-election.js';

export interface ControllerManagerOptions {
  cluster: ClusterOptions;
  /** --leader-elect; false = this replica always runs everything (no Lease). */
  leaderElect: boolean;
  timings: LeaseTimings;
  /** The store belongs to this process alone (memory, SQLite): a Lease left by a previous run is taken at once. */
  exclusive: boolean;
  identity?: string;
  /**
   * --disable-controller-manager: the workload controllers, the scheduler and the simulated nodes run in a
   * controller manager of their own (`npm run controller-manager`); this server keeps only the controllers that
   * work on its storage (garbage collector, namespace, disruption, pod grace periods, the listeners below),
   * elected under the Lease kube-system/periscope-apiserver-controllers.
   */
  external?: boolean;
  /** More listeners on the deletion controllers' feed, made anew for each term. */
  listeners?: () => (FeedListener & { stop(): Promise<void> })[];
}

export interface Roles {
  controllerManager: boolean;
  scheduler: boolean;
}

export interface ControllerManager {
  readonly identity: string;
  /** What this replica runs now. */
  roles(): Roles;
  /** Stops the controllers, then releases the Leases this replica holds (upstream's ReleaseOnCancel). */
  stop(): Promise<void>;
}

interface Part<T extends { stop(): Promise<void> }> {
  ac: AbortController;
  started: Promise<T | undefined>;
}

function startPart<T extends { stop(): Promise<void> }>(base: AbortSignal | undefined, log: (l: string) => void, what: string, start: (signal: AbortSignal) => Promise<T>): Part<T> {
  const ac = new AbortController();
  const signal = base ? AbortSignal.any([base, ac.signal]) : ac.signal;
  const started = start(signal).catch((e) => {
    log(`${what} failed to start: ${(e as Error).message}`);
    return undefined;
  });
  return { ac, started };
}

async function stopPart<T extends { stop(): Promise<void> }>(p: Part<T> | undefined): Promise<void> {
  if (!p) return;
  p.ac.abort(); // a start-up scan still paging through the store ends at the next page
  await (await p.started)?.stop();
}

/** What a controller manager starts for each term, in process or against a remote API server. */
export interface ManagerParts {
  log: (line: string) => void;
  /** Aborted on shutdown. */
  signal?: AbortSignal;
  /** The client of a component's Lease (it outlives the shutdown signal: the release comes after it). */
  leaseClient(c: Component): ControllerClient;
  /** The deletion controllers (garbage collector, namespace, disruption, pod grace): in process only. */
  startDeletion?(signal: AbortSignal): Promise<{ stop(): Promise<void> }>;
  startCluster(roles: Roles, signal: AbortSignal): Promise<{ stop(): Promise<void> }>;
}

export function runControllerManager(deps: ControllerDeps, opts: ControllerManagerOptions): ControllerManager {
  return runManager(
    {
      log: deps.log,
      signal: deps.signal,
      leaseClient: (c) => new ApiWriter({ ...deps, signal: undefined }, c),
      startDeletion: async (signal) => {
        // each term, as upstream's controller manager makes its controllers' accounts before starting them
        await ensureControllerServiceAccounts({ ...deps, signal }, signal, opts.cluster.controllers);
        return startDeletionControllers({ ...deps, signal }, opts.listeners?.() ?? [], opts.cluster.controllers);
      },
      startCluster: (roles, signal) =>
        opts.external ? Promise.resolve({ stop: () => Promise.resolve() }) : startCluster({ ...deps, signal }, { ...opts.cluster, roles }),
    },
    opts.external ? { ...opts, cluster: { ...opts.cluster, simulatedNodes: 0 }, leaseName: APISERVER_CONTROLLERS_LEASE } : opts,
  );
}

/** The Lease of a server's storage-side controllers when the controller manager runs on its own (ours). */
export const APISERVER_CONTROLLERS_LEASE = 'periscope-apiserver-controllers';

export function runManager(parts: ManagerParts, opts: Omit<ControllerManagerOptions, 'listeners'> & { leaseName?: string }): ControllerManager {
  const identity = opts.identity ?? leaderIdentity();
  const log = parts.log;
  const want: Roles = { controllerManager: !opts.leaderElect, scheduler: !opts.leaderElect };
  let running: Roles = { controllerManager: false, scheduler: false };
  let deletion: Part<{ stop(): Promise<void> }> | undefined;
  let cluster: Part<{ stop(): Promise<void> }> | undefined;
  let chain = Promise.resolve();
  let ready = false;

  // one transition at a time; each brings what runs in line with the Leases held at that moment
  const sync = async (): Promise<void> => {
    const w = { ...want };
    if (w.controllerManager !== running.controllerManager && parts.startDeletion) {
      await stopPart(deletion);
      deletion = w.controllerManager ? startPart(parts.signal, log, 'deletion controllers', (signal) => parts.startDeletion!(signal)) : undefined;
    }
    if (w.controllerManager !== running.controllerManager || w.scheduler !== running.scheduler) {
      await stopPart(cluster);
      cluster = w.controllerManager || w.scheduler ? startPart(parts.signal, log, 'controllers', (signal) => parts.startCluster(w, signal)) : undefined;
    }
    running = w;
  };
  const apply = (): void => {
    if (!ready) return;
    chain = chain.then(sync).catch((e) => log(`controller manager: ${(e as Error).message}`));
  };

  const electors: LeaderElector[] = [];
  if (opts.leaderElect) {
    const elect = (name: string, writer: ControllerClient, role: keyof Roles) =>
      new LeaderElector({
        ...opts.timings,
        lock: new LeaseLock(writer, LEADER_ELECTION_NAMESPACE, name),
        identity,
        name,
        exclusive: opts.exclusive,
        log,
        onStartedLeading: () => {
          want[role] = true;
          apply();
        },
        onStoppedLeading: () => {
          want[role] = false;
          apply(); // stop acting at once (upstream exits the process here)
        },
      });
    // the kube-controller-manager Lease is its own identity's; our API server's controller Lease (external mode) the API server's
    electors.push(elect(opts.leaseName ?? CONTROLLER_MANAGER_LEASE, parts.leaseClient(opts.leaseName === APISERVER_CONTROLLERS_LEASE ? COMPONENTS.apiserver : COMPONENTS.controllerManager), 'controllerManager'));
    // the scheduler has nothing to schedule without simulated nodes (it does not run then)
    if (opts.cluster.simulatedNodes > 0) electors.push(elect(SCHEDULER_LEASE, parts.leaseClient(COMPONENTS.scheduler), 'scheduler'));
    for (const e of electors) e.run();
  }
  // a single replica gets both Leases on its first attempts: wait for them so it starts its controllers once
  void Promise.all(electors.map((e) => e.firstAttempt)).then(() => {
    ready = true;
    apply();
  });

  let stopped: Promise<void> | undefined;
  return {
    identity,
    roles: () => ({ ...running }),
    stop() {
      stopped ??= (async () => {
        await Promise.all(electors.map((e) => e.stop({ release: false })));
        want.controllerManager = want.scheduler = false;
        ready = true;
        apply();
        await chain;
        // only once nothing acts any more, so the next holder never overlaps with this one
        await Promise.all(electors.map((e) => e.release()));
      })();
      return stopped;
    },
  };
}
