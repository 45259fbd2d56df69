// Several API servers on one etcd, each with the controllers on and two simulated nodes: only the holder of the
// kube-controller-manager Lease runs the controllers (and the simulated nodes), only the kube-scheduler holder
// schedules, so a scale to 40 creates exactly 40 pods and deletes none. The leader killed mid-scale (SIGKILL, no
// release) is replaced within the lease duration and nothing is created twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import type { ServerFlags } from '../../src/server/flags.js';
import { startServerProcess, type ServerProcess } from '../durability/server-process.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';
import { startEtcd, type EtcdProcess } from './etcd-process.js';

// short lease timings (upstream's 15s / 10s / 2s scaled down), through the same fields as the flags
const LEASE = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 500 };
const LEASE_ARGS = ['--leader-elect-lease-duration', '2s', '--leader-elect-renew-deadline', '1500ms', '--leader-elect-retry-period', '500ms'];
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
const PODS = '/api/v1/namespaces/default/pods';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups.length = 0;
});

async function etcdForTest(): Promise<EtcdProcess> {
  const etcd = await startEtcd();
  cleanups.push(() => etcd.cleanup());
  return etcd;
}

/** An in-process replica: upstream's lease timings unless `short` (the kill test's, so it ends quickly). */
async function replica(etcd: EtcdProcess, logs: string[], short = false): Promise<ApiServer> {
  const timings = short ? LEASE : { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
  const flags: Partial<ServerFlags> = {
    port: 0, store: 'etcd', etcdServers: [etcd.url], demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0,
    controllers: ['*'], simulatedNodes: 2, simulatedPodStartMs: 100, simulatedPodReadyMs: 100,
    leaderElectLeaseDurationMs: timings.leaseDurationMs, leaderElectRenewDeadlineMs: timings.renewDeadlineMs, leaderElectRetryPeriodMs: timings.retryPeriodMs,
  };
  const s = await startServer(flags, { log: (l) => void logs.push(l) });
  cleanups.push(() => s.close());
  return s;
}

async function until<T>(fn: () => Promise<T | undefined | false>, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const deployment = (replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

async function lease(url: string, name: string): Promise<{ holderIdentity: string; leaseTransitions: number; acquireTime: string; renewTime: string } | undefined> {
  const r = await client(url).get(`${LEASES}/${name}`);
  return r.status === 200 ? r.body.spec : undefined;
}

/** Both simulated nodes registered and Ready. */
async function nodesReady(url: string): Promise<void> {
  await until(async () => {
    const items = (await client(url).get('/api/v1/nodes')).body.items ?? [];
    const ready = items.filter((n: any) => n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
    return ready.length === 2;
  }, 'two Ready nodes');
}

/** 40 pods, every one bound to a simulated node and Running. */
async function fortyRunning(url: string): Promise<any[]> {
  return until(async () => {
    const items = (await client(url).get(PODS)).body.items as any[];
    return items.length === 40 && items.every((p) => p.spec.nodeName?.startsWith('periscope-worker-') && p.status?.phase === 'Running') && items;
  }, '40 running pods', 90_000);
}

/** The ReplicaSet controller's SuccessfulCreate / SuccessfulDelete events, counting aggregated repeats. */
async function rsEvents(url: string): Promise<{ creates: string[]; deletes: number }> {
  const items = (await client(url).get('/api/v1/namespaces/default/events')).body.items as any[];
  const creates: string[] = [];
  let deletes = 0;
  for (const e of items) {
    if (e.involvedObject?.kind !== 'ReplicaSet') continue;
    const n = e.count ?? 1;
    if (e.reason === 'SuccessfulCreate') for (let i = 0; i < n; i++) creates.push(String(e.message).replace(/^Created pod: /, ''));
    if (e.reason === 'SuccessfulDelete') deletes += n;
  }
  return { creates, deletes };
}

async function podWatch(url: string): Promise<WatchStream> {
  const list = await client(url).get(PODS);
  const w = await WatchStream.open(`${url}${PODS}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
  cleanups.push(() => w.close());
  expect(w.status).toBe(200);
  return w;
}

describe.each([2, 3])('%i replicas on one etcd, each with the controllers and 2 simulated nodes', (n) => {
  it('kubectl scale deploy web --replicas=40: exactly 40 SuccessfulCreate, no SuccessfulDelete, one leader', async () => {
    const etcd = await etcdForTest();
    const logs: string[] = [];
    const servers = await Promise.all(Array.from({ length: n }, () => replica(etcd, logs)));
    const [first, last] = [servers[0]!, servers[n - 1]!];
    await nodesReady(first.url);
    const w = await podWatch(last.url);
    expect((await client(first.url).post('/apis/apps/v1/namespaces/default/deployments', deployment(1))).status).toBe(201);
    const scaled = await kubectl(kubeconfigFor(last.url), ['scale', 'deploy', 'web', '--replicas=40'], undefined, 60_000);
    expect(scaled.stderr).toBe('');
    const pods = await fortyRunning(first.url);
    // the recorder writes Events one after another, behind the pods: wait for 40, then a little longer
    await until(async () => (await rsEvents(first.url)).creates.length >= 40, '40 SuccessfulCreate events');
    await new Promise((r) => setTimeout(r, 2_000));
    const ev = await rsEvents(first.url);
    expect(ev.creates).toHaveLength(40);
    expect(new Set(ev.creates)).toEqual(new Set(pods.map((p) => p.metadata.name)));
    expect(ev.deletes).toBe(0);
    expect(w.events.filter((e) => e.type === 'ADDED')).toHaveLength(40);
    expect(w.events.filter((e) => e.type === 'DELETED')).toHaveLength(0);
    expect((await client(first.url).get('/apis/apps/v1/namespaces/default/replicasets')).body.items).toHaveLength(1);
    // one holder of each Lease, named <hostname>_<uuid>, never handed over (on a loaded machine the holder may
    // miss its renew deadline, stop, and take its own Lease back: never another replica)
    for (const name of ['kube-controller-manager', 'kube-scheduler']) {
      const l = await lease(first.url, name);
      expect(l?.holderIdentity).toMatch(/^.+_[0-9a-f-]{36}$/);
      expect(l?.leaseTransitions).toBe(0);
      const acquired = logs.filter((x) => x.includes(`successfully acquired lease kube-system/${name}`));
      expect(new Set(acquired)).toEqual(new Set([`leaderelection ${name}: successfully acquired lease kube-system/${name} as ${l!.holderIdentity}`]));
    }
  }, 180_000);
});

describe('a clean shutdown of the leader', () => {
  it('releases its Leases: the other replica leads well before the 15s lease would expire', async () => {
    const etcd = await etcdForTest();
    const logs: string[][] = [[], []];
    const servers = await Promise.all(logs.map((l) => replica(etcd, l)));
    const held = await until(async () => (await lease(servers[0]!.url, 'kube-controller-manager'))?.holderIdentity, 'a leader');
    const i = logs.findIndex((l) => l.some((x) => x.endsWith(`kube-system/kube-controller-manager as ${held}`)));
    expect(i).toBeGreaterThanOrEqual(0);
    const [leader, other] = [servers[i]!, servers[1 - i]!];
    const closedAt = Date.now();
    await leader.close();
    expect(await lease(other.url, 'kube-controller-manager')).toMatchObject({ holderIdentity: '', leaseTransitions: 0 });
    const next = await until(async () => {
      const l = await lease(other.url, 'kube-controller-manager');
      return l && l.holderIdentity !== '' && l;
    }, 'the other replica to lead', 30_000);
    expect(next.holderIdentity).not.toBe(held);
    expect(next.leaseTransitions).toBe(1);
    // its next attempt (retry period 2s, jittered up to 2.2×) found the Lease free: no 15s wait
    expect(Date.parse(next.acquireTime) - closedAt).toBeLessThan(10_000);
  }, 120_000);
});

describe.each([2, 3])('%i replicas, the leader killed mid-scale', (n) => {
  it('another replica takes over within the lease duration; 40 pods in the end, none created twice', async () => {
    const etcd = await etcdForTest();
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-leader-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // the first replica runs alone at first, so it leads; it is a child process so it can be killed outright
    const leader: ServerProcess = await startServerProcess(dataDir, ['--store', 'etcd', '--etcd-servers', etcd.url, '--compaction-interval', '0', '--simulated-nodes', '2', '--simulated-pod-start-time', '100ms', ...LEASE_ARGS]);
    cleanups.push(() => leader.kill('SIGKILL'));
    const held = await until(async () => (await lease(leader.url, 'kube-controller-manager'))?.holderIdentity, 'the first replica to lead');
    await until(async () => (await lease(leader.url, 'kube-scheduler'))?.holderIdentity === held, 'the first replica to schedule');
    const logs: string[] = [];
    const survivors = await Promise.all(Array.from({ length: n - 1 }, () => replica(etcd, logs, true)));
    const [b, c] = [survivors[0]!, survivors[n - 2]!];
    await nodesReady(b.url);
    const w = await podWatch(b.url);
    expect((await client(b.url).post('/apis/apps/v1/namespaces/default/deployments', deployment(20))).status).toBe(201);
    await until(async () => (await client(b.url).get(PODS)).body.items.length === 20, '20 pods', 60_000);

    // kubectl scale to 40, and the leader killed right after: no release, its Leases stay as they were
    const scaled = await kubectl(kubeconfigFor(b.url), ['scale', 'deploy', 'web', '--replicas=40'], undefined, 60_000);
    expect(scaled.stderr).toBe('');
    await leader.kill('SIGKILL');
    const killedAt = Date.now();
    const atKill = (await client(b.url).get(PODS)).body.items.length;
    expect(atKill).toBeLessThan(40);

    // a survivor takes both Leases over, counting a transition
    const next = await until(async () => {
      const l = await lease(b.url, 'kube-controller-manager');
      return l && l.holderIdentity !== held && l;
    }, 'a new kube-controller-manager leader', 30_000);
    expect(next.leaseTransitions).toBeGreaterThanOrEqual(1);
    // within the lease duration of the last renewal it saw, plus its jittered retry (and a margin for a loaded machine)
    expect(Date.parse(next.acquireTime) - killedAt).toBeLessThan(LEASE.leaseDurationMs + 2.2 * LEASE.retryPeriodMs + 2_000);
    await until(async () => (await lease(c.url, 'kube-scheduler'))?.holderIdentity !== held, 'a new kube-scheduler leader', 30_000);

    const pods = await fortyRunning(c.url);
    await new Promise((r) => setTimeout(r, 3_000));
    // every pod was created once: 40 ADDED in all, 40 distinct names, nothing deleted
    const added = w.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name);
    expect(added).toHaveLength(40);
    expect(new Set(added)).toEqual(new Set(pods.map((p) => p.metadata.name)));
    expect(w.events.filter((e) => e.type === 'DELETED')).toHaveLength(0);
    const ev = await rsEvents(b.url);
    expect(ev.deletes).toBe(0);
    // the killed leader's Events still queued behind its creates died with it: never more Events than pods,
    // none twice, each naming a pod that exists
    expect(new Set(ev.creates).size).toBe(ev.creates.length);
    expect(ev.creates.length).toBeLessThanOrEqual(40);
    const names = new Set(pods.map((p) => p.metadata.name));
    expect(ev.creates.filter((n) => !names.has(n))).toEqual([]);
    expect((await client(b.url).get('/apis/apps/v1/namespaces/default/replicasets')).body.items).toHaveLength(1);
  }, 180_000);
});
