// The one delete implementation of the write pipeline, shared by the REST handlers (delete, deletecollection, eviction) and the
// controllers (garbage collector, namespace controller, pod grace periods). Follows upstream's generic
// registry Delete: preconditions, graceful deletion (pods), the garbage collector's orphan/foregroundDeletion
// finalizers, two-phase deletion while finalizers remain, the namespace lifecycle, and the unsafe removal
// of corrupt objects.
import { storeUpdate, storeRemove } from './storage.js';
import { isServices, releaseServiceIPs } from './service-ips.js';
import { errors, StatusError } from '../../../api/status.js';
import { ResourceStore, decodeFromStorage, mapStoreError, nowTimestamp, type StoredObject } from '../resource-store.js';
import type { KubeObject, ObjectMeta, ResourceType } from '../types.js';
import { StoreError, type RevisionedStore } from '../../storage/types.js';
import type { AdmissionAttributes, AdmissionChain } from '../../http/admission.js';
import { isDryRun, type DeleteOptions, type Preconditions } from '../../http/rest/delete-options.js';
import { authorizeWrite, componentContext, wireUser, type WriteContext } from './context.js';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

export interface DeleteDeps {
  store: RevisionedStore;
  admission: AdmissionChain;
}

export interface DeleteResult {
  /** The object: still present (finalizers, grace period) when not deleted, its last state when removed; absent after an unsafe delete. */
  obj?: KubeObject;
  /** True when the object is gone from the store (or would be, for a dry run). */
  deleted: boolean;
}

/** Built-ins whose delete answers with the object rather than a Status (upstream ReturnDeletedObject). */
export function returnsDeletedObject(t: ResourceType): boolean {
  return t.group === '' && (t.plural === 'pods' || t.plural === 'services' || t.plural === 'serviceaccounts' || t.plural === 'namespaces');
}

const isPods = (t: ResourceType) => t.group === '' && t.plural === 'pods';
const isNamespaces = (t: ResourceType) => t.group === '' && t.plural === 'namespaces';

/** A 500 for an object whose stored bytes cannot be read (upstream matches the text "corrupt object" too). */
export function isCorruptObjectError(e: unknown): boolean {
  return e instanceof StatusError && e.code === 500 && (e.status.message ?? '').includes('corrupt object');
}

/** Deletes one object as a DELETE request would. `options` is not modified. */
export async function deleteObject(
  deps: DeleteDeps,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  options: DeleteOptions,
  who: WriteContext | string,
): Promise<DeleteResult> {
  const opts: DeleteOptions = structuredClone(options);
  // a component's delete (garbage collector, namespace controller ...) names only its user
  const user = typeof who === 'string' ? componentContext(who, '') : who;
  await authorizeWrite(user, type, 'delete', namespace, name);
  const rs = new ResourceStore(type, deps.store);
  const ns = type.scope === 'Namespaced' ? namespace : undefined;
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential === true) return unsafeDelete(deps, rs, ns, name, opts, user);
  if (isNamespaces(type)) return deleteNamespace(deps, rs, name, opts, user);
  const r = await deleteGeneric(deps, rs, ns, name, opts, user);
  // upstream's Service storage releases the cluster IPs once the Service is gone (its IPAddress objects)
  if (r.deleted && r.obj && !isDryRun(opts) && isServices(type)) await releaseServiceIPs(deps.store, r.obj);
  return r;
}

/** Delete admission, as upstream: the user, and the DeleteOptions as the review's options object. */
async function admit(deps: DeleteDeps, rs: ResourceStore, obj: KubeObject | undefined, name: string, namespace: string | undefined, opts: DeleteOptions, ctx: WriteContext) {
  const attrs: AdmissionAttributes = {
    operation: 'DELETE',
    type: rs.type,
    namespace: namespace ?? '',
    name,
    subresource: '',
    oldObject: obj,
    dryRun: isDryRun(opts),
    user: ctx.user.name,
    userInfo: wireUser(ctx),
    warnings: ctx.warnings,
    options: { kind: 'DeleteOptions', apiVersion: 'meta.service.io/v1', ...opts },
  };
  await deps.admission.admit(attrs);
  await deps.admission.validate(attrs);
}

