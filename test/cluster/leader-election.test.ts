// The leader election state machine (client-go tools/leaderelection over a coordination Lease), on the memory
// store through the API write path: acquire, renew, expiry as seen by the other candidate, take-over, the
// transition count, release, optimistic concurrency between candidates, and the campaign loop's timings.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { ApiWriter, COMPONENTS, StoppedError } from '../../src/server/controllers/api-writer.js';
import { LeaderElector, LeaseLock, microTime, type LeaseTimings } from '../../src/server/controllers/leader-election.js';
import { parseFlags } from '../../src/server/flags.js';
import { client } from '../helpers/server.js';

let server: ApiServer;
let writer: ApiWriter;
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';

beforeAll(async () => {
  // no elector of its own: the test's candidates are the only writers of their leases
  server = await startServer({ port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, controllers: [], leaderElect: false }, { log: () => {} });
  writer = new ApiWriter({ ...server.deps, log: () => {} }, COMPONENTS.controllerManager);
});

afterAll(async () => {
  await server?.close();
});

const SLOW: LeaseTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

function candidate(lease: string, identity: string, clock: { t: number }, extra: Partial<ConstructorParameters<typeof LeaderElector>[0]> = {}) {
  const events: string[] = [];
  const e = new LeaderElector({
    ...SLOW,
    lock: new LeaseLock(writer, 'kube-system', lease),
    identity,
    name: lease,
    now: () => clock.t,
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
    ...extra,
  });
  return Object.assign(e, { events });
}

async function spec(lease: string) {
  const r = await client(server.url).get(`${LEASES}/${lease}`);
  expect(r.status).toBe(200);
  return r.body.spec;
}

