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
 * The API server's own loopback identity (bootstrap objects, RBAC reconciliation, APIServices, flow control):
 * upstream's loopback client is system:apiserver in system:masters, not subject to authorization.
 */
export function serverComponent(name: string): UserInfo {
  return { name, uid: '', groups: [SYSTEM_MASTERS, ALL_AUTHENTICATED], extra: {} };
}

/** Groups of service accounts (upstream serviceaccount.MakeGroupNames). */
export const ALL_SERVICE_ACCOUNTS = 'system:serviceaccounts';
/** The group of nodes and the prefix of a node's user name (upstream NodeIdentity). */
export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';

/** A service account's user, as its token authenticates (name and groups; no uid for in-process components). */
export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return { name: `system:serviceaccount:${namespace}:${name}`, uid: '', groups: [ALL_SERVICE_ACCOUNTS, `${ALL_SERVICE_ACCOUNTS}:${namespace}`, ALL_AUTHENTICATED], extra: {} };
}

/** A kubelet's user (its client certificate: CN system:node:<name>, O system:nodes). */
export function nodeUser(node: string): UserInfo {
  return { name: `${NODE_USER_PREFIX}${node}`, uid: '', groups: [NODES_GROUP, ALL_AUTHENTICATED], extra: {} };
}

/** The node a user is, as upstream's NodeIdentity: user system:node:<name> in group system:nodes; undefined otherwise. */
export function nodeIdentity(u: UserInfo): { name: string } | undefined {
  if (!u.name.startsWith(NODE_USER_PREFIX) || !u.groups.includes(NODES_GROUP)) return undefined;
  return { name: u.name.slice(NODE_USER_PREFIX.length) };
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
