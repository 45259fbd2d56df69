// Requests for a group-version an APIService hands to a Service (kube-aggregator's proxy handler): answered
// `503 service unavailable` (plain text, as upstream's proxyError) while the APIService is not Available, and
// otherwise forwarded to the loopback target its endpoint pod names — never to a simulated address. The caller's
// credentials are not forwarded: the user (after impersonation) travels as X-Remote-User / X-Remote-Group /
// X-Remote-Extra-*, as upstream's requestheader convention; the answer streams back.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { UserInfo } from '../auth/user.js';
import type { LoopbackTarget } from '../sim/port-forward-annotation.js';

export interface AggregatedRoute {
  /** The APIService's name (`version.group`). */
  name: string;
  available: boolean;
  /** Where an available APIService is reached (loopback only). */
  target?: LoopbackTarget & { caBundle?: Buffer; insecureSkipTLSVerify: boolean; serverName: string };
}

/** A group-version only an APIService names, as discovery lists it. */
export interface ExternalGroupVersion {
  group: string;
  version: string;
  available: boolean;
  /** The backend's APIResourceList resources, from its last discovery check. */
  resources: Record<string, unknown>[];
}

export interface AggregatedRoutes {
  /** The route of a group-version this server does not serve itself, when an APIService names a Service for it. */
  route(urlGroup: string, version: string): AggregatedRoute | undefined;
  /** Every such group-version (discovery lists them, as kube-aggregator does). */
  groups(): ExternalGroupVersion[];
}

/** Request headers a proxied request keeps (no Authorization, Cookie, Impersonate-* or hop-by-hop headers). */
const FORWARDED = ['accept', 'accept-encoding', 'content-type', 'content-length', 'user-agent', 'if-none-match', 'if-modified-since'];
/** Response headers passed back. */
const RETURNED = ['content-type', 'content-length', 'content-encoding', 'etag', 'last-modified', 'cache-control', 'warning', 'audit-id'];
const CONNECT_TIMEOUT_MS = 10_000;

export function serviceUnavailable(res: ServerResponse): void {
  res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache, private' });
  res.end('service unavailable\n');
}

export function serveAggregated(req: IncomingMessage, res: ServerResponse, route: AggregatedRoute, user: UserInfo | undefined): Promise<void> {
  const t = route.target;
  if (!route.available || !t) {
    serviceUnavailable(res);
    return Promise.resolve();
  }
  if (req.headers.upgrade !== undefined) {
    // streaming upgrades (WebSocket watches, exec) are not forwarded to aggregated APIs here
    res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end('upgrade requests are not proxied to aggregated APIs\n');
    return Promise.resolve();
  }
  const headers: Record<string, string | string[]> = {};
  for (const h of FORWARDED) {
    const v = req.headers[h];
    if (v !== undefined) headers[h] = v;
  }
  if (user) {
    headers['x-remote-user'] = user.name;
    if (user.groups.length) headers['x-remote-group'] = user.groups;
    for (const [k, v] of Object.entries(user.extra)) headers[`x-remote-extra-${encodeURIComponent(k).toLowerCase()}`] = v;
  }
  return new Promise((resolve) => {
    const upstream = httpsRequest(
      { host: t.host, port: t.port, method: req.method, path: req.url, headers, rejectUnauthorized: !t.insecureSkipTLSVerify, ...(t.caBundle ? { ca: t.caBundle } : {}), servername: t.serverName, timeout: CONNECT_TIMEOUT_MS },
      (answer) => {
        const out: Record<string, string | string[]> = {};
        for (const h of RETURNED) {
          const v = answer.headers[h];
          if (v !== undefined) out[h] = v;
        }
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
        answer.on('end', () => resolve());
        answer.on('error', () => {
          res.destroy();
          resolve();
        });
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error('timeout')));
    upstream.on('error', () => {
      // upstream's proxy answers 503 when the backend cannot be reached
      if (!res.headersSent) serviceUnavailable(res);
      else res.destroy();
      resolve();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
}
