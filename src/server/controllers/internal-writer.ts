// Creates objects from inside the server (bootstrap objects, controllers) through the write pipeline, as a POST:
// defaults, managedFields, admission (namespace lifecycle included) and validation all apply.
import { StatusError } from '../../api/status.js';
import type { AdmissionChain } from '../http/admission.js';
import { APISERVER_USER, componentContext, type WriteContext } from '../registry/pipeline/context.js';
import { createObject } from '../registry/pipeline/create.js';
import { mutateObject } from '../registry/pipeline/update.js';
import { resourceStoreFor } from '../registry/resource-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';

export interface InternalWriteDeps {
  store: RevisionedStore;
  admission: AdmissionChain;
}

/**
 * Who writes: a field manager name is the API server's own loopback writer (bootstrap objects, APIServices, flow
 * control configuration: system:apiserver, as upstream's loopback client); a controller passes its own context
 * (its service account, authorized: identities.ts controllerContext).
 */
const contextOf = (who: string | WriteContext, signal?: AbortSignal): WriteContext =>
  typeof who === 'string' ? componentContext(APISERVER_USER, who, signal) : signal && !who.signal ? { ...who, signal } : who;

/**
 * Creates `obj` unless an object of that name exists. Returns the created object, or undefined when it already
 * existed (409) or its namespace is terminating/missing (403/404: the namespace controller owns that case).
 */
export async function ensureCreated(deps: InternalWriteDeps, type: ResourceType, obj: KubeObject, manager: string | WriteContext, signal: AbortSignal): Promise<KubeObject | undefined> {
  const ns = type.scope === 'Namespaced' ? obj.metadata?.namespace : undefined;
  try {
    return await createObject({ rs: resourceStoreFor(type, deps.store), admission: deps.admission }, contextOf(manager, signal), structuredClone(obj), ns);
  } catch (e) {
    if (e instanceof StatusError && (e.code === 409 || e.code === 403 || e.code === 404)) return undefined;
    throw e;
  }
}

/** Read-modify-write of one object by in-process writer `manager` through the update pipeline (see mutateObject). */
export function ensureUpdated(
  deps: InternalWriteDeps,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  manager: string | WriteContext,
  fn: (obj: KubeObject) => boolean,
  opts: { uid?: string; subresource?: string; signal?: AbortSignal } = {},
): Promise<KubeObject | undefined> {
  return mutateObject({ rs: resourceStoreFor(type, deps.store), admission: deps.admission }, contextOf(manager, opts.signal), namespace, name, fn, opts);
}
