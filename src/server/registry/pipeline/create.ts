// Create: the one path every new object takes (POST, create-on-PUT, apply-create, controllers, bootstrap).
// Upstream's order (endpoints/handlers/create.go, then registry/generic/registry/store.go Create):
// decode and default → dedup owner references → managedFields → mutating admission → BeforeCreate
// (namespace check, strategy PrepareForCreate, system fields, Validate) → validating admission → storage.
import { storeCreate } from './storage.js';
import { checkObjectDepth, NestingError } from '../../../api/nesting.js';
import { errors, StatusError } from '../../../api/status.js';
import type { AdmissionAttributes } from '../../http/admission.js';
import { dropDisabledFields } from '../disabled-fields.js';
import type { SystemFields } from '../resource-store.js';
import type { KubeObject } from '../types.js';
import { authorizeWrite, optionsOf, wireUser, type WriteContext, type WriteTarget } from './context.js';
import { recordUpdate } from './managed.js';
import { validateForStore } from './validate.js';
import { allocateServiceIPs, isServices, releaseAllocated } from './service-ips.js';

export function checkDepth(v: unknown): void {
  try {
    checkObjectDepth(v);
  } catch (e) {
    if (e instanceof NestingError) throw errors.badRequest(e.message);
    throw e;
  }
}

/** Creates `obj` (decoded and field-checked by the caller) in namespace `ns`. `obj` is changed and returned stored. */
export async function createObject(t: WriteTarget, ctx: WriteContext, obj: KubeObject, ns: string | undefined): Promise<KubeObject> {
  const { rs } = t;
  const type = rs.type;
  // a component's write is authorized first, as the chain authorizes a POST (the collection: no name)
  await authorizeWrite(ctx, type, 'create', ns, '');
  checkDepth(obj);
  const meta = (obj.metadata ??= {});
  if (!meta.name && !meta.generateName)
    throw errors.invalid(type.group, type.kind, '', [{ type: 'FieldValueRequired', field: 'metadata.name', detail: 'Required value: name or generateName is required' }]);
  if (type.scope === 'Namespaced') meta.namespace = ns;
  else delete meta.namespace;
  // uid and creationTimestamp before defaulting, which may use the uid (a Job's generated selector); put back
  // after mutating admission, so nothing a webhook set there is stored
  rs.assignSystemFields(obj);
  // status is the server's on create: what defaulting puts there is all it keeps (upstream PrepareForCreate)
  const serverStatus = rs.hasStatus() && !type.strategy.keepStatusOnCreate;
  if (serverStatus) delete obj.status;
  dedupOwnerReferences(ctx, obj);
  dropDisabledFields(type, obj);
  type.strategy.defaults?.(obj);
  const defaultedStatus = serverStatus && obj.status !== undefined ? structuredClone(obj.status) : undefined;
  recordUpdate(type, ctx, undefined, obj, '');
  const user = wireUser(ctx);
  const attrs: AdmissionAttributes = { operation: 'CREATE', type, namespace: ns ?? '', name: meta.name ?? '', subresource: '', object: obj, dryRun: ctx.dryRun, user: ctx.user.name, userInfo: user, warnings: ctx.warnings };
  attrs.options = optionsOf(ctx, 'CreateOptions');
  const system = { uid: meta.uid, creationTimestamp: meta.creationTimestamp, generation: meta.generation };
  await t.admission.admit(attrs);
  afterMutatingCreate(t, obj, ns, attrs.name, system);
  // PrepareForCreate after mutating admission, as upstream's BeforeCreate: status is the server's, and
  // user-derived fields (a CSR's username) cannot be set by a webhook
  if (serverStatus) {
    if (defaultedStatus === undefined) delete obj.status;
    else obj.status = defaultedStatus;
  }
  type.strategy.prepareCreate?.(obj, user);
  // a webhook's patch replaces the metadata object: read it again
  const admitted = obj.metadata!;
  const toValidate = admitted.name ? obj : { ...obj, metadata: { ...admitted, name: `${admitted.generateName}xxxxx` } };
  await validateForStore(type, toValidate, undefined);
  // upstream's Service storage allocates (BeginCreate) after validation, before validating admission and the write
  const held = isServices(type) ? await allocateServiceIPs(t, ctx, createObject, obj) : [];
  try {
    await t.admission.validate(attrs);
    return await storeCreate(rs, obj, { dryRun: ctx.dryRun });
  } catch (e) {
    // a Service of that name created meanwhile (another replica's create of it) keeps the addresses it names
    const lostRace = e instanceof StatusError && e.code === 409 && e.reason === 'AlreadyExists';
    if (held.length && !lostRace) await releaseAllocated(rs.store, held);
    throw e;
  }
}

/**
 * Mutating admission may have changed anything: the object must still be the one the request named and was
 * authorized for, and system fields are the server's (upstream: the store's Create fills uid and
 * creationTimestamp, BeforeCreate checks the namespace, after mutating admission).
 */
function afterMutatingCreate(t: WriteTarget, obj: KubeObject, ns: string | undefined, requestName: string, system: SystemFields): void {
  const meta = (obj.metadata ??= {});
  if (ns !== undefined) {
    // upstream ValidNamespace: an empty namespace is the request's, another one is refused
    if (meta.namespace && meta.namespace !== ns) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    meta.namespace = ns;
  } else delete meta.namespace;
  // a generateName create has no name before admission: a webhook may name it
  if (requestName !== '' && meta.name !== requestName)
    throw errors.badRequest(`the name of the object (${String(meta.name ?? '')}) does not match the name on the request (${requestName})`);
  t.rs.restoreSystemFields(obj, system);
}

/** Duplicate owner references (same uid) are dropped with a warning, as upstream does since 1.20. */
export function dedupOwnerReferences(ctx: WriteContext, obj: KubeObject): void {
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
  ctx.warnings.push(
    `.metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: [${dups.join(' ')}]`,
  );
}
