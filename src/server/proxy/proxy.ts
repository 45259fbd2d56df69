// Proxy mode: serves the explorer and forwards the API paths to the kubeconfig's cluster with its credentials,
// so the browser never holds them. Responses (watches included) stream through unbuffered.
import { listenTracked } from '../http/listen.js';
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Agent as HttpAgent } from 'node:http';
import type { ServerFlags } from '../flags.js';
import { defaultFlags } from '../flags.js';
import { createStaticHandler } from '../http/static.js';
import { loadKubeconfig, type ClusterCredentials } from './kubeconfig.js';

export interface ProxyServer {
  readonly url: string;
  readonly port: number;
  /** The cluster URL requests go to. */
  readonly target: string;
  readonly context: string;
  close(): Promise<void>;
}

const FORWARDED_PREFIXES = ['/api', '/apis', '/openapi', '/version'];

/** Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus the browser's own credentials. */
const DROP_REQUEST = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'authorization', 'cookie', 'origin', 'referer']);
const DROP_RESPONSE = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'trailer', 'set-cookie']);

export function isForwarded(path: string): boolean {
  return FORWARDED_PREFIXES.some((p) => path === p || path.startsWith(p + '/'));
}

function statusBody(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

export async function startProxyServer(partial: Partial<ServerFlags>, opts: { log?: (line: string) => void } = {}): Promise<ProxyServer> {
  const flags: ServerFlags = { ...defaultFlags(), ...partial };
  if (!flags.kubeconfig) throw new Error('proxy mode needs --kubeconfig');
  const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'));
  const creds: ClusterCredentials = loadKubeconfig(flags.kubeconfig, flags.context);
  const target = new URL(creds.server);
  const secure = target.protocol === 'https:';
  const prefix = target.pathname.replace(/\/+$/, '');
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
  const staticHandler = flags.staticDir ? createStaticHandler(flags.staticDir) : undefined;

  const forward = (req: IncomingMessage, res: ServerResponse) => {
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
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !DROP_RESPONSE.has(k)) out[k] = v;
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

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (flags.requestLog) {
      const t0 = Date.now();
      res.on('finish', () => log(JSON.stringify({ ts: new Date().toISOString(), proxy: true, method: req.method, path: req.url, status: res.statusCode, ms: Date.now() - t0 })));
    }
    if (isForwarded(path)) return forward(req, res);
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }
    if (staticHandler && staticHandler(req, res, path)) return;
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(statusBody(404, 'NotFound', 'the server could not find the requested resource'));
  });
  const listening = await listenTracked(server, flags.port, flags.bindAddress);
  const { port, host } = listening;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    target: creds.server,
    context: creds.context,
    close() {
      closed ??= listening.close().then(() => agent.destroy());
      return closed;
    },
  };
}
