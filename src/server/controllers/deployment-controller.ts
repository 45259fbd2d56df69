// Deployment controller, as upstream's pkg/controller/deployment: one ReplicaSet per pod template (named and
// labelled by the template's `pod-template-hash`, numbered by `deployment.kubernetes.io/revision`), RollingUpdate
// within maxSurge/maxUnavailable or Recreate, `paused`, revisionHistoryLimit cleanup, and status with the
// Available and Progressing conditions (upstream reasons, progressDeadlineSeconds).
import { selectorMatches } from '../registry/builtin-helpers.js';
import { nowTimestamp } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import { controllerRef } from './cluster-cache.js';
import { condition, intOr, ownerRefTo, scaledValue, setCondition, spec, stableJson, status, templateHash } from './pod-util.js';
import { Reconciler, settle, splitKey, type ClusterContext } from './reconciler.js';

type Obj = Record<string, any>;

export const REVISION = 'deployment.kubernetes.io/revision';
const DESIRED = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
const HASH_LABEL = 'pod-template-hash';
/** Deployment annotations a ReplicaSet does not copy (upstream's skipCopyAnnotation). */
const NOT_COPIED = new Set(['kubectl.kubernetes.io/last-applied-configuration', REVISION, 'deployment.kubernetes.io/revision-history', DESIRED, MAX_REPLICAS, 'deprecated.deployment.rollback.to']);

const revisionOf = (rs: KubeObject): number => Number(rs.metadata?.annotations?.[REVISION] ?? 0) || 0;
const replicasOf = (rs: KubeObject): number => intOr(spec(rs).replicas, 0);

/** Nulls dropped: Go's zero values (`creationTimestamp: null`) equal absent fields, as in upstream's comparison. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
}

/** templateKey of each (immutable, shared) cached template: a Deployment's sync compared every ReplicaSet's anew. */
const templateKeys = new WeakMap<object, string>();

/** The template without the pod-template-hash label, for equality with the Deployment's template (EqualIgnoreHash). */
function templateKey(t: unknown): string {
  if (t === null || typeof t !== 'object') return templateKeyOf(t);
  let k = templateKeys.get(t);
  if (k === undefined) templateKeys.set(t, (k = templateKeyOf(t)));
  return k;
}

function templateKeyOf(t: unknown): string {
  const c = dropNulls(t ?? {}) as Obj;
  if (c.metadata?.labels) {
    delete c.metadata.labels[HASH_LABEL];
    if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels;
  }
  return stableJson(c);
}