describe('leader election state machine', () => {
  it('acquires by creating the Lease, renews, leaves a valid lease alone, takes over an expired one, releases', async () => {
    const clock = { t: Date.parse('2026-01-01T00:00:00.000Z') };
    const a = candidate('sm', 'host_a', clock);
    const b = candidate('sm', 'host_b', clock);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(await spec('sm')).toEqual({ holderIdentity: 'host_a', leaseDurationSeconds: 15, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 0 });
    // the Lease is written as kube-controller-manager, through the API (managedFields)
    const stored = (await client(server.url).get(`${LEASES}/sm`)).body;
    expect(stored.metadata.managedFields.map((m: { manager: string }) => m.manager)).toEqual(['kube-controller-manager']);

    // another candidate sees a valid lease: nothing written
    expect(await b.tryAcquireOrRenew()).toBe(false);
    expect(b.isLeader()).toBe(false);

    // the holder renews: renewTime moves, acquireTime and the transition count stay
    clock.t += 2_000;
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(await spec('sm')).toMatchObject({ holderIdentity: 'host_a', acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:02.000000Z', leaseTransitions: 0 });

    // b measures expiry from when it saw the lease change (its own clock), not from renewTime
    clock.t += 1_000;
    expect(await b.tryAcquireOrRenew()).toBe(false); // sees the renewal at t=3s
    clock.t += 14_000; // 14s after b saw the change (16s after the renewal): still valid for b
    expect(await b.tryAcquireOrRenew()).toBe(false);
    clock.t += 1_001; // 15s after b's observation: expired
    expect(await b.tryAcquireOrRenew()).toBe(true);
    expect(await spec('sm')).toEqual({ holderIdentity: 'host_b', leaseDurationSeconds: 15, acquireTime: microTime(clock.t), renewTime: microTime(clock.t), leaseTransitions: 1 });

    // the old holder, back, finds the lease taken and valid
    expect(await a.tryAcquireOrRenew()).toBe(false);
    expect(a.isLeader()).toBe(false);
    expect(b.isLeader()).toBe(true);

    // release: no holder, 1s duration; anyone takes it at once, counting a transition
    clock.t += 500;
    expect(await b.release()).toBe(true);
    expect(await spec('sm')).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 1 });
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(await spec('sm')).toMatchObject({ holderIdentity: 'host_a', leaseTransitions: 2 });
  });

  it('a holder whose optimistic renewal conflicts falls back to reading the Lease', async () => {
    const clock = { t: Date.parse('2026-01-01T00:00:00.000Z') };
    const a = candidate('cas', 'host_a', clock);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    // someone else writes the Lease behind a's back (an admin, or a second process with a's identity)
    const cur = (await client(server.url).get(`${LEASES}/cas`)).body;
    cur.spec.holderIdentity = 'host_x';
    expect((await client(server.url).put(`${LEASES}/cas`, cur)).status).toBe(200);
    clock.t += 2_000;
    expect(await a.tryAcquireOrRenew()).toBe(false);
    expect(a.isLeader()).toBe(false);
    expect((await spec('cas')).holderIdentity).toBe('host_x');
  });

  it('two candidates racing for a free lease: exactly one wins (resourceVersion precondition)', async () => {
    const clock = { t: Date.parse('2026-01-01T00:00:00.000Z') };
    for (let round = 0; round < 5; round++) {
      const name = `race-${round}`;
      const [x, y, z] = ['host_x', 'host_y', 'host_z'].map((id) => candidate(name, id, clock));
      // all three create at once: one create wins
      const created = await Promise.all([x!, y!, z!].map((c) => c.tryAcquireOrRenew()));
      expect(created.filter(Boolean)).toHaveLength(1);
      const holder = [x!, y!, z!].find((c) => c.isLeader())!;
      expect(await holder.release()).toBe(true);
      // a released lease: every candidate reads it, then all update the same version; one wins
      const others = [x!, y!, z!];
      const won = await Promise.all(others.map((c) => c.tryAcquireOrRenew()));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(others.filter((c) => c.isLeader())).toHaveLength(1);
      expect((await spec(name)).leaseTransitions).toBe(1);
    }
  });

  it('on a store of its own (memory, SQLite) a lease left by a previous run is taken at once', async () => {
    const clock = { t: Date.parse('2026-01-01T00:00:00.000Z') };
    const old = candidate('restart', 'host_old', clock);
    expect(await old.tryAcquireOrRenew()).toBe(true);
    const fresh = candidate('restart', 'host_new', clock, { exclusive: true });
    expect(await fresh.tryAcquireOrRenew()).toBe(true);
    expect(await spec('restart')).toMatchObject({ holderIdentity: 'host_new', leaseTransitions: 1 });
    // only at the first look: a holder that shows up later is waited out as usual (no flapping)
    const other = candidate('restart', 'host_other', clock, { exclusive: true });
    const later = candidate('restart', 'host_later', clock, { exclusive: true });
    expect(await later.tryAcquireOrRenew()).toBe(true); // its first look: taken
    clock.t += 1_000;
    expect(await fresh.tryAcquireOrRenew()).toBe(false); // fresh has looked before: it waits
    expect(await other.tryAcquireOrRenew()).toBe(true); // first look again
    expect(await later.tryAcquireOrRenew()).toBe(false);
    expect(await spec('restart')).toMatchObject({ holderIdentity: 'host_other', leaseTransitions: 3 });
  });
});

