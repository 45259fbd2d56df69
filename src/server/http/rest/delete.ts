// DELETE on an object and on a collection (deletecollection). The deletion itself is deleter.ts.
import { errors, statusWire, type Status } from '../../../api/status.js';
import { listObjects } from '../../registry/lister.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import type { AdmissionChain } from '../admission.js';
import { authorizeAdditionalVerb } from '../../request/context.js';
import { writeObject } from '../respond.js';
import type { RequestScope } from '../scope.js';
import { served } from './decode.js';
import { normalizeDeleteOptions, readDeleteOptions, type DeleteOptions } from './delete-options.js';
import { deleteObject, returnsDeletedObject, type DeleteResult } from '../../registry/pipeline/delete.js';
import { parseListOptions } from './list-options.js';
import type { WriteContext } from '../../registry/pipeline/context.js';
import { negotiateFor, respondObject } from './output.js';

export interface DeleteHandlerDeps {
  admission: AdmissionChain;
}

/**
 * Authorization of the `unsafe-delete-ignore-read-errors` verb, which upstream requires (besides `delete`) for a
 * delete with ignoreStoreReadErrorWithClusterBreakingPotential: 403 Forbidden `<resource> "<name>" is forbidden:
 * User "<user>" cannot unsafe-delete-ignore-read-errors resource ...` for a caller without the verb.
 */
export async function authorizeUnsafeDelete(s: RequestScope): Promise<void> {
  await authorizeAdditionalVerb(s.req, 'unsafe-delete-ignore-read-errors');
}

/** The Status upstream answers a completed delete with (kind holds the resource, as upstream). */
export function deletedStatus(type: ResourceType, obj: KubeObject): Status {
  return statusWire({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: obj.metadata?.name, group: type.group, kind: type.plural, uid: obj.metadata?.uid },
  } as Status);
}

/** A delete's pipeline context: the request's user and warnings (dry run and options travel in DeleteOptions). */
export function deleteContext(s: RequestScope): WriteContext {
  return { user: s.userInfo, fieldManager: '', dryRun: false, warnings: s.warnings };
}

export async function handleDelete(s: RequestScope, deps: DeleteHandlerDeps): Promise<void> {
  if (s.info.subresource) throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
  const n = negotiateFor(s);
  const opts = normalizeDeleteOptions(await readDeleteOptions(s.req, s.query, s.gates), s.gates);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential === true) await authorizeUnsafeDelete(s);
  const result = await deleteObject({ store: s.rs.store, admission: deps.admission }, s.type, s.info.namespace, s.info.name, opts, deleteContext(s));
  const { code, body } = deleteResponse(s.type, s.info.name, opts, result);
  // a Status names the group as the request spelled it
  const status = body.kind === 'Status' ? (body as unknown as Status) : undefined;
  if (status?.details?.group) status.details.group = s.info.group;
  respondObject(s, code, body.kind === s.type.kind ? served(s, body) : body, n);
}

/** Status code and body as upstream: 202 only for a cascading (orphanDependents=false) delete still under way. */
export function deleteResponse(type: ResourceType, name: string, opts: DeleteOptions, r: DeleteResult): { code: number; body: KubeObject } {
  const code = !r.deleted && opts.orphanDependents === false ? 202 : 200;
  if (!r.obj) {
    // the unsafe deleter has no object to show
    const status: Status = statusWire({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: type.kind }, code });
    return { code, body: status as unknown as KubeObject };
  }
  if (r.deleted && !returnsDeletedObject(type)) return { code, body: deletedStatus(type, r.obj) as unknown as KubeObject };
  return { code, body: r.obj };
}

export async function handleDeleteCollection(s: RequestScope, deps: DeleteHandlerDeps): Promise<void> {
  const n = negotiateFor(s);
  const listOpts = parseListOptions(s.query, s.type);
  const opts = normalizeDeleteOptions(await readDeleteOptions(s.req, s.query, s.gates), s.gates);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential === true)
    throw errors.invalid('meta.service.io', 'DeleteOptions', '', [
      {
        type: 'FieldValueInvalid',
        field: 'ignoreStoreReadErrorWithClusterBreakingPotential',
        detail: 'Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option',
      },
    ]);
  const ns = s.type.scope === 'Namespaced' && s.info.namespace ? s.info.namespace : undefined;
  const { items, resourceVersion } = await listObjects(s.rs, ns, listOpts, s.cache);
  const dd = { store: s.rs.store, admission: deps.admission };
  const ctx = deleteContext(s);
  for (const item of items) {
    try {
      await deleteObject(dd, s.type, item.metadata?.namespace, item.metadata!.name!, opts, ctx);
    } catch (e) {
      // gone meanwhile: fine; anything else fails the request as upstream
      if ((e as { code?: number }).code !== 404) throw e;
    }
  }
  // upstream answers with the list as it was before the deletions
  writeObject(s.req, s.res, 200, { kind: s.type.listKind, apiVersion: s.apiVersion, metadata: { resourceVersion }, items: items.map((o) => served(s, o)) }, n, {
    pretty: s.pretty,
    compression: s.gates.APIResponseCompression,
    warnings: s.warnings,
  });
}
