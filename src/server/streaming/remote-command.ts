// exec and attach once upgraded: the client's streams (stdin, stdout, stderr, resize, error) over WebSocket
// channels or SPDY streams, the command run by the container runtime, and its end written as upstream's
// kubelet does (pkg/kubelet/cri/streaming/remotecommand): v4/v5 a JSON Status without kind on the error
// channel (Success, or NonZeroExitCode with the code as cause), v1–v3 plain text on failure only.
import { PassThrough, type Readable } from 'node:stream';
import type { WebSocket } from 'ws';
import type { ProcessIO } from '../sim/builtin-shell.js';
import type { SpdyConnection, SpdyStream } from './spdy/connection.js';
import { RST_CANCEL } from './spdy/frames.js';

export interface CommandOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  container: string;
  command: string[];
}

/** What ran: an exit code, or an error before/while running. */
export type CommandResult = { exitCode: number } | { error: string };

export type CommandRunner = (io: ProcessIO) => Promise<number>;

/** The SPDY and WebSocket protocols of exec/attach, newest first (apimachinery remotecommand constants). */
export const V5 = 'v5.channel.k8s.io';
export const V4 = 'v4.channel.k8s.io';
export const V3 = 'v3.channel.k8s.io';
export const V2 = 'v2.channel.k8s.io';
export const V1 = 'channel.k8s.io';
export const SPDY_COMMAND_PROTOCOLS = [V4, V3, V2, V1];

const versionOf = (p: string): number => (p.startsWith('v5.') ? 5 : p.startsWith('v4.') ? 4 : p.startsWith('v3.') ? 3 : p.startsWith('v2.') ? 2 : 1);

/** The bytes written on the error channel for a result under a protocol, or undefined for none. */
export function statusBytes(protocol: string, result: CommandResult, argv: string[]): Buffer | undefined {
  const v = versionOf(protocol);
  if ('error' in result) {
    if (v < 4) return Buffer.from(result.error);
    return Buffer.from(JSON.stringify({ metadata: {}, status: 'Failure', message: result.error, reason: 'InternalError', details: { causes: [{ message: result.error }] }, code: 500 }));
  }
  if (result.exitCode === 0) return v < 4 ? undefined : Buffer.from(JSON.stringify({ metadata: {}, status: 'Success' }));
  const message = `command terminated with non-zero exit code: command '${argv.join(' ')}' exited with ${result.exitCode}`;
  if (v < 4) return Buffer.from(message);
  return Buffer.from(
    JSON.stringify({ metadata: {}, status: 'Failure', message, reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: String(result.exitCode) }] } }),
  );
}