export class DeploymentController extends Reconciler {
  constructor(ctx: ClusterContext) {
    super('deployment-controller', ctx);
    ctx.cache.on('apps/deployments', ({ obj }) => this.enqueue(obj.metadata?.namespace, obj.metadata?.name));
    ctx.cache.on('apps/replicasets', ({ obj, prev }) => {
      for (const rs of prev ? [obj, prev] : [obj]) {
        const ref = controllerRef(rs);
        if (ref?.kind === 'Deployment') this.enqueue(rs.metadata?.namespace, ref.name);
      }
    });
    // Recreate waits for the old pods to be gone (upstream's deletePod handler)
    ctx.cache.on('core/pods', ({ type, obj }) => {
      const rsRef = type === 'delete' ? controllerRef(obj) : undefined;
      if (rsRef?.kind !== 'ReplicaSet') return;
      const dRef = controllerRef(ctx.cache.get('apps/replicasets', obj.metadata?.namespace, rsRef.name) ?? {});
      if (dRef?.kind === 'Deployment') this.enqueue(obj.metadata?.namespace, dRef.name);
    });
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const d = this.ctx.cache.get('apps/deployments', ns, name);
    if (!d) return;
    const uid = d.metadata!.uid!;
    const all = this.ctx.cache.ownedBy(uid, 'apps/replicasets').filter((rs) => selectorMatches(spec(d).selector, rs.metadata?.labels ?? {}));
    if (d.metadata?.deletionTimestamp) return this.writeStatus(d, all, undefined, false);
    const tkey = templateKey(spec(d).template);
    let newRS: KubeObject | undefined = all.filter((rs) => templateKey(spec(rs).template) === tkey).sort((a, b) => a.metadata!.creationTimestamp!.localeCompare(b.metadata!.creationTimestamp!))[0];
    const old = all.filter((rs) => rs !== newRS);
    const paused = spec(d).paused === true;
    let created = false;
    if (!paused) {
      const maxOld = Math.max(0, ...old.map(revisionOf));
      if (!newRS) {
        newRS = await this.createNewRS(d, all, maxOld + 1);
        created = newRS !== undefined;
      } else if (revisionOf(newRS) <= maxOld || this.annotationsStale(d, newRS)) {
        // a rollback to an older template makes its ReplicaSet the newest revision again
        const rev = revisionOf(newRS) <= maxOld ? maxOld + 1 : revisionOf(newRS);
        const cur: KubeObject = newRS;
        newRS = (await this.ctx.writer.mutate('apps', 'replicasets', ns, cur.metadata!.name!, (o) => this.stampAnnotations(d, o, rev), { uid: cur.metadata!.uid })) ?? cur;
      }
      const rev = newRS ? revisionOf(newRS) : 0;
      if (rev && d.metadata?.annotations?.[REVISION] !== String(rev)) {
        await this.ctx.writer.mutate('apps', 'deployments', ns, name, (o) => {
          o.metadata!.annotations = { ...(o.metadata!.annotations ?? {}), [REVISION]: String(rev) };
          return true;
        }, { uid });
      }
      if (newRS) {
        const strategy = spec(d).strategy?.type === 'Recreate' ? 'Recreate' : 'RollingUpdate';
        if (strategy === 'Recreate') await this.recreate(d, newRS, old);
        else await this.rolling(d, newRS, old);
      }
      await this.cleanup(d, old);
    } else if (newRS) {
      // paused: only proportional scaling of the current ReplicaSet to the desired replicas
      const want = intOr(spec(d).replicas, 1);
      if (old.every((rs) => replicasOf(rs) === 0) && replicasOf(newRS) !== want) await this.scale(d, newRS, want);
    }
    const latest = newRS ? (this.ctx.cache.get('apps/replicasets', ns, newRS.metadata!.name!) ?? newRS) : undefined;
    const fresh = this.ctx.cache.ownedBy(uid, 'apps/replicasets');
    await this.writeStatus(d, fresh, latest, created);
  }

  private annotationsStale(d: KubeObject, rs: KubeObject): boolean {
    const a = rs.metadata?.annotations ?? {};
    return a[DESIRED] !== String(intOr(spec(d).replicas, 1));
  }

