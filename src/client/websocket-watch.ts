// Watch over WebSocket (upstream serves `watch=true` with `Upgrade: websocket`): each message is one
// watch event, the same objects the streamed form carries. A browser cannot set headers on a WebSocket,
// so the bearer token travels as upstream's `base64url.bearer.authorization.k8s.io.<token>` subprotocol
// and the Accept header as `base64url.accept.service.io.<accept>` (our server and proxy read it).
// Browsers open at most six HTTP/1.1 streams per host; WebSockets are not counted against that.
import { ApiError, NetworkError } from './errors.js';
import type { WatchEvent } from './types.js';

export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';
export const ACCEPT_PROTOCOL_PREFIX = 'base64url.accept.service.io.';

function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The subprotocols a watch offers: the Accept header first (it is the one echoed back), then the token. */
export function watchProtocols(accept: string, token: string | undefined): string[] {
  return [ACCEPT_PROTOCOL_PREFIX + base64url(accept), ...(token ? [BEARER_PROTOCOL_PREFIX + base64url(token)] : [])];
}

/** http(s)://… or a same-origin path to ws(s)://… */
export function webSocketUrl(httpUrl: string, origin: string | undefined): string {
  const abs = new URL(httpUrl, origin);
  abs.protocol = abs.protocol === 'https:' ? 'wss:' : 'ws:';
  return abs.toString();
}

/** Thrown when the socket could not be opened: the caller falls back to a streamed fetch. */
export class UpgradeFailed extends NetworkError {}

/**
 * Opens the socket; resolves once it is open with the events as they arrive. Ends when the server
 * closes the watch; a socket that breaks off is a NetworkError (the informer resumes as for a stream).
 */
export function openWebSocketWatch(url: string, protocols: string[], signal?: AbortSignal): Promise<AsyncGenerator<WatchEvent>> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, protocols);
    } catch (e) {
      return reject(new UpgradeFailed(`WebSocket: ${(e as Error)?.message ?? e}`, e));
    }
    const queue: WatchEvent[] = [];
    let ended: { error?: unknown } | undefined;
    let wake: (() => void) | undefined;
    let opened = false;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const onAbort = () => {
      ended ??= { error: signal?.reason };
      ws.close();
      notify();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    ws.onmessage = (m) => {
      if (typeof m.data !== 'string') {
        ended ??= { error: new ApiError(500, 'binary watch message: only JSON is read over WebSocket', { reason: 'InternalError' }) };
        ws.close();
      } else {
        try {
          const ev = JSON.parse(m.data) as WatchEvent;
          if (!ev || typeof ev !== 'object' || typeof ev.type !== 'string') throw new Error('not a watch event');
          queue.push(ev);
        } catch {
          ended ??= { error: new ApiError(500, 'malformed watch event', { reason: 'InternalError' }) };
          ws.close();
        }
      }
      notify();
    };
    ws.onerror = () => {
      if (!opened) {
        signal?.removeEventListener('abort', onAbort);
        reject(new UpgradeFailed(`WebSocket to ${url.replace(/\?.*$/, '')} could not be opened`));
      }
    };
    ws.onclose = (c) => {
      if (!opened) return;
      // 1000: the watch ended (timeout); anything else broke off
      ended ??= c.code === 1000 ? {} : { error: new NetworkError(`watch socket closed (${c.code}${c.reason ? `: ${c.reason}` : ''})`) };
      notify();
    };
    ws.onopen = () => {
      opened = true;
      resolve(
        (async function* () {
          try {
            for (;;) {
              while (queue.length) yield queue.shift()!;
              if (ended) {
                if (ended.error) throw ended.error;
                return;
              }
              await new Promise<void>((r) => (wake = r));
            }
          } finally {
            signal?.removeEventListener('abort', onAbort);
            if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close();
          }
        })(),
      );
    };
  });
}
