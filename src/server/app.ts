// Composes the API server: store, registry, controllers, handler chain, HTTP listener.
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { parseAccept } from '../api/media.js';
import { errors } from '../api/status.js';
import { AdmissionChain } from './http/admission.js';
import { createAuthentication, tlsClientAuthOptions } from './http/authentication.js';
import { requestUser } from './request/context.js';
import { admissionAuthorizer, createAuthorization } from './http/authorization.js';
import { defaultWatchSettings, handleResourceRequest, type ApiDeps } from './http/api-handler.js';
import type { WatchSettings } from './http/rest/watch.js';
import { WatchCacheSet } from './watch/watch-cache.js';
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, serveWithETag } from './http/discovery.js';
import { negotiate } from './http/negotiate.js';
import { admissionPlugins, configDirOf } from './admission/plugins.js';
import type { AdmissionAuthorizer } from './admission/cel.js';
import { loadServerConfigs, type LoadedServerConfigs } from '../config/load.js';
import { startTracing, traceRequest, tracedStore } from './tracing.js';
import { PolicyTypeChecker } from './admission/type-check.js';
import { OpenAPIService } from './http/openapi-service.js';
import { installCodecs } from './http/codecs.js';
import { installPatchAlgorithms } from './http/rest/managed.js';
import { writeEncoded, writeError, writeObject } from './http/respond.js';
import { createStaticHandler } from './http/static.js';
import { HTTP_SERVER_OPTIONS, limitConnections, listenTracked } from './http/listen.js';
import { InflightLimiter } from './http/inflight.js';
import { acceptHostPatterns, decodePath, rawTarget } from './http/request-guard.js';
import { requestInfo } from './request/info.js';
import { abort, buildHandlerChain, signalOf, type ChainRequest } from './http/chain.js';
import { ApiMetrics, METRICS_PATH } from './http/metrics.js';
import { WebSocketResponse, isWebSocketUpgrade, readSubprotocols } from './http/websocket.js';
import { createPodStreams, connectKind } from './streaming/install.js';
import { CrdController } from './controllers/crd-controller.js';
import { ApiServiceAvailabilityController } from './controllers/apiservice-availability.js';
import { serveAggregated } from './http/aggregated-proxy.js';
import { runControllerManager } from './controllers/controller-manager.js';
import type { FeedListener } from './controllers/object-feed.js';
import { bootstrapSystemObjects, NamespaceDefaultsController, rootCAOf } from './controllers/bootstrap.js';
import { ServiceCIDRController } from './controllers/service-cidrs.js';
import { clusterLives } from './controllers/cluster.js';
import { seedDemoData } from './demo-data.js';
import type { ServerFlags } from './flags.js';
import { defaultFlags } from './flags.js';
import { builtinResourceTypes } from './registry/builtin.js';
import { metricsTypes } from './registry/builtin-metrics.js';
import { rememberServiceAllocations, serviceIPs } from './registry/builtin-service.js';
import { typePrefix } from './registry/keys.js';
import { decodeFromStorage } from './registry/resource-store.js';
import { TypeRegistry } from './registry/registry.js';
import { startCompactor } from './storage/compactor.js';
import { compactionTarget, etcdStoreOf } from './storage/etcd-compaction.js';
import { createStore } from './storage/index.js';
import { StoreError, type RevisionedStore } from './storage/types.js';
import { VERSION_INFO } from './version.js';
import { EncryptionAtRest } from './encryption/at-rest.js';
import { serveAtRestInfo, AT_REST_PATH } from './encryption/at-rest-endpoint.js';

export interface ApiServer {
  readonly url: string;
  readonly port: number;
  readonly store: RevisionedStore;
  readonly types: TypeRegistry;
  readonly deps: ApiDeps;
  close(): Promise<void>;
}

export type Logger = (line: string) => void;

/** How often a server whose etcd was unreachable at start tries again. */
const ETCD_RETRY_MS = 1000;

/** Hooks later layers use to extend the chain (watch, patch, authn/authz) without reaching around it. */
export interface Extension {
  install(server: { deps: ApiDeps; onClose(fn: () => Promise<void> | void): void }): Promise<void> | void;
}