/** The stored object, shared read-only (the watch cache's decoded copy of the stored version): writes below copy it. */
async function mustRead(rs: ResourceStore, ns: string | undefined, name: string): Promise<StoredObject> {
  const cur = await rs.readShared(ns, name);
  if (!cur) throw errors.notFound(rs.target(name));
  return cur;
}

const isStatusCode = (e: unknown, code: number) => e instanceof StatusError && e.code === code;
const MAX_RETRIES = 16;

async function deleteGeneric(
  deps: DeleteDeps,
  rs: ResourceStore,
  ns: string | undefined,
  name: string,
  opts: DeleteOptions,
  user: WriteContext,
  read?: StoredObject,
): Promise<DeleteResult> {
  const first = read ?? (await mustRead(rs, ns, name));
  if (!read) {
    checkPreconditionsBeforeDelete(rs.type, first.obj, opts.preconditions);
    await admit(deps, rs, first.obj, name, ns, opts, user);
  }
  const before = beforeDelete(rs.type, structuredClone(first.obj), opts);
  if (before.pendingGraceful) return { obj: first.obj, deleted: false };
  const pendingFinalizers = (first.obj.metadata?.finalizers ?? []).length > 0;
  let target = first;
  let pre = opts.preconditions;
  let ignoreNotFound = false;
  let lastExisting: KubeObject | undefined;
  if (before.graceful || pendingFinalizers || gcFinalizers(first.obj.metadata!, opts).changed) {
    const r = await updateForGracefulDeletionAndFinalizers(rs, ns, name, first, opts);
    if (r.kind === 'kept') return { obj: r.out, deleted: false };
    if (r.kind === 'removed') return { obj: r.out, deleted: true };
    if (isDryRun(opts) && r.out) return { obj: r.out, deleted: true };
    target = r.latest;
    ignoreNotFound = r.ignoreNotFound;
    lastExisting = r.out;
    // we changed the object ourselves: a resourceVersion precondition now refers to our write
    if (r.out && pre?.resourceVersion !== undefined) pre = { ...pre, resourceVersion: r.out.metadata?.resourceVersion };
  }
  return removeNow(rs, ns, name, target, pre, isDryRun(opts), ignoreNotFound, lastExisting);
}

async function removeNow(
  rs: ResourceStore,
  ns: string | undefined,
  name: string,
  target: StoredObject,
  pre: Preconditions | undefined,
  dryRun: boolean,
  ignoreNotFound: boolean,
  lastExisting: KubeObject | undefined,
): Promise<DeleteResult> {
  let cur: StoredObject | undefined = target;
  for (let i = 0; ; i++) {
    if (!cur) {
      // someone else finished the deletion (e.g. a racing graceless delete): report the last state we saw
      if (ignoreNotFound && lastExisting) return { obj: lastExisting, deleted: true };
      throw errors.notFound(rs.target(name));
    }
    rs.checkPreconditions(cur.obj, pre);
    try {
      const obj = await storeRemove(rs, cur, { dryRun });
      return { obj, deleted: true };
    } catch (e) {
      if (isStatusCode(e, 404)) cur = undefined;
      else if (isStatusCode(e, 409) && i < MAX_RETRIES) cur = await rs.readShared(ns, name);
      else throw e;
    }
  }
}

type GracefulUpdate =
  | { kind: 'kept'; out: KubeObject }
  | { kind: 'removed'; out: KubeObject }
  | { kind: 'deleteNow'; latest: StoredObject; out?: KubeObject; ignoreNotFound: boolean };

