// Exec into a container over the upstream WebSocket protocol: `v5.channel.k8s.io` offered first, then
// `v4.channel.k8s.io` (the apiserver and kubectl speak v5; a kubelet-era server stops at v4). Each binary
// message is one channel byte and its payload: stdin 0, stdout 1, stderr 2, error 3 (a Status: the exit),
// resize 4 (`{"Width":W,"Height":H}` per event), close 255 (v5: `[255, ch]` half-closes a stream).
// A browser cannot send headers on a WebSocket: the token rides the bearer subprotocol, as watches do.
import { resourcePath, withQuery, type Query } from '../../client/index.js';
import { BEARER_PROTOCOL_PREFIX } from '../../client/websocket-watch.js';
import { api } from '../api.js';
import { authStore } from '../auth.js';

export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;
export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

export interface ExecTarget {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
  tty: boolean;
}

export function execPath(t: Pick<ExecTarget, 'namespace' | 'pod'>): string {
  return resourcePath({ group: '', version: 'v1', resource: 'pods', namespace: t.namespace, name: t.pod, subresource: 'exec' });
}

/** PodExecOptions as query: one `command` per argv item; stderr only without a tty (a tty merges it). */
export function execQuery(t: ExecTarget): Query {
  return { container: t.container, command: t.command, stdin: 'true', stdout: 'true', stderr: t.tty ? undefined : 'true', tty: t.tty ? 'true' : undefined };
}

function base64url(text: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function execProtocols(token: string | undefined): string[] {
  return [...EXEC_PROTOCOLS, ...(token ? [BEARER_PROTOCOL_PREFIX + base64url(token)] : [])];
}

export function frame(channel: number, payload: Uint8Array | string): Uint8Array<ArrayBuffer> {
  const body = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
  const out = new Uint8Array(body.length + 1);
  out[0] = channel;
  out.set(body, 1);
  return out;
}

export function resizeFrame(cols: number, rows: number): Uint8Array<ArrayBuffer> {
  // as client-go's json.Encoder: one object per event, newline-terminated
  return frame(CHANNEL.resize, `${JSON.stringify({ Width: cols, Height: rows })}\n`);
}

export interface ExitStatus {
  /** The exit code, when the command ran to an exit. */
  code?: number;
  /** The error text, when the exec itself failed (or a non-zero exit's message). */
  message?: string;
}

/** The error channel's Status (v4/v5): Success is exit 0, NonZeroExitCode carries the code in causes. */
export function parseExitStatus(payload: string): ExitStatus {
  let st: { status?: string; reason?: string; message?: string; details?: { causes?: { reason?: string; message?: string }[] } };
  try {
    st = JSON.parse(payload);
  } catch {
    // v1–v3 write plain text, only on failure
    return { message: payload };
  }
  if (st.status === 'Success') return { code: 0 };
  if (st.reason === 'NonZeroExitCode') {
    const c = st.details?.causes?.find((x) => x.reason === 'ExitCode');
    const n = Number(c?.message);
    if (Number.isInteger(n)) return { code: n & 0xff, message: st.message };
  }
  return { message: st.message ?? payload };
}

export type ExecEnd =
  | { kind: 'exit'; code: number; message?: string }
  | { kind: 'error'; message: string }
  | { kind: 'closed' };

export interface ExecHandlers {
  onOpen(protocol: string): void;
  onOutput(data: Uint8Array, channel: 1 | 2): void;
  onEnd(end: ExecEnd): void;
}

export interface ExecSession {
  send(data: string | Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** v5: half-close stdin (`[255, 0]`); v4 has no way but closing the socket. */
  closeStdin(): void;
  close(): void;
}

export function openExec(t: ExecTarget, h: ExecHandlers): ExecSession {
  const url = new URL(withQuery(execPath(t), execQuery(t)), window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(url.toString(), execProtocols(authStore.token()));
  ws.binaryType = 'arraybuffer';
  let ended = false;
  let status: ExitStatus | undefined;
  const end = (e: ExecEnd) => {
    if (ended) return;
    ended = true;
    h.onEnd(e);
  };
  const dec = new TextDecoder();
  ws.onopen = () => h.onOpen(ws.protocol);
  ws.onmessage = (m) => {
    if (typeof m.data === 'string') {
      end({ kind: 'error', message: `unexpected text message on ${ws.protocol}` });
      ws.close();
      return;
    }
    const bytes = new Uint8Array(m.data as ArrayBuffer);
    if (!bytes.length) return;
    const ch = bytes[0]!;
    const payload = bytes.subarray(1);
    if (ch === CHANNEL.stdout || ch === CHANNEL.stderr) {
      if (payload.length) h.onOutput(payload, ch);
    } else if (ch === CHANNEL.error) status = parseExitStatus(dec.decode(payload));
  };
  ws.onclose = (ev) => {
    if (status?.code !== undefined) end({ kind: 'exit', code: status.code, message: status.message });
    else if (status?.message) end({ kind: 'error', message: status.message });
    else if (ws.protocol === '' && ev.code !== 1000) end({ kind: 'error', message: '' });
    else end({ kind: 'closed' });
  };
  const sendRaw = (b: Uint8Array<ArrayBuffer>) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(b);
  };
  return {
    send: (data) => sendRaw(frame(CHANNEL.stdin, data)),
    resize: (cols, rows) => sendRaw(resizeFrame(cols, rows)),
    closeStdin: () => {
      if (ws.protocol.startsWith('v5.')) sendRaw(new Uint8Array([CHANNEL.close, CHANNEL.stdin]));
    },
    close: () => ws.close(1000),
  };
}

/**
 * Why an exec socket could not open (a browser never sees the handshake's status): the same URL asked
 * without an upgrade. Upstream checks the pod and container and authorizes first, so the answer is
 * 403 (forbidden), 404 (no such pod or no exec), 400 (the container or pod is wrong; or just
 * "Upgrade request required", meaning exec is there and the upgrade itself failed).
 */
export async function diagnoseExec(t: ExecTarget): Promise<{ kind: 'forbidden' | 'unsupported' | 'bad-request' | 'upgrade' | 'unknown'; message: string }> {
  try {
    await api.request('GET', execPath(t), { query: execQuery(t) });
    return { kind: 'unknown', message: 'the server answered a plain GET to exec: it does not speak the exec protocol here' };
  } catch (e) {
    const err = e as { code?: number; message?: string };
    const message = err.message ?? String(e);
    if (err.code === 403) return { kind: 'forbidden', message };
    if (err.code === 404 || err.code === 405 || err.code === 501) return { kind: 'unsupported', message };
    if (err.code === 400 && /upgrade request required/i.test(message)) return { kind: 'upgrade', message };
    if (err.code === 400) return { kind: 'bad-request', message };
    return { kind: 'unknown', message };
  }
}
