// create (POST) and update (PUT): the shared create and update paths used by every write verb.
import { userInfoJson } from '../../auth/user.js';
import { errors, StatusError } from '../../../api/status.js';
import type { StoredObject, SystemFields } from '../../registry/resource-store.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import type { AdmissionChain } from '../admission.js';
import type { Negotiated } from '../negotiate.js';
import type { RequestScope } from '../scope.js';
import { checkDepth, checkKind, decodeObjectBody, dryRunOf, fieldValidationOf, inRequestVersion, served } from './decode.js';
import { negotiateFor, respondObject } from './output.js';
import { fromScale, isScale, toScale } from './scale.js';
import { checkFields, validateForStore } from './validate.js';
import { dropDisabledFields } from '../../registry/disabled-fields.js';
import { trackUpdate } from './managed.js';
import { allocateServiceIPs, isServices, releaseAllocated, releaseDroppedServiceIPs, releaseServiceIPs } from './service-ips.js';

export interface WriteDeps {
  admission: AdmissionChain;
  /** Creates an object from inside the server through this same path (the IPAddress objects holding cluster IPs). */
  createInternal?(type: ResourceType, obj: KubeObject, manager: string, signal: AbortSignal): Promise<KubeObject>;
}

export async function handleCreate(s: RequestScope, deps: WriteDeps): Promise<void> {
  if (s.info.name) throw errors.methodNotAllowed(`the server does not allow this method on the requested resource`);
  // upstream negotiates the response type before decoding or writing anything: a 406 stores nothing
  const n = negotiateFor(s);
  const dryRun = dryRunOf(s.query);
  const level = fieldValidationOf(s.query);
  const { obj, duplicates } = await decodeObjectBody(s);
  checkKind(s, obj);
  for (const w of checkFields(s.type, obj, level, duplicates, true)) s.warnings.push(w);
  const ns = s.type.scope === 'Namespaced' ? s.info.namespace : undefined;
  const meta = (obj.metadata ??= {});
  if (ns !== undefined && meta.namespace && meta.namespace !== ns)
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  const created = await createObject(s, deps, obj, ns, dryRun);
  respondObject(s, 201, served(s, created), n);
}

/** The create path shared by POST and create-on-PUT (and apply-create later). */
export async function createObject(s: RequestScope, deps: WriteDeps, obj: KubeObject, ns: string | undefined, dryRun: boolean): Promise<KubeObject> {
  checkDepth(obj);
  const meta = (obj.metadata ??= {});
  if (!meta.name && !meta.generateName)
    throw errors.invalid(s.type.group, s.type.kind, '', [{ type: 'FieldValueRequired', field: 'metadata.name', detail: 'Required value: name or generateName is required' }]);
  s.rs.prepareCreate(obj, ns);
  dedupOwnerReferences(s, obj);
  dropDisabledFields(s.type, obj);
  s.type.strategy.defaults?.(obj);
  s.type.strategy.prepareCreate?.(obj, userInfoJson(s.userInfo));
  trackUpdate(s, undefined, obj, '');
  const attrs = { operation: 'CREATE' as const, type: s.type, namespace: ns ?? '', name: meta.name ?? '', subresource: '', object: obj, dryRun, user: s.user, userInfo: userInfoJson(s.userInfo), warnings: s.warnings };
  const system = { uid: meta.uid, creationTimestamp: meta.creationTimestamp, generation: meta.generation };
  await deps.admission.admit(attrs);
  afterMutatingCreate(s, obj, ns, attrs.name, system);
  const toValidate = meta.name ? obj : { ...obj, metadata: { ...meta, name: `${meta.generateName}xxxxx` } };
  await validateForStore(s.type, toValidate, undefined);
  // upstream's Service storage allocates (BeginCreate) after validation, before validating admission and the write
  const held = isServices(s.type) ? await allocateServiceIPs(s, deps, obj, dryRun) : [];
  try {
    await deps.admission.validate(attrs);
    return await s.rs.create(obj, { dryRun });
  } catch (e) {
    // a Service of that name created meanwhile (another replica's create of it) keeps the addresses it names
    const lostRace = e instanceof StatusError && e.code === 409 && e.reason === 'AlreadyExists';
    if (held.length && !lostRace) await releaseAllocated(s.rs.store, held);
    throw e;
  }
}

