// A de-duplicating work queue with `workers` workers (one by default): a key is never processed by two workers at
// once, and a key queued while it is being processed runs again afterwards; failures are retried with a per-key
// exponential backoff. Workers share one budget of synchronous work per event-loop turn with every other
// controller loop (turn-budget.ts).
import { nextTurn, overBudget } from './turn-budget.js';

export class WorkQueue {
  private pending = new Set<string>();
  private active = new Set<string>();
  private again = new Set<string>();
  private timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  private failures = new Map<string, number>();
  private loops = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private handler: (key: string) => Promise<void>,
    private onError: (key: string, err: unknown) => void = () => {},
    private workers = 1,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) this.again.add(key);
    else this.pending.add(key);
    this.kick();
  }

  /** Queues the key after delayMs; of several delayed adds of one key the earliest wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    const due = Date.now() + delayMs;
    const cur = this.timers.get(key);
    if (cur) {
      if (cur.due <= due) return;
      clearTimeout(cur.timer);
    }
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { timer, due });
  }

  private kick(): void {
    // a stopped queue starts no worker: a key queued again while it ran (`again`) would otherwise spin up
    // worker after worker that return at once, a microtask loop that never lets timers or I/O run
    if (this.stopped) return;
    while (this.loops.size < this.workers && this.pending.size > this.loops.size - this.busy()) {
      const loop: Promise<void> = this.loop().finally(() => {
        this.loops.delete(loop);
        this.kick();
      });
      this.loops.add(loop);
    }
  }

  /** Workers in the middle of a key (the others are about to take one or finish). */
  private busy(): number {
    return this.active.size;
  }

  private async loop(): Promise<void> {
    let ran = false;
    while (!this.stopped && this.pending.size > 0) {
      // handlers on an in-process store resolve in microtasks: without a break, a long queue (the
      // initial scan of a large store) would hold the event loop and no request would be served
      if (overBudget()) {
        await nextTurn(ran);
        ran = false;
        if (this.stopped || this.pending.size === 0) return;
        continue;
      }
      ran = true;
      const key = this.pending.values().next().value as string;
      this.pending.delete(key);
      this.active.add(key);
      this.again.delete(key);
      try {
        await this.handler(key);
        this.failures.delete(key);
      } catch (e) {
        if (this.stopped) return;
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        this.onError(key, e);
        this.addAfter(key, Math.min(100 * 2 ** n, 30_000));
      } finally {
        this.active.delete(key);
        if (this.again.delete(key)) this.pending.add(key);
      }
    }
  }

  /** Resolves once nothing is queued or running (delayed adds excluded). */
  async idle(): Promise<void> {
    while (this.loops.size > 0) await Promise.all([...this.loops]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.pending.clear();
    await Promise.all([...this.loops]);
  }
}