/** Marks the object deleting (deletionTimestamp, grace period, GC finalizers) with CAS retries; says whether to remove it now. */
async function updateForGracefulDeletionAndFinalizers(
  rs: ResourceStore,
  ns: string | undefined,
  name: string,
  first: StoredObject,
  opts: DeleteOptions,
): Promise<GracefulUpdate> {
  let existing: StoredObject | undefined = first;
  for (let i = 0; ; i++) {
    if (!existing) throw errors.notFound(rs.target(name));
    rs.checkPreconditions(existing.obj, opts.preconditions);
    const next = structuredClone(existing.obj);
    const meta = next.metadata!;
    const b = beforeDelete(rs.type, next, opts);
    // deletion already pending: finalizers cannot be changed through DeleteOptions any more
    if (b.pendingGraceful) return { kind: 'kept', out: first.obj };
    const gc = gcFinalizers(meta, opts);
    if (gc.changed) setFinalizers(meta, gc.finalizers);
    const pending = (meta.finalizers ?? []).length > 0;
    if (!b.graceful) {
      if (!pending) return { kind: 'deleteNow', latest: existing, ignoreNotFound: false };
      markAsDeleting(meta);
    }
    let written: { obj: KubeObject; deleted: boolean };
    try {
      written = await storeUpdate(rs, existing.key, next, existing, { dryRun: isDryRun(opts) });
    } catch (e) {
      if (isStatusCode(e, 409) && i < MAX_RETRIES) {
        existing = await rs.readShared(ns, name);
        continue;
      }
      throw e;
    }
    if (written.deleted) return { kind: 'removed', out: written.obj };
    if (pending || (opts.gracePeriodSeconds ?? 0) > 0) return { kind: 'kept', out: written.obj };
    // graceful type deleted with a zero grace period: remove now, tolerating a racing removal
    const latest = { obj: written.obj, key: existing.key, modRevision: Number(written.obj.metadata!.resourceVersion) };
    return { kind: 'deleteNow', latest, out: written.obj, ignoreNotFound: true };
  }
}

function setFinalizers(meta: ObjectMeta, finalizers: string[]): void {
  if (finalizers.length > 0) meta.finalizers = finalizers;
  else delete meta.finalizers;
}

/** A deadline at whole-second precision, rounded up so that a grace period is never cut short. */
/** Latest time an RFC 3339 timestamp (4-digit year) can carry: far grace periods end there. */
const MAX_TIMESTAMP_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

