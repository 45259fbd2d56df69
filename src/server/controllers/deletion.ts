// Starts the controllers that complete deletions (garbage collector, namespace termination, pod grace periods) and
// the disruption controller that eviction relies on, on one shared feed of every stored object.
import { DisruptionController } from './disruption-controller.js';
import { GarbageCollector } from './garbage-collector.js';
import { NamespaceController } from './namespace-controller.js';
import { ObjectFeed } from './object-feed.js';
import { PodGraceController } from './pod-grace.js';
import type { ControllerDeps } from './controller-support.js';
import type { FeedListener } from './object-feed.js';
import { controllerEnabled } from './cluster.js';

export interface DeletionControllers {
  gc: GarbageCollector;
  namespaces: NamespaceController;
  pods: PodGraceController;
  disruption: DisruptionController;
  stop(): Promise<void>;
}

/**
 * `more` are further listeners sharing the one feed (subscribed before it starts); `controllers` is --controllers:
 * the garbage collector, namespace and disruption controllers go by upstream's names.
 */
export async function startDeletionControllers(deps: ControllerDeps, more: FeedListener[] = [], controllers: string[] = ['*']): Promise<DeletionControllers> {
  const feed = new ObjectFeed(deps, deps.log, deps.signal);
  const gc = new GarbageCollector(deps, feed);
  const namespaces = new NamespaceController(deps);
  const pods = new PodGraceController(deps);
  const disruption = new DisruptionController(deps);
  if (controllerEnabled(controllers, 'garbage-collector-controller')) feed.subscribe(gc);
  if (controllerEnabled(controllers, 'namespace-controller')) feed.subscribe(namespaces);
  feed.subscribe(pods);
  if (controllerEnabled(controllers, 'disruption-controller')) feed.subscribe(disruption);
  for (const l of more) feed.subscribe(l);
  await feed.start();
  return {
    gc,
    namespaces,
    pods,
    disruption,
    async stop() {
      feed.stop();
      await Promise.all([gc.stop(), namespaces.stop(), pods.stop(), disruption.stop()]);
    },
  };
}
