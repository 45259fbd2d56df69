// Watch over WebSocket, as upstream serves it (pkg/endpoints/handlers/watch.go): a watch request with
// `Upgrade: websocket` goes through the same chain as any request (Host/Origin checks, authentication,
// the watch handler); each watch event is then one WebSocket message (text for JSON), the same event
// object as the streamed form, and the socket closes when the watch ends. Until the handler starts
// the stream, an error is a plain HTTP answer on the socket (no upgrade).
import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { Writable, type Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { groupSpellings } from '../registry/names.js';

/** Frames from the client are not read (a watch is one-way): only control frames are expected. */
const MAX_CLIENT_PAYLOAD = 64 * 1024;

/** Unsent bytes past which the watch outbox sees backpressure (as a socket's default high-water mark). */
const HIGH_WATER_MARK = 64 * 1024;

export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** Browsers cannot set Authorization on a WebSocket: upstream reads a bearer token from this subprotocol (pkg/authentication/request/websocket). */
const BEARER_PROTOCOL_PREFIXES = [...new Set(['authorization.k8s.io', ...groupSpellings('authorization.k8s.io')])].map((g) => `base64url.bearer.${g}.`);

/** Nor Accept: our explorer sends it as this subprotocol (kept in the offer: it is the one echoed back). */
export const ACCEPT_PROTOCOL_PREFIX = 'base64url.accept.service.io.';

/** Accept headers longer than this are not read from a subprotocol (a header line is at most 1 MiB anyway). */
const MAX_ACCEPT = 4096;

/**
 * Moves a bearer token offered as a `base64url.bearer.authorization.k8s.io.<token>` subprotocol into the
 * Authorization header authentication reads (an Authorization header already sent wins), and removes it
 * from the offered protocols so it is never echoed back; an Accept subprotocol sets Accept.
 */
export function readSubprotocols(req: IncomingMessage): void {
  const raw = req.headers['sec-websocket-protocol'];
  if (!raw) return;
  const rest: string[] = [];
  let token: string | undefined;
  for (const p of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const prefix = BEARER_PROTOCOL_PREFIXES.find((x) => p.startsWith(x));
    if (!prefix) rest.push(p);
    else token ??= Buffer.from(p.slice(prefix.length), 'base64url').toString('utf8');
    if (p.startsWith(ACCEPT_PROTOCOL_PREFIX) && p.length < MAX_ACCEPT) {
      const accept = Buffer.from(p.slice(ACCEPT_PROTOCOL_PREFIX.length), 'base64url').toString('utf8');
      if (!/[\r\n\0]/.test(accept)) req.headers.accept = accept;
    }
  }
  if (token === undefined) return;
  if (rest.length) req.headers['sec-websocket-protocol'] = rest.join(', ');
  else delete req.headers['sec-websocket-protocol'];
  // an empty or header-breaking token is no credential: the request stays unauthenticated (401)
  if (!req.headers.authorization && token && !/[\r\n\0]/.test(token)) req.headers.authorization = `Bearer ${token}`;
}

let shared: WebSocketServer | undefined;
function wss(): WebSocketServer {
  // a client offering subprotocols must get one back: the first one it offered (the bearer one is gone by now)
  shared ??= new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_PAYLOAD, perMessageDeflate: false, handleProtocols: (offered) => offered.values().next().value ?? false });
  return shared;
}

/**
 * Stands in for the ServerResponse of an upgrade request. `writeHead(200)` (only the watch handler
 * answers 200 on this path) completes the WebSocket handshake and every later write is one message;
 * any other status is written to the socket as an HTTP response. As a Writable it gives the watch
 * outbox the backpressure it follows: a write completes when ws has handed the frame to the socket.
 */
export class WebSocketResponse extends Writable {
  statusCode = 200;
  headersSent = false;
  private readonly headers = new Map<string, OutgoingHttpHeader>();
  private mode: 'pending' | 'upgrading' | 'ws' | 'http' | 'detached' = 'pending';
  private ws?: WebSocket;
  private binary = false;
  private waiting?: () => void;
  private body: Buffer[] = [];
  /** Told the answer's status once: 101 when the handshake completed, the HTTP status otherwise (0: the client left first). */
  onStatus?: (status: number) => void;
  private statusTold = false;

