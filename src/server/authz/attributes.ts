// Authorization attributes of a request (upstream k8s.io/apiserver/pkg/authorization/authorizer.Attributes)
// and the decision an authorizer gives. Groups are kept as the request spelled them (messages quote them);
// rule matching compares canonical spellings (src/server/registry/names.ts).
import { failure, type StatusError } from '../../api/status.js';
import type { UserInfo } from '../auth/user.js';
import type { RequestInfo } from '../request/info.js';

export interface Attributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** Non-resource requests: the URL path. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
  /** Set when an authorizer failed to evaluate (SubjectAccessReview status.evaluationError). */
  error?: string;
}

export interface Authorizer {
  readonly name: string;
  authorize(a: Attributes): Promise<AuthorizationResult> | AuthorizationResult;
}

export const allow = (reason = ''): AuthorizationResult => ({ decision: 'Allow', reason });
export const deny = (reason = ''): AuthorizationResult => ({ decision: 'Deny', reason });
export const noOpinion = (reason = ''): AuthorizationResult => ({ decision: 'NoOpinion', reason });

/** Attributes of a resource request from its RequestInfo (upstream GetAuthorizerAttributes). */
export function resourceAttributes(user: UserInfo, info: RequestInfo): Attributes {
  return {
    user,
    verb: info.verb,
    resourceRequest: true,
    path: info.path,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
}

/** Attributes of a non-resource request: the verb is the lowercased HTTP method (HEAD reads as get). */
export function nonResourceAttributes(user: UserInfo, method: string, path: string): Attributes {
  const m = method.toLowerCase();
  const verb = m === 'head' ? 'get' : m;
  return { user, verb, resourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

/** Upstream's denial text (endpoints/handlers/responsewriters forbiddenMessage). */
export function forbiddenMessage(a: Attributes): string {
  const user = a.user.name;
  if (!a.resourceRequest) return `User ${JSON.stringify(user)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  return `User ${JSON.stringify(user)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
}

/** 403 Forbidden Status for a denied request (upstream apierrors.NewForbidden with the reason appended). */
export function forbidden(a: Attributes, reason = ''): StatusError {
  const msg = forbiddenMessage(a) + (reason ? `: ${reason}` : '');
  if (!a.resourceRequest || !a.resource) return failure(403, 'Forbidden', `forbidden: ${msg}`, {});
  const gr = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  const what = a.name ? `${gr} ${JSON.stringify(a.name)}` : gr;
  return failure(403, 'Forbidden', `${what} is forbidden: ${msg}`, { name: a.name || undefined, group: a.apiGroup, kind: a.resource });
}
