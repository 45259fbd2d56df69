// The first filters of the chain, shared by the API server and proxy mode: which Host a request may
// name (DNS rebinding), which writes a browser page on another site may send (CSRF), and the raw
// request path split without URL normalisation.
import type { IncomingMessage } from 'node:http';
import { networkInterfaces } from 'node:os';
import { errors } from '../../api/status.js';

/** kubectl proxy's default `--accept-hosts` (staging/src/k8s.io/kubectl/pkg/proxy/proxy_server.go). */
export const DEFAULT_ACCEPT_HOSTS = String.raw`^localhost$,^127\.0\.0\.1$,^\[::1\]$`;

/** kubectl proxy's default `--reject-paths`, plus port forwarding (a connect sub-resource like exec and attach). */
export const DEFAULT_REJECT_PATHS = String.raw`^/api/.*/pods/.*/exec,^/api/.*/pods/.*/attach,^/api/.*/pods/.*/portforward`;

export function parsePatternList(list: string, flag: string): RegExp[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((p) => {
      try {
        return new RegExp(p);
      } catch (e) {
        throw new Error(`invalid regular expression "${p}" in --${flag}: ${(e as Error).message}`);
      }
    });
}

/** Loopback addresses: only this machine can connect. */
export function isLoopback(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '').toLowerCase();
  return a === 'localhost' || a === '::1' || /^127\.\d+\.\d+\.\d+$/.test(a) || a === '::ffff:127.0.0.1';
}

const UNSPECIFIED = new Set(['0.0.0.0', '::', '[::]', '']);

/** Host names of the bind address: itself, or every local interface address when bound to all of them. */
export function bindAddressHosts(bindAddress: string): string[] {
  if (!UNSPECIFIED.has(bindAddress)) return [bindAddress.includes(':') && !bindAddress.startsWith('[') ? `[${bindAddress}]` : bindAddress];
  const out: string[] = [];
  for (const addrs of Object.values(networkInterfaces())) for (const a of addrs ?? []) out.push(a.family === 'IPv6' ? `[${a.address}]` : a.address);
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The accepted Host patterns: the flag's list plus the exact names the server is bound to. */
export function acceptHostPatterns(acceptHosts: string, bindAddress: string): RegExp[] {
  return [...parsePatternList(acceptHosts, 'accept-hosts'), ...bindAddressHosts(bindAddress).map((h) => new RegExp(`^${escapeRegExp(h)}$`))];
}

/** The host name of a Host header without its port (`[::1]:8080` → `[::1]`). */
export function hostName(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end < 0 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

export function hostAccepted(host: string | undefined, patterns: RegExp[]): boolean {
  if (!host) return false;
  const name = hostName(host.toLowerCase());
  return patterns.some((p) => p.test(name));
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A request a page of another site made the browser send: a write (or a WebSocket upgrade, which
 * browsers send without CORS) whose Origin is not this server's own origin, or that the browser
 * marks `Sec-Fetch-Site: cross-site`. Clients that are not browsers send neither header.
 */
export function crossSiteReason(req: IncomingMessage, scheme: 'http' | 'https'): string | undefined {
  const upgrade = req.headers.upgrade !== undefined;
  if (SAFE_METHODS.has(req.method ?? 'GET') && !upgrade) return undefined;
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site') return 'Sec-Fetch-Site: cross-site';
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  if (!sameHostAndPort(origin, req.headers.host, scheme)) return `Origin ${JSON.stringify(origin.slice(0, 200))}`;
  return undefined;
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ws: '80', wss: '443' };

/** host and port of `host[:port]`, the port defaulted by the scheme; undefined when it is no such thing. */
function hostPort(authority: string, scheme: string): string | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:@[\]]+)(?::(\d{1,5}))?$/i.exec(authority);
  if (!m) return undefined;
  const port = m[2] ?? DEFAULT_PORTS[scheme];
  return port === undefined ? undefined : `${m[1]!.toLowerCase()}:${Number(port)}`;
}

