// The disruption controller (upstream pkg/controller/disruption): keeps each policy/v1 PodDisruptionBudget's status
// current from the pods its selector matches in its namespace, so that the eviction sub-resource can spend
// disruptions. Recomputes on pod, budget and scalable-controller changes; its only memory is an index of the
// budgets' selectors rebuilt from the store, so a restart simply recomputes everything.
//
// Simplifications: no Events (NoPods, UnmanagedPods, NotDeleted, CalculateExpectedPodCountFailed); the stale
// DisruptionTarget pod-condition reset is not done; a pod's controller is resolved through any type with a
// scale sub-resource (a ReplicaSet owned by a Deployment counts as the Deployment), an unknown controller
// kind is treated like a controller that does not exist.
import { StatusError } from '../../api/status.js';
import { toScale } from '../http/rest/scale.js';
import { selectorMatches } from '../registry/builtin-helpers.js';
import { sharedOrDecoded, nowTimestamp, ResourceStore } from '../registry/resource-store.js';
import type { KubeObject, OwnerReference, ResourceType } from '../registry/types.js';
import { typeForOwner, typeForResource, type ControllerDeps } from './controller-support.js';
import { parseKey, type FeedEvent, type FeedItem, type FeedListener } from './object-feed.js';
import { WorkQueue } from './work-queue.js';
import { controllerContext } from './identities.js';
import { updateObject } from '../registry/pipeline/update.js';
import { typePrefix } from '../registry/keys.js';

/** How long a pod evicted through the budget (status.disruptedPods) is expected to take to start terminating. */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

export const DISRUPTION_ALLOWED = 'DisruptionAllowed';
export const SUFFICIENT_PODS = 'SufficientPods';
export const INSUFFICIENT_PODS = 'InsufficientPods';
export const SYNC_FAILED = 'SyncFailed';

type Obj = Record<string, any>;

interface Condition {
  type: string;
  status: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/** A computation failure: the budget is put in the fail-safe state (no disruption allowed) with this message. */
class SyncError extends Error {}

const isPdb = (p: { group: string; plural: string }) => p.group === 'policy' && p.plural === 'poddisruptionbudgets';
const isPod = (p: { group: string; plural: string }) => p.group === '' && p.plural === 'pods';
const specOf = (o: KubeObject | undefined): Obj => ((o?.spec ?? {}) as Obj);

/** upstream LabelSelectorAsSelector for a budget: a null selector matches nothing, an empty one every pod. */
function covers(selector: unknown, pod: KubeObject | undefined): boolean {
  if (!pod || selector === undefined || selector === null) return false;
  return selectorMatches(selector, pod.metadata?.labels ?? {});
}

function isPodReady(pod: KubeObject): boolean {
  const conds = ((pod.status ?? {}) as Obj).conditions;
  return Array.isArray(conds) && conds.some((c: Obj) => c?.type === 'Ready' && c?.status === 'True');
}

const controllerOf = (o: KubeObject): OwnerReference | undefined => (o.metadata?.ownerReferences ?? []).find((r) => r.controller === true);

/** intstr.GetScaledValueFromIntOrPercent with rounding up. */
function scaledValue(v: unknown, total: number): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^[0-9]+%$/.test(v)) return Math.ceil((Number(v.slice(0, -1)) * total) / 100);
  throw new SyncError(`invalid value for IntOrString: invalid value ${JSON.stringify(v)}: not an integer or a percentage`);
}

/** apimeta.SetStatusCondition: lastTransitionTime moves only when the status changes. */
function setCondition(conds: Condition[], want: Condition): void {
  const cur = conds.find((c) => c.type === want.type);
  if (!cur) {
    const c: Condition = { type: want.type, status: want.status, observedGeneration: want.observedGeneration, lastTransitionTime: nowTimestamp(), reason: want.reason, message: want.message };
    if (!c.observedGeneration) delete c.observedGeneration;
    conds.push(c);
    return;
  }
  if (cur.status !== want.status) cur.lastTransitionTime = nowTimestamp();
  cur.status = want.status;
  cur.reason = want.reason;
  cur.message = want.message;
  // omitted when zero, as on the wire upstream
  if (want.observedGeneration) cur.observedGeneration = want.observedGeneration;
  else delete cur.observedGeneration;
}

