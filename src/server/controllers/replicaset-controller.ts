// ReplicaSet controller (and, for kind 'core/replicationcontrollers', the ReplicationController one), as upstream's
// pkg/controller/replicaset: creates and deletes pods to match spec.replicas, adopts matching orphans and releases
// pods that no longer match, and reports replicas / fullyLabeled / ready / available in status.
import { selectorMatches } from '../registry/builtin-helpers.js';
import type { KubeObject } from '../registry/types.js';
import { controllerRef, type KindId } from './cluster-cache.js';
import { intOr, isPodActive, isPodAvailable, isPodReady, ownerRefTo, podFromTemplate, spec, status } from './pod-util.js';
import { Reconciler, settle, splitKey, type ClusterContext } from './reconciler.js';

/** upstream's burstReplicas: most pods created or deleted in one sync. */
const BURST_REPLICAS = 500;

type Obj = Record<string, any>;

export class ReplicaSetController extends Reconciler {
  private group: string;
  private plural: string;

  constructor(
    ctx: ClusterContext,
    private kind: KindId = 'apps/replicasets',
    name = 'replicaset-controller',
  ) {
    super(name, ctx);
    const [g, p] = kind.split('/') as [string, string];
    this.group = g === 'core' ? '' : g;
    this.plural = p;
    ctx.cache.on(kind, ({ obj }) => this.enqueue(obj.metadata?.namespace, obj.metadata?.name));
    ctx.cache.on('core/pods', ({ obj, prev }) => this.onPod(obj, prev));
  }

  /** The owner's selector: ReplicaSets hold a LabelSelector, ReplicationControllers a plain map. */
  private selectorOf(owner: KubeObject): unknown {
    const sel = spec(owner).selector;
    return this.plural === 'replicationcontrollers' ? { matchLabels: sel ?? spec(owner).template?.metadata?.labels ?? {} } : sel;
  }

  private onPod(pod: KubeObject, prev: KubeObject | undefined): void {
    const ns = pod.metadata?.namespace;
    for (const p of prev ? [pod, prev] : [pod]) {
      const ref = controllerRef(p);
      if (ref) {
        if (ref.kind === (this.plural === 'replicasets' ? 'ReplicaSet' : 'ReplicationController')) this.enqueue(ns, ref.name);
        continue;
      }
      // an orphan: every owner whose selector matches may adopt it
      if (p.metadata?.deletionTimestamp) continue;
      for (const o of this.ctx.cache.list(this.kind, ns)) if (selectorMatches(this.selectorOf(o), p.metadata?.labels ?? {})) this.enqueue(ns, o.metadata?.name);
    }
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const owner = this.ctx.cache.get(this.kind, ns, name);
    if (!owner) return;
    const uid = owner.metadata!.uid!;
    const selector = this.selectorOf(owner);
    const pods = await this.claimPods(owner, selector);
    const active = pods.filter(isPodActive);
    const want = intOr(spec(owner).replicas, 1);
    if (!owner.metadata?.deletionTimestamp) {
      const diff = active.length - want;
      if (diff < 0) await this.createPods(owner, Math.min(-diff, BURST_REPLICAS));
      else if (diff > 0) await this.deletePods(owner, active, Math.min(diff, BURST_REPLICAS));
    }
    // status from the cache after our own writes have been observed
    const now = this.ctx.now();
    const current = this.ctx.cache.ownedBy(uid, 'core/pods').filter(isPodActive);
    const minReady = intOr(spec(owner).minReadySeconds, 0);
    const labels = spec(owner).template?.metadata?.labels ?? {};
    const ready = current.filter(isPodReady);
    const available = current.filter((p) => isPodAvailable(p, minReady, now));
    const next: Obj = {
      replicas: current.length,
      fullyLabeledReplicas: current.filter((p) => Object.entries(labels).every(([k, v]) => p.metadata?.labels?.[k] === v)).length,
      readyReplicas: ready.length,
      availableReplicas: available.length,
      observedGeneration: owner.metadata!.generation,
    };
    const failure = (status(owner).conditions as Obj[] | undefined)?.filter((c) => c.type === 'ReplicaFailure');
    if (failure?.length) next.conditions = failure;
    await this.ctx.writer.mutate(this.group, this.plural, ns, name, (o) => {
      const cur: Obj = (o['status'] as Obj) ?? {};
      const merged = { ...cur, ...next };
      for (const k of ['readyReplicas', 'availableReplicas', 'fullyLabeledReplicas']) if (!merged[k]) delete merged[k];
      if (JSON.stringify(merged) === JSON.stringify(cur)) return false;
      o['status'] = merged;
      return true;
    }, { subresource: 'status', uid });
    // pods ready but not yet available: look again when minReadySeconds has passed
    if (minReady > 0 && ready.length > available.length) this.enqueueAfter(ns, name, minReady * 1000 + 50);
  }

