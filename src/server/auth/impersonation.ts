// Impersonation headers (upstream endpoints/filters/impersonation.go). Parsed during authentication;
// each impersonated attribute is authorized (verb `impersonate`) before it replaces the user.
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from './user.js';
import { SA_GROUP, SA_PREFIX } from './service-account.js';

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

export interface ImpersonationRequest {
  user: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/** What one impersonated attribute needs (upstream's authorization attributes for the check). */
export interface ImpersonationCheck {
  resource: 'users' | 'groups' | 'uids' | 'userextras' | 'serviceaccounts';
  subresource?: string;
  namespace?: string;
  name: string;
}

export class ImpersonationError extends Error {}

const values = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * The requested impersonation, undefined when no Impersonate-* header is present; throws ImpersonationError when malformed.
 * Takes each header's values separately (node's req.headersDistinct): a group name may hold ", ".
 */
export function parseImpersonation(headers: Record<string, string[] | undefined>): ImpersonationRequest | undefined {
  const users = values(headers[IMPERSONATE_USER]);
  const groups = values(headers[IMPERSONATE_GROUP]);
  const uids = values(headers[IMPERSONATE_UID]);
  const extra: Record<string, string[]> = {};
  for (const [h, v] of Object.entries(headers)) {
    if (!h.startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    let key: string;
    try {
      // header names cannot hold every key character: keys are percent-encoded (upstream unescapeExtraKey)
      key = decodeURIComponent(h.slice(IMPERSONATE_EXTRA_PREFIX.length)).toLowerCase();
    } catch {
      throw new ImpersonationError(`invalid Impersonate-Extra header ${JSON.stringify(h)}`);
    }
    extra[key] = values(v);
  }
  const any = users.length + groups.length + uids.length + Object.keys(extra).length > 0;
  if (!any) return undefined;
  if (users.length !== 1 || users[0] === '') {
    const requested = [...groups.map((g) => `group ${g}`), ...uids.map((u) => `uid ${u}`), ...Object.keys(extra).map((k) => `extra ${k}`)];
    throw new ImpersonationError(users.length > 1 ? 'only one Impersonate-User header may be given' : `requested [${requested.join(' ')}] without impersonating a user`);
  }
  if (uids.length > 1) throw new ImpersonationError('only one Impersonate-Uid header may be given');
  return { user: users[0]!, uid: uids[0], groups, extra };
}

/** The checks the authorizer makes, in upstream's order (user or service account, groups, extra, uid). */
export function impersonationChecks(r: ImpersonationRequest): ImpersonationCheck[] {
  const out: ImpersonationCheck[] = [];
  if (r.user.startsWith(SA_PREFIX)) {
    const [ns, name] = r.user.slice(SA_PREFIX.length).split(':');
    out.push({ resource: 'serviceaccounts', namespace: ns ?? '', name: name ?? '' });
  } else out.push({ resource: 'users', name: r.user });
  for (const g of r.groups) out.push({ resource: 'groups', name: g });
  for (const [k, vs] of Object.entries(r.extra)) for (const v of vs) out.push({ resource: 'userextras', subresource: k, name: v });
  if (r.uid !== undefined) out.push({ resource: 'uids', name: r.uid });
  return out;
}

/** The user a request acts as once its impersonation is authorized (upstream adds the default groups). */
export function impersonatedUser(r: ImpersonationRequest): UserInfo {
  const groups = [...r.groups];
  if (r.user.startsWith(SA_PREFIX) && groups.length === 0) {
    const ns = r.user.slice(SA_PREFIX.length).split(':')[0] ?? '';
    groups.push(SA_GROUP, `${SA_GROUP}:${ns}`);
  }
  if (r.user === ANONYMOUS_USER) {
    if (!groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_UNAUTHENTICATED);
  } else if (!groups.includes(ALL_AUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  return { name: r.user, uid: r.uid ?? '', groups, extra: r.extra };
}
