// One watcher's outbox: the frames it has not handed to its connection yet. Writing follows the
// connection's backpressure (a frame is written only while `writableNeedDrain` is false), so what a
// client has not read stays here, in shared frames, rather than piling up in Node's socket buffers.
// The live backlog is bounded in events and bytes; past either bound the watcher is unresponsive and
// is cut off (upstream's cacher: "Forcing watcher close due to unresponsiveness").
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface OutboxBounds {
  /** Live events not yet written (upstream's cacheWatcher buffers at most 1000). */
  maxEvents: number;
  /** Bytes not yet sent: our backlog plus what the connection holds in userland. */
  maxBytes: number;
  /** How long an ended stream may wait for its client to take the rest before the connection is reset. */
  endGraceMs?: number;
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

  constructor(
    private readonly res: ServerResponse,
    private readonly bounds: OutboxBounds,
  ) {
    res.on('drain', this.flush);
    res.once('close', () => this.release());
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
      this.flush();
    }
    return this.withinBounds();
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
  }

  private readonly flush = (): void => {
    const res = this.res;
    if (this.done) return;
    if (res.destroyed) return this.release();
    while (!res.writableNeedDrain) {
      let frame: Buffer | undefined;
      if (this.backlogs.length > 0) {
        const n = this.backlogs[0]!.next();
        if (n.done) this.backlogs.shift();
        else frame = n.value;
        if (!frame) continue;
      } else if (this.head < this.live.length) {
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
      } else break;
      res.write(frame);
    }
    if (this.ending && this.backlogs.length === 0 && this.head === this.live.length) {
      this.release();
      if (!res.writableEnded) res.end();
    }
  };
}
