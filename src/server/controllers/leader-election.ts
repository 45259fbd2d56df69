// Leader election over coordination.k8s.io Leases, as client-go's tools/leaderelection (leaderelection.go) with
// resourcelock/leaselock.go: a candidate creates the Lease when there is none, else updates it with the
// resourceVersion it read (optimistic concurrency: of two candidates writing the same version one gets 409).
// A Lease held by another identity counts as expired once leaseDuration has passed since this candidate saw it
// last change (local clock, not the writer's renewTime: no clock skew between replicas matters). The leader renews
// every retryPeriod and stops acting once renewDeadline has passed without a successful renewal (upstream then
// exits; we stop the controllers and become a candidate again). On a clean stop the leader releases the Lease
// (ReleaseOnCancel: holderIdentity "", leaseDurationSeconds 1) so the next candidate takes over at once.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { KubeObject } from '../registry/types.js';
import { isAlreadyExists, isConflict } from './api-writer.js';
import type { ControllerClient } from './client.js';

export interface LeaseTimings {
  /** --leader-elect-lease-duration: how long non-leaders wait after the last observed change before taking over. */
  leaseDurationMs: number;
  /** --leader-elect-renew-deadline: how long the leader keeps acting without a successful renewal. */
  renewDeadlineMs: number;
  /** --leader-elect-retry-period: time between attempts to acquire or renew. */
  retryPeriodMs: number;
}

/** kubernetes/component-base config/v1alpha1/defaults.go: 15s / 10s / 2s. */
export const DEFAULT_LEASE_TIMINGS: LeaseTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

export const LEADER_ELECTION_NAMESPACE = 'kube-system';
export const CONTROLLER_MANAGER_LEASE = 'kube-controller-manager';
export const SCHEDULER_LEASE = 'kube-scheduler';
const LEASES: [string, string] = ['coordination.service.io', 'leases'];

/** client-go wait.JitterUntil's factor in acquire(): each wait is retryPeriod × (1 + up to 1.2). */
const JITTER_FACTOR = 1.2;

/** `<hostname>_<uuid>`, as kube-controller-manager and kube-scheduler name themselves. */
export function leaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** resourcelock.LeaderElectionRecord. */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

/** metav1.MicroTime: RFC 3339 with 6 fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function recordOf(lease: KubeObject): LeaderElectionRecord {
  const spec = (lease['spec'] ?? {}) as Record<string, unknown>;
  return {
    holderIdentity: typeof spec['holderIdentity'] === 'string' ? spec['holderIdentity'] : '',
    leaseDurationSeconds: typeof spec['leaseDurationSeconds'] === 'number' ? spec['leaseDurationSeconds'] : 0,
    acquireTime: typeof spec['acquireTime'] === 'string' ? spec['acquireTime'] : '',
    renewTime: typeof spec['renewTime'] === 'string' ? spec['renewTime'] : '',
    leaseTransitions: typeof spec['leaseTransitions'] === 'number' ? spec['leaseTransitions'] : 0,
  };
}

/** LeaderElectionRecordToLeaseSpec. */
function specOf(r: LeaderElectionRecord): Record<string, unknown> {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    ...(r.acquireTime ? { acquireTime: r.acquireTime } : {}),
    ...(r.renewTime ? { renewTime: r.renewTime } : {}),
    leaseTransitions: r.leaseTransitions,
  };
}

/**
 * resourcelock.LeaseLock: one Lease read and written through the API write path (ApiWriter: admission,
 * validation, managedFields) as the component it elects for; updates carry the resourceVersion last seen.
 */
export class LeaseLock {
  private lease?: KubeObject;

  constructor(
    private writer: ControllerClient,
    readonly namespace: string,
    readonly name: string,
  ) {}

  /** The record and its raw form (compared to notice any change, as upstream compares the JSON). */
  async get(): Promise<{ record: LeaderElectionRecord; raw: string } | undefined> {
    const lease = await this.writer.get(LEASES[0], LEASES[1], this.namespace, this.name);
    this.lease = lease;
    if (!lease) return undefined;
    const record = recordOf(lease);
    return { record, raw: JSON.stringify(record) };
  }

