// StatefulSet controller, as upstream's pkg/controller/statefulset: pods `<name>-<ordinal>` with stable hostnames,
// PersistentVolumeClaims `<template>-<name>-<ordinal>` from volumeClaimTemplates (created before their pod, kept
// after it), OrderedReady (one ordinal at a time, each Running and Ready before the next) or Parallel pod
// management, scale-down from the highest ordinal, and RollingUpdate (highest ordinal first, down to `partition`)
// or OnDelete; revisions are named `<name>-<template hash>` in currentRevision/updateRevision.
import type { KubeObject } from '../registry/types.js';
import { controllerRef } from './cluster-cache.js';
import { REVISION_HASH_LABEL } from './daemonset-controller.js';
import { REVISIONS_KIND, syncRevisions } from './controller-history.js';
import { intOr, isPodActive, isPodAvailable, isPodReady, podFromTemplate, spec, status, templateHash } from './pod-util.js';
import { Reconciler, settle, splitKey, type ClusterContext } from './reconciler.js';

type Obj = Record<string, any>;

const ordinalOf = (sts: KubeObject, p: KubeObject): number => {
  const m = new RegExp(`^${sts.metadata!.name!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d+)$`).exec(p.metadata?.name ?? '');
  return m ? Number(m[1]) : -1;
};

export class StatefulSetController extends Reconciler {
  constructor(ctx: ClusterContext) {
    super('statefulset-controller', ctx);
    ctx.cache.on('apps/statefulsets', ({ obj }) => this.enqueue(obj.metadata?.namespace, obj.metadata?.name));
    ctx.cache.on('core/persistentvolumeclaims');
    ctx.cache.on(REVISIONS_KIND);
    ctx.cache.on('core/pods', ({ obj }) => {
      const ref = controllerRef(obj);
      if (ref?.kind === 'StatefulSet') this.enqueue(obj.metadata?.namespace, ref.name);
    });
  }

  private pod(sts: KubeObject, ordinal: number, hash: string): KubeObject {
    const name = `${sts.metadata!.name}-${ordinal}`;
    const p = podFromTemplate(spec(sts).template ?? {}, sts, {
      name,
      labels: { [REVISION_HASH_LABEL]: `${sts.metadata!.name}-${hash}`, 'statefulset.kubernetes.io/pod-name': name, 'apps.kubernetes.io/pod-index': String(ordinal) },
    });
    const ps = p['spec'] as Obj;
    ps.hostname = name;
    if (spec(sts).serviceName) ps.subdomain = spec(sts).serviceName;
    const claims = (spec(sts).volumeClaimTemplates as Obj[] | undefined) ?? [];
    if (claims.length) {
      const vols = ((ps.volumes as Obj[] | undefined) ?? []).filter((v) => !claims.some((c) => c.metadata?.name === v.name));
      for (const c of claims) vols.push({ name: c.metadata?.name, persistentVolumeClaim: { claimName: `${c.metadata?.name}-${name}` } });
      ps.volumes = vols;
    }
    return p;
  }

