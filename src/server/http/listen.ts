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