  async create(r: LeaderElectionRecord): Promise<void> {
    this.lease = await this.writer.create(LEASES[0], LEASES[1], this.namespace, { metadata: { name: this.name, namespace: this.namespace }, spec: specOf(r) });
  }

  /** Replaces the spec of the Lease last read or written; 409 when it changed since. */
  async update(r: LeaderElectionRecord): Promise<void> {
    if (!this.lease) throw new Error('lease not initialized, call get or create first');
    const next = structuredClone(this.lease);
    next['spec'] = specOf(r);
    this.lease = await this.writer.update(LEASES[0], LEASES[1], this.namespace, next);
  }
}

export interface ElectorOptions extends LeaseTimings {
  lock: Pick<LeaseLock, 'get' | 'create' | 'update'>;
  identity: string;
  /** For log lines (the lease name). */
  name: string;
  /**
   * The store is this process's alone (memory, or SQLite opened with an exclusive lock): a Lease held by another
   * identity at this candidate's first look can only be a previous run of this server, so it is taken at once
   * instead of after leaseDuration (later on, the usual rules apply).
   */
  exclusive?: boolean;
  now?: () => number;
  log?: (line: string) => void;
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

export class LeaderElector {
  private observed?: LeaderElectionRecord;
  private observedRaw?: string;
  /** Local time at which the observed record last changed. */
  private observedTime = 0;
  private leading = false;
  private stopped = false;
  private wake?: () => void;
  private timer?: NodeJS.Timeout;
  private loop?: Promise<void>;
  private readonly now: () => number;
  /** Resolves after the first attempt to acquire (whatever its outcome). */
  readonly firstAttempt: Promise<void>;
  private firstDone!: () => void;

  constructor(private opts: ElectorOptions) {
    this.now = opts.now ?? Date.now;
    this.firstAttempt = new Promise((resolve) => (this.firstDone = resolve));
  }

  /** Whether this candidate holds the lease by its last observation (IsLeader). */
  isLeader(): boolean {
    return this.observed?.holderIdentity === this.opts.identity;
  }

  /** Whether the onStartedLeading callback ran without its onStoppedLeading yet. */
  get isLeading(): boolean {
    return this.leading;
  }

  private leaseValid(now: number): boolean {
    return this.observedTime + this.opts.leaseDurationMs > now;
  }

  private observe(r: LeaderElectionRecord, raw = JSON.stringify(r)): void {
    this.observed = r;
    this.observedRaw = raw;
    this.observedTime = this.now();
  }

