// Listening with connection tracking, so shutdown can end keep-alive and streaming connections.
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Listening {
  port: number;
  /** Host part of a URL for the bind address (IPv6 in brackets). */
  host: string;
  /** Stops accepting; open connections are destroyed after `graceMs`. Resolves when the server closed. */
  close(graceMs?: number): Promise<void>;
}

/** kube-apiserver's MaxHeaderBytes (1 MiB); larger headers are answered 431 by Node. */
const MAX_HEADER_BYTES = 1 << 20;

/** Headers must arrive within this (upstream's ReadHeaderTimeout, 32 s). */
export const HEADERS_TIMEOUT_MS = 32_000;

/**
 * Options of the API server's http/https server. Node enforces the header and request timeouts only
 * when it checks its connections, every 30 s by default: a slow client would keep its connection up to
 * 30 s past the timeout (58-60 s instead of 32). Checking every second keeps them within a second.
 */
export const HTTP_SERVER_OPTIONS = { maxHeaderSize: MAX_HEADER_BYTES, connectionsCheckingInterval: 1000 } as const;

/**
 * Connection limits of kube-apiserver's secure serving (k8s.io/apiserver pkg/server/secure_serving.go):
 * headers must arrive within 32 s (slowloris), idle keep-alive connections close after 90 s; a request
 * whose body has not arrived after `requestTimeoutMs` (--request-timeout) is cut.
 */
export function limitConnections(server: Server, requestTimeoutMs = 60_000, headersTimeoutMs = HEADERS_TIMEOUT_MS): void {
  server.headersTimeout = headersTimeoutMs;
  server.keepAliveTimeout = 90_000;
  server.requestTimeout = requestTimeoutMs > 0 ? Math.max(requestTimeoutMs, server.headersTimeout) : 0;
}

export async function listenTracked(server: Server, port: number, bindAddress: string): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    host: bindAddress.includes(':') ? `[${bindAddress}]` : bindAddress,
    close(graceMs = 0) {
      const done = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      const destroyAll = () => {
        for (const s of sockets) s.destroy();
      };
      if (graceMs > 0) setTimeout(destroyAll, graceMs).unref();
      else destroyAll();
      return done;
    },
  };
}
