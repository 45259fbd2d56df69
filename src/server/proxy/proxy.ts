// Proxy mode: serves the explorer and forwards the API paths to the kubeconfig's cluster with its credentials,
// so the browser never holds them. Responses (watches included) stream through unbuffered.
import { listenTracked } from '../http/listen.js';
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Agent as HttpAgent } from 'node:http';
import type { ServerFlags } from '../flags.js';
import { defaultFlags } from '../flags.js';
import { createStaticHandler } from '../http/static.js';
import { acceptHostPatterns, crossSiteReason, forbiddenCrossSite, forbiddenHost, hostAccepted, parsePatternList, rawTarget } from '../http/request-guard.js';
import { limitConnections } from '../http/listen.js';
import type { StatusError } from '../../api/status.js';
import type { Duplex } from 'node:stream';
import { KubeconfigError, loadKubeconfig, type ClusterCredentials } from './kubeconfig.js';
import { kubeconfigContexts } from './contexts.js';
import { forwardUpgrade, refuseUpgrade } from './upgrade.js';
import { ProxySession, SESSION_PATH } from './session.js';

export interface ProxyServer {
  readonly url: string;
  readonly port: number;
  /** The cluster URL requests go to (of the context in use: it can be switched while running). */
  readonly target: string;
  readonly context: string;
  close(): Promise<void>;
}

const FORWARDED_PREFIXES = ['/api', '/apis', '/openapi', '/version', '/metrics'];

/** Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus the browser's own credentials. */
const DROP_REQUEST = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'authorization', 'cookie', 'origin', 'referer']);
const DROP_RESPONSE = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'trailer', 'set-cookie']);

/** The cluster's CORS answers would let other origins read through our credentials: never passed back. */
const dropResponseHeader = (name: string) => DROP_RESPONSE.has(name) || name.startsWith('access-control-');

