// pods/portforward once upgraded, in its three wire forms:
// - SPDY (kubectl ≤ 1.30, and the fallback of newer ones): per local connection the client opens an `error`
//   then a `data` stream with `port` and `requestID` headers (kubelet pkg/kubelet/cri/streaming/portforward);
// - SPDY tunnelled in WebSocket binary messages (`SPDY/3.1+portforward.k8s.io`, kubectl ≥ 1.31): the same;
// - the legacy channel protocol (`v4.channel.k8s.io`, `?ports=`): port i on channel 2i (data) and 2i+1
//   (errors), each channel's first message the port as 2 bytes little-endian.
// Each connection reaches what the runtime dials (a loopback target the pod names), never a pod IP.
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { KubeObject } from '../registry/types.js';
import type { ContainerRuntime } from '../sim/container-runtime.js';
import { ChannelSocket } from './remote-command.js';
import type { SpdyConnection, SpdyStream } from './spdy/connection.js';
import { RST_PROTOCOL_ERROR } from './spdy/frames.js';

export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
export const TUNNEL_PROTOCOL = `SPDY/3.1+${PORT_FORWARD_PROTOCOL}`;
export const CHANNEL_PORT_FORWARD_PROTOCOLS = ['v4.channel.k8s.io', 'v4.base64.channel.k8s.io'];

/** Pairs waiting for their other stream (a client opens both at once; a few are plenty). */
const MAX_PENDING_PAIRS = 1000;

/** Copies between a socket and a writer with backpressure both ways. */
function pipeSocketTo(sock: Socket, write: (b: Buffer) => Promise<void>, end: () => void): void {
  sock.on('data', (b: Buffer) => {
    sock.pause();
    void write(b).then(() => sock.resume());
  });
  sock.on('end', end);
  sock.on('close', end);
  sock.on('error', () => {});
}

export function parsePort(s: string | undefined): number | undefined {
  if (s === undefined || !/^\d{1,5}$/.test(s)) return undefined;
  const n = Number(s);
  return n >= 1 && n <= 65535 ? n : undefined;
}

export function serveSpdyPortForward(conn: SpdyConnection, pod: KubeObject, runtime: ContainerRuntime): void {
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();
  conn.setStreamHandler((s) => {
    const type = s.header('streamtype');
    const id = s.header('requestid') ?? '';
    if ((type !== 'error' && type !== 'data') || !pairs.has(id) && pairs.size >= MAX_PENDING_PAIRS) return void s.reset(RST_PROTOCOL_ERROR);
    s.reply();
    const pair = pairs.get(id) ?? {};
    if (pair[type]) return void s.reset(RST_PROTOCOL_ERROR);
    pair[type] = s;
    pairs.set(id, pair);
    if (type === 'error') s.readable.resume();
    if (pair.error && pair.data) {
      pairs.delete(id);
      forwardPair(pair.error, pair.data, pod, runtime);
    }
  });
}

function forwardPair(error: SpdyStream, data: SpdyStream, pod: KubeObject, runtime: ContainerRuntime): void {
  const raw = data.header('port');
  const port = parsePort(raw);
  const fail = async (msg: string) => {
    await error.write(msg);
    error.end();
    data.end();
  };
  if (port === undefined) return void fail(`unable to parse '${raw ?? ''}' as a port: invalid syntax`);
  runtime.dial(pod, port).then(
    (sock) => {
      data.readable.pipe(sock);
      data.on('reset', () => sock.destroy());
      pipeSocketTo(sock, (b) => data.write(b), () => {
        data.end();
        error.end();
      });
    },
    (e: Error) => void fail(e.message),
  );
}

/** A WebSocket carrying a byte stream in binary messages whose boundaries mean nothing (the SPDY tunnel). */
export class WebSocketByteStream extends Duplex {
  constructor(private readonly ws: WebSocket) {
    super();
    ws.on('message', (raw: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      if (!isBinary) {
        ws.close(1002, 'invalid message type received');
        this.destroy();
        return;
      }
      const b = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
      if (!this.push(b)) ws.pause();
    });
    ws.on('close', () => {
      this.push(null);
      this.destroy();
    });
    ws.on('error', () => this.destroy());
  }
  override _read(): void {
    this.ws.resume();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    if (this.ws.readyState !== this.ws.OPEN) return cb();
    this.ws.send(chunk, { binary: true }, () => cb());
  }
  override _final(cb: (e?: Error | null) => void): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(1000);
    cb();
  }
  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.terminate();
    cb(err);
  }
}

/** The legacy channel protocol: one connection per requested port for the life of the WebSocket. */
export async function serveChannelPortForward(ws: WebSocket, protocol: string, ports: number[], pod: KubeObject, runtime: ContainerRuntime): Promise<void> {
  const ch = new ChannelSocket(ws, protocol);
  const socks = new Map<number, Socket>();
  const prefix = (p: number) => Buffer.from([p & 0xff, p >> 8]);
  ch.onMessage((channel, data) => {
    if (channel % 2 !== 0) return;
    const sock = socks.get(channel / 2);
    if (sock && !sock.destroyed && data.length && !sock.write(data)) {
      ws.pause();
      sock.once('drain', () => ws.resume());
    }
  });
  ws.on('close', () => {
    for (const s of socks.values()) s.destroy();
  });
  for (const [i, port] of ports.entries()) {
    await ch.send(2 * i, prefix(port));
    await ch.send(2 * i + 1, prefix(port));
  }
  await Promise.all(
    ports.map(async (port, i) => {
      try {
        const sock = await runtime.dial(pod, port);
        if (ws.readyState !== ws.OPEN) return void sock.destroy();
        socks.set(i, sock);
        pipeSocketTo(sock, (b) => ch.send(2 * i, b), () => {});
      } catch (e) {
        await ch.send(2 * i + 1, Buffer.from((e as Error).message));
      }
    }),
  );
}
