// Fuzzing the decoders of the streaming protocols: SPDY frames (any bytes, any split: whole frames or a
// SpdyProtocolError, never another exception, never more than one frame buffered), header blocks (round
// trip through our stored-block compressor and zlib's inflater with the SPDY dictionary), a live
// SpdyConnection fed garbage, the WebSocket channel decoder, and the built-in shell's parser.
import fc from 'fast-check';
import { PassThrough } from 'node:stream';
import { constants, createDeflate, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runBuiltin } from '../../src/server/sim/builtin-shell.js';
import { StatusError } from '../../src/api/status.js';
import { parseLogOptions, serveLog } from '../../src/server/streaming/pod-log.js';
import type { ServerResponse } from 'node:http';
import { SpdyConnection } from '../../src/server/streaming/spdy/connection.js';
import { SPDY3_DICTIONARY } from '../../src/server/streaming/spdy/dictionary.js';
import {
  decodeFrame,
  decodeHeaderBlock,
  encodeData,
  encodeGoAway,
  encodeHeaderBlock,
  encodePing,
  encodeRstStream,
  encodeSynReply,
  encodeSynStream,
  FrameDecoder,
  HeaderCompressor,
  HeaderDecompressor,
  MAX_FRAME_PAYLOAD,
  SpdyProtocolError,
  type HeaderMap,
} from '../../src/server/streaming/spdy/frames.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

function splitAt(b: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (b.length + 1)))].sort((x, y) => x - y);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(b.subarray(prev, p));
    prev = p;
  }
  out.push(b.subarray(prev));
  return out;
}

const headerMap = fc
  .array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/), fc.array(fc.stringMatching(/^[ -~]{0,20}$/), { minLength: 1, maxLength: 3 })), { maxLength: 8 })
  .map((pairs) => new Map(pairs.map(([k, v]) => [k, v.filter((x) => !x.includes('\0'))])) as HeaderMap)
  .filter((m) => [...m.values()].every((v) => v.length > 0));

const frameBytes = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 0x7fffffff }), fc.integer({ min: 0, max: 3 }), fc.uint8Array({ maxLength: 300 })).map(([id, fl, d]) => encodeData(id, fl, Buffer.from(d))),
  fc.tuple(fc.integer({ min: 1, max: 0x7fffffff }), fc.uint8Array({ maxLength: 100 })).map(([id, d]) => encodeSynStream(id, 0, 0, 0, Buffer.from(d))),
  fc.tuple(fc.integer({ min: 1, max: 0x7fffffff }), fc.uint8Array({ maxLength: 100 })).map(([id, d]) => encodeSynReply(id, 0, Buffer.from(d))),
  fc.tuple(fc.integer({ min: 1, max: 0x7fffffff }), fc.integer({ min: 0, max: 12 })).map(([id, s]) => encodeRstStream(id, s)),
  fc.integer({ min: 0, max: 0xffffffff }).map((id) => encodePing(id)),
  fc.tuple(fc.integer({ min: 0, max: 0x7fffffff }), fc.integer({ min: 0, max: 3 })).map(([id, s]) => encodeGoAway(id, s)),
);