export async function startServer(
  partial: Partial<ServerFlags> = {},
  opts: { log?: Logger; store?: RevisionedStore; extensions?: Extension[]; watch?: Partial<WatchSettings>; adminToken?: string; configs?: LoadedServerConfigs; authorizer?: AdmissionAuthorizer; now?: () => number } = {},
): Promise<ApiServer> {
  const flags: ServerFlags = { ...defaultFlags(), ...partial };
  const log: Logger = opts.log ?? ((l) => process.stderr.write(l + '\n'));
  // Admission and tracing configuration files (main.ts loads them once and passes them on).
  const configs = opts.configs ?? (await loadServerConfigs({ admissionControlConfigFile: flags.admissionControlConfigFile, tracingConfigFile: flags.tracingConfigFile }));
  const tracing = configs.tracing ? startTracing(configs.tracing) : undefined;
  // encryption at rest applies to the store built here (a store passed in brings its own transformer)
  const encryption = opts.store ? undefined : await EncryptionAtRest.start(flags, log);
  const rawStore = opts.store ?? createStore({ kind: flags.store, dataDir: flags.dataDir, etcdServers: flags.etcdServers, etcdPrefix: flags.etcdPrefix, log, transformer: encryption?.transformer });
  const store = tracing ? tracedStore(rawStore) : rawStore;
  // On etcd the server starts even while etcd is unreachable, and is ready only while its watch connection is up.
  const etcd = etcdStoreOf(rawStore);
  let ready = false;
  const closers: (() => Promise<void> | void)[] = [];
  if (tracing) closers.push(() => tracing.shutdown());

  installCodecs();
  installPatchAlgorithms();
  const simulatedNodes = flags.simulatedNodes ?? (flags.demoData ? 3 : 0);
  // metrics.k8s.io is what the simulated kubelets measure: served only with simulated nodes
  const types = new TypeRegistry(simulatedNodes > 0 ? [...builtinResourceTypes, ...metricsTypes] : builtinResourceTypes);
  const admission = new AdmissionChain();
  const caches = new WatchCacheSet(store, { log });
  const deps: ApiDeps = { store, types, gates: flags.featureGates, admission, caches, watch: { ...defaultWatchSettings, ...opts.watch }, verbs: {} };
  // cluster IPs are held by IPAddress objects written through the create path (upstream's MultiCIDR allocator)
  serviceIPs.setRange(flags.serviceClusterIPRange[0]!);
  const authentication = (deps.authentication = await createAuthentication({ flags, store, types, adminToken: opts.adminToken, log }));
  closers.push(() => authentication.close());
  const authorization = (deps.authorization = await createAuthorization({ flags, store, types, caches, admission, authentication, log }));
  closers.push(() => authorization.close());
  const plugins = admissionPlugins({
    store, types, config: configs.admission, configDir: configDirOf(flags.admissionControlConfigFile),
    enable: flags.enableAdmissionPlugins, disable: flags.disableAdmissionPlugins, authorizer: opts.authorizer ?? admissionAuthorizer(authorization),
  });
  for (const p of plugins) admission.add(p);
  const crds = new CrdController({ store, types, admission, caches, log });
  admission.add(crds.terminationAdmission());
  const openapi = new OpenAPIService(types);
  const staticHandler = flags.staticDir ? createStaticHandler(flags.staticDir) : undefined;
  const shutdown = new AbortController();
  setMaxListeners(0, shutdown.signal); // one listener per in-flight request (watches included)

  const scheme: 'http' | 'https' = flags.tlsCertFile ? 'https' : 'http';
  // kubectl proxy's filters, on by default: a page served by another host name (DNS rebinding) or
  // another origin (CSRF) cannot use the user's local server.
  const acceptedHosts = flags.disableFilter ? undefined : acceptHostPatterns(flags.acceptHosts, flags.bindAddress);
  const inflight = new InflightLimiter(flags.maxRequestsInflight, flags.maxMutatingRequestsInflight);
  const metrics = new ApiMetrics({ types, caches, gates: flags.featureGates });
  // pods/log, exec, attach, portforward and the proxy sub-resources (src/server/streaming)
  const podStreams = createPodStreams(deps, flags, log, opts.now);
  closers.push(() => podStreams.close());

  const health = async ({ res, path }: ChainRequest): Promise<void> => {
    const kms = await encryption?.health(path); // the KMS plugin checks, as upstream
    if (kms) {
      res.writeHead(kms.ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache, private', 'X-Content-Type-Options': 'nosniff' });
      res.end(kms.body);
      return;
    }
    const etcdDown = ready && etcd !== undefined && !etcd.connected;
    const ok = !path.startsWith('/readyz') || (ready && !etcdDown);
    res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache, private', 'X-Content-Type-Options': 'nosniff' });
    res.end(ok ? 'ok' : etcdDown ? '[-]etcd failed: the connection to etcd is down\nreadyz check failed' : '[-]store not ready\nreadyz check failed');
  };

  // The handler behind the chain (http/chain.ts): the request is authenticated and authorized here.
  const route = async (r: ChainRequest): Promise<void> => {
    const { req, res, path, query, info } = r;
    if (info.malformed) throw pathNotFound(path);
    const connect = connectKind(info);
    // upgrades serve watches, and exec/attach/port-forward (which also speak SPDY)
    if (res instanceof WebSocketResponse && !connect && !(info.isResourceRequest && info.verb === 'watch')) throw errors.badRequest('only watch requests can be upgraded to a WebSocket');
    if (info.isResourceRequest) {
      const abortIt = () => abort(r);
      res.on('close', abortIt);
      // only a watch listens to the signal: shutdown need not abort the others (they finish or time out)
      if (r.longRunning) shutdown.signal.addEventListener('abort', abortIt, { once: true });
      try {
        if (connect) await podStreams.serve(req, res, info, query, () => signalOf(r));
        else await handleResourceRequest(req, res, info, query, deps, () => signalOf(r));
      } finally {
        if (r.longRunning) shutdown.signal.removeEventListener('abort', abortIt);
      }
      return;
    }
    if (path === METRICS_PATH) return metrics.serve(req, res, flags.featureGates.APIResponseCompression);
    if (path === AT_REST_PATH) return serveAtRestInfo(req, res, query, deps, encryption);
    if (path.startsWith('/openapi/')) return openapi.handle(req, res, path, query);
    if (info.apiPrefix) return discovery(req, res, path, info.group, info.version);
    throw pathNotFound(path);
  };

  const handle = buildHandlerChain({
    scheme,
    acceptedHosts,
    requestTimeoutMs: flags.requestTimeoutMs,
    authentication,
    authorization,
    inflight,
    health,
    version: ({ req, res }) => writeEncoded(req, res, 200, Buffer.from(JSON.stringify(VERSION_INFO, null, 2)), 'application/json'),
    staticFiles: staticHandler,
    // counted once finished, with its final status (WebSocket watches are not counted)
    observe: ({ req, res, info, query }) => {
      if (info.isResourceRequest && !(res instanceof WebSocketResponse)) res.once('close', () => metrics.observe(req, info, query, res.statusCode));
    },
    ready: () => ready,
    // exec, attach, port-forward and logs streams are long-running, as upstream's LongRunningFunc says
    longRunning: (info) => connectKind(info) !== undefined,
    // upstream authorizes a WebSocket (GET) exec/attach/port-forward as create too (AuthorizePodWebsocketUpgradeCreatePermission)
    authorizeAs: (info) => {
      const k = connectKind(info);
      return k === 'exec' || k === 'attach' || k === 'portforward' ? 'create' : undefined;
    },
    handler: route,
    fail: (req, res, e) => fail(req, res, e),
  });

  const discovery = (req: IncomingMessage, res: ServerResponse, path: string, group: string, version: string) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
    const segs = path.split('/').filter(Boolean);
    const aggregated = wantsAggregated(req.headers.accept);
    let body: Record<string, unknown> | undefined;
    if (segs.length === 1 && aggregated) {
      const d = aggregatedDiscovery(types, segs[0] === 'api', aggregated.g, aggregated.v, deps.aggregator?.groups());
      serveWithETag(req, res, Buffer.from(JSON.stringify(d)), `application/json;g=${aggregated.g};v=${aggregated.v};as=APIGroupDiscoveryList`);
      return;
    }
    if (segs.length === 1) body = segs[0] === 'api' ? apiVersions() : apiGroupList(types, deps.aggregator?.groups());
    else if (segs[0] === 'apis' && segs.length === 2) body = apiGroup(types, segs[1]!);
    else if (segs[0] === 'api' && segs.length === 2) body = apiResourceList(types, '', segs[1]!);
    else if (segs[0] === 'apis' && segs.length === 3) body = apiResourceList(types, group, version);
    // a group-version an APIService hands to a Service: 503 until it is Available, then proxied to its loopback target
    const external = !body && segs[0] === 'apis' && segs.length === 3 ? deps.aggregator?.route(group, version) : undefined;
    if (external) return void serveAggregated(req, res, external, requestUser(req));
    if (!body) throw pathNotFound(path);
    const n = negotiate(req.headers.accept, { protobuf: false, cbor: false, transforms: false, watch: false });
    writeObject(req, res, 200, body, n);
  };

  const server: Server = flags.tlsCertFile
    ? createHttpsServer({ cert: readFileSync(flags.tlsCertFile), key: readFileSync(flags.tlsPrivateKeyFile!), ...HTTP_SERVER_OPTIONS, ...tlsClientAuthOptions(flags) })
    : createHttpServer(HTTP_SERVER_OPTIONS);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = process.hrtime.bigint();
    if (flags.requestLog)
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        log(JSON.stringify({ ts: new Date().toISOString(), method: req.method, path: req.url, status: res.statusCode, ms: Math.round(ms * 10) / 10 }));
      });
    traceRequest(req, res, rawTarget(req.url).path, () => handle(req, res)).catch((e) => fail(req, res, e));
  });
  const fail = (req: IncomingMessage, res: ServerResponse, e: unknown) => {
    if (!(e instanceof Error && 'status' in e) && flags.requestLog) log(`error: ${(e as Error)?.stack ?? e}`);
    try {
      writeError(req, res, e);
    } catch {
      res.destroy();
    }
  };
  // watch over WebSocket: the same chain as every request (Host/Origin, authentication, the watch handler)
  // an SPDY upgrade names exec, attach or port-forward (kubectl <= 1.29 and the fallback of newer ones)
  const spdyConnect = (req: IncomingMessage): boolean => {
    try {
      const { path, query } = rawTarget(req.url);
      return connectKind(requestInfo(req.method ?? 'GET', decodePath(path), query)) !== undefined;
    } catch {
      return false;
    }
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // each upgrade is logged once, with its final status (101 once it is a WebSocket)
    const logUpgrade = (status: number) => {
      if (flags.requestLog) log(JSON.stringify({ ts: new Date().toISOString(), method: req.method, path: req.url, upgrade: req.headers.upgrade ?? '', status }));
    };
    if (!isWebSocketUpgrade(req) && !spdyConnect(req)) {
      // SPDY is served for exec, attach and port-forward only; other protocols not at all
      logUpgrade(400);
      return socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    }
    readSubprotocols(req);
    const ws = new WebSocketResponse(req, socket, head);
    ws.onStatus = logUpgrade;
    const res = ws as unknown as ServerResponse;
    handle(req, res).catch((e) => fail(req, res, e));
  });
  limitConnections(server, flags.requestTimeoutMs);
  const listening = await listenTracked(server, flags.port, flags.bindAddress);
  const port = listening.port;
  const url = `${scheme}://${listening.host}:${port}`;

  const initialize = async (): Promise<void> => {
    await crds.start();
    closers.push(() => crds.stop());
    await authorization.start();
    const policyTypes = new PolicyTypeChecker({ store, types, admission, log });
    await policyTypes.start();
    closers.push(() => policyTypes.stop());
    const rootCA = flags.tlsCertFile ? rootCAOf(readFileSync(flags.tlsCertFile, 'utf8')) : undefined;
    const simulatedNodes = flags.simulatedNodes ?? (flags.demoData ? 3 : 0);
    // every replica routes aggregated groups; the controller's status writes are the leader's (fed below)
    const apiServices = (deps.aggregator = new ApiServiceAvailabilityController(deps, { signal: shutdown.signal, log }));
    closers.push(() => apiServices.stop());
    closers.push(() => caches.stopAll());
    // ready means the watch caches hold every type (upstream's readyz waits for its cachers)
    await Promise.all(types.all().map((t) => caches.get(typePrefix(t)).start()));
    for (const ext of opts.extensions ?? []) await ext.install({ deps, onClose: (fn) => closers.push(fn) });
    await rememberStoredServices(store);
    await bootstrapSystemObjects(deps, { host: listening.host, port, rootCA, serviceCIDRs: flags.serviceClusterIPRange, signal: shutdown.signal });
    // the controllers, scheduler and simulated nodes run while this replica holds their Leases (in kube-system, made just above)
    // the components are API clients: their writes are authorized by the same authorizer chain as requests
    const manager = runControllerManager({ store, types, admission, caches, log, signal: shutdown.signal, authorizer: authorization, useServiceAccountCredentials: flags.useServiceAccountCredentials }, {
      cluster: { useServiceAccountCredentials: flags.useServiceAccountCredentials, controllers: flags.controllers, simulatedNodes, eventTtlMs: flags.eventTtlMs, hpaSyncPeriodMs: flags.hpaSyncPeriodMs, kubelet: { startMs: flags.simulatedPodStartMs, readyMs: flags.simulatedPodReadyMs, runMs: flags.simulatedPodRunMs }, now: opts.now },
      leaderElect: flags.leaderElect, timings: { leaseDurationMs: flags.leaderElectLeaseDurationMs, renewDeadlineMs: flags.leaderElectRenewDeadlineMs, retryPeriodMs: flags.leaderElectRetryPeriodMs },
      exclusive: etcd === undefined, external: flags.disableControllerManager, listeners: () => [new NamespaceDefaultsController(deps, { rootCA, signal: shutdown.signal, log }), new ServiceCIDRController(deps, { signal: shutdown.signal, log }), termOf(apiServices)],
    });
    closers.push(() => manager.stop());
    // With several replicas on one etcd only the one winning compact_rev_key's compare-and-swap compacts.
    const stopCompactor = startCompactor(compactionTarget(rawStore), flags.compactionIntervalMs);
    closers.push(stopCompactor);
    ready = true;
    if (flags.demoData) await seedDemoData(`http://127.0.0.1:${port}`.replace('http:', scheme + ':'), log, { adminToken: opts.adminToken, living: clusterLives(flags.controllers, simulatedNodes) });
  };
  let closed: Promise<void> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  try {
    await store.open();
    await initialize();
  } catch (e) {
    if (!etcd || !(e instanceof StoreError && e.code === 'Unavailable')) {
      server.close();
      authentication.close();
      throw e;
    }
    // etcd unreachable at start: serve /readyz (503) and keep trying instead of exiting.
    log(`etcd is unreachable (${e.message}); the server is not ready and retries every ${ETCD_RETRY_MS / 1000}s`);
    let attempts = 0;
    const retry = async (): Promise<void> => {
      retryTimer = undefined;
      if (closed) return;
      try {
        await store.open();
        if (closed) return;
        await initialize();
        log(`connected to etcd ${flags.etcdServers.join(',')}; the server is ready`);
      } catch (err) {
        if (closed) return;
        if (++attempts % 10 === 0) log(`etcd still unreachable after ${attempts} retries: ${(err as Error).message}`);
        retryTimer = setTimeout(() => void retry(), ETCD_RETRY_MS);
      }
    };
    retryTimer = setTimeout(() => void retry(), ETCD_RETRY_MS);
  }

  return {
    url,
    port,
    store,
    types,
    deps,
    close() {
      closed ??= (async () => {
        ready = false;
        clearTimeout(retryTimer);
        shutdown.abort();
        const done = listening.close(2000);
        for (const c of closers.reverse()) await c();
        await done;
        await store.close();
        encryption?.close();
      })();
      return closed;
    },
  };
}

