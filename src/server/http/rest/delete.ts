// delete and deletecollection: preconditions, two-phase deletion with finalizers, dry-run.
import { errors, type Status } from '../../../api/status.js';
import { listObjects } from '../../registry/lister.js';
import { nowTimestamp, type StoredObject } from '../../registry/resource-store.js';
import type { KubeObject } from '../../registry/types.js';
import type { RequestScope } from '../scope.js';
import { served } from './decode.js';
import { parseListOptions } from './list-options.js';
import { negotiateFor, respondObject } from './output.js';
import { readDeleteOptions, type DeleteOptionsBody, type WriteDeps } from './write.js';
import { writeObject } from '../respond.js';

export type DeleteOptions = DeleteOptionsBody & { dryRunAll: boolean };

export interface DeleteOutcome {
  /** The object, still present (finalizing) or as last seen when removed. */
  obj: KubeObject;
  /** True when the object is gone from the store. */
  removed: boolean;
}

/** Deletes one stored object following the two-phase rules. */
export async function deleteStored(s: RequestScope, deps: WriteDeps, cur: StoredObject, opts: DeleteOptions): Promise<DeleteOutcome> {
  s.rs.checkPreconditions(cur.obj, opts.preconditions);
  const meta = cur.obj.metadata!;
  const attrs = {
    operation: 'DELETE' as const,
    type: s.type,
    namespace: meta.namespace ?? '',
    name: meta.name ?? '',
    subresource: '',
    oldObject: cur.obj,
    dryRun: opts.dryRunAll,
    user: s.user,
  };
  await deps.admission.admit(attrs);
  await deps.admission.validate(attrs);
  const finalizers = meta.finalizers ?? [];
  if (finalizers.length > 0) {
    if (meta.deletionTimestamp) return { obj: cur.obj, removed: false };
    const next = structuredClone(cur.obj);
    next.metadata!.deletionTimestamp = nowTimestamp();
    next.metadata!.deletionGracePeriodSeconds = 0;
    next.metadata!.generation = (meta.generation ?? 1) + 1;
    const { obj } = await s.rs.update(cur.key, next, cur, { dryRun: opts.dryRunAll });
    return { obj, removed: false };
  }
  const obj = await s.rs.remove(cur, { dryRun: opts.dryRunAll });
  return { obj, removed: true };
}

export function successStatus(s: RequestScope, obj: KubeObject): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: obj.metadata?.name, group: s.info.group, kind: s.type.plural, uid: obj.metadata?.uid },
    code: 200,
  };
}

export async function handleDelete(s: RequestScope, deps: WriteDeps): Promise<void> {
  if (s.info.subresource) throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
  const opts = await readDeleteOptions(s);
  const ns = s.type.scope === 'Namespaced' ? s.info.namespace : undefined;
  const cur = await s.rs.mustRead(ns, s.info.name);
  const out = await deleteStored(s, deps, cur, opts);
  if (out.removed) respondObject(s, 200, successStatus(s, out.obj) as unknown as KubeObject);
  else respondObject(s, 200, served(s, out.obj));
}

export async function handleDeleteCollection(s: RequestScope, deps: WriteDeps): Promise<void> {
  const n = negotiateFor(s);
  const opts = await readDeleteOptions(s);
  const ns = s.type.scope === 'Namespaced' && s.info.namespace ? s.info.namespace : undefined;
  const listOpts = parseListOptions(s.query, s.type);
  const { items, resourceVersion } = await listObjects(s.rs, ns, listOpts, s.cache);
  const deleted: KubeObject[] = [];
  for (const item of items) {
    const cur = await s.rs.read(item.metadata?.namespace, item.metadata!.name!);
    if (!cur) continue;
    try {
      const out = await deleteStored(s, deps, cur, opts);
      deleted.push(served(s, out.obj));
    } catch (e) {
      // an object changed or vanished meanwhile: upstream ignores NotFound and reports other failures
      if ((e as { code?: number }).code === 404) continue;
      throw e;
    }
  }
  writeObject(s.req, s.res, 200, { kind: `${s.type.kind}List`, apiVersion: s.apiVersion, metadata: { resourceVersion }, items: deleted }, n, {
    pretty: s.pretty,
    compression: s.gates.APIResponseCompression,
    warnings: s.warnings,
  });
}
