// Update: the one path every change of a stored object takes (PUT, PATCH, apply, scale, controllers' writes,
// reconcilers). Upstream's order (endpoints/handlers/update.go and patch.go, then registry/generic/registry/
// store.go Update): the new object (decoded, defaulted) → managedFields → mutating admission → BeforeUpdate
// (strategy PrepareForUpdate, ValidateUpdate) → validating admission → storage (GuaranteedUpdate).
import { storeUpdate } from './storage.js';
import { fromCurrent } from './current.js';
import { errors, StatusError } from '../../../api/status.js';
import type { AdmissionAttributes } from '../../http/admission.js';
import { dropDisabledFields } from '../disabled-fields.js';
import { canonicalApiVersion } from '../names.js';
import type { StoredObject } from '../resource-store.js';
import type { KubeObject, ResourceType } from '../types.js';
import { authorizeWrite, optionsOf, wireUser, type WriteContext, type WriteTarget } from './context.js';
import { checkDepth, dedupOwnerReferences } from './create.js';
import { recordUpdate } from './managed.js';
import { validateForStore } from './validate.js';
import { createObject } from './create.js';
import { allocateServiceIPs, isServices, releaseAllocated, releaseDroppedServiceIPs, releaseServiceIPs } from './service-ips.js';

const gv = (t: ResourceType) => (t.group ? `${t.group}/${t.version}` : t.version);

/** The stored object in the version the write was made in (a resource served in several versions). */
export function inWriteVersion(type: ResourceType, ctx: WriteContext, obj: KubeObject): KubeObject {
  const apiVersion = ctx.apiVersion ?? gv(type);
  if (obj.apiVersion === apiVersion || obj.kind !== type.kind) return obj;
  const convert = type.strategy.convertFrom;
  if (convert && canonicalApiVersion(obj.apiVersion ?? '') !== gv(type)) return { ...convert(obj), apiVersion };
  return { ...obj, apiVersion };
}

export interface UpdateRun {
  /**
   * false: a write of the registry itself (upstream's store.Update with rest.ValidateAllObjectUpdateFunc, as
   * eviction's DisruptionTarget condition): strategy and validation, no admission and no managedFields.
   */
  admission?: boolean;
}

/** Writes `next` over the stored `cur` (sub-resource `sub`, '' for the main resource); returns the stored object. */
export async function updateObject(t: WriteTarget, ctx: WriteContext, next: KubeObject, cur: StoredObject, sub: string, run: UpdateRun = {}): Promise<KubeObject> {
  const { rs } = t;
  const type = rs.type;
  const name = cur.obj.metadata!.name ?? '';
  await authorizeWrite(ctx, type, 'update', cur.obj.metadata?.namespace, name, sub);
  checkDepth(next);
  next.metadata ??= {};
  const rv = next.metadata?.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== cur.obj.metadata!.resourceVersion) throw errors.conflict(rs.target(name));
  if ((rv === undefined || rv === '') && type.strategy.requireResourceVersionOnUpdate)
    throw errors.invalid(type.group, type.kind, name, [{ type: 'FieldValueInvalid', field: 'metadata.resourceVersion', detail: 'Invalid value: 0x0: must be specified for an update' }]);
  // a resource served in several versions compares and merges against the stored object in the request's version
  const old = type.strategy.convertFrom ? inWriteVersion(type, ctx, cur.obj) : cur.obj;
  // a patch may share untouched subtrees with the stored object: never write into the stored metadata
  if (next.metadata === old.metadata || next.metadata === cur.obj.metadata) next.metadata = { ...next.metadata };
  // the object keeps the name (and namespace) it is stored under: a body or patch result without them is that object
  next.metadata.name = old.metadata!.name;
  if (type.scope === 'Namespaced') next.metadata.namespace = old.metadata!.namespace;
  dedupOwnerReferences(ctx, next);
  // defaults first, as upstream decodes (and defaults) the new object before PrepareForUpdate: the generation
  // bump and immutability checks compare defaulted objects (an apply that omits a defaulted member is no change)
  if (sub === '') {
    dropDisabledFields(type, next, old);
    type.strategy.defaults?.(next, old);
  }
  const admit = run.admission !== false;
  if (admit) recordUpdate(type, ctx, old, next, sub);
  const attrs: AdmissionAttributes = {
    operation: 'UPDATE',
    type,
    namespace: cur.obj.metadata!.namespace ?? '',
    name,
    subresource: sub,
    object: next,
    oldObject: old,
    dryRun: ctx.dryRun,
    user: ctx.user.name,
    userInfo: wireUser(ctx),
    warnings: ctx.warnings,
  };
  attrs.options = optionsOf(ctx, 'UpdateOptions');
  const rvBefore = next.metadata!.resourceVersion;
  if (admit) await t.admission.admit(attrs);
  afterMutatingUpdate(t, next, old, sub, rvBefore);
  await validateForStore(type, next, old);
  // a Service that gains cluster IPs on update (ExternalName -> ClusterIP) holds them first, as on create
  const held = isServices(type) && sub === '' ? await allocateServiceIPs(t, ctx, createObject, next, old) : [];
  let result: { obj: KubeObject; deleted: boolean };
  try {
    if (admit) await t.admission.validate(attrs);
    result = await storeUpdate(rs, cur.key, next, cur, { dryRun: ctx.dryRun });
  } catch (e) {
    if (held.length) await releaseAllocated(rs.store, held);
    throw e;
  }
  const { obj, deleted } = result;
  if (!ctx.dryRun && isServices(type)) {
    // the last finalizer removed from a deleted Service: its cluster IPs go with it; addresses an update dropped too
    if (deleted) await releaseServiceIPs(rs.store, obj);
    else await releaseDroppedServiceIPs(rs.store, old, obj);
  }
  return obj;
}

