// DaemonSet controller, as upstream's pkg/controller/daemon: one pod per eligible node (nodeSelector, required
// node affinity, taints against the pod's tolerations plus the ones upstream adds to daemon pods), placed by
// the scheduler through node affinity on metadata.name; RollingUpdate within maxUnavailable or OnDelete; status
// counts as `kubectl get ds` and `kubectl rollout status ds` read them.
import type { KubeObject } from '../registry/types.js';
import { controllerRef } from './cluster-cache.js';
import { intOr, isPodActive, isPodAvailable, isPodReady, podFromTemplate, scaledValue, spec, templateHash } from './pod-util.js';
import { Reconciler, settle, splitKey, type ClusterContext } from './reconciler.js';
import { unfit } from './scheduler.js';
import { REVISIONS_KIND, syncRevisions } from './controller-history.js';

type Obj = Record<string, any>;

export const REVISION_HASH_LABEL = 'controller-revision-hash';

/** Tolerations upstream's daemon controller adds to every daemon pod (util.AddOrUpdateDaemonPodTolerations). */
const DAEMON_TOLERATIONS = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

export class DaemonSetController extends Reconciler {
  constructor(ctx: ClusterContext) {
    super('daemonset-controller', ctx);
    ctx.cache.on('apps/daemonsets', ({ obj }) => this.enqueue(obj.metadata?.namespace, obj.metadata?.name));
    ctx.cache.on('core/pods', ({ obj }) => {
      const ref = controllerRef(obj);
      if (ref?.kind === 'DaemonSet') this.enqueue(obj.metadata?.namespace, ref.name);
    });
    ctx.cache.on(REVISIONS_KIND);
    ctx.cache.on('core/nodes', () => {
      for (const ds of ctx.cache.list('apps/daemonsets')) this.enqueue(ds.metadata?.namespace, ds.metadata?.name);
    });
  }

  private podTemplate(ds: KubeObject, hash: string, node: string): Obj {
    const t = structuredClone(spec(ds).template ?? {});
    t.metadata = { ...(t.metadata ?? {}), labels: { ...(t.metadata?.labels ?? {}), [REVISION_HASH_LABEL]: hash, 'pod-template-generation': String(ds.metadata!.generation ?? 1) } };
    const ps: Obj = (t.spec ??= {});
    ps.tolerations = [...(ps.tolerations ?? []), ...DAEMON_TOLERATIONS.filter((d) => !(ps.tolerations ?? []).some((x: Obj) => x.key === d.key && x.effect === d.effect))];
    // upstream pins daemon pods with required node affinity on the node's name; the scheduler binds them
    ps.affinity = { ...(ps.affinity ?? {}), nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } };
    return t;
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const ds = this.ctx.cache.get('apps/daemonsets', ns, name);
    if (!ds || ds.metadata?.deletionTimestamp) return;
    const hash = templateHash(spec(ds).template);
    const pods = this.ctx.cache.ownedBy(ds.metadata!.uid, 'core/pods').filter(isPodActive);
    await syncRevisions(this.ctx, ds, hash, [...new Set(pods.map((p) => p.metadata?.labels?.[REVISION_HASH_LABEL] ?? ''))].filter(Boolean));
    const byNode = new Map<string, KubeObject[]>();
    for (const p of pods) {
      const node = (spec(p).nodeName as string | undefined) ?? spec(p).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0];
      if (!node) continue;
      byNode.set(node, [...(byNode.get(node) ?? []), p]);
    }
    // which nodes should run a daemon pod: the scheduler's predicates, resources aside (upstream's NodeShouldRunDaemonPod)
    const probe = { metadata: {}, spec: { ...this.podTemplate(ds, hash, '').spec, affinity: spec(ds).template?.spec?.affinity } } as KubeObject;
    const nodes = this.ctx.cache.list('core/nodes').filter((n) => {
      const why = unfit(probe, n, { cpu: 0, memory: 0, pods: 0 });
      return !why || why.startsWith('Insufficient') || why === 'Too many pods' || why.includes('not-ready');
    });
    const eligible = new Set(nodes.map((n) => n.metadata!.name!));
    const creates: Promise<KubeObject | undefined>[] = [];
    const deletes: KubeObject[] = [];
    for (const n of eligible) {
      const here = byNode.get(n) ?? [];
      if (here.length === 0)
        creates.push(
          this.ctx.writer.create('', 'pods', ns, podFromTemplate(this.podTemplate(ds, hash, n), ds)).then(
            (p) => (this.ctx.events.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${p.metadata!.name}`), p),
            (e: Error) => (this.ctx.events.event(ds, 'Warning', 'FailedCreate', `Error creating: ${e.message}`), undefined),
          ),
        );
      else if (here.length > 1) deletes.push(...here.slice(1));
    }
    for (const [n, here] of byNode) if (!eligible.has(n)) deletes.push(...here);
    // rolling update: replace out-of-date pods, at most maxUnavailable unavailable at once
    const minReady = intOr(spec(ds).minReadySeconds, 0);
    const now = this.ctx.now();
    if ((spec(ds).updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
      const maxUnavailable = Math.max(1, scaledValue(spec(ds).updateStrategy?.rollingUpdate?.maxUnavailable, eligible.size, true, 1));
      let unavailable = [...eligible].filter((n) => !(byNode.get(n) ?? []).some((p) => isPodAvailable(p, minReady, now))).length;
      for (const n of eligible) {
        const p = (byNode.get(n) ?? [])[0];
        if (!p || p.metadata?.labels?.[REVISION_HASH_LABEL] === hash || deletes.includes(p)) continue;
        const avail = isPodAvailable(p, minReady, now);
        if (avail && unavailable >= maxUnavailable) continue;
        if (avail) unavailable++;
        deletes.push(p);
      }
    }
    const written = [...(await Promise.all(creates))];
    for (const p of deletes) {
      written.push(await this.ctx.writer.delete('', 'pods', ns, p.metadata!.name!, { preconditions: { uid: p.metadata!.uid } }));
      this.ctx.events.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata!.name}`);
    }
    await settle(this.ctx, written);
    const current = this.ctx.cache.ownedBy(ds.metadata!.uid, 'core/pods').filter(isPodActive);
    const scheduled = current.filter((p) => spec(p).nodeName && eligible.has(spec(p).nodeName));
    const st: Obj = {
      currentNumberScheduled: scheduled.length,
      numberMisscheduled: current.filter((p) => spec(p).nodeName && !eligible.has(spec(p).nodeName)).length,
      desiredNumberScheduled: eligible.size,
      numberReady: scheduled.filter(isPodReady).length,
      observedGeneration: ds.metadata!.generation,
      updatedNumberScheduled: scheduled.filter((p) => p.metadata?.labels?.[REVISION_HASH_LABEL] === hash).length,
      numberAvailable: scheduled.filter((p) => isPodAvailable(p, minReady, now)).length,
    };
    st.numberUnavailable = Math.max(0, st.desiredNumberScheduled - st.numberAvailable);
    await this.ctx.writer.mutate('apps', 'daemonsets', ns, name, (o) => {
      const cur: Obj = (o['status'] as Obj) ?? {};
      const next: Obj = { ...cur, ...st };
      for (const k of ['numberAvailable', 'numberUnavailable', 'updatedNumberScheduled']) if (!next[k]) delete next[k];
      if (JSON.stringify(next) === JSON.stringify(cur)) return false;
      o['status'] = next;
      return true;
    }, { subresource: 'status', uid: ds.metadata!.uid });
    if (minReady > 0 && st.numberReady > st.numberAvailable) this.enqueueAfter(ns, name, minReady * 1000 + 50);
  }
}