  /** The pod's claims, created when missing (upstream keeps them after the pod; retention policy Retain). */
  private async claims(sts: KubeObject, podName: string): Promise<void> {
    const ns = sts.metadata!.namespace;
    for (const c of (spec(sts).volumeClaimTemplates as Obj[] | undefined) ?? []) {
      const name = `${c.metadata?.name}-${podName}`;
      if (this.ctx.cache.get('core/persistentvolumeclaims', ns, name)) continue;
      try {
        const pvc = await this.ctx.writer.create('', 'persistentvolumeclaims', ns, {
          metadata: { name, namespace: ns, labels: { ...(spec(sts).selector?.matchLabels ?? {}) } },
          spec: structuredClone(c.spec ?? {}),
        });
        await settle(this.ctx, [pvc]);
        this.ctx.events.event(sts, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${podName} in StatefulSet ${sts.metadata!.name} success`);
      } catch (e) {
        if ((e as { code?: number }).code === 409) continue;
        this.ctx.events.event(sts, 'Warning', 'FailedCreate', `create Claim ${name} for Pod ${podName} in StatefulSet ${sts.metadata!.name} failed error: ${(e as Error).message}`);
        throw e;
      }
    }
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const sts = this.ctx.cache.get('apps/statefulsets', ns, name);
    if (!sts || sts.metadata?.deletionTimestamp) return;
    const s = spec(sts);
    const replicas = intOr(s.replicas, 1);
    const hash = templateHash(s.template);
    const updateRevision = `${name}-${hash}`;
    const parallel = s.podManagementPolicy === 'Parallel';
    const minReady = intOr(s.minReadySeconds, 0);
    const now = this.ctx.now();
    const prevCurrent = String(status(sts).currentRevision ?? '').slice(name.length + 1);
    await syncRevisions(this.ctx, sts, hash, prevCurrent ? [prevCurrent] : []);
    const all = this.ctx.cache.ownedBy(sts.metadata!.uid, 'core/pods');
    const byOrdinal = new Map<number, KubeObject>();
    for (const p of all) byOrdinal.set(ordinalOf(sts, p), p);
    const healthy = (p: KubeObject | undefined) => !!p && isPodActive(p) && status(p).phase === 'Running' && isPodReady(p);
    // scale up: create missing ordinals in order (OrderedReady waits for each to be Running and Ready)
    const written: (KubeObject | undefined)[] = [];
    for (let i = 0; i < replicas; i++) {
      const p = byOrdinal.get(i);
      if (p && (status(p).phase === 'Failed' || status(p).phase === 'Succeeded') && !p.metadata?.deletionTimestamp) {
        // a failed pod is recreated under its identity
        written.push(await this.ctx.writer.delete('', 'pods', ns, p.metadata!.name!, { gracePeriodSeconds: 0, preconditions: { uid: p.metadata!.uid } }));
        if (!parallel) break;
        continue;
      }
      if (!p) {
        const podName = `${name}-${i}`;
        await this.claims(sts, podName);
        try {
          written.push(await this.ctx.writer.create('', 'pods', ns, this.pod(sts, i, hash)));
          this.ctx.events.event(sts, 'Normal', 'SuccessfulCreate', `create Pod ${podName} in StatefulSet ${name} successful`);
        } catch (e) {
          if ((e as { code?: number }).code !== 409) throw e;
        }
        if (!parallel) break;
        continue;
      }
      if (!parallel && !healthy(p)) break;
    }
    // scale down from the highest ordinal (OrderedReady: one at a time, once the others are healthy)
    const extra = [...byOrdinal.entries()].filter(([i, p]) => (i >= replicas || i < 0) && !p.metadata?.deletionTimestamp).sort((a, b) => b[0] - a[0]);
    const terminating = all.some((p) => p.metadata?.deletionTimestamp);
    for (const [, p] of extra) {
      if (!parallel && terminating) break;
      written.push(await this.ctx.writer.delete('', 'pods', ns, p.metadata!.name!, { preconditions: { uid: p.metadata!.uid } }));
      this.ctx.events.event(sts, 'Normal', 'SuccessfulDelete', `delete Pod ${p.metadata!.name} in StatefulSet ${name} successful`);
      if (!parallel) break;
    }
    // rolling update: highest ordinal first, down to the partition, one pod at a time
    const rolling = (s.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    const partition = intOr(s.updateStrategy?.rollingUpdate?.partition, 0);
    if (rolling && extra.length === 0 && !terminating) {
      const inRange = [...byOrdinal.entries()].filter(([i]) => i >= 0 && i < replicas).sort((a, b) => b[0] - a[0]);
      const allHealthy = inRange.length === replicas && inRange.every(([, p]) => healthy(p));
      if (allHealthy)
        for (const [i, p] of inRange) {
          if (i < partition || p.metadata?.labels?.[REVISION_HASH_LABEL] === updateRevision) continue;
          written.push(await this.ctx.writer.delete('', 'pods', ns, p.metadata!.name!, { preconditions: { uid: p.metadata!.uid } }));
          this.ctx.events.event(sts, 'Normal', 'SuccessfulDelete', `delete Pod ${p.metadata!.name} in StatefulSet ${name} successful`);
          break;
        }
    }
    await settle(this.ctx, written);
    const pods = this.ctx.cache.ownedBy(sts.metadata!.uid, 'core/pods').filter((p) => isPodActive(p) && ordinalOf(sts, p) >= 0);
    const updated = pods.filter((p) => p.metadata?.labels?.[REVISION_HASH_LABEL] === updateRevision).length;
    const prev: Obj = status(sts);
    const currentRevision = !prev.currentRevision || (updated === replicas && pods.length === replicas) ? updateRevision : prev.currentRevision;
    const st: Obj = {
      observedGeneration: sts.metadata!.generation,
      replicas: pods.length,
      readyReplicas: pods.filter(isPodReady).length,
      availableReplicas: pods.filter((p) => isPodAvailable(p, minReady, now)).length,
      currentReplicas: pods.filter((p) => p.metadata?.labels?.[REVISION_HASH_LABEL] === currentRevision).length,
      updatedReplicas: updated,
      currentRevision,
      updateRevision,
      collisionCount: intOr(prev.collisionCount, 0),
    };
    await this.ctx.writer.mutate('apps', 'statefulsets', ns, name, (o) => {
      const cur: Obj = (o['status'] as Obj) ?? {};
      const next: Obj = { ...cur, ...st };
      for (const k of ['readyReplicas', 'currentReplicas', 'updatedReplicas']) if (!next[k]) delete next[k];
      if (JSON.stringify(next) === JSON.stringify(cur)) return false;
      o['status'] = next;
      return true;
    }, { subresource: 'status', uid: sts.metadata!.uid });
    if (minReady > 0 && st.readyReplicas > st.availableReplicas) this.enqueueAfter(ns, name, minReady * 1000 + 50);
  }
}
