// The connect sub-resources of pods, in one place the chain calls: pods/log (a plain streamed GET), and
// pods/exec, pods/attach, pods/portforward (upgraded to WebSocket or SPDY/3.1), plus the proxy
// sub-resources of pods, services and nodes (listed as upstream; simulated addresses are never dialled).
// Authorization as upstream: `get` on pods/log, `create` on exec/attach/portforward whatever the method
// (kubectl ≥ 1.30 sends its WebSocket exec as GET; upstream's AuthorizePodWebsocketUpgradeCreatePermission).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { errors, failure } from '../../api/status.js';
import type { ApiDeps } from '../http/api-handler.js';
import type { RequestInfo } from '../request/info.js';
import { WebSocketResponse, isWebSocketUpgrade } from '../http/websocket.js';
import { collectionPrefix, objectKey, typePrefix } from '../registry/keys.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { ProcessIO } from '../sim/builtin-shell.js';
import type { ObjectReader } from '../sim/container-view.js';
import type { ContainerRuntime } from '../sim/container-runtime.js';
import { parseLogOptions, queryBool, serveLog, validateContainer } from './pod-log.js';
import { CHANNEL_PORT_FORWARD_PROTOCOLS, parsePort, PORT_FORWARD_PROTOCOL, serveChannelPortForward, serveSpdyPortForward, TUNNEL_PROTOCOL, WebSocketByteStream } from './port-forward.js';
import { CHANNEL_PROTOCOLS, serveChannelCommand, serveSpdyCommand, SPDY_COMMAND_PROTOCOLS, type CommandOptions, type CommandRunner } from './remote-command.js';
import { SpdyConnection } from './spdy/connection.js';

export type ConnectKind = 'log' | 'exec' | 'attach' | 'portforward' | 'proxy';

/** kubelet --streaming-connection-idle-timeout default (4h). */
export const DEFAULT_STREAMING_IDLE_TIMEOUT_MS = 4 * 3600_000;

/** Largest WebSocket message read from a client (kubectl writes stdin in 32 KiB pieces). */
const MAX_CLIENT_MESSAGE = 1 << 20;

/** The connect sub-resource a request names, if any. */
export function connectKind(info: RequestInfo): ConnectKind | undefined {
  if (!info.isResourceRequest || info.group !== '' || info.version !== 'v1' || !info.name) return undefined;
  const sub = info.subresource;
  if (info.resource === 'pods' && (sub === 'log' || sub === 'exec' || sub === 'attach' || sub === 'portforward' || sub === 'proxy')) return sub;
  if ((info.resource === 'services' || info.resource === 'nodes') && sub === 'proxy') return 'proxy';
  return undefined;
}

/** Long-running as upstream's LongRunningRequestCheck: not cut by the request deadline nor counted in flight. */
export function isLongRunningConnect(info: RequestInfo): boolean {
  return connectKind(info) !== undefined;
}

export interface PodStreamsOptions {
  runtime: ContainerRuntime;
  idleTimeoutMs: number;
  now?: () => number;
  log(line: string): void;
}

function isUpgrade(req: IncomingMessage): boolean {
  return (req.headers.connection ?? '').toLowerCase().split(',').some((t) => t.trim() === 'upgrade');
}

/** A header's comma-separated values (Node joins repeated lines with commas; the bearer-token subprotocol is already gone). */
function headerList(req: IncomingMessage, name: string): string[] {
  const v = req.headers[name];
  return (Array.isArray(v) ? v.join(',') : (v ?? '')).split(',').map((s) => s.trim()).filter(Boolean);
}

/** Command options from the query (PodExecOptions / PodAttachOptions). */
export function commandOptions(query: URLSearchParams, exec: boolean): CommandOptions {
  const b = (n: string) => queryBool(query.get(n));
  const o: CommandOptions = { stdin: b('stdin'), stdout: b('stdout'), stderr: b('stderr'), tty: b('tty'), container: query.get('container') ?? '', command: exec ? query.getAll('command') : [] };
  if (!o.stdin && !o.stdout && !o.stderr) throw errors.badRequest('you must specify at least 1 of stdin, stdout, stderr');
  if (exec && o.command.length === 0) throw errors.badRequest('you must specify at least one command for the container');
  return o;
}

export class PodStreams {
  /** One WebSocket server per subprotocol it answers with ('' = none offered). */
  private readonly servers = new Map<string, WebSocketServer>();
  private readonly sockets = new Set<Duplex>();

  constructor(
    private readonly deps: ApiDeps,
    private readonly opts: PodStreamsOptions,
  ) {}

