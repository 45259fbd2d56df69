// POST pods/{name}/eviction: a virtual sub-resource that deletes the pod when its PodDisruptionBudget allows it
// (upstream pkg/registry/core/pod/storage/eviction.go).
import { errors, failure, StatusError, type Status } from '../../../api/status.js';
import { selectorMatches, isEmptySelector } from '../../registry/builtin-helpers.js';
import { sharedOrDecoded, nowTimestamp, ResourceStore, type StoredObject } from '../../registry/resource-store.js';
import { APISERVER_MANAGER, APISERVER_USER, componentContext, type WriteContext, type WriteTarget } from '../../registry/pipeline/context.js';
import { updateObject } from '../../registry/pipeline/update.js';
import { admitVirtualCreate } from '../../registry/pipeline/virtual.js';
import { deleteContext } from './delete.js';
import type { TypeRegistry } from '../../registry/registry.js';
import type { KubeObject } from '../../registry/types.js';
import type { AdmissionChain } from '../admission.js';
import type { RequestScope } from '../scope.js';
import { decodeObjectBody, dryRunOf } from './decode.js';
import { isDryRun, normalizeDeleteOptions, type DeleteOptions } from './delete-options.js';
import { deleteObject } from '../../registry/pipeline/delete.js';
import { negotiateFor, respondObject } from './output.js';
import { typePrefix } from '../../registry/keys.js';

export interface EvictionDeps {
  admission: AdmissionChain;
  types: TypeRegistry;
}

type Obj = Record<string, any>;

const MAX_DISRUPTED_PODS = 2000;
const RETRIES = 10;
const DISRUPTION_BUDGET_CAUSE = 'DisruptionBudget';
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

function tooManyRequests(detail: string): StatusError {
  return failure(429, 'TooManyRequests', VIOLATION, { causes: [{ reason: DISRUPTION_BUDGET_CAUSE, message: detail }] });
}

const stillProcessing = (pdb: string) => tooManyRequests(`The disruption budget ${pdb} is still being processed by the server.`);

const isConflict = (e: unknown) => e instanceof StatusError && e.code === 409;

