// The handler chain, in one place and in upstream's order (k8s.io/apiserver pkg/server/config.go
// DefaultBuildHandlerChain, outermost first): panic recovery, request info, request deadline,
// authentication (with impersonation), max in flight, authorization, then the handler.
//
// The request target is decoded once, at the entry, as Go's net/http does before upstream's filters;
// that one value decides what is public, what the request is (RequestInfo), what is authorized and
// where it is routed. Only a short public list skips authentication and authorization; everything
// else, including paths nothing serves (authenticated first, then 404), is authenticated and authorized.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../../api/status.js';
import { bindRequestState, type RequestState } from '../request/context.js';
import { requestInfo, type RequestInfo } from '../request/info.js';
import type { Authentication } from './authentication.js';
import type { Authorization } from './authorization.js';
import type { InflightLimiter } from './inflight.js';
import { crossSiteReason, decodePath, forbiddenCrossSite, forbiddenHost, hostAccepted, rawTarget } from './request-guard.js';
import { requestDeadline, type Deadline } from './request-timeout.js';
import { WebSocketResponse } from './websocket.js';

/** One request as the filters see it; also its request state (request/context.ts). */
export interface ChainRequest extends RequestState {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The decoded path (decodePath): the only path any filter or handler looks at. */
  path: string;
  query: URLSearchParams;
  /** Watches: not counted in flight, not cut by the deadline (upstream's LongRunningFunc). */
  longRunning: boolean;
  deadline?: Deadline;
  info: RequestInfo;
  /** Cancels the handler (deadline passed, client gone); made on first use. */
  controller?: AbortController;
  /** Set once the handler returned: aborting then would only build an unused AbortError. */
  finished: boolean;
}

/**
 * A step of the chain. It lets the request go on (returns nothing) or answers it itself (returns
 * true); a StatusError it throws is the answer.
 */
type Filter = (r: ChainRequest) => void | boolean | Promise<void | boolean>;

export interface ChainParts {
  scheme: 'http' | 'https';
  /** kubectl proxy's Host patterns; undefined when --disable-filter. */
  acceptedHosts?: RegExp[];
  requestTimeoutMs: number;
  authentication: Pick<Authentication, 'authenticate'>;
  authorization: Pick<Authorization, 'authorizeResource' | 'authorizeNonResource'>;
  inflight: InflightLimiter;
  /** Health checks (/healthz, /livez, /readyz and their sub-paths). */
  health(r: ChainRequest): Promise<void>;
  /** /version. */
  version(r: ChainRequest): void;
  /** The explorer's files; false when it has no such file. */
  staticFiles?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
  /** Called once the request info is known (request metrics). */
  observe?(r: ChainRequest): void;
  /** Long-running requests besides watches (connect sub-resources): not in flight, no deadline. */
  longRunning?(info: RequestInfo): boolean;
  /** The verb a resource request is authorized as when it is not its RequestInfo verb (exec/attach/port-forward: create, whatever the method). */
  authorizeAs?(info: RequestInfo): string | undefined;
  /** Whether storage is ready (API and OpenAPI paths are 503 until it is). */
  ready(): boolean;
  /** The handler behind the chain: routes an authenticated and authorized request. */
  handler(r: ChainRequest): Promise<void>;
  /** The last resort for an error no filter answered (upstream's panic recovery). */
  fail(req: IncomingMessage, res: ServerResponse, e: unknown): void;
}

/**
 * Paths of kube-apiserver: never the explorer's files, always authenticated (service account issuer
 * discovery included: upstream authorizes it by system:service-account-issuer-discovery, bound to
 * service accounts only, not to anonymous callers).
 */
const SERVER_PATHS = /^\/(?:api|apis|openapi|metrics|debug|version|healthz|livez|readyz|logs|\.well-known|openid)(?:\/|$)/;