  /** Adopts matching orphans and releases owned pods that no longer match (upstream's ControllerRefManager). */
  private async claimPods(owner: KubeObject, selector: unknown): Promise<KubeObject[]> {
    const uid = owner.metadata!.uid!;
    const ns = owner.metadata?.namespace;
    const out: KubeObject[] = [];
    const writes: Promise<KubeObject | undefined>[] = [];
    for (const p of this.ctx.cache.ownedBy(uid, 'core/pods')) {
      if (selectorMatches(selector, p.metadata?.labels ?? {})) out.push(p);
      else if (!owner.metadata?.deletionTimestamp)
        writes.push(
          this.ctx.writer.mutate('', 'pods', ns, p.metadata!.name!, (o) => {
            o.metadata!.ownerReferences = (o.metadata!.ownerReferences ?? []).filter((r) => r.uid !== uid);
            if (o.metadata!.ownerReferences.length === 0) delete o.metadata!.ownerReferences;
            return true;
          }, { uid: p.metadata!.uid, patch: true }),
        );
    }
    if (!owner.metadata?.deletionTimestamp && !isEmptySelector(selector)) {
      for (const p of this.ctx.cache.orphans('core/pods', ns)) {
        if (controllerRef(p) || p.metadata?.deletionTimestamp || !selectorMatches(selector, p.metadata?.labels ?? {})) continue;
        writes.push(
          this.ctx.writer.mutate('', 'pods', ns, p.metadata!.name!, (o) => {
            if (controllerRef(o)) return false;
            o.metadata!.ownerReferences = [...(o.metadata!.ownerReferences ?? []), ownerRefTo(owner)];
            return true;
          }, { uid: p.metadata!.uid, patch: true }),
        );
        out.push(p);
      }
    }
    if (writes.length) await settle(this.ctx, await Promise.all(writes.map((w) => w.catch(() => undefined))));
    return out;
  }

  private async createPods(owner: KubeObject, n: number): Promise<void> {
    const template = spec(owner).template ?? {};
    const results = await Promise.all(
      Array.from({ length: n }, () =>
        this.ctx.writer.create('', 'pods', owner.metadata!.namespace, podFromTemplate(template, owner)).then(
          (pod) => {
            this.ctx.events.event(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata!.name}`);
            return pod;
          },
          (e: Error) => {
            // as upstream's: a FailedCreate Event and the error in the log (a 403 when the controller's role is gone)
            this.ctx.log(`${this.name}: ${owner.metadata!.namespace}/${owner.metadata!.name}: error creating pod: ${e.message}`);
            this.ctx.events.event(owner, 'Warning', 'FailedCreate', `Error creating: ${e.message}`);
            return undefined;
          },
        ),
      ),
    );
    await settle(this.ctx, results);
  }

  private async deletePods(owner: KubeObject, active: KubeObject[], n: number): Promise<void> {
    const victims = [...active].sort(deletionRank).slice(0, n);
    const results = await Promise.all(
      victims.map(async (p) => {
        const last = await this.ctx.writer.delete('', 'pods', p.metadata!.namespace, p.metadata!.name!, { preconditions: { uid: p.metadata!.uid } });
        this.ctx.events.event(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata!.name}`);
        return last;
      }),
    );
    // graceful deletes leave the pods terminating: the next sync must see that
    await settle(this.ctx, results);
  }
}

function isEmptySelector(sel: unknown): boolean {
  const s = (sel ?? {}) as Obj;
  return Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;
}

/** upstream's ActivePods ordering: unassigned < assigned, pending < unknown < running, not ready < ready, newer first. */
export function deletionRank(a: KubeObject, b: KubeObject): number {
  const assigned = (p: KubeObject) => (spec(p).nodeName ? 1 : 0);
  const phase = (p: KubeObject) => ({ Pending: 0, Unknown: 1, Running: 2 } as Record<string, number>)[status(p).phase as string] ?? 0;
  const ready = (p: KubeObject) => (isPodReady(p) ? 1 : 0);
  return (
    assigned(a) - assigned(b) ||
    phase(a) - phase(b) ||
    ready(a) - ready(b) ||
    Date.parse(b.metadata?.creationTimestamp ?? '') - Date.parse(a.metadata?.creationTimestamp ?? '')
  );
}