/**
 * After mutating admission (upstream BeforeUpdate, then ValidateObjectMetaUpdate): the namespace must match the
 * request (400), the name and uid are immutable (422), a changed resourceVersion is a conflict, and the strategy's
 * PrepareForUpdate merges server-owned fields (creationTimestamp, deletion fields, generation, status on the main
 * resource) from the stored object.
 */
function afterMutatingUpdate(t: WriteTarget, next: KubeObject, old: KubeObject, sub: string, rvBefore: string | undefined): void {
  const type = t.rs.type;
  const nm = (next.metadata ??= {});
  const om = old.metadata!;
  if (type.scope === 'Namespaced') {
    if (nm.namespace && nm.namespace !== om.namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (sub === '' && nm.name !== om.name)
    throw errors.invalid(type.group, type.kind, om.name ?? '', [{ type: 'FieldValueInvalid', field: 'metadata.name', detail: `Invalid value: ${JSON.stringify(nm.name ?? '')}: field is immutable` }]);
  if (nm.resourceVersion !== undefined && nm.resourceVersion !== '' && nm.resourceVersion !== rvBefore) throw errors.conflict(t.rs.target(om.name));
  // the write's managedFields were recorded before admission; a sub-resource merge must not drop them
  const managed = nm.managedFields;
  const errs = t.rs.prepareUpdate(next, old, sub);
  if (errs.length > 0) throw errors.invalid(type.group, type.kind, om.name ?? '', errs);
  if (managed === undefined) delete next.metadata!.managedFields;
  else next.metadata!.managedFields = managed;
}

/** An attempt that found nothing to do: confirmed on the stored version before it is believed (fromCurrent). */
class NothingToDo extends Error {}

/**
 * Read-modify-write with compare-and-swap retries through the update path. `fn` edits a copy and says whether it
 * changed anything. Nothing happens when the object is gone or its uid differs; returns the stored object, or
 * undefined when nothing was written. An object in deletion that loses its last finalizer is removed. The first
 * attempt starts from the watch cache's object (fromCurrent): a decision made on it, write or no write, holds
 * only once storage confirms that version.
 */
export async function mutateObject(
  t: WriteTarget,
  ctx: WriteContext,
  namespace: string | undefined,
  name: string,
  fn: (obj: KubeObject) => boolean,
  opts: { uid?: string; subresource?: string; retries?: number } = {},
): Promise<KubeObject | undefined> {
  const ns = t.rs.type.scope === 'Namespaced' ? namespace : undefined;
  for (let i = 0; ; i++) {
    try {
      return await fromCurrent(t.rs, ns, name, ctx.dryRun, async (cur) => {
        if (!cur) return undefined;
        if (opts.uid !== undefined && cur.obj.metadata?.uid !== opts.uid) throw new NothingToDo();
        const next = structuredClone(cur.obj);
        if (!fn(next)) throw new NothingToDo();
        if (ctx.signal?.aborted) return undefined;
        return await updateObject(t, ctx, next, cur, opts.subresource ?? '');
      });
    } catch (e) {
      if (e instanceof NothingToDo) return undefined;
      if (e instanceof StatusError && e.code === 409 && i < (opts.retries ?? 16) && !(e.status.details?.causes ?? []).some((c) => c.reason === 'FieldManagerConflict')) continue;
      if (e instanceof StatusError && e.code === 404) return undefined;
      throw e;
    }
  }
}
