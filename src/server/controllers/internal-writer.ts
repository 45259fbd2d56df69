// Creates objects from inside the server (bootstrap objects, controllers) through the same create path as a
// POST: defaults, managedFields, admission (namespace lifecycle included) and validation all apply.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from '../../api/status.js';
import { serverComponent } from '../auth/user.js';
import type { ApiDeps } from '../http/api-handler.js';
import { resourceStoreFor } from '../registry/resource-store.js';
import { requestInfo } from '../request/info.js';
import type { RequestScope } from '../http/scope.js';
import { createObject } from '../http/rest/write.js';
import { typePrefix } from '../registry/keys.js';
import type { KubeObject, ResourceType } from '../registry/types.js';

/** A request scope for an in-process write by `manager` (recorded in managedFields as upstream's controllers are). */
export function internalScope(deps: ApiDeps, type: ResourceType, namespace: string | undefined, manager: string, signal: AbortSignal): RequestScope {
  const base = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  const path = `${base}${namespace ? `/namespaces/${namespace}` : ''}/${type.plural}`;
  const query = new URLSearchParams({ fieldManager: manager });
  return {
    req: { headers: { 'user-agent': manager }, method: 'POST', url: path } as unknown as IncomingMessage,
    res: undefined as unknown as ServerResponse,
    info: requestInfo('POST', path, query),
    query,
    type,
    rs: resourceStoreFor(type, deps.store),
    cache: deps.caches.get(typePrefix(type)),
    gates: deps.gates,
    apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
    warnings: [],
    pretty: false,
    user: `system:${manager}`,
    userInfo: serverComponent(`system:${manager}`),
    signal,
  };
}

/**
 * Creates `obj` unless an object of that name exists. Returns the created object, or undefined when it already
 * existed (409) or its namespace is terminating/missing (403/404: the namespace controller owns that case).
 */
export async function ensureCreated(deps: ApiDeps, type: ResourceType, obj: KubeObject, manager: string, signal: AbortSignal): Promise<KubeObject | undefined> {
  const ns = type.scope === 'Namespaced' ? obj.metadata?.namespace : undefined;
  const s = internalScope(deps, type, ns, manager, signal);
  try {
    return await createObject(s, deps, structuredClone(obj), ns, false);
  } catch (e) {
    if (e instanceof StatusError && (e.code === 409 || e.code === 403 || e.code === 404)) return undefined;
    throw e;
  }
}

/** Creates `obj` through the create path as `manager`; errors (409 included) are the caller's. */
export async function createInternal(deps: ApiDeps, type: ResourceType, obj: KubeObject, manager: string, signal: AbortSignal): Promise<KubeObject> {
  const ns = type.scope === 'Namespaced' ? obj.metadata?.namespace : undefined;
  return createObject(internalScope(deps, type, ns, manager, signal), deps, structuredClone(obj), ns, false);
}
