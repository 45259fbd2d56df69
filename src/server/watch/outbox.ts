// One watcher's outbox: the frames it has not handed to its connection yet. Writing follows the
// connection's backpressure (a frame is written only while `writableNeedDrain` is false), so what a
// client has not read stays here, in shared frames, rather than piling up in Node's socket buffers.
// The live backlog is bounded in events and bytes; past either bound the watcher is unresponsive and
// is cut off (upstream's cacher: "Forcing watcher close due to unresponsiveness").
//
// Live frames are written in batches: what one delivery queues (or what arrives within `coalesceMs`
// of the previous batch) goes out as one write per connection, of one Buffer shared by every watcher
// that has the same frames to send. With 1000 watchers a write syscall per event per watcher was
// most of the server's fan-out time; a batch costs one per watcher however many events it holds.
import { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface OutboxBounds {
  /** Live events not yet written (upstream's cacheWatcher buffers at most 1000). */
  maxEvents: number;
  /** Bytes not yet sent: our backlog plus what the connection holds in userland. */
  maxBytes: number;
  /** How long an ended stream may wait for its client to take the rest before the connection is reset. */
  endGraceMs?: number;
  /**
   * Live frames wait until the delivery that queued them returns, and until this long after the previous
   * batch of any watcher with the same setting, so that a busy stream sends several per write (0: no wait).
   */
  coalesceMs?: number;
}

/** Held live frames are written at once past these: a burst is not delayed, nor mistaken for a slow client. */
const FLUSH_EVENTS = 64;
const FLUSH_BYTES = 64 * 1024;

/** One batching clock per coalescing window: the outboxes with live frames waiting, written together. */
class Batcher {
  private waiting: WatchOutbox[] = [];
  private scheduled = false;
  private last = -Infinity;

  constructor(private readonly windowMs: number) {}

  add(o: WatchOutbox): void {
    this.waiting.push(o);
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.last + this.windowMs - performance.now();
    // a batch is what one delivery (one store batch for every watcher of a type) queued: written as
    // soon as that delivery returns, not a loop turn later
    if (wait <= 0) queueMicrotask(this.run);
    else setTimeout(this.run, wait);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    this.last = performance.now();
    const list = this.waiting;
    this.waiting = [];
    for (const o of list) {
      try {
        o.flushQueued();
      } catch {
        // one connection's failure is its own: the others still get their batch
        o.abort();
      }
    }
  };
}

const batchers = new Map<number, Batcher>();
function batcherFor(ms: number): Batcher {
  let b = batchers.get(ms);
  if (!b) batchers.set(ms, (b = new Batcher(ms)));
  return b;
}

/**
 * Joined batches of this turn, keyed by their first frame: watchers sent the same frames (no selector,
 * same encoding: the frames are the cached, shared ones) write the same Buffer. Cleared after the turn.
 */
let joins: Map<Buffer, { frames: Buffer[]; chunked: boolean; joined: Buffer }[]> | undefined;

const CRLF = Buffer.from('\r\n');
const MAX_JOINS_PER_FIRST = 16;

/**
 * The frames from `from` on as one Buffer; `chunked`: as one HTTP/1.1 chunk (size line, data, CRLF:
 * RFC 9112 §7.1), the bytes Node's chunked framing puts around one write.
 */
function joinShared(frames: Buffer[], from: number, chunked: boolean): Buffer {
  const n = frames.length - from;
  const first = frames[from]!;
  if (!joins) {
    joins = new Map();
    process.nextTick(() => (joins = undefined));
  }
  let seen = joins.get(first);
  if (seen) {
    outer: for (const c of seen) {
      if (c.frames.length !== n || c.chunked !== chunked) continue;
      for (let i = 1; i < n; i++) if (c.frames[i] !== frames[from + i]) continue outer;
      return c.joined;
    }
  } else joins.set(first, (seen = []));
  const own = frames.slice(from);
  let size = 0;
  for (const f of own) size += f.length;
  const joined = chunked ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`, 'latin1'), ...own, CRLF]) : n === 1 ? first : Buffer.concat(own, size);
  // watchers with selectors can each have their own sequence: a few are kept, not one per watcher
  if (seen.length < MAX_JOINS_PER_FIRST) seen.push({ frames: own, chunked, joined });
  return joined;
}

/** A reading client takes a bounded backlog in well under a minute; one that has not is not reading. */
const DEFAULT_END_GRACE_MS = 60_000;

export class WatchOutbox {
  private live: (Buffer | undefined)[] = [];
  private head = 0;
  private liveBytes = 0;
  /** Frames made as the client reads (initial state, replayed history), in order: paced, not counted. */
  private backlogs: Iterator<Buffer | undefined>[] = [];
  private ending = false;
  private done = false;
  private endTimer?: NodeJS.Timeout;
  /** Waiting in the batcher for the next batch. */
  private queued = false;
  private readonly batcher: Batcher;
  /** Live frames written at once rather than batched. */
  private readonly flushAt: number;
  /**
   * A byte stream (HTTP chunked) takes several frames in one write; a message stream (WebSocket:
   * one write, one message) takes them one by one.
   */
  private readonly joinable: boolean;
  /**
   * The connection of a chunked HTTP/1.1 response: live batches are written to it as ready-framed
   * chunks shared by every watcher (the response's own framing made a size string, four socket writes,
   * a cork and a tick per write per watcher). Its drain wakes the outbox too.
   */
  private readonly sock?: Socket;

  constructor(
    private readonly res: ServerResponse,
    private readonly bounds: OutboxBounds,
  ) {
    this.batcher = batcherFor(bounds.coalesceMs ?? 0);
    this.flushAt = Math.max(1, Math.min(FLUSH_EVENTS, Math.floor(bounds.maxEvents / 2)));
    this.joinable = res instanceof ServerResponse;
    // (a HEAD answer has no body: Node drops what is written to it, so it is left to the response)
    if (this.joinable && res.chunkedEncoding && res.socket && res.req?.method !== 'HEAD') {
      this.sock = res.socket;
      this.sock.on('drain', this.flush);
    }
    res.on('drain', this.flush);
    res.once('close', () => this.release());
  }

  /** The connection, when a ready-framed chunk may go straight to it: the head is out, nothing of the response is held. */
  private direct(): Socket | undefined {
    const sock = this.sock;
    const res = this.res;
    if (!sock || res.socket !== sock || sock.destroyed || res.writableEnded || res.writableLength !== sock.writableLength) return undefined;
    return sock;
  }

  /** Whether the connection takes more now (the response's and, for direct writes, the socket's own backpressure). */
  private writable(): boolean {
    return !this.res.writableNeedDrain && !(this.sock && this.sock.writableNeedDrain);
  }

  /** Frames to send (after earlier backlog) before any live event; produced lazily as the connection drains. */
  addBacklog(frames: Iterable<Buffer | undefined>): void {
    if (this.done) return;
    this.backlogs.push(frames[Symbol.iterator]());
    this.flush();
  }

  /** Queues one live frame; false once the unsent backlog is past a bound. */
  push(frame: Buffer | undefined): boolean {
    if (this.done || this.ending) return true;
    if (frame) {
      this.live.push(frame);
      this.liveBytes += frame.length;
      if (this.live.length - this.head >= this.flushAt || this.liveBytes >= FLUSH_BYTES) this.flush();
      else if (!this.queued) {
        this.queued = true;
        this.batcher.add(this);
      }
    }
    return this.withinBounds();
  }

  /** The batcher's turn: writes what is waiting. */
  flushQueued(): void {
    this.queued = false;
    this.flush();
  }

  /** Live events not yet written. */
  get pendingEvents(): number {
    return this.live.length - this.head;
  }

  /** Bytes not yet sent that this process holds for the watcher. */
  get pendingBytes(): number {
    return this.done ? this.liveBytes : this.liveBytes + this.res.writableLength;
  }

  withinBounds(): boolean {
    return this.pendingEvents <= this.bounds.maxEvents && this.pendingBytes <= this.bounds.maxBytes;
  }

  /** Ends the stream once everything queued (and `last`) is written. */
  end(last?: Buffer): void {
    if (this.done || this.ending) return;
    if (last) {
      this.live.push(last);
      this.liveBytes += last.length;
    }
    this.ending = true;
    this.flush();
    if (!this.done) {
      this.endTimer = setTimeout(() => this.abort(), this.bounds.endGraceMs ?? DEFAULT_END_GRACE_MS);
      this.endTimer.unref();
    }
  }

  /**
   * Drops everything unsent and resets the connection: an unresponsive client must not keep its
   * frames alive in our buffers, nor in the kernel's (a plain close would still try to deliver them).
   */
  abort(): void {
    if (this.done) return;
    this.release();
    const sock = this.res.socket as (Socket & { resetAndDestroy?: () => Socket }) | null;
    try {
      if (sock?.resetAndDestroy) sock.resetAndDestroy();
      else this.res.destroy();
    } catch {
      // not a TCP handle (e.g. TLS): a plain destroy frees our side
      this.res.destroy();
    }
  }

  private release(): void {
    this.done = true;
    clearTimeout(this.endTimer);
    this.live = [];
    this.head = 0;
    this.liveBytes = 0;
    this.backlogs = [];
    this.res.removeListener('drain', this.flush);
    // a kept-alive connection outlives the response
    this.sock?.removeListener('drain', this.flush);
  }

  private readonly flush = (): void => {
    const res = this.res;
    if (this.done) return;
    if (res.destroyed) return this.release();
    while (this.writable()) {
      let frame: Buffer | undefined;
      if (this.backlogs.length > 0) {
        const n = this.backlogs[0]!.next();
        if (n.done) this.backlogs.shift();
        else frame = n.value;
        if (!frame) continue;
      } else if (this.head < this.live.length) {
        const sock = this.direct();
        if (this.joinable && (sock || this.live.length - this.head > 1)) {
          // everything live in one write (held frames are bounded: FLUSH_EVENTS/FLUSH_BYTES, or the bounds)
          const joined = joinShared(this.live as Buffer[], this.head, sock !== undefined);
          this.live = [];
          this.head = 0;
          this.liveBytes = 0;
          if (sock) {
            sock.write(joined);
            continue;
          }
          frame = joined;
        } else {
          frame = this.live[this.head]!;
          this.live[this.head++] = undefined;
          this.liveBytes -= frame.length;
          if (this.head === this.live.length) {
            this.live = [];
            this.head = 0;
          } else if (this.head >= 1024 && this.head * 2 >= this.live.length) {
            this.live = this.live.slice(this.head);
            this.head = 0;
          }
        }
      } else break;
      res.write(frame);
    }
    if (this.ending && this.backlogs.length === 0 && this.head === this.live.length) {
      this.release();
      if (!res.writableEnded) res.end();
    }
  };
}