function allowedCondition(st: Obj): Condition {
  return st.disruptionsAllowed > 0
    ? { type: DISRUPTION_ALLOWED, status: 'True', reason: SUFFICIENT_PODS, message: '', observedGeneration: st.observedGeneration }
    : { type: DISRUPTION_ALLOWED, status: 'False', reason: INSUFFICIENT_PODS, message: '', observedGeneration: st.observedGeneration };
}

/** upstream ConditionsAreUpToDate. */
function conditionsUpToDate(pdb: KubeObject): boolean {
  const st = (pdb.status ?? {}) as Obj;
  const cond = (Array.isArray(st.conditions) ? (st.conditions as Condition[]) : []).find((c) => c.type === DISRUPTION_ALLOWED);
  if (!cond || (st.observedGeneration ?? 0) !== (pdb.metadata?.generation ?? 0)) return false;
  const want = allowedCondition(st);
  return cond.status === want.status && cond.reason === want.reason;
}

function sameDisrupted(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b).length && ak.every((k) => a![k] === b[k]);
}

interface Computed {
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  disruptedPods: Record<string, string>;
  /** When the earliest disrupted pod stops being excused (ms since epoch). */
  recheckAt?: number;
}

export class DisruptionController implements FeedListener {
  /** namespace → budget name → spec.selector */
  private budgets = new Map<string, Map<string, unknown>>();
  private queue: WorkQueue;

  constructor(private deps: ControllerDeps) {
    this.queue = new WorkQueue(
      (key) => this.process(key),
      (key, e) => deps.log(`disruption controller: ${key}: ${(e as Error).message}`),
    );
  }

  onSync(items: FeedItem[]): void {
    this.budgets.clear();
    for (const it of items) {
      const p = parseKey(it.key);
      if (p && isPdb(p) && it.obj) this.index(p.namespace, p.name, it.obj);
    }
    for (const [ns, names] of this.budgets) for (const name of names.keys()) this.queue.add(`${ns}/${name}`);
  }

  onEvent(ev: FeedEvent): void {
    const p = parseKey(ev.key);
    if (!p?.namespace) return;
    if (isPdb(p)) {
      if (ev.type === 'delete' || !ev.obj) this.budgets.get(p.namespace)?.delete(p.name);
      else {
        this.index(p.namespace, p.name, ev.obj);
        this.queue.add(`${p.namespace}/${p.name}`);
      }
      return;
    }
    const here = this.budgets.get(p.namespace);
    if (!here || here.size === 0) return;
    if (isPod(p)) {
      for (const [name, sel] of here)
        if (covers(sel, ev.obj) || (ev.type === 'put' && !ev.created && covers(sel, ev.prev))) this.queue.add(`${p.namespace}/${name}`);
      return;
    }
    // a controller's scale is the expected pod count of percentage and maxUnavailable budgets
    if (typeForResource(this.deps.types, p.group, p.plural)?.subresources.some((s) => s.name === 'scale'))
      for (const name of here.keys()) this.queue.add(`${p.namespace}/${name}`);
  }