/** The public list: health checks and their sub-paths, /version (upstream's system:public-info-viewer). */
export function publicRoute(path: string): 'health' | 'version' | undefined {
  const c = path.charCodeAt(1);
  // string compares, no regular expression: this runs for every request
  if (c === 0x68 /* h */ && (path === '/healthz' || path.startsWith('/healthz/'))) return 'health';
  if (c === 0x6c /* l */ && (path === '/livez' || path.startsWith('/livez/'))) return 'health';
  if (c === 0x72 /* r */ && (path === '/readyz' || path.startsWith('/readyz/'))) return 'health';
  if (c === 0x76 /* v */ && (path === '/version' || path === '/version/')) return 'version';
  return undefined;
}

export function buildHandlerChain(p: ChainParts): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const filters: Filter[] = [
    // kubectl proxy's filters, on by default: a page served by another host name (DNS rebinding) or
    // another origin (CSRF) cannot use the user's local server.
    function hostAndOrigin(r) {
      if (!p.acceptedHosts) return;
      if (!hostAccepted(r.req.headers.host, p.acceptedHosts)) throw forbiddenHost(r.req.headers.host);
      const crossSite = crossSiteReason(r.req, p.scheme);
      if (crossSite) throw forbiddenCrossSite(crossSite);
    },
    // the short public list: answered without authentication or authorization
    function publicPaths(r) {
      const route = publicRoute(r.path);
      if (route === 'health') return p.health(r).then(() => true);
      if (route === 'version') {
        p.version(r);
        return true;
      }
      // the explorer's files, for GET and HEAD; a path it has no file for goes on (authenticated, then 404)
      if (p.staticFiles && (r.method === 'GET' || r.method === 'HEAD') && !(r.res instanceof WebSocketResponse) && !SERVER_PATHS.test(r.path))
        return p.staticFiles(r.req, r.res, r.path);
    },
    function requestInfoFilter(r) {
      r.info = requestInfo(r.method, r.path, r.query);
      r.longRunning = r.info.verb === 'watch' || (p.longRunning?.(r.info) ?? false);
      p.observe?.(r);
    },
    // --request-timeout and ?timeout=: the deadline covers authentication and authorization too
    function deadline(r) {
      if (!r.longRunning) r.deadline = requestDeadline(r.req, r.res, r.query, p.requestTimeoutMs, () => abort(r));
    },
    async function authentication(r) {
      await p.authentication.authenticate(r.req, r.path);
    },
    // after authentication, as upstream's max-in-flight/APF filter sits inside it
    function maxInFlight(r) {
      if (!r.longRunning) r.res.once('close', p.inflight.acquire(r.method));
    },
    function readiness(r) {
      if (!p.ready() && (r.path.startsWith('/api') || r.path.startsWith('/openapi'))) throw errors.unavailable('the server is starting: storage is not ready yet');
    },
    function authorization(r) {
      if (r.info.isResourceRequest) {
        const verb = p.authorizeAs?.(r.info);
        return p.authorization.authorizeResource(r.req, verb ? { ...r.info, verb } : r.info, r.query);
      }
      return p.authorization.authorizeNonResource(r.req, r.method, r.path);
    },
    function handler(r) {
      return p.handler(r).then(() => true);
    },
  ];

  return async (req, res) => {
    let r: ChainRequest | undefined;
    try {
      const { path, query } = rawTarget(req.url);
      // every field set here, so the object keeps one shape as filters fill it in
      r = { req, res, method: req.method ?? 'GET', path: decodePath(path), query, info: NO_INFO, longRunning: false, finished: false, deadline: undefined, controller: undefined, auth: undefined, attrs: undefined, authorizeVerb: undefined };
      bindRequestState(req, r);
      for (const f of filters) {
        const out = f(r);
        if ((out instanceof Promise ? await out : out) === true) return;
      }
    } catch (e) {
      p.fail(req, res, e);
    } finally {
      if (r) {
        r.finished = true;
        r.deadline?.clear();
      }
    }
  };
}

/** Aborts the request's handler (once it asked for a signal, or a watch). */
export function abort(r: ChainRequest): void {
  if (!r.finished) (r.controller ??= new AbortController()).abort();
}

/** The request's cancellation signal, made on first use. */
export function signalOf(r: ChainRequest): AbortSignal {
  return (r.controller ??= new AbortController()).signal;
}

const NO_INFO: RequestInfo = Object.freeze(requestInfo('GET', '/', new URLSearchParams()));
