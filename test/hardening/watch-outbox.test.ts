// The per-watcher outbox: paced backlog, bounded live queue (events and bytes), release on abort.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WatchOutbox, type OutboxBounds } from '../../src/server/watch/outbox.js';

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A streaming response whose client reads the head and then stops reading. */
async function stalled(): Promise<{
  res: ServerResponse;
  sock: Socket;
  body: () => Promise<{ bytes: Buffer; complete: boolean }>;
}> {
  let res!: ServerResponse;
  const got = new Promise<void>((resolve) => {
    server = createServer((_req, r) => {
      res = r;
      r.writeHead(200, { 'Content-Type': 'application/json' });
      r.flushHeaders();
      resolve();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const sock = connect((server!.address() as AddressInfo).port, '127.0.0.1');
  sockets.push(sock);
  sock.on('error', () => {});
  sock.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await got;
  const head = await new Promise<Buffer>((resolve) => sock.once('data', resolve));
  sock.pause();
  const chunks: Buffer[] = [head];
  sock.on('data', (d: Buffer) => chunks.push(d));
  const closed = new Promise<void>((r) => sock.once('close', () => r()));
  const body = async () => {
    sock.resume();
    await closed;
    const bytes = Buffer.concat(chunks);
    // a response that was ended, not cut, closes with the last chunk (a reset may still read as EOF)
    return { bytes, complete: bytes.subarray(-5).toString() === '0\r\n\r\n' };
  };
  return { res, sock, body };
}

/** The body of a chunked HTTP/1.1 response (head included in `raw`). */
function dechunk(raw: Buffer): string {
  let i = raw.indexOf('\r\n\r\n') + 4;
  const parts: Buffer[] = [];
  for (;;) {
    const eol = raw.indexOf('\r\n', i);
    const len = parseInt(raw.subarray(i, eol).toString(), 16);
    if (!len) return Buffer.concat(parts).toString();
    parts.push(raw.subarray(eol + 2, eol + 2 + len));
    i = eol + 2 + len + 2;
  }
}

const bounds = (b: Partial<OutboxBounds>): OutboxBounds => ({
  maxEvents: 1000,
  maxBytes: 8 << 20,
  ...b,
});

describe('watch outbox', () => {
  it('makes backlog frames only as the client reads, then sends them all in order', async () => {
    const { res, body } = await stalled();
    const out = new WatchOutbox(res, bounds({}));
    let made = 0;
    const n = 4000;
    out.addBacklog(
      (function* () {
        for (let i = 0; i < n; i++) {
          made++;
          yield Buffer.from(`${String(i).padStart(1000, '.')}\n`);
        }
      })(),
    );
    // writing stops at the first full buffer: nothing near the whole backlog was made up front
    expect(made).toBeLessThan(n);
    expect(out.push(Buffer.from('live\n'))).toBe(true);
    out.end(Buffer.from('last\n'));
    const { bytes } = await body();
    const expected = Array.from({ length: n }, (_, i) => `${String(i).padStart(1000, '.')}\n`).join('') + 'live\nlast\n';
    expect(dechunk(bytes)).toBe(expected);
    expect(made).toBe(n);
  });

  it('refuses more than maxEvents unsent live events', async () => {
    const { res, body } = await stalled();
    const out = new WatchOutbox(res, bounds({ maxEvents: 10 }));
    let i = 0;
    while (out.push(Buffer.alloc(100, 'x'))) if (++i > 1_000_000) throw new Error('never bounded');
    expect(out.pendingEvents).toBe(11);
    out.abort();
    expect(out.pendingEvents).toBe(0);
    expect(out.pendingBytes).toBe(0);
    expect((await body()).complete).toBe(false);
  });

  it('refuses more than maxBytes unsent, counting what the connection holds', async () => {
    const { res, body } = await stalled();
    const out = new WatchOutbox(res, bounds({ maxEvents: 1_000_000, maxBytes: 256 * 1024 }));
    let i = 0;
    while (out.push(Buffer.alloc(10 * 1024, 'x'))) if (++i > 100_000) throw new Error('never bounded');
    expect(out.pendingBytes).toBeGreaterThan(256 * 1024);
    expect(out.pendingBytes).toBeLessThanOrEqual(256 * 1024 + 10 * 1024 + res.writableHighWaterMark + 10 * 1024);
    out.abort();
    expect(out.pendingBytes).toBe(0);
    expect((await body()).complete).toBe(false);
  });
});

describe('watch outbox end', () => {
  it('an ended stream whose client does not take the rest is cut after the grace period', async () => {
    const { res, body } = await stalled();
    const out = new WatchOutbox(res, bounds({ maxEvents: 1_000_000, maxBytes: 1 << 30, endGraceMs: 0 }));
    // queue more than the connection and the kernel can hold (a few MiB on loopback)
    const frame = Buffer.alloc(256 * 1024, 'x');
    while (out.pendingBytes < 32 << 20) {
      out.push(frame);
      await new Promise((r) => setImmediate(r));
    }
    const closed = new Promise((r) => res.once('close', r));
    out.end(Buffer.from('last\n'));
    await closed;
    expect((await body()).complete).toBe(false);
    expect(out.pendingBytes).toBe(0);
  });

  it('an ended stream that is taken ends cleanly', async () => {
    const { res, body } = await stalled();
    const out = new WatchOutbox(res, bounds({ endGraceMs: 60_000 }));
    out.push(Buffer.from('one\n'));
    out.end(Buffer.from('last\n'));
    const got = await body();
    expect(got.complete).toBe(true);
    expect(dechunk(got.bytes)).toBe('one\nlast\n');
  });
});

/** The chunk payloads of a chunked HTTP/1.1 response, in order (the last, empty chunk left out). */
function chunksOf(raw: Buffer): string[] {
  let i = raw.indexOf('\r\n\r\n') + 4;
  const out: string[] = [];
  for (;;) {
    const eol = raw.indexOf('\r\n', i);
    const len = parseInt(raw.subarray(i, eol).toString(), 16);
    if (!len) return out;
    out.push(raw.subarray(eol + 2, eol + 2 + len).toString());
    expect(raw.subarray(eol + 2 + len, eol + 4 + len).toString()).toBe('\r\n');
    i = eol + 2 + len + 2;
  }
}

const turn = () => new Promise((r) => setImmediate(r));

describe('watch outbox batching', () => {
  it('sends the live frames of one turn as one chunk, the bytes unchanged', async () => {
    const { res, body } = await stalled();
    const out = new WatchOutbox(res, bounds({}));
    for (const f of ['{"a":1}\n', '{"b":2}\n', '{"c":3}\n']) expect(out.push(Buffer.from(f))).toBe(true);
    await turn();
    await turn();
    out.push(Buffer.from('{"d":4}\n'));
    out.end(Buffer.from('last\n'));
    const got = await body();
    expect(got.complete).toBe(true);
    // one write (and one chunk) per batch rather than per event
    expect(chunksOf(got.bytes)).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n', '{"d":4}\nlast\n']);
  });

  it('keeps backlog before live frames when both are pending', async () => {
    const { res, body } = await stalled();
    const out = new WatchOutbox(res, bounds({}));
    out.addBacklog([Buffer.from('x\n'), undefined, Buffer.from('y\n')]);
    out.push(Buffer.from('a\n'));
    out.push(Buffer.from('b\n'));
    await turn();
    out.addBacklog([Buffer.from('z\n')]);
    out.push(Buffer.from('c\n'));
    out.end(Buffer.from('last\n'));
    const got = await body();
    expect(got.complete).toBe(true);
    expect(dechunk(got.bytes)).toBe('x\ny\na\nb\nz\nc\nlast\n');
  });

  it('a burst of more than maxEvents in one turn to a reading client is written, not counted as slow', async () => {
    const { res, body } = await stalled();
    const out = new WatchOutbox(res, bounds({ maxEvents: 10 }));
    const frames = Array.from({ length: 100 }, (_, i) => `${i}\n`);
    for (const f of frames) expect(out.push(Buffer.from(f))).toBe(true);
    out.end();
    const got = await body();
    expect(dechunk(got.bytes)).toBe(frames.join(''));
  });

  it('holds live frames for coalesceMs after the previous batch, and sends the first at once', async () => {
    const { res, body } = await stalled();
    const out = new WatchOutbox(res, bounds({ coalesceMs: 5_000 }));
    out.push(Buffer.from('1\n'));
    await turn();
    await turn();
    expect(out.pendingEvents).toBe(0);
    // within the window: held for the next batch, together
    out.push(Buffer.from('2\n'));
    await turn();
    out.push(Buffer.from('3\n'));
    await turn();
    expect(out.pendingEvents).toBe(2);
    // ending writes what is held at once
    out.end();
    const got = await body();
    expect(chunksOf(got.bytes)).toEqual(['1\n', '2\n3\n']);
  });
});