  /** Reads pods and what they mount from the watch caches (what the kubelet would read through the API). */
  static reader(deps: ApiDeps): ObjectReader {
    const get = (plural: string, ns: string | undefined, name: string) => {
      const t = deps.types.lookup('', 'v1', plural);
      return t ? deps.caches.get(typePrefix(t)).objects.get(objectKey(t, t.scope === 'Namespaced' ? ns : undefined, name)) : undefined;
    };
    return {
      get: (plural, ns, name) => get(plural, ns, name),
      list(plural, ns) {
        const t = deps.types.lookup('', 'v1', plural);
        if (!t) return [];
        const c = deps.caches.get(typePrefix(t));
        return c.keysUnder(collectionPrefix(t, ns)).map((k) => c.objects.get(k)).filter((o): o is KubeObject => !!o);
      },
      async token(pod, audience, expirationSeconds) {
        const sa = deps.authentication?.authenticator.serviceAccounts;
        const ns = pod.metadata?.namespace ?? '';
        const name = String((pod['spec'] as Record<string, unknown>)?.serviceAccountName ?? 'default');
        if (!sa) return undefined;
        const acct = get('serviceaccounts', ns, name);
        const { token } = await sa.issue({ namespace: ns, name, uid: acct?.metadata?.uid ?? '' }, audience ? [audience] : sa.apiAudiences, Math.max(600, expirationSeconds), {
          kind: 'Pod',
          name: pod.metadata?.name ?? '',
          uid: pod.metadata?.uid ?? '',
        });
        return token;
      },
    };
  }

  private podType(): ResourceType {
    return this.deps.types.lookup('', 'v1', 'pods')!;
  }

  private currentPod(ns: string, name: string): KubeObject | undefined {
    const t = this.podType();
    return this.deps.caches.get(typePrefix(t)).objects.get(objectKey(t, ns, name));
  }

  /** Closes every upgraded connection (server shutdown). */
  close(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  async serve(req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams, signal: () => AbortSignal): Promise<void> {
    const kind = connectKind(info)!;
    const method = req.method ?? 'GET';
    if (kind === 'log' && method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
    if ((kind === 'exec' || kind === 'attach' || kind === 'portforward') && method !== 'GET' && method !== 'POST')
      throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
    // authorized by the chain (http/chain.ts) as create for exec, attach and port-forward, get for logs
    if (info.parts.length > 3 && kind !== 'proxy') throw failure(404, 'NotFound', 'the server could not find the requested resource');
    if (kind === 'proxy') return this.proxy(info);
    const t = this.podType();
    const cache = this.deps.caches.get(typePrefix(t));
    await cache.waitConsistent().catch(() => {});
    const pod = cache.objects.get(objectKey(t, info.namespace, info.name));
    if (!pod) throw errors.notFound({ group: '', resource: 'pods', name: info.name });
    if (kind === 'log') {
      const opts = parseLogOptions(query);
      return serveLog(res, pod, opts, { pod: () => this.currentPod(info.namespace, info.name), now: this.opts.now ?? Date.now }, signal());
    }
    const spec = (pod['spec'] as Record<string, any>) ?? {};
    const phase = (pod['status'] as Record<string, any>)?.phase;
    let cmd: CommandOptions | undefined;
    if (kind === 'exec' || kind === 'attach') {
      cmd = commandOptions(query, kind === 'exec');
      cmd.container = validateContainer(cmd.container, pod);
      if (!spec.nodeName) throw errors.badRequest(`pod ${info.name} does not have a host assigned`);
      if (phase === 'Succeeded' || phase === 'Failed')
        throw errors.badRequest(`cannot ${kind === 'exec' ? 'exec into' : 'attach to'} a container in a completed pod; current phase is ${phase}`);
    } else if (!spec.nodeName) throw errors.badRequest(`pod ${info.name} does not have a host assigned`);
    if (!isUpgrade(req) || !(res instanceof WebSocketResponse)) throw errors.badRequest('Upgrade request required');
    if (cmd) {
      const cs = [...((pod['status'] as any)?.containerStatuses ?? []), ...((pod['status'] as any)?.initContainerStatuses ?? [])].find((c: any) => c?.name === cmd!.container);
      if (!cs?.state?.running) return plainError(res, 500, `container not found ("${cmd.container}")`);
    }
    if (isWebSocketUpgrade(req)) return this.webSocket(req, res, kind, cmd, pod, query);
    return this.spdy(req, res, kind, cmd, pod);
  }

  private proxy(info: RequestInfo): never {
    // upstream dials the pod, service or node address; here those addresses exist only in the simulation
    const what = info.resource === 'pods' ? 'pod' : info.resource === 'services' ? 'service' : 'node';
    throw errors.unavailable(`error trying to reach ${what}: ${what} ${JSON.stringify(info.name)} has a simulated address, which this server never dials (use port-forward with the sim.periscope.dev/port-forward annotation)`);
  }

  private runner(kind: 'exec' | 'attach', pod: KubeObject, cmd: CommandOptions): CommandRunner {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    return (io: ProcessIO) =>
      kind === 'exec' ? this.opts.runtime.exec(pod, cmd.container, cmd.command, io) : this.opts.runtime.attach(pod, cmd.container, io, () => this.currentPod(ns, name));
  }

  private track(s: Duplex): void {
    this.sockets.add(s);
    s.once('close', () => this.sockets.delete(s));
  }

  private webSocket(req: IncomingMessage, res: WebSocketResponse, kind: 'exec' | 'attach' | 'portforward', cmd: CommandOptions | undefined, pod: KubeObject, query: URLSearchParams): void {
    const offered = headerList(req, 'sec-websocket-protocol');
    const supported = kind === 'portforward' ? [TUNNEL_PROTOCOL, ...CHANNEL_PORT_FORWARD_PROTOCOLS] : CHANNEL_PROTOCOLS;
    // the first offered protocol we speak; none offered means the oldest channel protocol
    const protocol = offered.length === 0 ? (kind === 'portforward' ? 'v4.channel.k8s.io' : 'channel.k8s.io') : offered.find((p) => supported.includes(p));
    if (!protocol) {
      if (kind === 'portforward' && offered.some((p) => p.startsWith('SPDY/3.1+'))) throw errors.badRequest('unable to upgrade: no tunneling spdy protocols provided');
      throw errors.badRequest(`unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${supported.join(' ')}]`);
    }
    let ports: number[] = [];
    if (kind === 'portforward' && protocol !== TUNNEL_PROTOCOL) {
      const raw = [...query.getAll('ports'), ...query.getAll('port')].flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
      if (raw.length === 0) throw errors.badRequest('query parameter "port" is required');
      ports = raw.map((s) => {
        const p = parsePort(s);
        if (p === undefined) throw errors.badRequest(`unable to parse "${s}" as a port: invalid syntax`);
        return p;
      });
    }
    const { socket, head } = res.detach();
    this.track(socket);
    const key = offered.length ? protocol : '';
    let wss = this.servers.get(key);
    if (!wss) {
      wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE, perMessageDeflate: false, handleProtocols: key ? () => key : undefined });
      this.servers.set(key, wss);
    }
    wss.handleUpgrade(req, socket as Socket, head, (ws: WebSocket) => {
      // traffic either way keeps the connection alive (pings alone do not)
      const idle = this.idleTimer(socket);
      ws.on('message', idle);
      const send = ws.send.bind(ws) as (...a: unknown[]) => void;
      ws.send = ((...a: unknown[]) => {
        idle();
        send(...a);
      }) as typeof ws.send;
      if (kind === 'portforward') {
        if (protocol === TUNNEL_PROTOCOL) {
          const bytes = new WebSocketByteStream(ws);
          const conn = new SpdyConnection(bytes, { idleTimeoutMs: this.opts.idleTimeoutMs, log: this.opts.log });
          serveSpdyPortForward(conn, pod, this.opts.runtime);
        } else void serveChannelPortForward(ws, protocol, ports, pod, this.opts.runtime);
        return;
      }
      void serveChannelCommand(ws, protocol, cmd!, this.runner(kind, pod, cmd!)).catch((e) => this.opts.log(`exec: ${(e as Error).message}`));
    });
  }

