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
import { startCluster, type ClusterOptions, type SimulatedCluster } from './cluster.js';
import type { ControllerDeps } from './controller-support.js';
import { startDeletionControllers, type DeletionControllers } from './deletion.js';
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

function startPart<T extends { stop(): Promise<void> }>(deps: ControllerDeps, log: (l: string) => void, what: string, start: (deps: ControllerDeps) => Promise<T>): Part<T> {
  const ac = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, ac.signal]) : ac.signal;
  const started = start({ ...deps, signal }).catch((e) => {
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

export function runControllerManager(deps: ControllerDeps, opts: ControllerManagerOptions): ControllerManager {
  const identity = opts.identity ?? leaderIdentity();
  const log = deps.log;
  const want: Roles = { controllerManager: !opts.leaderElect, scheduler: !opts.leaderElect };
  let running: Roles = { controllerManager: false, scheduler: false };
  let deletion: Part<DeletionControllers> | undefined;
  let cluster: Part<SimulatedCluster> | undefined;
  let chain = Promise.resolve();
  let ready = false;

  // one transition at a time; each brings what runs in line with the Leases held at that moment
  const sync = async (): Promise<void> => {
    const w = { ...want };
    if (w.controllerManager !== running.controllerManager) {
      await stopPart(deletion);
      deletion = w.controllerManager ? startPart(deps, log, 'deletion controllers', (d) => startDeletionControllers(d, opts.listeners?.() ?? [], opts.cluster.controllers)) : undefined;
    }
    if (w.controllerManager !== running.controllerManager || w.scheduler !== running.scheduler) {
      await stopPart(cluster);
      cluster = w.controllerManager || w.scheduler ? startPart(deps, log, 'controllers', (d) => startCluster(d, { ...opts.cluster, roles: w })) : undefined;
    }
    running = w;
  };
  const apply = (): void => {
    if (!ready) return;
    chain = chain.then(sync).catch((e) => log(`controller manager: ${(e as Error).message}`));
  };

  const electors: LeaderElector[] = [];
  if (opts.leaderElect) {
    const elect = (name: string, writer: ApiWriter, role: keyof Roles) =>
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
    // the Lease writers outlive the shutdown signal: the release comes after it
    const leaseDeps = { ...deps, signal: undefined };
    electors.push(elect(CONTROLLER_MANAGER_LEASE, new ApiWriter(leaseDeps, COMPONENTS.controllerManager), 'controllerManager'));
    // the scheduler has nothing to schedule without simulated nodes (it does not run then)
    if (opts.cluster.simulatedNodes > 0) electors.push(elect(SCHEDULER_LEASE, new ApiWriter(leaseDeps, COMPONENTS.scheduler), 'scheduler'));
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