  private tell(status: number): void {
    if (this.statusTold) return;
    this.statusTold = true;
    this.onStatus?.(status);
  }

  constructor(
    private readonly req: IncomingMessage,
    readonly socket: Duplex,
    private readonly head: Buffer,
  ) {
    super({ highWaterMark: HIGH_WATER_MARK });
    socket.on('error', () => this.destroy());
    socket.once('close', () => {
      this.tell(0);
      if (this.mode !== 'ws') this.destroy();
    });
  }

  setHeader(name: string, value: OutgoingHttpHeader): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string): OutgoingHttpHeader | undefined {
    return this.headers.get(name.toLowerCase());
  }
  hasHeader(name: string): boolean {
    return this.headers.has(name.toLowerCase());
  }
  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }
  flushHeaders(): void {}

  writeHead(code: number, reasonOrHeaders?: string | OutgoingHttpHeaders, maybeHeaders?: OutgoingHttpHeaders): this {
    const headers = typeof reasonOrHeaders === 'object' ? reasonOrHeaders : maybeHeaders;
    for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) this.setHeader(k, v);
    this.statusCode = code;
    this.headersSent = true;
    // only a GET can become a WebSocket (RFC 6455 §4.1); anything else is answered over plain HTTP
    if (code !== 200 || this.mode !== 'pending' || this.req.method !== 'GET') {
      this.mode = 'http';
      this.tell(code);
      return this;
    }
    // JSON events are text messages; Protobuf and CBOR ones binary
    this.binary = !/json/i.test(String(this.getHeader('content-type') ?? 'application/json'));
    this.mode = 'upgrading';
    const server = wss();
    const extra = this.getHeader('warning');
    const addWarnings = (lines: string[]) => {
      for (const w of Array.isArray(extra) ? extra : extra !== undefined ? [String(extra)] : []) lines.push(`Warning: ${w}`);
    };
    server.once('headers', addWarnings);
    server.handleUpgrade(this.req, this.socket as Socket, this.head, (ws) => {
      server.removeListener('headers', addWarnings);
      this.ws = ws;
      this.mode = 'ws';
      this.tell(101);
      ws.on('close', () => this.destroy());
      ws.on('error', () => this.destroy());
      const w = this.waiting;
      this.waiting = undefined;
      w?.();
    });
    return this;
  }

  /** Hands the raw socket to a protocol of its own (exec, attach, port-forward): nothing more is written here. */
  detach(): { socket: Duplex; head: Buffer } {
    this.mode = 'detached';
    this.headersSent = true;
    return { socket: this.socket, head: this.head };
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.mode === 'http' || this.mode === 'pending') {
      this.body.push(chunk);
      return cb();
    }
    const send = () => {
      const ws = this.ws;
      if (!ws || ws.readyState !== WebSocket.OPEN) return cb();
      // one event per message: the stream form's trailing newline is framing, not part of the event
      const msg = !this.binary && chunk[chunk.length - 1] === 0x0a ? chunk.subarray(0, chunk.length - 1) : chunk;
      ws.send(msg, { binary: this.binary }, () => cb());
    };
    if (this.mode === 'upgrading') this.waiting = send;
    else send();
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (this.mode === 'ws' || this.mode === 'upgrading') {
      const close = () => {
        this.ws?.close(1000);
        cb();
      };
      if (this.mode === 'upgrading') this.waiting = close;
      else close();
      return;
    }
    this.tell(this.statusCode);
    const body = Buffer.concat(this.body);
    const lines = [`HTTP/1.1 ${this.statusCode} ${STATUS_CODES[this.statusCode] ?? ''}`];
    for (const [k, v] of this.headers) {
      if (k === 'content-length' || k === 'transfer-encoding' || k === 'connection') continue;
      for (const one of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${String(one).replace(/[\r\n]/g, ' ')}`);
    }
    lines.push(`content-length: ${this.req.method === 'HEAD' ? 0 : body.length}`, 'connection: close', '', '');
    this.socket.end(Buffer.concat([Buffer.from(lines.join('\r\n')), body]));
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (this.mode === 'detached') return cb(err);
    if (this.ws) this.ws.terminate();
    else if (this.mode !== 'http' || !this.writableFinished) this.socket.destroy();
    cb(err);
  }
}
