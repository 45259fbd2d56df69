// In-process watch fan-out shared by the backends.
//
// Each watcher is a cursor into the store's event log rather than a queue:
// it reads the next batch of events after its last delivered revision, so a
// slow watcher only falls behind (costing no memory) and never holds up
// writers or other watchers. Replay from a past revision and live delivery
// are the same code path, which is what keeps races between them impossible.
import { compactedError, unavailableError } from './errors.js';
import { StoreError, type StoreEvent, type StoreWatch, type WatchHandlers } from './types.js';

export interface EventBatch {
  /** Events under the prefix, revision > after, in revision order. */
  events: StoreEvent[];
  /** Every event up to this revision has been scanned (>= last event revision). */
  upTo: number;
}

export interface EventLog {
  /** Committed events after `after` under prefix (at most limit). Throws StoreError('Compacted'). */
  readEvents(prefix: string, after: number, limit: number): EventBatch | Promise<EventBatch>;
  compactedRevision(): number;
}

/**
 * Events handed to one onEvents call at most. Each call runs in one event-loop turn: a watch cache decodes and fans
 * out every event of it to its watchers and the controllers' handlers (50-100 us a pod), so 1000 held a busy
 * cluster's loop 50-100 ms while requests and other watches waited; 200 bound a batch to about 10-20 ms.
 */
const BATCH_LIMIT = 200;

interface Watcher {
  prefix: string;
  /** Last revision scanned for this watcher (delivered or skipped). */
  cursor: number;
  lastDelivered: number;
  handlers: WatchHandlers;
  running: boolean;
  stopped: boolean;
}

export class WatchHub {
  private readonly watchers = new Set<Watcher>();
  private head: number;
  private pumpScheduled = false;

  constructor(
    private readonly log: EventLog,
    head: number,
  ) {
    this.head = head;
  }

  /** Number of active watchers (for tests and metrics). */
  get size(): number {
    return this.watchers.size;
  }

  /** Called after a commit: events up to revision are readable from the log. */
  advance(revision: number): void {
    if (revision <= this.head) return;
    this.head = revision;
    this.schedule();
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): StoreWatch {
    if (!Number.isSafeInteger(afterRevision) || afterRevision < 0) {
      throw new RangeError(`invalid watch revision ${afterRevision}`);
    }
    const w: Watcher = {
      prefix,
      cursor: afterRevision,
      lastDelivered: afterRevision,
      handlers,
      running: false,
      stopped: false,
    };
    const compacted = this.log.compactedRevision();
    if (afterRevision < compacted) {
      // Errors are delivered asynchronously like events.
      setImmediate(() => this.fail(w, compactedError(compacted)));
      return { stop: () => void (w.stopped = true) };
    }
    this.watchers.add(w);
    this.schedule();
    return {
      stop: () => {
        w.stopped = true;
        this.watchers.delete(w);
      },
    };
  }

  /** Ends every watch with err (store closing). */
  closeAll(err: StoreError = unavailableError('store closed')): void {
    for (const w of [...this.watchers]) this.fail(w, err);
  }

  private schedule(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      for (const w of this.watchers) {
        if (!w.running && w.cursor < this.head) this.pumpNow(w);
      }
    });
  }

  /**
   * One batch for a watcher without a promise, when the log reads synchronously (the memory store) and the
   * handler returns nothing: every commit pumps every watcher (one per type's watch cache, most of them only
   * told of progress), and the async pump cost each three promises (~200 of a create's ~275). Anything else
   * continues in the async pump.
   */
  private pumpNow(w: Watcher): void {
    w.running = true;
    try {
      const compacted = this.log.compactedRevision();
      if (w.cursor < compacted) throw compactedError(compacted);
      const batch = this.log.readEvents(w.prefix, w.cursor, BATCH_LIMIT);
      if (isThenable(batch)) {
        void this.pump(w, batch);
        return;
      }
      if (batch.events.length > 0) {
        const delivered = w.handlers.onEvents(batch.events);
        if (isThenable(delivered)) {
          void this.pump(w, undefined, { delivered, batch });
          return;
        }
        w.lastDelivered = batch.events[batch.events.length - 1].revision;
      }
      w.cursor = Math.max(w.cursor, batch.upTo);
      w.running = false;
      // more than one batch behind, or written to meanwhile: the next turn (writers run in between)
      if (w.cursor < this.head) this.schedule();
      else if (!w.stopped && w.lastDelivered < w.cursor && w.handlers.onProgress) {
        w.lastDelivered = w.cursor;
        w.handlers.onProgress(w.cursor);
      }
    } catch (err) {
      w.running = false;
      this.fail(w, toStoreError(err));
    }
  }

  /** The pump for asynchronous logs and handlers; `first`/`pending`: where pumpNow left off. */
  private async pump(w: Watcher, first?: Promise<EventBatch>, pending?: { delivered: Promise<void>; batch: EventBatch }): Promise<void> {
    w.running = true;
    // a read already under way when the watch stopped must not surface as an unhandled rejection
    first?.catch(() => {});
    try {
      if (pending) {
        await pending.delivered;
        w.lastDelivered = pending.batch.events[pending.batch.events.length - 1].revision;
        w.cursor = Math.max(w.cursor, pending.batch.upTo);
      }
      while (!w.stopped && w.cursor < this.head) {
        let batch: EventBatch;
        if (first) {
          batch = await first;
          first = undefined;
        } else {
          const compacted = this.log.compactedRevision();
          if (w.cursor < compacted) throw compactedError(compacted);
          batch = await this.log.readEvents(w.prefix, w.cursor, BATCH_LIMIT);
        }
        if (w.stopped) return;
        if (batch.events.length > 0) {
          const delivered = w.handlers.onEvents(batch.events);
          if (delivered && typeof (delivered as Promise<void>).then === 'function') await delivered;
          w.lastDelivered = batch.events[batch.events.length - 1].revision;
        }
        w.cursor = Math.max(w.cursor, batch.upTo);
        // Let writers and other watchers run between batches.
        if (w.cursor < this.head) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (!w.stopped && w.lastDelivered < w.cursor && w.handlers.onProgress) {
        w.lastDelivered = w.cursor;
        w.handlers.onProgress(w.cursor);
      }
    } catch (err) {
      this.fail(w, toStoreError(err));
    } finally {
      w.running = false;
    }
    // A write may have landed while the last handler call was running.
    if (!w.stopped && w.cursor < this.head) this.schedule();
  }

  private fail(w: Watcher, err: StoreError): void {
    if (w.stopped) return;
    w.stopped = true;
    this.watchers.delete(w);
    try {
      w.handlers.onError(err);
    } catch {
      // A throwing onError has nowhere left to report to.
    }
  }
}

function isThenable<T>(v: T | Promise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | undefined)?.then === 'function';
}

function toStoreError(err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return unavailableError(`watch failed: ${message}`);
}