export function isForwarded(path: string): boolean {
  return FORWARDED_PREFIXES.some((p) => path === p || path.startsWith(p + '/'));
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function forbiddenProxyPath(method: string, path: string): StatusError {
  const e = forbiddenCrossSite('');
  e.status.message = `${method} ${path.slice(0, 200)} is not forwarded by this proxy (see --reject-paths and --reject-methods)`;
  return e;
}

function statusBody(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

/** Where the explorer reads and switches the kubeconfig context (proxy mode only). */
export const CONTEXTS_PATH = '/periscope/contexts';

interface Cluster {
  creds: ClusterCredentials;
  target: URL;
  secure: boolean;
  prefix: string;
  agent: HttpAgent | HttpsAgent;
  authorization?: string;
}

function connectTo(creds: ClusterCredentials): Cluster {
  const target = new URL(creds.server);
  const secure = target.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({
        keepAlive: true,
        ca: creds.ca,
        cert: creds.cert,
        key: creds.key,
        rejectUnauthorized: !creds.insecureSkipTlsVerify,
        servername: creds.tlsServerName,
      })
    : new HttpAgent({ keepAlive: true });
  const authorization = creds.token
    ? `Bearer ${creds.token}`
    : creds.username !== undefined
      ? `Basic ${Buffer.from(`${creds.username}:${creds.password ?? ''}`).toString('base64')}`
      : undefined;
  return { creds, target, secure, prefix: target.pathname.replace(/\/+$/, ''), agent, authorization };
}

class BodyTooLarge extends Error {}

function readSmallBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      // past the bound the rest is read and dropped, so the answer (413) still reaches the client
      if (size > max) reject(new BodyTooLarge(`the body is larger than ${max} bytes`));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startProxyServer(partial: Partial<ServerFlags>, opts: { log?: (line: string) => void } = {}): Promise<ProxyServer> {
  const flags: ServerFlags = { ...defaultFlags(), ...partial };
  if (!flags.kubeconfig) throw new Error('proxy mode needs --kubeconfig');
  const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'));
  const kubeconfig = flags.kubeconfig;
  // the context in use: every context of the kubeconfig can be switched to without a restart
  let cluster = connectTo(loadKubeconfig(kubeconfig, flags.context));
  /** Forwarded requests and joined sockets in flight: a context switch ends them (they belong to the old cluster). */
  const inFlight = new Set<{ destroy(): void }>();
  const staticHandler = flags.staticDir ? createStaticHandler(flags.staticDir) : undefined;
  // the explorer's exec/attach/port-forward: same-origin WebSocket upgrades with the session's CSRF token
  const session = new ProxySession();

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const { creds, target, secure, prefix, agent, authorization } = cluster;
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    const headers: OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !DROP_REQUEST.has(k)) headers[k] = v;
    if (authorization) headers['authorization'] = authorization;
    headers['host'] = target.host;
    const send = secure ? httpsRequest : httpRequest;
    const upstream = send({
      protocol: target.protocol,
      hostname: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port || (secure ? 443 : 80),
      method: req.method,
      path: prefix + (req.url ?? '/'),
      headers,
      agent,
      servername: secure ? (creds.tlsServerName ?? (/^[\d.]+$|:/.test(target.hostname) ? undefined : target.hostname)) : undefined,
    });
    upstream.on('response', (up) => {
      const out: OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !dropResponseHeader(k)) out[k] = v;
      res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
      // watches: pass every chunk on as it arrives
      res.flushHeaders();
      up.pipe(res);
      up.on('error', () => res.destroy());
    });
    upstream.on('error', (e) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(statusBody(502, 'InternalError', `error trying to reach the cluster at ${creds.server}: ${e.message}`));
    });
    // the browser went away (closed a watch, navigated): drop the upstream request too
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };

  // kubectl proxy's filters (staging/src/k8s.io/kubectl/pkg/proxy/proxy_server.go): this server holds the
  // kubeconfig's credentials, so a request a web page made the browser send must never reach the cluster.
  const filter = flags.disableFilter
    ? undefined
    : {
        hosts: acceptHostPatterns(flags.acceptHosts, flags.bindAddress),
        paths: parsePatternList(flags.rejectPaths, 'reject-paths'),
        methods: parsePatternList(flags.rejectMethods, 'reject-methods'),
      };
  const refuse = (res: ServerResponse, e: StatusError) => {
    res.writeHead(e.status.code, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(e.status));
  };

  const server: Server = createServer((req, res) => {
    const { path } = rawTarget(req.url);
    if (flags.requestLog) {
      const t0 = Date.now();
      res.on('finish', () => log(JSON.stringify({ ts: new Date().toISOString(), proxy: true, method: req.method, path, status: res.statusCode, ms: Date.now() - t0 })));
    }
    if (filter) {
      if (!hostAccepted(req.headers.host, filter.hosts)) return refuse(res, forbiddenHost(req.headers.host));
      const crossSite = crossSiteReason(req, 'http');
      if (crossSite) return refuse(res, forbiddenCrossSite(crossSite));
      // matched on the decoded path too: the cluster decodes `%65xec` to `exec`
      const decoded = decodePath(path);
      if (isForwarded(path) && (filter.paths.some((p) => p.test(path) || p.test(decoded)) || filter.methods.some((m) => m.test(req.method ?? ''))))
        return refuse(res, forbiddenProxyPath(req.method ?? '', path));
    }
    if (path === CONTEXTS_PATH) return void serveContexts(req, res);
    if (path === SESSION_PATH) return session.serve(req, res);
    if (isForwarded(path)) return forward(req, res);
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }
    // the explorer's files are named by the decoded path (the static handler never decodes)
    if (staticHandler && staticHandler(req, res, decodePath(path))) return;
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(statusBody(404, 'NotFound', 'the server could not find the requested resource'));
  });
  // WebSocket watches: the same filters, then passed through with the kubeconfig's credentials
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { path } = rawTarget(req.url);
    if (filter) {
      if (!hostAccepted(req.headers.host, filter.hosts)) return refuseUpgrade(socket, 403, JSON.stringify(forbiddenHost(req.headers.host).status));
      const crossSite = crossSiteReason(req, 'http');
      if (crossSite) return refuseUpgrade(socket, 403, JSON.stringify(forbiddenCrossSite(crossSite).status));
      const decoded = decodePath(path);
      const explorerConnect = session.allowsConnect(req, path, 'http');
      if ((!explorerConnect && filter.paths.some((p) => p.test(path) || p.test(decoded))) || filter.methods.some((m) => m.test(req.method ?? '')))
        return refuseUpgrade(socket, 403, JSON.stringify(forbiddenProxyPath(req.method ?? '', path).status));
    }
    if (!isForwarded(path)) return refuseUpgrade(socket, 404, statusBody(404, 'NotFound', 'the server could not find the requested resource'));
    const { creds, target, secure, prefix, agent, authorization } = cluster;
    inFlight.add(socket);
    socket.once('close', () => inFlight.delete(socket));
    forwardUpgrade(req, socket, head, { target, prefix, agent, authorization, servername: secure ? (creds.tlsServerName ?? (/^[\d.]+$|:/.test(target.hostname) ? undefined : target.hostname)) : undefined });
  });
  /** GET: the kubeconfig's contexts and the one in use; POST {"context": name}: switch to another. */
  const serveContexts = async (req: IncomingMessage, res: ServerResponse) => {
    const json = (code: number, body: unknown) => {
      res.writeHead(code, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
      res.end(JSON.stringify(body));
    };
    const list = () => ({ current: cluster.creds.context, server: cluster.creds.server, contexts: kubeconfigContexts(kubeconfig) });
    try {
      if (req.method === 'GET') return json(200, list());
      if (req.method !== 'POST') return json(405, JSON.parse(statusBody(405, 'MethodNotAllowed', 'GET or POST')));
      const body = await readSmallBody(req, 4096);
      let name: unknown;
      try {
        name = (JSON.parse(body) as { context?: unknown })?.context;
      } catch {
        name = undefined;
      }
      if (typeof name !== 'string' || !name) return json(400, JSON.parse(statusBody(400, 'BadRequest', 'the body must be {"context": "<name>"}')));
      let next: Cluster;
      try {
        next = connectTo(loadKubeconfig(kubeconfig, name));
      } catch (e) {
        if (e instanceof KubeconfigError) return json(400, JSON.parse(statusBody(400, 'BadRequest', e.message)));
        throw e;
      }
      const old = cluster;
      cluster = next;
      // watches and sockets of the old context end: clients list again, from the new cluster
      for (const r of [...inFlight]) r.destroy();
      inFlight.clear();
      old.agent.destroy();
      log(`proxy: switched to context ${name} (${next.creds.server})`);
      return json(200, list());
    } catch (e) {
      if (e instanceof BodyTooLarge) return json(413, JSON.parse(statusBody(413, 'RequestEntityTooLarge', e.message)));
      if (!res.headersSent) json(500, JSON.parse(statusBody(500, 'InternalError', (e as Error).message)));
    }
  };
  limitConnections(server, 0); // watches stream through: no request deadline here, the cluster has its own
  const listening = await listenTracked(server, flags.port, flags.bindAddress);
  const { port, host } = listening;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    get target() {
      return cluster.creds.server;
    },
    get context() {
      return cluster.creds.context;
    },
    close() {
      closed ??= listening.close().then(() => cluster.agent.destroy());
      return closed;
    },
  };
}