function timestampAt(ms: number): string {
  return new Date(Math.min(Math.ceil(ms / 1000) * 1000, MAX_TIMESTAMP_MS)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** upstream markAsDeleting: deletionTimestamp now (unless an earlier one is set), grace period 0, generation bump. */
function markAsDeleting(meta: ObjectMeta): void {
  const now = Date.now();
  if (!meta.deletionTimestamp && (meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
  if (!meta.deletionTimestamp || Date.parse(meta.deletionTimestamp) > now) meta.deletionTimestamp = nowTimestamp();
  meta.deletionGracePeriodSeconds = 0;
}

/** The early precondition check of upstream's BeforeDelete (its message differs from the storage-level one). */
function checkPreconditionsBeforeDelete(type: ResourceType, obj: KubeObject, pre: Preconditions | undefined): void {
  if (!pre) return;
  const meta = obj.metadata ?? {};
  const target = { group: type.group, resource: type.kind, name: meta.name };
  if (pre.uid !== undefined && pre.uid !== meta.uid)
    throw errors.conflict(
      target,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${meta.uid ?? ''}). The object might have been deleted and then recreated`,
    );
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion)
    throw errors.conflict(
      target,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion ?? ''}). The object might have been modified`,
    );
}

/**
 * upstream rest.BeforeDelete for the graceful part: may set deletionTimestamp/deletionGracePeriodSeconds on obj and
 * opts.gracePeriodSeconds. graceful = the object should be updated with a grace period; pendingGraceful = a graceful
 * deletion is already under way and this request changes nothing.
 */
function beforeDelete(type: ResourceType, obj: KubeObject, opts: DeleteOptions): { graceful: boolean; pendingGraceful: boolean } {
  const meta = obj.metadata!;
  if (opts.gracePeriodSeconds !== undefined && opts.gracePeriodSeconds < 0) opts.gracePeriodSeconds = 1;
  if (meta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds < 0) meta.deletionGracePeriodSeconds = 1;
  if (!isPods(type)) return { graceful: false, pendingGraceful: false };
  if (meta.deletionTimestamp) {
    const grace = meta.deletionGracePeriodSeconds;
    // a graceless deletion is pending (or was interrupted): finish it
    if (grace === undefined || grace === 0) return { graceful: false, pendingGraceful: false };
    if (opts.gracePeriodSeconds !== undefined) {
      // only a shorter grace period may be requested
      if (opts.gracePeriodSeconds >= grace) return { graceful: false, pendingGraceful: true };
      // a deadline cut to the latest timestamp no longer tells when deletion began: count from now
      const deadline = Date.parse(meta.deletionTimestamp);
      const began = deadline >= MAX_TIMESTAMP_MS ? Date.now() : deadline - grace * 1000;
      meta.deletionTimestamp = timestampAt(began + opts.gracePeriodSeconds * 1000);
      meta.deletionGracePeriodSeconds = opts.gracePeriodSeconds;
      return { graceful: true, pendingGraceful: false };
    }
    opts.gracePeriodSeconds = grace;
    return { graceful: false, pendingGraceful: true };
  }
  const period = podGracePeriod(obj, opts.gracePeriodSeconds);
  opts.gracePeriodSeconds = period;
  meta.deletionTimestamp = timestampAt(Date.now() + period * 1000);
  meta.deletionGracePeriodSeconds = period;
  if ((meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
  return { graceful: true, pendingGraceful: false };
}

/** The pod strategy's CheckGracefulDelete: unscheduled or finished pods go at once. */
function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = ((pod.status ?? {}) as { phase?: string }).phase;
  let period = requested ?? (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 0);
  if (!spec.nodeName) period = 0;
  if (phase === 'Failed' || phase === 'Succeeded') period = 0;
  if (period < 0) period = 1;
  return period;
}

/** upstream deletionFinalizersForGarbageCollection: the orphan / foregroundDeletion finalizers the options call for. */
export function gcFinalizers(meta: ObjectMeta, opts: DeleteOptions): { changed: boolean; finalizers: string[] } {
  const current = meta.finalizers ?? [];
  const orphan = shouldOrphan(current, opts);
  const foreground = shouldDeleteInForeground(current, opts);
  const next = current.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (orphan) next.push(FINALIZER_ORPHAN);
  if (foreground) next.push(FINALIZER_FOREGROUND);
  const a = new Set(current);
  const b = new Set(next);
  const changed = a.size !== b.size || [...a].some((f) => !b.has(f));
  return { changed, finalizers: changed ? next : current };
}

function shouldOrphan(finalizers: string[], opts: DeleteOptions): boolean {
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (opts.propagationPolicy === 'Orphan') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Foreground') return false;
  for (const f of finalizers) {
    if (f === FINALIZER_ORPHAN) return true;
    if (f === FINALIZER_FOREGROUND) return false;
  }
  return false;
}

function shouldDeleteInForeground(finalizers: string[], opts: DeleteOptions): boolean {
  if (opts.orphanDependents !== undefined) return false;
  if (opts.propagationPolicy === 'Foreground') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Orphan') return false;
  return finalizers.includes(FINALIZER_FOREGROUND);
}

// ---- namespaces ----

function specFinalizers(ns: KubeObject): unknown[] {
  const f = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(f) ? f : [];
}

/** The namespace REST Delete: the first delete starts termination (phase Terminating); the namespace controller finishes it. */
async function deleteNamespace(deps: DeleteDeps, rs: ResourceStore, name: string, opts: DeleteOptions, user: WriteContext): Promise<DeleteResult> {
  const first = await mustRead(rs, undefined, name);
  const meta = first.obj.metadata!;
  const pre = opts.preconditions ?? {};
  const target = rs.target(name);
  if (pre.uid !== undefined && pre.uid !== meta.uid)
    throw errors.conflict(target, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`);
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion)
    throw errors.conflict(target, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
  opts.preconditions = { ...pre, uid: pre.uid ?? meta.uid };
  await admit(deps, rs, first.obj, name, undefined, opts, user);
  if (!meta.deletionTimestamp) {
    let existing: StoredObject | undefined = first;
    for (let i = 0; ; i++) {
      if (!existing) throw errors.notFound(target);
      rs.checkPreconditions(existing.obj, opts.preconditions);
      const next = structuredClone(existing.obj);
      const nm = next.metadata!;
      nm.deletionTimestamp ??= nowTimestamp();
      next.status = { ...((next.status as object | undefined) ?? {}), phase: 'Terminating' };
      const current = nm.finalizers ?? [];
      const want = new Map<string, boolean>([
        [FINALIZER_ORPHAN, opts.orphanDependents ?? (opts.propagationPolicy !== undefined ? opts.propagationPolicy === 'Orphan' : current.includes(FINALIZER_ORPHAN))],
        [
          FINALIZER_FOREGROUND,
          opts.orphanDependents !== undefined
            ? !opts.orphanDependents
            : opts.propagationPolicy !== undefined
              ? opts.propagationPolicy === 'Foreground'
              : current.includes(FINALIZER_FOREGROUND),
        ],
      ]);
      const finalizers = current.filter((f) => want.get(f) !== false);
      for (const [f, on] of want) if (on && !finalizers.includes(f)) finalizers.push(f);
      setFinalizers(nm, finalizers);
      try {
        const written = await storeUpdate(rs, existing.key, next, existing, { dryRun: isDryRun(opts) });
        return { obj: written.obj, deleted: written.deleted };
      } catch (e) {
        if (isStatusCode(e, 409) && i < MAX_RETRIES) {
          existing = await rs.readShared(undefined, name);
          continue;
        }
        throw e;
      }
    }
  }
  // content is still being removed
  if (specFinalizers(first.obj).length > 0) return { obj: first.obj, deleted: false };
  return deleteGeneric(deps, rs, undefined, name, opts, user, first);
}

// ---- corrupt objects ----

/**
 * ignoreStoreReadErrorWithClusterBreakingPotential: only for an object that cannot be read. The normal deletion is
 * tried first; when it fails on the corrupt object the key is removed, skipping preconditions and finalizers.
 */
async function unsafeDelete(deps: DeleteDeps, rs: ResourceStore, ns: string | undefined, name: string, opts: DeleteOptions, user: WriteContext): Promise<DeleteResult> {
  const key = rs.key(ns, name);
  let corrupt = false;
  try {
    const got = await deps.store.get(key);
    if (got.kv) decodeFromStorage(got.kv);
  } catch (e) {
    if (!(e instanceof StoreError) || e.code !== 'Corrupt') throw e;
    corrupt = true;
  }
  if (!corrupt)
    throw errors.invalid(rs.type.group, rs.type.plural, name, [
      {
        type: 'FieldValueInvalid',
        field: 'ignoreStoreReadErrorWithClusterBreakingPotential',
        detail: 'Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option',
      },
    ]);
  const normal: DeleteOptions = { ...opts };
  delete normal.ignoreStoreReadErrorWithClusterBreakingPotential;
  try {
    return await deleteObject(deps, rs.type, ns, name, normal, user);
  } catch (e) {
    if (!isCorruptObjectError(e)) throw e;
  }
  await admit(deps, rs, undefined, name, ns, opts, user);
  try {
    await deps.store.delete(key);
  } catch (e) {
    if (e instanceof StoreError && e.code === 'KeyNotFound') return { deleted: false };
    throw mapStoreError(e, rs.target(name));
  }
  return { deleted: true };
}