/** A listener that lives longer than one leadership term: fed while the term lasts, stopped only by its owner. */
function termOf(l: FeedListener): FeedListener & { stop(): Promise<void> } {
  return { onSync: (items) => l.onSync(items), onEvent: (ev) => l.onEvent(ev), stop: async () => {} };
}

/** Stored services keep their cluster IPs and node ports across restarts. */
async function rememberStoredServices(store: RevisionedStore): Promise<void> {
  let startKey: string | undefined;
  for (;;) {
    const page = await store.range({ prefix: typePrefix({ group: '', plural: 'services' }), startKey, limit: 1000, lenient: true });
    for (const kv of page.kvs) {
      try {
        rememberServiceAllocations(decodeFromStorage(kv));
      } catch {
        // corrupt objects hold nothing we can read
      }
    }
    if (!page.more || page.kvs.length === 0) return;
    startKey = page.kvs[page.kvs.length - 1]!.key + '\u0000';
  }
}

function pathNotFound(_path: string) {
  const e = errors.notFound({ group: '', resource: '' });
  e.status.message = 'the server could not find the requested resource';
  e.status.details = {};
  return e;
}

/** The aggregated discovery form asked for: v2, or v2beta1 (kubectl 1.26-1.29), in either group spelling. */
function wantsAggregated(accept: string | undefined): { g: string; v: string } | undefined {
  for (const r of parseAccept(accept)) {
    const g = r.params['g'];
    const v = r.params['v'];
    if (r.params['as'] === 'APIGroupDiscoveryList' && (v === 'v2' || v === 'v2beta1') && (g === 'apidiscovery.k8s.io' || g === 'apidiscovery.service.io')) return { g, v };
    if (r.params['as'] === undefined) return undefined; // a plain type preferred before any aggregated one
  }
  return undefined;
}
