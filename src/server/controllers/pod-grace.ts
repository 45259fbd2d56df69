// Completes graceful pod deletion: there is no kubelet, so when a pod's grace period has run out
// (metadata.deletionTimestamp) the server deletes it with a zero grace period, as the kubelet would.
// The deadline lives in the pod itself, so a restart simply re-arms the timers from the store.
import { APISERVER_USER, componentContext } from '../registry/pipeline/context.js';
import { deleteObject } from '../registry/pipeline/delete.js';
import { kubeletContext } from './identities.js';
import type { KubeObject } from '../registry/types.js';
import { isGoneOrChanged, targetForKey, type ControllerDeps } from './controller-support.js';
import type { FeedEvent, FeedItem, FeedListener } from './object-feed.js';
import { WorkQueue } from './work-queue.js';

const PODS_PREFIX = '/registry/core/pods/';
/** setTimeout's ceiling; longer grace periods are re-armed when it fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;


function deadline(pod: KubeObject | undefined): number | undefined {
  const meta = pod?.metadata;
  if (!meta?.deletionTimestamp || !(meta.deletionGracePeriodSeconds! > 0)) return undefined;
  return Date.parse(meta.deletionTimestamp);
}

export class PodGraceController implements FeedListener {
  private timers = new Map<string, NodeJS.Timeout>();
  private queue: WorkQueue;

  constructor(private deps: ControllerDeps) {
    this.queue = new WorkQueue(
      (key) => this.process(key),
      (key, e) => deps.log(`pod grace: ${key}: ${(e as Error).message}`),
    );
  }

  onSync(items: FeedItem[]): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const it of items) if (it.key.startsWith(PODS_PREFIX)) this.arm(it.key, it.obj);
  }

  onEvent(ev: FeedEvent): void {
    if (!ev.key.startsWith(PODS_PREFIX)) return;
    this.arm(ev.key, ev.type === 'delete' ? undefined : ev.obj);
  }

  private arm(key: string, pod: KubeObject | undefined): void {
    const old = this.timers.get(key);
    if (old) clearTimeout(old);
    this.timers.delete(key);
    const at = deadline(pod);
    if (at === undefined) return;
    const t = setTimeout(
      () => {
        this.timers.delete(key);
        this.queue.add(key);
      },
      Math.min(Math.max(0, at - Date.now()), MAX_DELAY_MS),
    );
    t.unref();
    this.timers.set(key, t);
  }

  private async process(key: string): Promise<void> {
    const target = targetForKey(this.deps, key);
    if (!target) return;
    const cur = await target.rs.readShared(target.namespace, target.name).catch(() => undefined); // read only
    const at = deadline(cur?.obj);
    if (!cur || at === undefined) return;
    if (at > Date.now()) {
      this.arm(key, cur.obj);
      return;
    }
    try {
      // the kubelet of the pod's node finishes its deletion (system:node:<name>); an unbound pod's grace is the
      // API server's (upstream deletes those at once)
      const node = (cur.obj['spec'] as { nodeName?: unknown } | undefined)?.nodeName;
      const who = typeof node === 'string' && node ? kubeletContext(this.deps, node) : componentContext(APISERVER_USER, '', this.deps.signal);
      await deleteObject(this.deps, target.type, target.namespace, target.name, { gracePeriodSeconds: 0, preconditions: { uid: cur.obj.metadata!.uid } }, who);
    } catch (e) {
      if (!isGoneOrChanged(e)) throw e;
    }
  }

  async stop(): Promise<void> {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await this.queue.stop();
  }
}
