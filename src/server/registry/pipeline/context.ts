// The small context every write carries through the registry write pipeline: who writes, as which field
// manager, dry run or not, the request's options (as webhooks see them), where warnings go, and the signal.
// HTTP handlers, sub-resources, controllers, bootstrap and reconcilers all build one of these; nothing in the
// pipeline sees the HTTP request (upstream: the request context's user and the handler's Create/Update/DeleteOptions).
import { serverComponent, userInfoJson, type UserInfo } from '../../auth/user.js';
import type { AdmissionChain } from '../../http/admission.js';
import type { ResourceStore } from '../resource-store.js';

export interface WriteContext {
  /** The user the write acts as (after impersonation): admission's userInfo, CSR usernames, audit. */
  user: UserInfo;
  /** managedFields manager for non-apply writes ('' records none: the store's own writes, as upstream's registry-internal updates). */
  fieldManager: string;
  dryRun: boolean;
  /** Create/Update/Patch/DeleteOptions as sent to admission webhooks (AdmissionReview request.options). */
  options?: Record<string, unknown>;
  /** Warnings for the client (Warning headers); an internal writer's are dropped. */
  warnings: string[];
  signal?: AbortSignal;
  /** apiVersion as the request spelled it: updates compare against the stored object in this version. */
  apiVersion?: string;
  /** Set once server-side apply has computed managedFields for this write. */
  appliedManagedFields?: boolean;
  /**
   * Authorization of an in-process component's write (controllers, scheduler, kubelets), asked by the pipeline
   * before anything else as the chain asks it of an HTTP request; a 403 StatusError when denied. Absent for
   * writes the chain authorized already and for the API server's own loopback writes (system:masters).
   */
  authorize?: (w: WriteAttributes) => Promise<void>;
}

/** What a write is, for authorization: the attributes the chain derives from a request's RequestInfo. */
export interface WriteAttributes {
  verb: 'create' | 'update' | 'patch' | 'delete';
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** Asks the context's authorizer about a write of `type` (nothing for writes authorized already). */
export function authorizeWrite(ctx: WriteContext, type: { group: string; plural: string; scope: string }, verb: WriteAttributes['verb'], namespace: string | undefined, name: string, subresource = ''): Promise<void> | undefined {
  return ctx.authorize?.({ verb, group: type.group, resource: type.plural, subresource, namespace: type.scope === 'Namespaced' ? (namespace ?? '') : '', name });
}

/** Where a write goes: the type's store and the admission chain every write passes. */
export interface WriteTarget {
  rs: ResourceStore;
  admission: AdmissionChain;
}

/** The API server's own writes (upstream's loopback client runs as system:apiserver, group system:masters). */
export const APISERVER_USER = 'system:apiserver';
/** Field manager of the API server's loopback writes (upstream derives it from the loopback User-Agent). */
export const APISERVER_MANAGER = 'kube-apiserver';

/** A context for the API server's own loopback writes as `user` (system:masters) under field manager `manager`. */
export function componentContext(user: string, manager: string, signal?: AbortSignal, dryRun = false): WriteContext {
  return { user: serverComponent(user), fieldManager: manager, dryRun, warnings: [], signal };
}

/** A context for an in-process component writing as `user`, authorized by `authorize` before the pipeline runs. */
export function identityContext(user: UserInfo, manager: string, authorize: WriteContext['authorize'], signal?: AbortSignal): WriteContext {
  return { user, fieldManager: manager, dryRun: false, warnings: [], signal, authorize };
}

/**
 * The options object admission sees when the caller gave none: upstream's handlers always pass their
 * CreateOptions/UpdateOptions (a patch's become UpdateOptions, or CreateOptions for an apply that creates).
 */
export function optionsOf(ctx: WriteContext, kind: 'CreateOptions' | 'UpdateOptions'): Record<string, unknown> {
  if (ctx.options) return ctx.options;
  const out: Record<string, unknown> = { kind, apiVersion: 'meta.service.io/v1' };
  if (ctx.dryRun) out.dryRun = ['All'];
  return out;
}

/** Admission's view of the user (built once per write). */
export const wireUser = (ctx: WriteContext) => userInfoJson(ctx.user);
