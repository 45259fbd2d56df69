// The authenticated user of a request (upstream k8s.io/apiserver/pkg/authentication/user.Info).
// Authorization reads it from the request attributes (src/server/http/authentication.ts).

export interface UserInfo {
  /** Unique among active users, e.g. `system:serviceaccount:default:builder`. */
  name: string;
  /** Unique across time; '' when the authenticator knows none. */
  uid: string;
  groups: string[];
  /** Authenticator-specific attributes (keys lowercase for JWT extra mappings). */
  extra: Record<string, string[]>;
}

// Well-known names (upstream user/user.go).
export const ANONYMOUS_USER = 'system:anonymous';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const SYSTEM_MASTERS = 'system:masters';
export const SYSTEM_ADMIN = 'system:admin';
/** Extra key carrying a credential identifier (upstream authentication.kubernetes.io/credential-id). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

export function anonymousUser(): UserInfo {
  return { name: ANONYMOUS_USER, uid: '', groups: [ALL_UNAUTHENTICATED], extra: {} };
}

/** The admin of a local development server (and of the generated kubeconfig's token). */
export function localAdmin(): UserInfo {
  return { name: SYSTEM_ADMIN, uid: '', groups: [SYSTEM_MASTERS, ALL_AUTHENTICATED], extra: {} };
}

/**
 * The identity of the server's own in-process components (controllers, bootstrap writers): like upstream's
 * components on their loopback credentials, they are not subject to authorization.
 */
export function serverComponent(name: string): UserInfo {
  return { name, uid: '', groups: [SYSTEM_MASTERS, ALL_AUTHENTICATED], extra: {} };
}

/** Adds system:authenticated to an authenticated user unless present (upstream AuthenticatedGroupAdder). */
export function withAuthenticatedGroup(u: UserInfo): UserInfo {
  if (u.name === ANONYMOUS_USER || u.groups.includes(ALL_AUTHENTICATED) || u.groups.includes(ALL_UNAUTHENTICATED)) return u;
  return { ...u, groups: [...u.groups, ALL_AUTHENTICATED] };
}

/** authentication/v1 UserInfo as sent on the wire (SelfSubjectReview, TokenReview). */
export interface WireUserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export function userInfoJson(u: UserInfo): WireUserInfo {
  const out: WireUserInfo = { username: u.name };
  if (u.uid) out.uid = u.uid;
  if (u.groups.length) out.groups = [...u.groups];
  if (Object.keys(u.extra).length) out.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return out;
}