  /** The socket is closed once nothing was received for the idle timeout. */
  private idleTimer(socket: Duplex): () => void {
    const ms = this.opts.idleTimeoutMs;
    if (!ms) return () => {};
    let t: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(t);
      t = setTimeout(() => socket.destroy(), ms);
      t.unref?.();
    };
    socket.once('close', () => clearTimeout(t));
    touch();
    return touch;
  }

  private spdy(req: IncomingMessage, res: WebSocketResponse, kind: 'exec' | 'attach' | 'portforward', cmd: CommandOptions | undefined, pod: KubeObject): void {
    const upgrade = (req.headers.upgrade ?? '').toLowerCase();
    if (!upgrade.split(',').some((u) => u.trim() === 'spdy/3.1'))
      throw errors.badRequest(`unable to upgrade: missing upgrade headers in request: ${JSON.stringify({ Connection: req.headers.connection ?? '', Upgrade: req.headers.upgrade ?? '' })}`);
    const offered = headerList(req, 'x-stream-protocol-version');
    if (offered.length === 0) throw errors.badRequest(`unable to upgrade: header X-Stream-Protocol-Version does not exist in request with ${Object.keys(req.headers).length} headers`);
    const supported = kind === 'portforward' ? [PORT_FORWARD_PROTOCOL] : SPDY_COMMAND_PROTOCOLS;
    const protocol = offered.find((p) => supported.includes(p));
    if (!protocol) {
      const e = failure(403, 'Forbidden', `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${supported.join(' ')}]`);
      res.setHeader('X-Accepted-Stream-Protocol-Versions', supported.join(', '));
      throw e;
    }
    const { socket, head } = res.detach();
    this.track(socket);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
    const conn = new SpdyConnection(socket, { idleTimeoutMs: this.opts.idleTimeoutMs, log: this.opts.log });
    if (kind === 'portforward') serveSpdyPortForward(conn, pod, this.opts.runtime);
    else serveSpdyCommand(conn, protocol, cmd!, this.runner(kind, pod, cmd!), this.opts.log);
    conn.feed(head);
  }
}

/** A non-Status error body, as the kubelet answers a failed upgrade (kubectl prints `unable to upgrade connection: <body>`). */
function plainError(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