async function run(runner: CommandRunner, io: ProcessIO): Promise<CommandResult> {
  try {
    return { exitCode: await runner(io) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

// ---------------------------------------------------------------- WebSocket channels

export const CHANNEL_PROTOCOLS = [V5, V4, V3, V2, V1, 'v4.base64.channel.k8s.io', 'base64.channel.k8s.io'];

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE = 255;

/** Sends and receives channel messages: binary `[channel, ...payload]`, or text `'0'+channel` + base64. */
export class ChannelSocket {
  readonly base64: boolean;
  constructor(
    readonly ws: WebSocket,
    readonly protocol: string,
  ) {
    this.base64 = protocol.includes('base64');
  }

  send(channel: number, data: Buffer): Promise<void> {
    if (this.ws.readyState !== this.ws.OPEN) return Promise.resolve();
    const msg = this.base64 ? String.fromCharCode(48 + channel) + data.toString('base64') : Buffer.concat([Buffer.from([channel]), data]);
    return new Promise((r) => this.ws.send(msg, { binary: !this.base64 }, () => r()));
  }

  /** Calls back per message with its channel and payload; undecodable messages are ignored. */
  onMessage(fn: (channel: number, data: Buffer) => void): void {
    this.ws.on('message', (raw: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      const b = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
      if (b.length === 0) return;
      if (this.base64) {
        if (isBinary) return;
        const s = b.toString('latin1');
        fn(s.charCodeAt(0) - 48, Buffer.from(s.slice(1), 'base64'));
      } else {
        // text frames too: the kubelet reads either kind (x/net/websocket), and Python's client sends str as text
        fn(b[0]!, b.subarray(1));
      }
    });
  }
}

/** Serves exec/attach on an upgraded WebSocket; resolves once the socket is closed. */
export async function serveChannelCommand(ws: WebSocket, protocol: string, opts: CommandOptions, runner: CommandRunner): Promise<void> {
  const ch = new ChannelSocket(ws, protocol);
  const v5 = protocol === V5;
  const ac = new AbortController();
  ws.on('close', () => ac.abort());
  ws.on('error', () => ac.abort());
  const stdin = opts.stdin ? new PassThrough({ highWaterMark: 64 * 1024 }) : undefined;
  ch.onMessage((channel, data) => {
    if (channel === STDIN && stdin && !stdin.writableEnded) {
      // bounded: the socket is not read while the command has not taken what came
      if (!stdin.write(data)) {
        ws.pause();
        stdin.once('drain', () => ws.resume());
      }
    } else if (channel === CLOSE && v5) {
      // the v5 close signal: [255, channel] half-closes that channel
      if (data.length !== 1) return void ws.terminate();
      if (data[0] === STDIN) stdin?.end();
    } else if (channel === RESIZE) {
      // terminal sizes reach no simulated process; read and dropped
    }
  });
  ac.signal.addEventListener('abort', () => stdin?.end(), { once: true });
  // the first message tells the client the streams are ready (an empty one on stdout, else stderr, else error)
  await ch.send(opts.stdout ? STDOUT : opts.stderr ? STDERR : ERROR, Buffer.alloc(0));
  const io: ProcessIO = {
    stdin,
    stdout: (b) => (opts.stdout ? ch.send(STDOUT, Buffer.from(b)) : Promise.resolve()),
    stderr: (b) => (opts.stderr && !opts.tty ? ch.send(STDERR, Buffer.from(b)) : opts.tty && opts.stdout ? ch.send(STDOUT, Buffer.from(b)) : Promise.resolve()),
    signal: ac.signal,
    tty: opts.tty,
  };
  const result = await run(runner, io);
  const status = statusBytes(protocol, result, opts.command);
  if (status) await ch.send(ERROR, status);
  if (ws.readyState === ws.OPEN) ws.close(1000);
}

// ---------------------------------------------------------------- SPDY streams

/** How long the client has to open its streams (kubelet: 30 s, `timed out waiting for client to create streams`). */
export const STREAM_CREATION_TIMEOUT_MS = 30_000;

/** The streams exec/attach expects from a SPDY client for its options and protocol. */
function expectedStreams(protocol: string, o: CommandOptions): string[] {
  const v = versionOf(protocol);
  const want = ['error'];
  if (o.stdin) want.push('stdin');
  if (o.stdout) want.push('stdout');
  if (o.stderr && !(o.tty && v >= 2)) want.push('stderr');
  if (o.tty && v >= 3) want.push('resize');
  return want;
}

/** Serves exec/attach on a SPDY connection. */
export function serveSpdyCommand(conn: SpdyConnection, protocol: string, opts: CommandOptions, runner: CommandRunner, log: (l: string) => void): void {
  const want = expectedStreams(protocol, opts);
  const got = new Map<string, SpdyStream>();
  let started = false;
  const timer = setTimeout(() => {
    log(`exec: timed out waiting for client to create streams`);
    conn.close();
  }, STREAM_CREATION_TIMEOUT_MS);
  timer.unref?.();
  conn.on('close', () => clearTimeout(timer));
  conn.setStreamHandler((s) => {
    const type = s.header('streamtype') ?? '';
    s.reply();
    if (started || !want.includes(type) || got.has(type)) {
      // resize streams are read and dropped; anything else unexpected is refused
      if (type === 'resize') return void s.readable.resume();
      return void s.reset(RST_CANCEL);
    }
    got.set(type, s);
    if (type === 'resize') s.readable.resume();
    if (want.every((w) => got.has(w))) {
      started = true;
      clearTimeout(timer);
      void start();
    }
  });
  const start = async () => {
    const ac = new AbortController();
    conn.on('close', () => ac.abort());
    const stdin: Readable | undefined = got.get('stdin')?.readable;
    const out = got.get('stdout');
    const err = got.get('stderr');
    const io: ProcessIO = {
      stdin,
      stdout: (b) => out?.write(b) ?? Promise.resolve(),
      stderr: (b) => (err ? err.write(b) : opts.tty && out ? out.write(b) : Promise.resolve()),
      signal: ac.signal,
    tty: opts.tty,
    };
    const result = await run(runner, io);
    const errorStream = got.get('error')!;
    const status = statusBytes(protocol, result, opts.command);
    out?.end();
    err?.end();
    if (status) await errorStream.write(status);
    errorStream.end();
    // the client closes the connection once it has read the error stream; close it ourselves if it does not
    setTimeout(() => conn.close(), 1000).unref?.();
  };
}