describe('leader election campaign', () => {
  const FAST: LeaseTimings = { leaseDurationMs: 800, renewDeadlineMs: 500, retryPeriodMs: 100 };

  it('leads at once, keeps leading, hands over after a crash within the lease duration, releases on stop', async () => {
    const clock = { get t() { return Date.now(); } };
    const a = candidate('run', 'host_a', clock, FAST);
    const b = candidate('run', 'host_b', clock, FAST);
    a.run();
    await a.firstAttempt;
    expect(a.events).toEqual(['started']);
    b.run();
    await b.firstAttempt;
    // several renewal periods: a keeps it, b never leads
    const before = await spec('run');
    await vi.waitFor(async () => expect((await spec('run')).renewTime).not.toBe(before.renewTime), { timeout: 5_000, interval: 50 });
    expect(b.events).toEqual([]);
    expect(a.isLeading).toBe(true);

    // a crashes: it stops renewing and never releases
    const crashedAt = Date.now();
    await a.stop({ release: false });
    await vi.waitFor(() => expect(b.events).toEqual(['started']), { timeout: 5_000, interval: 20 });
    const taken = await spec('run');
    expect(taken).toMatchObject({ holderIdentity: 'host_b', leaseTransitions: 1 });
    // within the lease duration of the last renewal b saw, plus b's jittered retry period
    expect(Date.parse(taken.acquireTime) - crashedAt).toBeLessThan(FAST.leaseDurationMs + FAST.retryPeriodMs * 2.2 + 500);

    // a clean stop releases: the lease is free at once
    await b.stop({ release: true });
    expect(b.events).toEqual(['started', 'stopped']);
    expect(await spec('run')).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 1 });
  });

  it('stops leading once renewals fail for the renew deadline, and leads again when they work', async () => {
    let broken = false;
    const lock = new LeaseLock(writer, 'kube-system', 'flaky');
    const flaky = {
      get: () => (broken ? Promise.reject(new Error('etcd down')) : lock.get()),
      create: (r: Parameters<LeaseLock['create']>[0]) => (broken ? Promise.reject(new Error('etcd down')) : lock.create(r)),
      update: (r: Parameters<LeaseLock['update']>[0]) => (broken ? Promise.reject(new Error('etcd down')) : lock.update(r)),
    };
    const clock = { get t() { return Date.now(); } };
    const a = candidate('flaky', 'host_a', clock, { ...FAST, lock: flaky });
    a.run();
    await a.firstAttempt;
    expect(a.events).toEqual(['started']);
    broken = true;
    await vi.waitFor(() => expect(a.events).toEqual(['started', 'stopped']), { timeout: 5_000, interval: 20 });
    expect(a.isLeading).toBe(false);
    broken = false;
    // the lease still names a, unexpired: a takes it back itself
    await vi.waitFor(() => expect(a.events).toEqual(['started', 'stopped', 'started']), { timeout: 5_000, interval: 20 });
    await a.stop({ release: true });
    expect((await spec('flaky')).holderIdentity).toBe('');
  });
});

describe('the end of a term', () => {
  it("a controller's writer issues no write once its term's signal is aborted", async () => {
    const term = new AbortController();
    const w = new ApiWriter({ ...server.deps, log: () => {}, signal: term.signal }, COMPONENTS.controllerManager);
    const cm = (name: string) => ({ metadata: { name, namespace: 'default' }, data: { a: '1' } });
    await w.create('', 'configmaps', 'default', cm('in-term'));
    term.abort();
    await expect(w.create('', 'configmaps', 'default', cm('after-term'))).rejects.toBeInstanceOf(StoppedError);
    await expect(w.mutate('', 'configmaps', 'default', 'in-term', () => true)).rejects.toBeInstanceOf(StoppedError);
    await expect(w.delete('', 'configmaps', 'default', 'in-term')).rejects.toBeInstanceOf(StoppedError);
    const api = client(server.url);
    expect((await api.get('/api/v1/namespaces/default/configmaps/after-term')).status).toBe(404);
    expect((await api.get('/api/v1/namespaces/default/configmaps/in-term')).status).toBe(200);
  });
});

describe('--leader-elect flags', () => {
  it('default to kube-controller-manager values and are checked as client-go checks them', () => {
    const f = parseFlags([]);
    expect([f.leaderElect, f.leaderElectLeaseDurationMs, f.leaderElectRenewDeadlineMs, f.leaderElectRetryPeriodMs]).toEqual([true, 15_000, 10_000, 2_000]);
    const g = parseFlags(['--leader-elect-lease-duration', '2s', '--leader-elect-renew-deadline=1500ms', '--leader-elect-retry-period', '500ms']);
    expect([g.leaderElectLeaseDurationMs, g.leaderElectRenewDeadlineMs, g.leaderElectRetryPeriodMs]).toEqual([2_000, 1_500, 500]);
    expect(parseFlags(['--leader-elect=false']).leaderElect).toBe(false);
    expect(() => parseFlags(['--leader-elect-lease-duration', '10s'])).toThrow(/--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline/);
    expect(() => parseFlags(['--leader-elect-retry-period', '9s'])).toThrow(/--leader-elect-renew-deadline must be greater than --leader-elect-retry-period\*1.2/);
    // not electing: the timings do not matter
    expect(parseFlags(['--leader-elect=false', '--leader-elect-lease-duration', '1s']).leaderElect).toBe(false);
  });
});
