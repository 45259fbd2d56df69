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

/** A context for an in-process component writing as `user` under field manager `manager`. */
export function componentContext(user: string, manager: string, signal?: AbortSignal, dryRun = false): WriteContext {
  return { user: serverComponent(user), fieldManager: manager, dryRun, warnings: [], signal };
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
