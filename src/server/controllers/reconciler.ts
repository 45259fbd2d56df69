// The shape every simulated-cluster controller shares: informer handlers queue `namespace/name` keys on a
// de-duplicating work queue; sync(key) reconciles one object from the cache and writes through the API.
import type { KubeObject } from '../registry/types.js';
import type { ControllerClient } from './client.js';
import type { ClusterCache } from './cluster-cache.js';
import type { EventRecorder } from './event-recorder.js';
import { WorkQueue } from './work-queue.js';

export interface ClusterContext {
  cache: ClusterCache;
  /** Writes as kube-controller-manager. */
  writer: ControllerClient;
  events: EventRecorder;
  now: () => number;
  log: (line: string) => void;
  /**
   * Resolves once the cache holds every write up to this resourceVersion (upstream's expectations, simpler);
   * `objs` are the written objects (a remote feed waits on the watches of their kinds only).
   */
  caughtUp: (rv: number, objs?: readonly (KubeObject | undefined)[]) => Promise<void>;
}

/** Waits until the cache has seen the given written objects. */
export async function settle(ctx: ClusterContext, objs: (KubeObject | undefined)[]): Promise<void> {
  let max = 0;
  for (const o of objs) max = Math.max(max, Number(o?.metadata?.resourceVersion ?? 0) || 0);
  if (max > 0) await ctx.caughtUp(max, objs);
}

export const keyOf = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;

export function splitKey(key: string): [string | undefined, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i) || undefined, key.slice(i + 1)];
}

export abstract class Reconciler {
  protected queue: WorkQueue;

  /** workers: upstream's --concurrent-*-syncs (5 for the workload controllers); one object never runs on two. */
  constructor(
    readonly name: string,
    protected ctx: ClusterContext,
    workers = 5,
  ) {
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, e) => ctx.log(`${name}: ${key}: ${(e as Error).message}`),
      workers,
    );
  }

  protected enqueue(ns: string | undefined, name: string | undefined): void {
    this.queue.add(keyOf(ns, name));
  }

  protected enqueueAfter(ns: string | undefined, name: string | undefined, ms: number): void {
    this.queue.addAfter(keyOf(ns, name), Math.max(0, ms));
  }

  protected abstract sync(key: string): Promise<void>;

  idle(): Promise<void> {
    return this.queue.idle();
  }

  stop(): Promise<void> {
    return this.queue.stop();
  }
}
