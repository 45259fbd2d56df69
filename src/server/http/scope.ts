// Per-request context shared by the REST handlers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../auth/user.js';
import type { FeatureGates } from '../features.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { ResourceType } from '../registry/types.js';
import type { RequestInfo } from '../request/info.js';
import type { WatchCache } from '../watch/watch-cache.js';

export interface RequestScope {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  type: ResourceType;
  rs: ResourceStore;
  /** The type's watch cache (lists that may be served from cache, watches). */
  cache: WatchCache;
  gates: FeatureGates;
  /** apiVersion as the request spelled it (alias group answered in kind). */
  apiVersion: string;
  warnings: string[];
  pretty: boolean;
  /** Authenticated user name (for managedFields and audit-like logs). */
  user: string;
  /** The user the request acts as (after impersonation), for authorization and the review APIs. */
  userInfo: UserInfo;
  /** Set once server-side apply has computed managedFields for this write. */
  appliedManagedFields?: boolean;
  /** Aborted when the client goes away or the server shuts down. */
  signal: AbortSignal;
}
