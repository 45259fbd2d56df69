// The state of one request, shared by the chain's filters (http/chain.ts) and everything below them:
// the authenticated user, the attributes authorization allowed, warnings (upstream keeps these in the
// request's context.Context). A small module below http/, authz/ and admission/, so that none of them
// needs another to learn who is asking.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import { errors } from '../../api/status.js';
import type { ImpersonationRequest } from '../auth/impersonation.js';
import type { UserInfo } from '../auth/user.js';
import type { Attributes } from '../authz/attributes.js';
import type { RequestInfo } from './info.js';

/** What authentication attached to a request. */
export interface RequestAuth {
  /** The user the request acts as (the impersonated one once impersonation is authorized). */
  user: UserInfo;
  /** The authenticated user when impersonating. */
  impersonator?: UserInfo;
  impersonation?: ImpersonationRequest;
}

export interface RequestState {
  /** What the request is (upstream's RequestInfo), from the decoded path. */
  info?: RequestInfo;
  /** The request's deadline (--request-timeout, ?timeout=); none for watches. */
  deadline?: { clear(): void };
  auth?: RequestAuth;
  /** The resource attributes authorization allowed (escalation checks start from them). */
  attrs?: Attributes;
  /** Authorizes one more verb on the request's resource (set with `attrs`). */
  authorizeVerb?: (verb: string) => Promise<void>;
  /** Warning headers to send (upstream's warning recorder). */
  warnings?: string[];
}

const states = new WeakMap<IncomingMessage, RequestState>();
const running = new AsyncLocalStorage<RequestState>();

/** Makes `state` the request's state (the chain's first step: its own request object is the state). */
export function bindRequestState(req: IncomingMessage, state: RequestState): void {
  states.set(req, state);
}

/** The request's state, made on first use. */
export function requestState(req: IncomingMessage): RequestState {
  let s = states.get(req);
  if (!s) states.set(req, (s = {}));
  return s;
}

/** Records the authentication result (only the authentication filter calls this). */
export function setRequestAuth(req: IncomingMessage, auth: RequestAuth): void {
  requestState(req).auth = auth;
}

/** The request's authentication result, undefined when it never went through authentication. */
export function requestAuth(req: IncomingMessage): RequestAuth | undefined {
  return states.get(req)?.auth;
}

/**
 * The user of a request. A request without one never went through authentication: that is a fault of
 * the chain, never a reason to allow it (no handler treats "no user" as anonymous or as allowed).
 */
export function requestUser(req: IncomingMessage): UserInfo {
  const auth = states.get(req)?.auth;
  if (!auth) throw errors.internal('the request reached a handler without being authenticated');
  return auth.user;
}

/** The state of the request being handled, for checks made deep in the write path (RBAC escalation). */
export function currentRequest(): (RequestState & { auth: RequestAuth }) | undefined {
  const s = running.getStore();
  return s?.auth ? (s as RequestState & { auth: RequestAuth }) : undefined;
}

/** Runs the rest of a request with its state available to currentRequest(). */
export function withRequestContext<T>(req: IncomingMessage, fn: () => Promise<T>): Promise<T> {
  const s = states.get(req);
  return s ? running.run(s, fn) : fn();
}

/** Authorizes one more verb on the request's resource (upstream: unsafe-delete-ignore-read-errors for corrupt-object deletes). */
export async function authorizeAdditionalVerb(req: IncomingMessage, verb: string): Promise<void> {
  const s = states.get(req);
  if (!s?.authorizeVerb) throw errors.internal(`the request was not authorized before asking for "${verb}"`);
  await s.authorizeVerb(verb);
}
