// Proxy mode, upgrades: a WebSocket watch passes through to the cluster (as `kubectl proxy` passes
// upgrades), after the same filters as other requests, with the kubeconfig's credentials instead of
// any the browser offered. Once the cluster answers 101 the two sockets are joined byte for byte.
import { STATUS_CODES, request as httpRequest, type Agent, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { CSRF_PROTOCOL_PREFIX } from './session.js';

export interface UpgradeTarget {
  target: URL;
  /** The cluster URL's path, prepended to every request path. */
  prefix: string;
  agent: Agent;
  authorization?: string;
  servername?: string;
}

/** Hop-by-hop headers and the browser's credentials (RFC 9110 §7.6.1); the upgrade headers are set anew. */
const DROP = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'authorization', 'cookie', 'origin', 'referer']);
const DROP_RESPONSE = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'trailer', 'set-cookie']);

/** A bearer token the browser offered as a subprotocol is its own credential: never passed on. */
const isBearerProtocol = (p: string) => /^base64url\.bearer\./i.test(p);
/** Our explorer's Accept, as a subprotocol: the cluster gets a real Accept header instead. */
const ACCEPT_PREFIX = 'base64url.accept.service.io.';

function head(status: number, headers: OutgoingHttpHeaders | IncomingMessage['headers'], extra: string[] = []): string {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`];
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || DROP_RESPONSE.has(k) || k.startsWith('access-control-')) continue;
    for (const one of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${String(one).replace(/[\r\n]/g, ' ')}`);
  }
  return [...lines, ...extra, '', ''].join('\r\n');
}

/** Answers an upgrade request with a plain HTTP response and closes the socket. */
export function refuseUpgrade(socket: Duplex, status: number, body: string): void {
  socket.end(head(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, ['connection: close']) + body);
}

export function forwardUpgrade(req: IncomingMessage, socket: Duplex, bufferedHead: Buffer, t: UpgradeTarget): void {
  const headers: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !DROP.has(k)) headers[k] = v;
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim());
  const acceptProtocol = offered.find((p) => p.startsWith(ACCEPT_PREFIX) && p.length < 4096);
  if (acceptProtocol) {
    const accept = Buffer.from(acceptProtocol.slice(ACCEPT_PREFIX.length), 'base64url').toString('utf8');
    if (!/[\r\n\0]/.test(accept)) headers['accept'] = accept;
  }
  // the explorer's CSRF token (session.ts) is for this proxy only
  const protocols = offered.filter((p) => p && !isBearerProtocol(p) && !p.startsWith(ACCEPT_PREFIX) && !p.startsWith(CSRF_PROTOCOL_PREFIX));
  if (protocols.length) headers['sec-websocket-protocol'] = protocols.join(', ');
  else delete headers['sec-websocket-protocol'];
  if (t.authorization) headers['authorization'] = t.authorization;
  headers['host'] = t.target.host;
  headers['connection'] = 'Upgrade';
  headers['upgrade'] = req.headers.upgrade ?? 'websocket';
  const secure = t.target.protocol === 'https:';
  const upstream = (secure ? httpsRequest : httpRequest)({
    protocol: t.target.protocol,
    hostname: t.target.hostname.replace(/^\[|\]$/g, ''),
    port: t.target.port || (secure ? 443 : 80),
    method: req.method,
    path: t.prefix + (req.url ?? '/'),
    headers,
    agent: t.agent,
    servername: secure ? t.servername : undefined,
  });
  socket.on('error', () => upstream.destroy());
  socket.once('close', () => upstream.destroy());
  upstream.on('upgrade', (res, upSocket, upHead) => {
    // a browser that offered subprotocols needs one back: the Accept one the cluster never saw
    const chosen = res.headers['sec-websocket-protocol'] === undefined && acceptProtocol ? [`sec-websocket-protocol: ${acceptProtocol}`] : [];
    socket.write(head(101, res.headers, ['connection: Upgrade', `upgrade: ${res.headers.upgrade ?? 'websocket'}`, ...chosen]));
    if (upHead.length) socket.write(upHead);
    if (bufferedHead.length) upSocket.write(bufferedHead);
    upSocket.on('error', () => socket.destroy());
    socket.on('error', () => upSocket.destroy());
    upSocket.once('close', () => socket.destroy());
    socket.once('close', () => upSocket.destroy());
    upSocket.pipe(socket);
    socket.pipe(upSocket);
  });
  // the cluster refused the upgrade (401, 403, 410…): its answer goes back as it is
  upstream.on('response', (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const body = Buffer.concat(chunks);
      socket.end(Buffer.concat([Buffer.from(head(res.statusCode ?? 502, { ...res.headers, 'content-length': String(body.length) }, ['connection: close'])), body]));
    });
    res.on('error', () => socket.destroy());
  });
  upstream.on('error', (e) => {
    if (socket.destroyed) return;
    refuseUpgrade(socket, 502, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `error trying to reach the cluster: ${e.message}`, reason: 'InternalError', code: 502 }));
  });
  upstream.end();
}
