// Routes resource requests to the REST verbs after resolving the type.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../../api/status.js';
import type { FeatureGates } from '../features.js';
import { resourceStoreFor } from '../registry/resource-store.js';
import type { TypeRegistry } from '../registry/registry.js';
import { pathSegmentErrors } from '../registry/meta-validation.js';
import type { RevisionedStore } from '../storage/types.js';
import { typePrefix } from '../registry/keys.js';
import { canonicalGroup } from '../registry/names.js';
import type { WatchCacheSet } from '../watch/watch-cache.js';
import { defaultWatchSettings, handleWatch, type WatchSettings } from './rest/watch.js';
import type { RequestInfo } from '../request/info.js';
import { gv } from './rest/decode.js';
import { handleDelete, handleDeleteCollection } from './rest/delete.js';
import { handleEviction } from './rest/eviction.js';
import { authenticationHandler } from './rest/authentication.js';
import { authorizationHandler } from './rest/authorization.js';
import { handleBinding } from './rest/binding.js';
import { handleGet, handleList } from './rest/read.js';
import { handlePatch } from './rest/patch.js';
import { handleCreate, handleUpdate, type WriteDeps } from './rest/write.js';
import { handleMetrics } from './rest/metrics.js';
import { serveAggregated, type AggregatedRoutes } from './aggregated-proxy.js';
import { isMetricsType } from '../registry/builtin-metrics.js';
import type { RequestScope } from './scope.js';
import type { Authentication } from './authentication.js';
import type { Authorization } from './authorization.js';
import { requestUser, withRequestContext } from '../request/context.js';
import { inRequestSpelling } from './error-spelling.js';

export type VerbHandler = (s: RequestScope, deps: WriteDeps) => Promise<void>;

export interface ApiDeps extends WriteDeps {
  store: RevisionedStore;
  types: TypeRegistry;
  gates: FeatureGates;
  caches: WatchCacheSet;
  watch: WatchSettings;
  /** The authentication step (reviews and token requests use it). */
  authentication?: Authentication;
  /** The authorization step (resource requests are authorized here; reviews use it). */
  authorization?: Authorization;
  /** Extra verb handlers registered by later layers (watch, patch). */
  verbs: Partial<Record<string, VerbHandler>>;
  /** Group-versions an APIService hands to a Service (aggregated APIs). */
  aggregator?: AggregatedRoutes;
}

export { defaultWatchSettings, resourceStoreFor };

const notFound = () => errors.notFound({ group: '', resource: '' });

export async function handleResourceRequest(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  query: URLSearchParams,
  deps: ApiDeps,
  signal: AbortSignal | (() => AbortSignal),
): Promise<void> {
  try {
    // authorized by the chain (http/chain.ts) before the type is resolved, as upstream: an unknown resource is 403 to whoever may not see it
    // the request context serves the write path's escalation checks: reads go without it
    if (info.verb === 'get' || info.verb === 'list' || info.verb === 'watch') return await dispatch(req, res, info, query, deps, signal);
    return await withRequestContext(req, () => dispatch(req, res, info, query, deps, signal));
  } catch (e) {
    throw inRequestSpelling(e, info.group);
  }
}

async function dispatch(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  query: URLSearchParams,
  deps: ApiDeps,
  signal: AbortSignal | (() => AbortSignal),
): Promise<void> {
  const type = deps.types.lookup(info.group, info.version, info.resource);
  if (!type || !type.served) {
    // a group-version served elsewhere: an APIService names a Service for it (local types win, as upstream's)
    const aggregated = info.group !== '' && !deps.types.groups().get(canonicalGroup(info.group))?.has(info.version) ? deps.aggregator?.route(info.group, info.version) : undefined;
    if (aggregated) return serveAggregated(req, res, aggregated, requestUser(req));
    throw withMessage(notFound(), 'the server could not find the requested resource');
  }
  const namespacedPath = info.namespace !== '' && info.resource !== 'namespaces';
  if (type.scope === 'Cluster' && namespacedPath) throw withMessage(notFound(), 'the server could not find the requested resource');
  if (info.subresource && !type.subresources.some((s) => s.name === info.subresource))
    throw withMessage(notFound(), 'the server could not find the requested resource');
  if (info.parts.length > 3) throw withMessage(notFound(), 'the server could not find the requested resource');
  // Names and namespaces from the path become storage keys: `.`, `..`, `/` and `%` never name an object
  // (apimachinery IsValidPathSegmentName, checked by upstream's NamespaceKeyFunc).
  checkPathSegment('Name', info.name);
  checkPathSegment('Namespace', info.namespace);
  const userInfo = requestUser(req);
  const s: RequestScope = {
    req,
    res,
    info,
    query,
    type,
    rs: resourceStoreFor(type, deps.store),
    cache: deps.caches.get(typePrefix(type)),
    gates: deps.gates,
    apiVersion: gv(info.group, info.version),
    warnings: [],
    pretty: query.get('pretty') === 'true' || query.get('pretty') === '1',
    user: userInfo.name,
    userInfo,
    // an AbortController costs more than many a request: made when a handler asks for the signal
    get signal() {
      return typeof signal === 'function' ? signal() : signal;
    },
  };
  // a deprecated CRD version warns on every request to it (upstream crdHandler)
  if (type.deprecationWarning) s.warnings.push(type.deprecationWarning);
  // metrics.k8s.io: computed from nodes and pods on each read, nothing stored
  if (isMetricsType(type)) {
    const source = (plural: string) => {
      const t = deps.types.lookup('', 'v1', plural)!;
      return { rs: resourceStoreFor(t, deps.store), cache: deps.caches.get(typePrefix(t)) };
    };
    return handleMetrics(s, { nodes: source('nodes'), pods: source('pods') });
  }
  // a virtual sub-resource: POST only (pods/eviction)
  if (info.subresource === 'eviction') {
    if (info.verb !== 'create') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
    return handleEviction(s, deps);
  }
  if (info.subresource === 'binding' && type.group === '' && type.plural === 'pods') {
    if (info.verb !== 'create') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
    return handleBinding(s, deps);
  }
  const authn = authenticationHandler(s);
  if (authn) {
    if (info.verb !== 'create') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
    return authn(s, deps);
  }
  const review = authorizationHandler(s);
  if (review) {
    if (info.verb !== 'create' || info.subresource || info.name) throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
    if (!deps.authorization) throw errors.unavailable('authorization is not set up');
    return review(s, deps.authorization, deps.admission);
  }
  const extra = deps.verbs[info.verb];
  if (extra) return extra(s, deps);
  switch (info.verb) {
    case 'get':
      return handleGet(s);
    case 'list':
      return handleList(s);
    case 'watch':
      return handleWatch(s, s.cache, deps.watch);
    case 'create':
      return handleCreate(s, deps);
    case 'update':
      return handleUpdate(s, deps);
    case 'patch':
      return handlePatch(s, deps);
    case 'delete':
      return handleDelete(s, deps);
    case 'deletecollection':
      return handleDeleteCollection(s, deps);
    default:
      throw errors.methodNotAllowed(`the server does not allow this method on the requested resource`);
  }
}

function checkPathSegment(what: 'Name' | 'Namespace', value: string): void {
  if (value === '') return;
  const msgs = pathSegmentErrors(value);
  if (msgs.length > 0) throw errors.badRequest(`${what} parameter invalid: ${JSON.stringify(value)}: ${msgs.join(';')}`);
}

function withMessage<T extends { status: { message?: string; details?: unknown } }>(e: T, message: string): T {
  e.status.message = message;
  e.status.details = {};
  return e;
}