/**
 * Whether an Origin names the request's own host and port. Its scheme does not matter: only this server
 * serves this host and port, and clients that are not browsers (Python's websocket library) send
 * `http://` for a `wss://` connection.
 */
function sameHostAndPort(origin: string, host: string | undefined, scheme: 'http' | 'https'): boolean {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)$/i.exec(origin);
  if (!m || host === undefined) return false;
  const a = hostPort(m[2]!, m[1]!.toLowerCase());
  return a !== undefined && a === hostPort(host, scheme);
}

export function forbiddenHost(host: string | undefined) {
  const e = errors.forbidden({ group: '', resource: '' }, '');
  e.status.message = `Host ${JSON.stringify((host ?? '').slice(0, 200))} is not accepted by this server (see --accept-hosts)`;
  e.status.details = {};
  return e;
}

export function forbiddenCrossSite(reason: string) {
  const e = errors.forbidden({ group: '', resource: '' }, '');
  e.status.message = `cross-site request refused (${reason}): writes must come from this server's own origin`;
  e.status.details = {};
  return e;
}

export interface RawTarget {
  /** The path exactly as sent, still percent-encoded, dot segments kept. */
  path: string;
  query: URLSearchParams;
}

/**
 * Splits the request target without resolving `.`/`..` or percent-encoded dots, which WHATWG URL
 * parsing does (`/configmaps/%2e%2e` would become the namespace itself).
 */
export function rawTarget(url: string | undefined): RawTarget {
  let target = url ?? '/';
  // absolute-form (RFC 9112 §3.2.2): drop scheme and authority
  const abs = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (abs) target = target.slice(abs[0].length) || '/';
  const hash = target.indexOf('#');
  if (hash >= 0) target = target.slice(0, hash);
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  return { path: path.startsWith('/') ? path : '/' + path, query: parseQuery(q < 0 ? '' : target.slice(q + 1)) };
}

const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;

/**
 * Query parameters as Go's url.ParseQuery leaves them for the server (Request.URL.Query()): a pair with
 * a malformed percent-escape or a semicolon is dropped, not taken literally (`watch=%ZZ` asks for no watch).
 */
export function parseQuery(raw: string): URLSearchParams {
  if (!raw.includes('%') && !raw.includes(';')) return new URLSearchParams(raw);
  return new URLSearchParams(
    raw
      .split('&')
      .filter((pair) => !pair.includes(';') && !BAD_ESCAPE.test(pair))
      .join('&'),
  );
}

const HEX = /^[0-9a-fA-F]{2}$/;

/**
 * The request path as Go's net/http gives it to kube-apiserver's filters (Request.URL.Path): every
 * percent-escape decoded, `%2F` included (it separates segments like `/`), dot segments and repeated
 * slashes kept as sent (no filter or handler resolves them: a `.` or `..` segment names nothing). A
 * malformed escape is 400 before any filter runs, as Go answers "invalid URL escape". Decoded once: the
 * result is never decoded again (`%2561` stays `%61`, which no name may hold).
 */
export function decodePath(path: string): string {
  if (path.indexOf('%') < 0) return path; // the usual request: no allocation
  const bytes: number[] = [];
  let plain = true;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 0x25) {
      const hex = path.slice(i + 1, i + 3);
      if (!HEX.test(hex)) throw errors.badRequest(`invalid URL escape ${JSON.stringify(path.slice(i, i + 3))}`);
      const b = parseInt(hex, 16);
      if (b >= 0x80) plain = false;
      bytes.push(b);
      i += 2;
    } else {
      // Node reads the request line as latin1: each char is one byte sent
      if (c >= 0x80) plain = false;
      bytes.push(c & 0xff);
    }
  }
  // Go keeps the bytes; a string holds no invalid UTF-8, so such bytes become U+FFFD (which no name may hold)
  return Buffer.from(bytes).toString(plain ? 'latin1' : 'utf8');
}