describe('SPDY frame decoder', () => {
  it('decodes any split of valid frames to the same frames', () => {
    fc.assert(
      fc.property(fc.array(frameBytes, { maxLength: 10 }), fc.array(fc.nat(), { maxLength: 6 }), (frames, cuts) => {
        const all = Buffer.concat(frames);
        const d = new FrameDecoder();
        const got = splitAt(all, cuts).flatMap((c) => d.push(c));
        expect(got).toEqual(frames.map((f) => decodeFrame(f)));
        expect(d.buffered).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it('on arbitrary bytes yields frames or a protocol error, holding at most one frame', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 12 }), (chunks) => {
        const d = new FrameDecoder(4096);
        try {
          for (const c of chunks) {
            d.push(Buffer.from(c));
            expect(d.buffered).toBeLessThanOrEqual(4096 + 8);
          }
        } catch (e) {
          expect(e).toBeInstanceOf(SpdyProtocolError);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a frame longer than the limit before buffering it', () => {
    const h = Buffer.alloc(8);
    h.writeUInt32BE(1, 0);
    h.writeUIntBE(MAX_FRAME_PAYLOAD + 1, 5, 3);
    expect(() => new FrameDecoder().push(h)).toThrow(SpdyProtocolError);
  });

  it('header blocks decode to what was encoded, or a protocol error on garbage', () => {
    fc.assert(
      fc.property(headerMap, (h) => {
        expect(decodeHeaderBlock(encodeHeaderBlock(h))).toEqual(h);
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        try {
          decodeHeaderBlock(Buffer.from(b));
        } catch (e) {
          expect(e).toBeInstanceOf(SpdyProtocolError);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('our compressed header blocks inflate with the SPDY dictionary, each ending on a sync-flush mark', () => {
    fc.assert(
      fc.property(fc.array(headerMap, { minLength: 1, maxLength: 5 }), (blocks) => {
        const c = new HeaderCompressor();
        const parts = blocks.map((b) => c.compress(encodeHeaderBlock(b)));
        for (const p of parts) expect(p.subarray(-5)).toEqual(Buffer.from([0, 0, 0, 0xff, 0xff]));
        const out = inflateSync(Buffer.concat(parts), { dictionary: SPDY3_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
        expect(out).toEqual(Buffer.concat(blocks.map((b) => encodeHeaderBlock(b))));
      }),
      { numRuns: 100 },
    );
  });

  it('inflates what a zlib compressor with the dictionary sends, block by block', async () => {
    const z = createDeflate({ dictionary: SPDY3_DICTIONARY, level: 9 });
    const chunks: Buffer[] = [];
    z.on('data', (b: Buffer) => chunks.push(b));
    const d = new HeaderDecompressor();
    for (const t of ['error', 'stdin', 'stdout', 'stderr', 'resize']) {
      const h: HeaderMap = new Map([['streamtype', [t]], ['port', ['80']]]);
      const block = await new Promise<Buffer>((r) => {
        z.write(encodeHeaderBlock(h));
        z.flush(constants.Z_SYNC_FLUSH, () => r(Buffer.concat(chunks.splice(0))));
      });
      expect(decodeHeaderBlock(await d.decompress(block))).toEqual(h);
    }
    d.close();
  });

  it('a connection fed garbage closes without throwing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 80 }), { maxLength: 6 }), async (chunks) => {
        const sock = new PassThrough();
        const written: Buffer[] = [];
        const duplex = Object.assign(sock, {});
        const conn = new SpdyConnection(duplex, { idleTimeoutMs: 0, onStream: (s) => s.reply() });
        sock.on('data', (b: Buffer) => written.push(b));
        for (const c of chunks) conn.feed(Buffer.from(c));
        await new Promise((r) => setTimeout(r, 5));
        conn.close();
        expect(conn.closed).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});

describe('pods/log: options and the log annotation', () => {
  const annotation = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.record({ rate: fc.oneof(fc.double(), fc.integer()), levels: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.double(), fc.integer())), format: fc.constantFrom('json', 'text', 'x'), messages: fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }), lines: fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }) }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
  );
  const query = fc.dictionary(fc.constantFrom('container', 'follow', 'previous', 'timestamps', 'tailLines', 'sinceSeconds', 'sinceTime', 'limitBytes', 'stream'), fc.oneof(fc.string({ maxLength: 12 }), fc.integer({ min: -5, max: 50 }).map(String), fc.constantFrom('true', 'All', 'Stdout', '2026-01-01T00:00:00Z')));

  it('any annotation and query: the log or a 4xx Status, never more than limitBytes', async () => {
    await fc.assert(
      fc.asyncProperty(annotation, query, async (ann, q) => {
        const start = Date.parse('2026-01-01T00:00:00Z');
        const pod = {
          metadata: { name: 'p', namespace: 'n', uid: 'u', annotations: { 'sim.periscope.dev/log': ann } },
          spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
          status: { containerStatuses: [{ name: 'c', restartCount: 1, containerID: 'x', state: { running: { startedAt: '2026-01-01T00:00:00Z' } }, lastState: { terminated: { exitCode: 1, startedAt: '2025-12-31T23:00:00Z', finishedAt: '2025-12-31T23:59:00Z', containerID: 'y' } } }] },
        };
        const chunks: Buffer[] = [];
        const res = { writeHead() {}, flushHeaders() {}, write: (b: Buffer) => (chunks.push(b), true), end() {}, on() {}, off() {}, destroyed: false } as unknown as ServerResponse;
        try {
          const opts = parseLogOptions(new URLSearchParams({ ...q, follow: 'false' }));
          await serveLog(res, pod as never, opts, { pod: () => pod as never, now: () => start + 3_600_000 }, new AbortController().signal);
          const size = Buffer.concat(chunks).length;
          if (opts.limitBytes !== undefined) expect(size).toBeLessThanOrEqual(opts.limitBytes);
          expect(size).toBeLessThan(400 * 3600 * 300);
        } catch (e) {
          expect(e).toBeInstanceOf(StatusError);
          expect((e as StatusError).code).toBeGreaterThanOrEqual(400);
          expect((e as StatusError).code).toBeLessThan(500);
        }
      }),
      { numRuns: 80 },
    );
  });
});

describe('the built-in shell', () => {
  const ctx = { env: [['A', 'x'] as [string, string]], files: { files: new Map([['/etc/f', Buffer.from('data')]]), dirs: new Set(['/', '/etc']) }, hostname: 'h' };
  it('parses any script without throwing, exiting with a code in 0..255', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }), async (script) => {
        const ac = new AbortController();
        const t = setTimeout(() => ac.abort(), 50);
        let out = 0;
        const code = await runBuiltin(['sh', '-c', script.replace(/sleep/g, 'slp')], ctx, {
          stdout: async (b) => void (out += b.length),
          stderr: async (b) => void (out += b.length),
          signal: ac.signal,
        });
        clearTimeout(t);
        expect(code).toBeGreaterThanOrEqual(0);
        expect(code).toBeLessThanOrEqual(255);
      }),
      { numRuns: RUNS },
    );
  });

  it('runs what it supports as a shell would', async () => {
    let out = '';
    let err = '';
    const io = { stdout: async (b: Buffer | string) => void (out += b), stderr: async (b: Buffer | string) => void (err += b), signal: new AbortController().signal };
    expect(await runBuiltin(['sh', '-c', 'echo "$A" ${A}y; cat /etc/f >&2; false || echo $?; true && exit 7; echo never'], ctx, io)).toBe(7);
    expect(out).toBe('x xy\n1\n');
    expect(err).toBe('data');
    expect(await runBuiltin(['sh', '-c', 'nope'], ctx, io)).toBe(127);
    expect(err).toContain('sh: nope: not found\n');
    expect(await runBuiltin(['sh', '-c', 'echo a | cat'], ctx, io)).toBe(2);
  });
});