export async function handleUpdate(s: RequestScope, deps: WriteDeps): Promise<void> {
  const n = negotiateFor(s);
  const dryRun = dryRunOf(s.query);
  const level = fieldValidationOf(s.query);
  const sub = s.info.subresource;
  const ns = s.type.scope === 'Namespaced' ? s.info.namespace : undefined;
  const { obj, duplicates } = await decodeObjectBody(s);
  if (sub === 'scale') {
    await updateScale(s, deps, obj, ns, dryRun, n);
    return;
  }
  checkKind(s, obj);
  for (const w of checkFields(s.type, obj, level, duplicates, true)) s.warnings.push(w);
  const meta = (obj.metadata ??= {});
  if (meta.name !== undefined && meta.name !== s.info.name)
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${s.info.name})`);
  if (ns !== undefined && meta.namespace !== undefined && meta.namespace !== ns)
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  meta.name = s.info.name;
  const cur = await s.rs.read(ns, s.info.name);
  if (!cur) {
    if (sub || !s.type.strategy.allowCreateOnUpdate) throw errors.notFound(s.rs.target(s.info.name));
    const created = await createObject(s, deps, obj, ns, dryRun);
    respondObject(s, 201, served(s, created), n);
    return;
  }
  const result = await updateObject(s, deps, obj, cur, sub, dryRun);
  respondObject(s, 200, served(s, result), n);
}

/** The update path shared by PUT, PATCH and internal writers: conflict check, merge of server fields, validation, admission. */
export async function updateObject(s: RequestScope, deps: WriteDeps, next: KubeObject, cur: StoredObject, sub: string, dryRun: boolean): Promise<KubeObject> {
  checkDepth(next);
  const meta = (next.metadata ??= {});
  const rv = meta.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== cur.obj.metadata!.resourceVersion) throw errors.conflict(s.rs.target(s.info.name));
  if ((rv === undefined || rv === '') && s.type.strategy.requireResourceVersionOnUpdate)
    throw errors.invalid(s.type.group, s.type.kind, s.info.name, [
      { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', detail: 'Invalid value: 0x0: must be specified for an update' },
    ]);
  dedupOwnerReferences(s, next);
  // a resource served in several versions compares and merges against the stored object in the request's version
  const old = s.type.strategy.convertFrom ? inRequestVersion(s, cur.obj) : cur.obj;
  // defaults first, as upstream decodes (and defaults) the new object before PrepareForUpdate: the generation
  // bump and immutability checks compare defaulted objects (an apply that omits a defaulted member is no change)
  if (sub === '') {
    dropDisabledFields(s.type, next, old);
    s.type.strategy.defaults?.(next, old);
  }
  const errs = s.rs.prepareUpdate(next, old, sub);
  if (errs.length > 0) throw errors.invalid(s.type.group, s.type.kind, s.info.name, errs);
  trackUpdate(s, old, next, sub);
  const attrs = {
    operation: 'UPDATE' as const,
    type: s.type,
    namespace: cur.obj.metadata!.namespace ?? '',
    name: s.info.name,
    subresource: sub,
    object: next,
    oldObject: old,
    dryRun,
    user: s.user,
    userInfo: userInfoJson(s.userInfo),
    warnings: s.warnings,
  };
  const rvBefore = meta.resourceVersion;
  await deps.admission.admit(attrs);
  afterMutatingUpdate(s, next, old, sub, rvBefore);
  await validateForStore(s.type, next, old);
  // a Service that gains cluster IPs on update (ExternalName -> ClusterIP) holds them first, as on create
  const held = isServices(s.type) && sub === '' ? await allocateServiceIPs(s, deps, next, dryRun, old) : [];
  let result: { obj: KubeObject; deleted: boolean };
  try {
    await deps.admission.validate(attrs);
    result = await s.rs.update(cur.key, next, cur, { dryRun });
  } catch (e) {
    if (held.length) await releaseAllocated(s.rs.store, held);
    throw e;
  }
  const { obj, deleted } = result;
  if (!dryRun && isServices(s.type)) {
    // the last finalizer removed from a deleted Service: its cluster IPs go with it; addresses an update dropped too
    if (deleted) await releaseServiceIPs(s.rs.store, obj);
    else await releaseDroppedServiceIPs(s.rs.store, old, obj);
  }
  return obj;
}

/**
 * Mutating admission may have changed anything: the object must still be the one the request named and was
 * authorized for, and system fields are the server's (upstream: the store's Create fills uid and
 * creationTimestamp, BeforeCreate checks the namespace, after mutating admission).
 */
function afterMutatingCreate(s: RequestScope, obj: KubeObject, ns: string | undefined, requestName: string, system: SystemFields): void {
  const meta = (obj.metadata ??= {});
  if (ns !== undefined) {
    // upstream ValidNamespace: an empty namespace is the request's, another one is refused
    if (meta.namespace && meta.namespace !== ns) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    meta.namespace = ns;
  } else delete meta.namespace;
  // a generateName create has no name before admission: a webhook may name it
  if (requestName !== '' && meta.name !== requestName)
    throw errors.badRequest(`the name of the object (${String(meta.name ?? '')}) does not match the name on the request (${requestName})`);
  s.rs.restoreSystemFields(obj, system);
}

/**
 * After mutating admission on update (upstream BeforeUpdate, then ValidateObjectMetaUpdate): the namespace must
 * match the request (400), the name and uid are immutable (422), a changed resourceVersion is a conflict, and
 * server-owned fields (creationTimestamp, deletion fields, generation, status on the main resource) are merged
 * again from the stored object.
 */
function afterMutatingUpdate(s: RequestScope, next: KubeObject, old: KubeObject, sub: string, rvBefore: string | undefined): void {
  const nm = (next.metadata ??= {});
  const om = old.metadata!;
  if (s.type.scope === 'Namespaced') {
    if (nm.namespace && nm.namespace !== om.namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (sub === '' && nm.name !== om.name)
    throw errors.invalid(s.type.group, s.type.kind, om.name ?? '', [{ type: 'FieldValueInvalid', field: 'metadata.name', detail: `Invalid value: ${JSON.stringify(nm.name ?? '')}: field is immutable` }]);
  if (nm.resourceVersion !== undefined && nm.resourceVersion !== '' && nm.resourceVersion !== rvBefore) throw errors.conflict(s.rs.target(om.name));
  // the request's managedFields were recorded before admission; a sub-resource merge must not drop them
  const managed = nm.managedFields;
  const errs = s.rs.prepareUpdate(next, old, sub);
  if (errs.length > 0) throw errors.invalid(s.type.group, s.type.kind, om.name ?? '', errs);
  if (managed === undefined) delete next.metadata!.managedFields;
  else next.metadata!.managedFields = managed;
}

async function updateScale(s: RequestScope, deps: WriteDeps, body: KubeObject, ns: string | undefined, dryRun: boolean, n: Negotiated): Promise<void> {
  if (!isScale(body)) throw errors.badRequest('the body must be a Scale (autoscaling/v1)');
  const cur = await s.rs.mustRead(ns, s.info.name);
  const rv = body.metadata?.resourceVersion;
  if (rv && rv !== cur.obj.metadata!.resourceVersion) throw errors.conflict(s.rs.target(s.info.name));
  const next = fromScale(s.type, structuredClone(cur.obj), body);
  const updated = await updateObject(s, deps, next, cur, '', dryRun);
  respondObject(s, 200, toScale(s.type, updated), n);
}

/** Duplicate owner references (same uid) are dropped with a warning, as upstream does since 1.20. */
function dedupOwnerReferences(s: RequestScope, obj: KubeObject): void {
  const refs = obj.metadata?.ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return;
  const seen = new Set<string>();
  const dups: string[] = [];
  const kept = refs.filter((r) => {
    if (r === null || typeof r !== 'object') return true; // left for validation to reject
    if (!seen.has(r.uid)) return seen.add(r.uid), true;
    if (!dups.includes(r.uid)) dups.push(r.uid);
    return false;
  });
  if (dups.length === 0) return;
  obj.metadata!.ownerReferences = kept;
  s.warnings.push(
    `.metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: [${dups.join(' ')}]`,
  );
}
