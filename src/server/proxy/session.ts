// Proxy mode: exec, attach and port-forward for the explorer only. kubectl proxy's --reject-paths default
// keeps refusing them for every other caller; the explorer's own WebSocket upgrades pass when they prove
// they come from a page of this server: the browser's Origin is this server's origin (browsers always
// send it on WebSocket upgrades and a page cannot forge it), and the session's CSRF token, which only a
// same-origin page can read (GET SESSION_PATH, no CORS), is offered as a subprotocol (a WebSocket cannot
// carry custom headers). The token never reaches the cluster.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const SESSION_PATH = '/periscope/session';
/** The subprotocol carrying the CSRF token: `csrf.periscope.dev.<token>`. */
export const CSRF_PROTOCOL_PREFIX = 'csrf.periscope.dev.';

/** Paths of the connect sub-resources the session may open (the ones --reject-paths refuses by default). */
const CONNECT_PATH = /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/(exec|attach|portforward)$/;

export class ProxySession {
  readonly token = randomBytes(32).toString('base64url');

  /** Serves the token to a same-origin page. */
  serve(req: IncomingMessage, res: ServerResponse): void {
    const site = req.headers['sec-fetch-site'];
    if (req.method !== 'GET' || (site !== undefined && site !== 'same-origin' && site !== 'none')) {
      res.writeHead(403, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the session is served to this server\'s own pages only', reason: 'Forbidden', code: 403 }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    res.end(JSON.stringify({ csrfToken: this.token }));
  }

  private tokenMatches(offered: string): boolean {
    const a = Buffer.from(offered);
    const b = Buffer.from(this.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /**
   * Whether an upgrade request is the explorer opening exec/attach/port-forward: a WebSocket to a connect
   * path, sent by a page of this very origin, with the session's token.
   */
  allowsConnect(req: IncomingMessage, path: string, scheme: 'http' | 'https'): boolean {
    if (!CONNECT_PATH.test(path)) return false;
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return false;
    const origin = req.headers.origin;
    if (!origin || origin.toLowerCase() !== `${scheme}://${(req.headers.host ?? '').toLowerCase()}`) return false;
    const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim());
    return offered.some((p) => p.startsWith(CSRF_PROTOCOL_PREFIX) && this.tokenMatches(p.slice(CSRF_PROTOCOL_PREFIX.length)));
  }
}