  private stampAnnotations(d: KubeObject, rs: KubeObject, rev: number): boolean {
    const want = intOr(spec(d).replicas, 1);
    const surge = this.isRolling(d) ? scaledValue(spec(d).strategy?.rollingUpdate?.maxSurge, want, true, Math.ceil(want * 0.25)) : 0;
    const a: Record<string, string> = { ...(rs.metadata!.annotations ?? {}) };
    for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) if (!NOT_COPIED.has(k)) a[k] = v;
    a[REVISION] = String(rev);
    a[DESIRED] = String(want);
    a[MAX_REPLICAS] = String(want + surge);
    if (stableJson(a) === stableJson(rs.metadata!.annotations ?? {})) return false;
    rs.metadata!.annotations = a;
    return true;
  }

  private isRolling(d: KubeObject): boolean {
    return spec(d).strategy?.type !== 'Recreate';
  }

  private async createNewRS(d: KubeObject, all: KubeObject[], rev: number): Promise<KubeObject | undefined> {
    const collisions = intOr(status(d).collisionCount, 0);
    const template = structuredClone(spec(d).template ?? {});
    const hash = templateHash(template, collisions);
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [HASH_LABEL]: hash } };
    const want = intOr(spec(d).replicas, 1);
    const total = all.reduce((n, rs) => n + replicasOf(rs), 0);
    let replicas = 0;
    if (this.isRolling(d)) {
      const surge = scaledValue(spec(d).strategy?.rollingUpdate?.maxSurge, want, true, Math.ceil(want * 0.25));
      replicas = total === 0 ? want : Math.max(0, Math.min(want + surge - total, want));
    } else if (all.every((rs) => replicasOf(rs) === 0 && !intOr(status(rs).replicas, 0))) replicas = want;
    const sel = structuredClone(spec(d).selector ?? {});
    sel.matchLabels = { ...(sel.matchLabels ?? {}), [HASH_LABEL]: hash };
    const rs: KubeObject = {
      metadata: {
        name: `${d.metadata!.name}-${hash}`,
        namespace: d.metadata!.namespace,
        labels: { ...(template.metadata.labels ?? {}) },
        annotations: {},
        ownerReferences: [ownerRefTo(d)],
      },
      spec: { replicas, minReadySeconds: intOr(spec(d).minReadySeconds, 0), selector: sel, template },
    };
    this.stampAnnotations(d, rs, rev);
    try {
      const created = await this.ctx.writer.create('apps', 'replicasets', d.metadata!.namespace, rs);
      await settle(this.ctx, [created]);
      if (replicas > 0) this.ctx.events.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata!.name} from 0 to ${replicas}`);
      return created;
    } catch (e) {
      const existing = this.ctx.cache.get('apps/replicasets', d.metadata!.namespace, rs.metadata!.name!);
      if (existing && controllerRef(existing)?.uid === d.metadata!.uid) return existing;
      // a hash collision with someone else's ReplicaSet: bump collisionCount and try again on the next sync
      await this.ctx.writer.mutate('apps', 'deployments', d.metadata!.namespace, d.metadata!.name!, (o) => {
        const st: Obj = ((o['status'] as Obj) ??= {});
        st.collisionCount = intOr(st.collisionCount, 0) + 1;
        return true;
      }, { subresource: 'status', uid: d.metadata!.uid });
      throw e;
    }
  }

  private async scale(d: KubeObject, rs: KubeObject, to: number): Promise<KubeObject | undefined> {
    const from = replicasOf(rs);
    if (from === to) return rs;
    const updated = await this.ctx.writer.mutate('apps', 'replicasets', rs.metadata!.namespace, rs.metadata!.name!, (o) => {
      (o['spec'] as Obj).replicas = to;
      this.stampAnnotations(d, o, revisionOf(o));
      return true;
    }, { uid: rs.metadata!.uid });
    if (updated) {
      await settle(this.ctx, [updated]);
      this.ctx.events.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata!.name} from ${from} to ${to}`);
    }
    return updated;
  }

  private async recreate(d: KubeObject, newRS: KubeObject, old: KubeObject[]): Promise<void> {
    for (const rs of old) if (replicasOf(rs) > 0) await this.scale(d, rs, 0);
    const oldPodsRunning = old.some((rs) => this.ctx.cache.ownedBy(rs.metadata!.uid, 'core/pods').length > 0);
    if (oldPodsRunning) return;
    await this.scale(d, newRS, intOr(spec(d).replicas, 1));
  }

  private async rolling(d: KubeObject, newRS: KubeObject, old: KubeObject[]): Promise<void> {
    const want = intOr(spec(d).replicas, 1);
    const ru: Obj = spec(d).strategy?.rollingUpdate ?? {};
    let surge = scaledValue(ru.maxSurge, want, true, Math.ceil(want * 0.25));
    let unavailable = scaledValue(ru.maxUnavailable, want, false, Math.floor(want * 0.25));
    if (surge === 0 && unavailable === 0) unavailable = 1; // upstream's ResolveFenceposts
    if (unavailable > want) unavailable = want;
    surge = Math.max(surge, 0);
    // scale up the new ReplicaSet within maxSurge
    const all = [newRS, ...old];
    const total = all.reduce((n, rs) => n + replicasOf(rs), 0);
    if (replicasOf(newRS) < want) {
      const up = Math.min(want + surge - total, want - replicasOf(newRS));
      if (up > 0) return void (await this.scale(d, newRS, replicasOf(newRS) + up));
    } else if (replicasOf(newRS) > want) return void (await this.scale(d, newRS, want));
    // scale down old ReplicaSets within maxUnavailable
    const minAvailable = want - unavailable;
    const newUnavailable = replicasOf(newRS) - intOr(status(newRS).availableReplicas, 0);
    const maxScaledDown = total - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return;
    const oldest = [...old].filter((rs) => replicasOf(rs) > 0).sort((a, b) => a.metadata!.creationTimestamp!.localeCompare(b.metadata!.creationTimestamp!));
    let done = 0;
    // first the unhealthy old replicas (they count for nothing)
    for (const rs of oldest) {
      if (done >= maxScaledDown) break;
      const unhealthy = replicasOf(rs) - intOr(status(rs).availableReplicas, 0);
      if (unhealthy <= 0) continue;
      const by = Math.min(maxScaledDown - done, unhealthy);
      await this.scale(d, rs, replicasOf(rs) - by);
      rs['spec'] = { ...spec(rs), replicas: replicasOf(rs) - by };
      done += by;
    }
    const availableTotal = all.reduce((n, rs) => n + intOr(status(rs).availableReplicas, 0), 0);
    if (availableTotal <= minAvailable) return;
    let budget = availableTotal - minAvailable;
    for (const rs of oldest) {
      if (budget <= 0) break;
      const by = Math.min(replicasOf(rs), budget);
      if (by <= 0) continue;
      await this.scale(d, rs, replicasOf(rs) - by);
      budget -= by;
    }
  }

  /** Deletes the oldest fully scaled-down ReplicaSets beyond revisionHistoryLimit (default 10). */
  private async cleanup(d: KubeObject, old: KubeObject[]): Promise<void> {
    const limit = intOr(spec(d).revisionHistoryLimit, 10);
    const idle = old.filter((rs) => replicasOf(rs) === 0 && !intOr(status(rs).replicas, 0) && !rs.metadata?.deletionTimestamp).sort((a, b) => revisionOf(a) - revisionOf(b));
    for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) await this.ctx.writer.delete('apps', 'replicasets', rs.metadata!.namespace, rs.metadata!.name!, { preconditions: { uid: rs.metadata!.uid } });
  }

  private async writeStatus(d: KubeObject, all: KubeObject[], newRS: KubeObject | undefined, created: boolean): Promise<void> {
    const want = intOr(spec(d).replicas, 1);
    const sum = (f: string) => all.reduce((n, rs) => n + intOr(status(rs)[f], 0), 0);
    const available = sum('availableReplicas');
    const counts: Obj = {
      observedGeneration: d.metadata!.generation,
      replicas: sum('replicas'),
      updatedReplicas: newRS ? intOr(status(newRS).replicas, 0) : 0,
      readyReplicas: sum('readyReplicas'),
      availableReplicas: available,
      unavailableReplicas: Math.max(want - available, 0),
    };
    const unavail = this.isRolling(d) ? Math.min(scaledValue(spec(d).strategy?.rollingUpdate?.maxUnavailable, want, false, Math.floor(want * 0.25)), want) : 0;
    const deadline = intOr(spec(d).progressDeadlineSeconds, 600);
    const now = nowTimestamp();
    const complete = newRS !== undefined && counts.updatedReplicas === want && counts.replicas === want && available === want && intOr(spec(newRS).replicas, 0) === want;
    const rsName = newRS?.metadata?.name;
    let recheck: number | undefined;
    await this.ctx.writer.mutate('apps', 'deployments', d.metadata!.namespace, d.metadata!.name!, (o) => {
      const cur: Obj = (o['status'] as Obj) ?? {};
      const next: Obj = { ...cur, ...counts };
      for (const k of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']) if (!next[k]) delete next[k];
      let conds = setCondition(cur.conditions, available >= want - unavail
        ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
        : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' }, now, { update: true });
      const prog = condition(o, 'Progressing');
      const progressed = stableJson(counts) !== stableJson(Object.fromEntries(Object.keys(counts).map((k) => [k, cur[k] ?? 0])));
      if (spec(o).paused === true) conds = setCondition(conds, { type: 'Progressing', status: 'Unknown', reason: 'DeploymentPaused', message: 'Deployment is paused' }, now, { update: true });
      else if (complete) conds = setCondition(conds, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsName}" has successfully progressed.` }, now, { update: true });
      else if (created) conds = setCondition(conds, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated', message: `Created new replica set "${rsName}"` }, now, { update: true });
      else if (rsName && (progressed || prog?.reason === 'DeploymentPaused' || !prog || prog.reason === 'NewReplicaSetAvailable')) conds = setCondition(conds, { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${rsName}" is progressing.` }, now, { update: true });
      else if (rsName && prog?.status === 'True' && deadline > 0) {
        const since = Date.parse(prog.lastUpdateTime ?? prog.lastTransitionTime ?? '');
        if (Number.isFinite(since) && since + deadline * 1000 <= this.ctx.now())
          conds = setCondition(conds, { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rsName}" has timed out progressing.` }, now, { update: true });
        else if (Number.isFinite(since)) recheck = since + deadline * 1000 - this.ctx.now() + 50;
      }
      // Available before Progressing as upstream lists them? upstream appends in the order they were first set
      next.conditions = conds;
      if (stableJson(next) === stableJson(cur)) return false;
      o['status'] = next;
      return true;
    }, { subresource: 'status', uid: d.metadata!.uid });
    if (recheck !== undefined) this.enqueueAfter(d.metadata!.namespace, d.metadata!.name, Math.min(recheck, 2 ** 31 - 1));
  }
}