  stop(): Promise<void> {
    return this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private index(ns: string, name: string, pdb: KubeObject): void {
    let m = this.budgets.get(ns);
    if (!m) this.budgets.set(ns, (m = new Map()));
    m.set(name, specOf(pdb).selector);
  }

  private async process(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const ns = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const pdbType = typeForResource(this.deps.types, 'policy', 'poddisruptionbudgets');
    if (!pdbType) return;
    const rs = new ResourceStore(pdbType, this.deps.store);
    for (let i = 0; ; i++) {
      let cur;
      try {
        cur = await rs.readShared(ns, name); // read only: the update below writes a copy
      } catch {
        return; // unreadable budget: nothing to maintain
      }
      if (!cur) return;
      const now = Date.now();
      let next: KubeObject | undefined;
      let recheckAt: number | undefined;
      try {
        const c = await this.compute(cur.obj, ns, now);
        recheckAt = c.recheckAt;
        next = withStatus(cur.obj, c);
      } catch (e) {
        if (e instanceof StatusError && e.code === 409) throw e;
        next = failSafe(cur.obj, (e as Error).message);
      }
      if (next) {
        try {
          // UpdateStatus through the write pipeline, as upstream's disruption controller through its client
          await updateObject({ rs, admission: this.deps.admission }, controllerContext(this.deps, 'disruption-controller'), next, cur, 'status');
        } catch (e) {
          if (e instanceof StatusError && e.code === 409 && i < 16) continue;
          if (e instanceof StatusError && e.code === 404) return;
          throw e;
        }
      }
      if (recheckAt !== undefined) this.queue.addAfter(key, Math.max(0, recheckAt - now));
      return;
    }
  }

  private async compute(pdb: KubeObject, ns: string, now: number): Promise<Computed> {
    const pods = await this.podsFor(pdb, ns);
    const { expectedPods, desiredHealthy } = await this.expectedPodCount(pdb, pods, ns);
    const prev = ((pdb.status ?? {}) as Obj).disruptedPods as Record<string, string> | undefined;
    const disruptedPods: Record<string, string> = {};
    let recheckAt: number | undefined;
    // evicted pods stay excused until they start terminating, for at most DELETION_TIMEOUT_MS
    for (const pod of pods) {
      const podName = pod.metadata!.name!;
      const at = prev?.[podName];
      if (pod.metadata?.deletionTimestamp || at === undefined) continue;
      const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
      if (!(expires > now)) continue;
      disruptedPods[podName] = at;
      if (recheckAt === undefined || expires < recheckAt) recheckAt = expires;
    }
    let currentHealthy = 0;
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp || disruptedPods[pod.metadata!.name!] !== undefined) continue;
      if (isPodReady(pod)) currentHealthy++;
    }
    return { currentHealthy, desiredHealthy, expectedPods, disruptedPods, recheckAt };
  }

  private async podsFor(pdb: KubeObject, ns: string): Promise<KubeObject[]> {
    const podType = typeForResource(this.deps.types, '', 'pods');
    const selector = specOf(pdb).selector;
    if (!podType || selector === undefined || selector === null) return [];
    const prefix = new ResourceStore(podType, this.deps.store).prefix(ns);
    const out: KubeObject[] = [];
    let startKey: string | undefined;
    let revision: number | undefined;
    for (;;) {
      const page = await this.deps.store.range({ prefix, startKey, limit: 1000, revision });
      revision = page.revision;
      for (const kv of page.kvs) {
        let pod: KubeObject;
        try {
          pod = sharedOrDecoded(this.deps.store, typePrefix(podType), kv); // read only
        } catch {
          continue;
        }
        if (covers(selector, pod)) out.push(pod);
      }
      if (!page.more || page.kvs.length === 0) return out;
      startKey = page.kvs[page.kvs.length - 1]!.key + '\u0000';
    }
  }

  /** upstream getExpectedPodCount: an integer minAvailable counts the matching pods, anything else the controllers' scale. */
  private async expectedPodCount(pdb: KubeObject, pods: KubeObject[], ns: string): Promise<{ expectedPods: number; desiredHealthy: number }> {
    const spec = specOf(pdb);
    if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
      const expectedPods = await this.expectedScale(pods, ns);
      return { expectedPods, desiredHealthy: Math.max(0, expectedPods - scaledValue(spec.maxUnavailable, expectedPods)) };
    }
    if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
      if (typeof spec.minAvailable === 'number') return { expectedPods: pods.length, desiredHealthy: spec.minAvailable };
      const expectedPods = await this.expectedScale(pods, ns);
      return { expectedPods, desiredHealthy: scaledValue(spec.minAvailable, expectedPods) };
    }
    return { expectedPods: 0, desiredHealthy: 0 };
  }

  /** The sum of the scale of the pods' controllers; pods without a controller do not count (upstream "unmanaged"). */
  private async expectedScale(pods: KubeObject[], ns: string): Promise<number> {
    const scales = new Map<string, number>();
    const seen = new Set<string>();
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref || seen.has(ref.uid)) continue;
      seen.add(ref.uid);
      const found = await this.controllerScale(ref, ns);
      if (!found) throw new SyncError(`found no controllers for pod ${JSON.stringify(pod.metadata!.name)}`);
      scales.set(found.uid, found.replicas);
    }
    let sum = 0;
    for (const n of scales.values()) sum += n;
    return sum;
  }

  private async controllerScale(ref: OwnerReference, ns: string): Promise<{ uid: string; replicas: number } | undefined> {
    const found = await this.readController(ref, ns);
    if (!found) return undefined;
    const { type, obj } = found;
    // a ReplicaSet run by a Deployment is scaled through the Deployment
    if (type.group === 'apps' && type.kind === 'ReplicaSet') {
      const parent = controllerOf(obj);
      if (parent?.kind === 'Deployment') {
        const dep = await this.readController(parent, ns);
        if (dep && dep.type.kind === 'Deployment') return scaleOf(dep.type, dep.obj);
      }
    }
    return scaleOf(type, obj);
  }

  /** The controller an owner reference names, when it exists with that uid and can be scaled. */
  private async readController(ref: OwnerReference, ns: string): Promise<{ type: ResourceType; obj: KubeObject } | undefined> {
    const type = typeForOwner(this.deps.types, ref);
    if (!type || type.scope !== 'Namespaced' || !type.subresources.some((s) => s.name === 'scale')) return undefined;
    const cur = await new ResourceStore(type, this.deps.store).readShared(ns, ref.name);
    if (!cur || cur.obj.metadata?.uid !== ref.uid) return undefined;
    return { type, obj: cur.obj };
  }
}

