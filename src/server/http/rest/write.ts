// create (POST) and update (PUT): decoding and the request's checks; the writes are the registry pipeline's
// (registry/pipeline), shared with sub-resources, controllers and bootstrap.
import { errors } from '../../../api/status.js';
import { createObject as createInRegistry } from '../../registry/pipeline/create.js';
import { fromCurrent } from '../../registry/pipeline/current.js';
import type { WriteContext } from '../../registry/pipeline/context.js';
import { updateObject as updateInRegistry } from '../../registry/pipeline/update.js';
import type { StoredObject } from '../../registry/resource-store.js';
import type { KubeObject } from '../../registry/types.js';
import type { AdmissionChain } from '../admission.js';
import { admitVirtualCreate } from '../../registry/pipeline/virtual.js';
import type { Negotiated } from '../negotiate.js';
import type { RequestScope } from '../scope.js';
import { checkKind, decodeObjectBody, dryRunOf, fieldValidationOf, served } from './decode.js';
import { negotiateFor, respondObject } from './output.js';
import { fromScale, isScale, toScale } from './scale.js';
import { checkFields } from './validate.js';
import { managerOf } from './managed.js';

export interface WriteDeps {
  admission: AdmissionChain;
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

/** The pipeline's context for a write made by this request. */
export function writeContext(s: RequestScope, dryRun = dryRunOf(s.query)): WriteContext {
  return {
    user: s.userInfo,
    fieldManager: s.appliedManagedFields ? '' : managerOf(s),
    dryRun,
    warnings: s.warnings,
    apiVersion: s.apiVersion,
    appliedManagedFields: s.appliedManagedFields,
    // the request's AbortController is made only when asked for
    get signal() {
      return s.signal;
    },
  };
}

/**
 * Admission of a create that stores nothing (reviews, TokenRequest): mutating admission, the kind's own checks
 * (`check`, on the admitted object), validating admission; returns the admitted object.
 */
export function admitCreate(
  s: RequestScope,
  admission: AdmissionChain,
  obj: KubeObject,
  check?: (o: KubeObject) => void,
  kind?: { group: string; version: string; kind: string },
): Promise<KubeObject> {
  const name = s.info.name || (typeof obj.metadata?.name === 'string' ? obj.metadata.name : '');
  return admitVirtualCreate(admission, writeContext(s), { type: s.type, namespace: s.info.namespace, name, subresource: s.info.subresource, object: obj, kind }, check);
}

/** The create path shared by POST, create-on-PUT and apply-create: the write pipeline's. */
export function createObject(s: RequestScope, deps: WriteDeps, obj: KubeObject, ns: string | undefined, dryRun: boolean): Promise<KubeObject> {
  return createInRegistry({ rs: s.rs, admission: deps.admission }, writeContext(s, dryRun), obj, ns);
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
  // from the watch cache's object (fromCurrent); the body stays as sent for an attempt on the stored one
  const { code, result } = await fromCurrent(s.rs, ns, s.info.name, dryRun, async (cur) => {
    if (!cur) {
      if (sub || !s.type.strategy.allowCreateOnUpdate) throw errors.notFound(s.rs.target(s.info.name));
      return { code: 201, result: await createObject(s, deps, obj, ns, dryRun) };
    }
    return { code: 200, result: await updateObject(s, deps, cur.suggested ? structuredClone(obj) : obj, cur, sub, dryRun) };
  });
  respondObject(s, code, served(s, result), n);
}

/** The update path shared by PUT, PATCH and scale: the write pipeline's. */
export function updateObject(s: RequestScope, deps: WriteDeps, next: KubeObject, cur: StoredObject, sub: string, dryRun: boolean): Promise<KubeObject> {
  return updateInRegistry({ rs: s.rs, admission: deps.admission }, writeContext(s, dryRun), next, cur, sub);
}

async function updateScale(s: RequestScope, deps: WriteDeps, body: KubeObject, ns: string | undefined, dryRun: boolean, n: Negotiated): Promise<void> {
  if (!isScale(body)) throw errors.badRequest('the body must be a Scale (autoscaling/v1)');
  const updated = await fromCurrent(s.rs, ns, s.info.name, dryRun, async (cur) => {
    if (!cur) throw errors.notFound(s.rs.target(s.info.name));
    const rv = body.metadata?.resourceVersion;
    if (rv && rv !== cur.obj.metadata!.resourceVersion) throw errors.conflict(s.rs.target(s.info.name));
    const next = fromScale(s.type, structuredClone(cur.obj), body);
    return updateObject(s, deps, next, cur, '', dryRun);
  });
  respondObject(s, 200, toScale(s.type, updated), n);
}