  /** One attempt (upstream's tryAcquireOrRenew): true when this candidate holds the lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const t = this.now();
    const now = microTime(t);
    const record: LeaderElectionRecord = {
      holderIdentity: this.opts.identity,
      leaseDurationSeconds: Math.max(1, Math.round(this.opts.leaseDurationMs / 1000)),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    // 1. the leader's fast path: update the version written last time, assuming nobody else wrote since
    if (this.isLeader() && this.leaseValid(t)) {
      const old = this.observed!;
      const next = { ...record, acquireTime: old.acquireTime, leaseTransitions: old.leaseTransitions };
      try {
        await this.opts.lock.update(next);
        this.observe(next);
        return true;
      } catch (e) {
        this.opts.log?.(`leaderelection ${this.opts.name}: failed to update lock optimistically: ${(e as Error).message}, falling back to slow path`);
      }
    }
    // 2. read (or create) the record
    let got: Awaited<ReturnType<LeaseLock['get']>>;
    try {
      got = await this.opts.lock.get();
    } catch (e) {
      this.opts.log?.(`leaderelection ${this.opts.name}: error retrieving resource lock: ${(e as Error).message}`);
      return false;
    }
    if (!got) {
      try {
        await this.opts.lock.create(record);
      } catch (e) {
        if (!isAlreadyExists(e)) this.opts.log?.(`leaderelection ${this.opts.name}: error initially creating lock: ${(e as Error).message}`);
        return false;
      }
      this.observe(record);
      return true;
    }
    // 3. a record exists: a change restarts the expiry clock; a valid lease of another holder is left alone
    // (on a store of our own, one found at our first look was left by a previous run of this server)
    const leftBehind = this.opts.exclusive === true && this.observedRaw === undefined;
    if (got.raw !== this.observedRaw) {
      this.observed = got.record;
      this.observedRaw = got.raw;
      this.observedTime = this.now();
    }
    const old = got.record;
    if (old.holderIdentity !== '' && !this.isLeader() && this.leaseValid(t) && !leftBehind) return false;
    // 4. take or keep it: the transition count goes up when the holder changes
    const next = this.isLeader() ? { ...record, acquireTime: old.acquireTime, leaseTransitions: old.leaseTransitions } : { ...record, leaseTransitions: old.leaseTransitions + 1 };
    try {
      await this.opts.lock.update(next);
    } catch (e) {
      if (!isConflict(e)) this.opts.log?.(`leaderelection ${this.opts.name}: failed to update lock: ${(e as Error).message}`);
      return false;
    }
    this.observe(next);
    return true;
  }

  /** Gives the lease up (upstream's release, used with ReleaseOnCancel); false when the write failed. */
  async release(): Promise<boolean> {
    if (!this.isLeader()) return true;
    const now = microTime(this.now());
    const r: LeaderElectionRecord = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: this.observed!.leaseTransitions };
    try {
      await this.opts.lock.update(r);
    } catch (e) {
      this.opts.log?.(`leaderelection ${this.opts.name}: failed to release lock: ${(e as Error).message}`);
      return false;
    }
    this.observe(r);
    return true;
  }

  /** Starts campaigning: the first attempt runs at once. */
  run(): void {
    this.loop ??= this.campaign();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopped) return resolve();
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }

  /** An attempt that counts as failed once `deadline` (local time) has passed. */
  private async attempt(deadline?: number): Promise<boolean> {
    if (deadline === undefined) return this.tryAcquireOrRenew().catch(() => false);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - this.now()))));
    try {
      return await Promise.race([this.tryAcquireOrRenew().catch(() => false), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async campaign(): Promise<void> {
    const { retryPeriodMs, renewDeadlineMs, name } = this.opts;
    let first = true;
    while (!this.stopped) {
      // acquire: retry with jitter until this candidate holds the lease
      for (;;) {
        const ok = await this.attempt();
        if (first) {
          first = false;
          this.firstDone();
        }
        if (ok || this.stopped) break;
        await this.sleep(retryPeriodMs * (1 + Math.random() * JITTER_FACTOR));
        if (this.stopped) break;
      }
      if (this.stopped) break;
      this.opts.log?.(`leaderelection ${name}: successfully acquired lease ${LEADER_ELECTION_NAMESPACE}/${name} as ${this.opts.identity}`);
      this.leading = true;
      this.opts.onStartedLeading();
      // renew every retryPeriod; give up once renewDeadline has passed since the last success
      let renewed = this.now();
      while (!this.stopped) {
        await this.sleep(retryPeriodMs);
        if (this.stopped) break;
        const ok = await this.attempt(renewed + renewDeadlineMs);
        if (this.stopped) break;
        if (ok) renewed = this.now();
        else if (this.now() - renewed >= renewDeadlineMs) {
          this.opts.log?.(`leaderelection ${name}: leaderelection lost (no renewal within ${renewDeadlineMs} ms)`);
          break;
        }
      }
      this.leading = false;
      this.opts.onStoppedLeading();
    }
    this.firstDone();
  }

  /**
   * Stops campaigning (and renewing). With release the lease is handed back once the caller's `beforeRelease`
   * (stopping what the leader ran) is done; without it the lease simply expires, as after a crash.
   */
  async stop(opts: { release: boolean; beforeRelease?: () => Promise<void> }): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.wake?.();
    await this.loop;
    await opts.beforeRelease?.();
    if (opts.release) await this.release();
  }
}