function scaleOf(type: ResourceType, obj: KubeObject): { uid: string; replicas: number } {
  const replicas = Number(((toScale(type, obj).spec ?? {}) as Obj).replicas ?? 0);
  return { uid: obj.metadata!.uid!, replicas: Number.isFinite(replicas) ? replicas : 0 };
}

/** upstream updatePdbStatus: the budget with its new status, or undefined when it is already current. */
function withStatus(pdb: KubeObject, c: Computed): KubeObject | undefined {
  let disruptionsAllowed = c.currentHealthy - c.desiredHealthy;
  // a budget matching no pods yet must be safe when its first pods appear
  if (c.expectedPods <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
  const st = (pdb.status ?? {}) as Obj;
  const generation = pdb.metadata?.generation ?? 0;
  if (
    st.currentHealthy === c.currentHealthy &&
    st.desiredHealthy === c.desiredHealthy &&
    st.expectedPods === c.expectedPods &&
    st.disruptionsAllowed === disruptionsAllowed &&
    sameDisrupted(st.disruptedPods, c.disruptedPods) &&
    (st.observedGeneration ?? 0) === generation &&
    conditionsUpToDate(pdb)
  )
    return undefined;
  const next = structuredClone(pdb);
  const conditions: Condition[] = Array.isArray(st.conditions) ? structuredClone(st.conditions) : [];
  const status: Obj = { observedGeneration: generation };
  if (Object.keys(c.disruptedPods).length > 0) status.disruptedPods = c.disruptedPods;
  Object.assign(status, { disruptionsAllowed, currentHealthy: c.currentHealthy, desiredHealthy: c.desiredHealthy, expectedPods: c.expectedPods });
  setCondition(conditions, allowedCondition(status));
  status.conditions = conditions;
  next.status = status;
  return next;
}

/** upstream failSafe: no disruption allowed, condition SyncFailed; observedGeneration is left as it was. */
function failSafe(pdb: KubeObject, message: string): KubeObject {
  const next = structuredClone(pdb);
  const st = (next.status ??= {}) as Obj;
  st.disruptionsAllowed = 0;
  st.currentHealthy ??= 0;
  st.desiredHealthy ??= 0;
  st.expectedPods ??= 0;
  const conditions: Condition[] = Array.isArray(st.conditions) ? st.conditions : [];
  setCondition(conditions, { type: DISRUPTION_ALLOWED, status: 'False', reason: SYNC_FAILED, message, observedGeneration: st.observedGeneration ?? 0 });
  st.conditions = conditions;
  return next;
}