export async function handleEviction(s: RequestScope, deps: EvictionDeps): Promise<void> {
  const n = negotiateFor(s);
  const { obj: eviction } = await decodeObjectBody(s);
  eviction.kind ||= 'Eviction';
  eviction.apiVersion ||= 'policy/v1';
  if (eviction.kind !== 'Eviction' || (eviction.apiVersion !== 'policy/v1' && eviction.apiVersion !== 'policy/v1beta1'))
    throw errors.badRequest(`the kind in the data (${eviction.apiVersion}, Kind=${eviction.kind}) does not match the expected kind (policy/v1, Kind=Eviction)`);
  const meta = (eviction.metadata ??= {});
  if (meta.namespace && meta.namespace !== s.info.namespace)
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (meta.name !== s.info.name) throw errors.badRequest('name in URL does not match name in Eviction object');
  const original = normalizeDeleteOptions(propagateDryRun(eviction, s.query), s.gates);
  const ns = s.info.namespace;
  const name = s.info.name;
  const ctx = deleteContext(s);
  // a create of pods/eviction (kind policy/v1 Eviction) for admission, as upstream's create handler and EvictionREST
  await admitVirtualCreate(deps.admission, { ...ctx, dryRun: isDryRun(original) }, { type: s.type, namespace: ns, name, subresource: 'eviction', object: eviction, kind: { group: 'policy', version: 'v1', kind: 'Eviction' } });
  const dd = { store: s.rs.store, admission: deps.admission };
  const pods: WriteTarget = { rs: s.rs, admission: deps.admission };
  const del = async (opts: DeleteOptions) => {
    opts = await addDisruptionCondition(pods, ctx, ns, name, opts);
    await deleteObject(dd, s.type, ns, name, opts, ctx);
  };
  const rvUnset = original.preconditions?.resourceVersion === undefined;
  const success = () => respondObject(s, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as KubeObject, n);

  // pods that are not running (or already going) cost no disruption: delete them directly
  let pod!: StoredObject;
  for (let i = 0; ; i++) {
    // read only (the watch cache's copy of the stored version)
    const cur = await s.rs.readShared(ns, name);
    if (!cur) throw errors.notFound(s.rs.target(name));
    pod = cur;
    if (!canIgnorePDB(pod.obj)) break;
    let opts = original;
    if (shouldEnforceResourceVersion(pod.obj) && rvUnset) opts = withResourceVersion(original, pod.obj.metadata!.resourceVersion!);
    try {
      await del(opts);
      return success();
    } catch (e) {
      if (isConflict(e) && rvUnset && i < RETRIES) continue;
      throw e;
    }
  }

  const pdbType = deps.types.lookup('policy', 'v1', 'poddisruptionbudgets');
  const pdbs = pdbType ? await matchingBudgets(new ResourceStore(pdbType, s.rs.store), pod.obj) : [];
  if (pdbs.length > 1) {
    const st: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      code: 500,
    };
    respondObject(s, 500, st as unknown as KubeObject, n);
    return;
  }
  let pdbName = '';
  let guardWithResourceVersion = false;
  if (pdbs.length === 1) {
    const pdbRs = new ResourceStore(pdbType!, s.rs.store);
    // upstream writes the budget through its loopback client (UpdateStatus as system:apiserver): the whole chain applies
    const pdbWrite: WriteTarget = { rs: pdbRs, admission: deps.admission };
    const pdbCtx = componentContext(APISERVER_USER, APISERVER_MANAGER, undefined);
    let pdb = pdbs[0]!;
    pdbName = pdb.obj.metadata!.name!;
    const st = (pdb.obj.status ?? {}) as Obj;
    let checkBudget = true;
    if (!isPodReady(pod.obj)) {
      const policy = ((pdb.obj.spec ?? {}) as Obj).unhealthyPodEvictionPolicy;
      // an unready pod does not count towards the budget: it may go without spending a disruption
      if (policy === 'AlwaysAllow' || ((st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0) && (st.desiredHealthy ?? 0) > 0)) {
        guardWithResourceVersion = true;
        checkBudget = false;
      }
    }
    for (let i = 0; checkBudget; i++) {
      try {
        await checkAndDecrement(pdbWrite, pdbCtx, pdb, name, isDryRun(original));
        break;
      } catch (e) {
        if (!isConflict(e)) throw e;
        if (i >= RETRIES) throw errors.timeout(`couldn't update PodDisruptionBudget "${pdbName}" due to conflicts`, 10);
        const fresh = await pdbRs.readShared(ns, pdbName); // checkAndDecrement writes a copy
        if (!fresh) throw errors.notFound(pdbRs.target(pdbName));
        pdb = fresh;
      }
    }
  }
  // the pod must not have turned ready since we looked at it
  const opts = guardWithResourceVersion && rvUnset ? withResourceVersion(original, pod.obj.metadata!.resourceVersion!) : original;
  try {
    await del(opts);
  } catch (e) {
    if (isConflict(e) && guardWithResourceVersion && rvUnset) throw stillProcessing(pdbName);
    throw e;
  }
  success();
}

/** The Eviction's DeleteOptions with the request's dryRun; both given and different is an error (as upstream). */
function propagateDryRun(eviction: KubeObject, query: URLSearchParams): DeleteOptions {
  const queryDry = query.getAll('dryRun').filter((v) => v !== '');
  dryRunOf(query);
  const raw = eviction.deleteOptions as DeleteOptions | undefined | null;
  const opts: DeleteOptions = raw && typeof raw === 'object' ? structuredClone(raw) : {};
  for (const k of Object.keys(opts) as (keyof DeleteOptions)[]) if (opts[k] === null) delete opts[k];
  if (!opts.dryRun || opts.dryRun.length === 0) {
    if (queryDry.length > 0) opts.dryRun = queryDry;
    else delete opts.dryRun;
  } else if (queryDry.length > 0 && JSON.stringify(queryDry) !== JSON.stringify(opts.dryRun)) {
    throw errors.internal(`Non-matching dryRun parameters in Eviction and CreateOptions, [${queryDry.join(' ')}], [${opts.dryRun.join(' ')}]`);
  }
  return opts;
}

function withResourceVersion(o: DeleteOptions, rv: string): DeleteOptions {
  return { ...o, preconditions: { ...(o.preconditions ?? {}), resourceVersion: rv } };
}

function phaseOf(pod: KubeObject): string | undefined {
  return ((pod.status ?? {}) as Obj).phase;
}

function canIgnorePDB(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata?.deletionTimestamp;
}

function shouldEnforceResourceVersion(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata?.deletionTimestamp);
}

function isPodReady(pod: KubeObject): boolean {
  const conds = ((pod.status ?? {}) as Obj).conditions;
  return Array.isArray(conds) && conds.some((c: Obj) => c?.type === 'Ready' && c?.status === 'True');
}

async function matchingBudgets(rs: ResourceStore, pod: KubeObject): Promise<StoredObject[]> {
  const page = await rs.store.range({ prefix: rs.prefix(pod.metadata!.namespace) });
  const labels = pod.metadata?.labels ?? {};
  const out: StoredObject[] = [];
  for (const kv of page.kvs) {
    let pdb: KubeObject;
    try {
      pdb = sharedOrDecoded(rs.store, typePrefix(rs.type), kv); // checkAndDecrement writes a copy
    } catch {
      continue;
    }
    const sel = ((pdb.spec ?? {}) as Obj).selector;
    // a PDB with an empty selector matches nothing
    if (!sel || isEmptySelector(sel) || !selectorMatches(sel, labels)) continue;
    out.push({ obj: pdb, modRevision: kv.modRevision, key: kv.key });
  }
  return out;
}

/** Spends one disruption from the budget, recording the pod in status.disruptedPods (not for a dry run). */
async function checkAndDecrement(t: WriteTarget, ctx: WriteContext, pdb: StoredObject, podName: string, dryRun: boolean): Promise<void> {
  const name = pdb.obj.metadata!.name!;
  const next = structuredClone(pdb.obj);
  const st = (next.status ??= {}) as Obj;
  if ((st.observedGeneration ?? 0) < (next.metadata!.generation ?? 0)) throw stillProcessing(name);
  const allowed: number = st.disruptionsAllowed ?? 0;
  const target = { group: 'policy', resource: 'poddisruptionbudget', name };
  if (allowed < 0) throw errors.forbidden(target, 'pdb disruptions allowed is negative');
  if (Object.keys(st.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS)
    throw errors.forbidden(target, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (allowed === 0) throw tooManyRequests(`The disruption budget ${name} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`);
  st.disruptionsAllowed = allowed - 1;
  if (st.disruptionsAllowed === 0) setDisruptionAllowedCondition(st);
  if (dryRun) return;
  st.disruptedPods = { ...(st.disruptedPods ?? {}), [podName]: nowTimestamp() };
  await updateObject(t, ctx, next, pdb, 'status');
}

function setDisruptionAllowedCondition(st: Obj): void {
  const conds: Obj[] = Array.isArray(st.conditions) ? st.conditions : [];
  const want = { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: st.observedGeneration ?? 0 };
  const cur = conds.find((c) => c.type === want.type);
  if (!cur) conds.push({ ...want, lastTransitionTime: nowTimestamp() });
  else {
    if (cur.status !== want.status) cur.lastTransitionTime = nowTimestamp();
    Object.assign(cur, want);
  }
  st.conditions = conds;
}

/**
 * Records status condition DisruptionTarget on the pod before deleting it (skipped for a dry run). A resourceVersion
 * precondition is checked against the pod and then moved to our own write.
 */
async function addDisruptionCondition(t: WriteTarget, ctx: WriteContext, ns: string, name: string, opts: DeleteOptions): Promise<DeleteOptions> {
  if (isDryRun(opts)) return opts;
  const rs = t.rs;
  for (let i = 0; ; i++) {
    const cur = await rs.readShared(ns, name);
    if (!cur) throw errors.notFound(rs.target(name));
    rs.checkPreconditions(cur.obj, opts.preconditions);
    const next = structuredClone(cur.obj);
    const st = (next.status ??= {}) as Obj;
    const conds: Obj[] = Array.isArray(st.conditions) ? st.conditions : [];
    const want = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' };
    const existing = conds.find((c) => c.type === want.type);
    if (!existing) conds.push({ ...want, lastProbeTime: null, lastTransitionTime: nowTimestamp() });
    else {
      if (existing.status !== want.status) existing.lastTransitionTime = nowTimestamp();
      Object.assign(existing, want);
    }
    st.conditions = conds;
    try {
      // upstream's statusStore.Update with rest.ValidateAllObjectUpdateFunc: strategy and validation, no admission
      const obj = await updateObject(t, { ...ctx, fieldManager: '' }, next, cur, 'status', { admission: false });
      if (opts.preconditions?.resourceVersion === undefined) return opts;
      return withResourceVersion(opts, obj.metadata!.resourceVersion!);
    } catch (e) {
      // only retry our own write racing another one; a caller's resourceVersion precondition stands
      if (isConflict(e) && opts.preconditions?.resourceVersion === undefined && i < RETRIES) continue;
      throw e;
    }
  }
}
