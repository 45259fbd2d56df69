// A living cluster under load: N simulated nodes, D Deployments of R replicas created and then rolled (new image).
// Reports time to all Available, the API write rate the controllers achieved, p99 watch delay during the
// rollout and peak server RSS, each beside a ceiling measured in the same run on the plain API server
// (controllers off): pod creates/s through the controllers' in-process write path (and over HTTP, for
// reference), the same watch probe on an idle server, and the RSS of the plain server holding as many pods.
// Then the same with the controllers in a controller manager of their own over HTTP (BENCH_CLUSTER_REMOTE=0 skips it).
// Scale: BENCH_CLUSTER_NODES (100), BENCH_CLUSTER_DEPLOYMENTS (500), BENCH_CLUSTER_REPLICAS (20).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, type ChildServer } from './lib/child.js';

const NODES = Number(process.env.BENCH_CLUSTER_NODES ?? 100);
const DEPLOYMENTS = Number(process.env.BENCH_CLUSTER_DEPLOYMENTS ?? 500);
const REPLICAS = Number(process.env.BENCH_CLUSTER_REPLICAS ?? 20);
const CONCURRENCY = 16;
const JSON_HEADERS = { 'Content-Type': 'application/json' };

const deployment = (i: number, image: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: `web-${i}`, namespace: 'bench' },
  spec: {
    replicas: REPLICAS,
    selector: { matchLabels: { app: `web-${i}` } },
    strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: {
      metadata: { labels: { app: `web-${i}` } },
      spec: { containers: [{ name: 'web', image, resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
    },
  },
});

async function pool(n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let i = next++; i < n; i = next++) await fn(i);
  }));
}

async function revision(url: string): Promise<number> {
  const r = (await (await fetch(`${url}/api/v1/namespaces?limit=1`)).json()) as { metadata: { resourceVersion: string } };
  return Number(r.metadata.resourceVersion);
}

async function ok(r: Promise<Response>): Promise<void> {
  const res = await r;
  const body = await res.text();
  if (res.status >= 400 && res.status !== 409) throw new Error(`${res.status} ${body.slice(0, 200)}`);
}

/** Waits until every Deployment reports all replicas updated and available for its latest generation. */
async function allAvailable(url: string): Promise<void> {
  for (;;) {
    const list = (await (await fetch(`${url}/apis/apps/v1/namespaces/bench/deployments`)).json()) as { items: { metadata: { generation: number }; status?: Record<string, number> }[] };
    const done = list.items.filter((d) => d.status?.observedGeneration === d.metadata.generation && d.status?.availableReplicas === REPLICAS && d.status?.updatedReplicas === REPLICAS && d.status?.replicas === REPLICAS).length;
    if (done === DEPLOYMENTS) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Watch delay probe: writes a ConfigMap stamped with the time every 50ms and measures when its watch event arrives. */
function watchProbe(url: string): { stop(): Promise<number[]> } {
  const delays: number[] = [];
  const ac = new AbortController();
  let stopped = false;
  const reading = (async () => {
    const res = await fetch(`${url}/api/v1/namespaces/bench/configmaps?watch=1&fieldSelector=metadata.name=probe&allowWatchBookmarks=false`, { signal: ac.signal });
    const reader = res.body!.getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buf += new TextDecoder().decode(value);
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const ev = JSON.parse(line) as { object: { data?: { at?: string } } };
        const at = Number(ev.object.data?.at);
        if (at) delays.push(performance.timeOrigin + performance.now() - at);
      }
    }
  })();
  const writing = (async () => {
    await ok(fetch(`${url}/api/v1/namespaces/bench/configmaps`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' }, data: { at: '0' } }) }));
    while (!stopped) {
      await ok(fetch(`${url}/api/v1/namespaces/bench/configmaps/probe`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { at: String(Date.now()) } }) }));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await writing;
      await new Promise((r) => setTimeout(r, 200));
      ac.abort();
      await reading;
      return delays;
    },
  };
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? NaN;
const mib = (b: number) => (b / 2 ** 20).toFixed(0);

/** periscope_storage_decodes_total of the server: stored objects it decoded so far. */
async function decodes(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^periscope_storage_decodes_total (\d+)$/m.exec(text)?.[1] ?? NaN);
}

async function namespace(url: string): Promise<void> {
  await ok(fetch(`${url}/api/v1/namespaces`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) }));
}

export async function benchCluster(): Promise<void> {
  const pods = DEPLOYMENTS * REPLICAS;
  console.log(`cluster: ${NODES} simulated nodes, ${DEPLOYMENTS} Deployments x ${REPLICAS} replicas = ${pods} pods, created then rolled`);
  // ceilings: the plain API server
  // the controllers' own write path (in process): the ceiling of the writes/s a living cluster can reach
  const inproc = await startChild('serve-cluster.ts', ['--bare', '--measure-writes', String(Math.max(pods, 2000))]);
  const inprocRate = Number((await new Promise<string>((resolve) => {
    let buf = '';
    const take = () => {
      const m = buf.match(/^WRITES (\d+)$/m);
      if (m) resolve(m[1]!);
    };
    inproc.proc.stdout!.on('data', (d) => ((buf += d), take()));
    take();
  })));
  await inproc.stop();
  let bare: ChildServer | undefined = await startChild('serve-cluster.ts', ['--bare']);
  let rawRate: number;
  let idleP99: number;
  let bareRss: number;
  try {
    await namespace(bare.url);
    const podBody = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `raw-${i}`, namespace: 'bench', labels: { app: 'raw' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } });
    const n = Math.max(pods, 2000);
    const t0 = performance.now();
    await pool(n, (i) => ok(fetch(`${bare!.url}/api/v1/namespaces/bench/pods`, { method: 'POST', headers: JSON_HEADERS, body: podBody(i) })));
    rawRate = n / ((performance.now() - t0) / 1000);
    bareRss = bare.peakRss();
    // the idle watch probe runs on the warmed-up server
    const probe = watchProbe(bare.url);
    await new Promise((r) => setTimeout(r, 3000));
    idleP99 = p99(await probe.stop());
  } finally {
    await bare.stop();
    bare = undefined;
  }
  if (process.env.BENCH_CLUSTER_REMOTE !== 'only') {
    const srv = await startChild('serve-cluster.ts', ['--nodes', String(NODES)]);
    try {
      await phase('cluster', srv, srv, { inprocRate, rawRate, idleP99, bareRss });
    } finally {
      await srv.stop();
    }
  }
  // the same with the controllers, scheduler and simulated nodes in a controller manager of their own
  // (npm run controller-manager, over HTTP); BENCH_CLUSTER_REMOTE=0 skips it, =only runs it alone
  if (process.env.BENCH_CLUSTER_REMOTE === '0') return;
  const api = await startChild('serve-cluster.ts', ['--external']);
  const dir = mkdtempSync(join(tmpdir(), 'periscope-bench-cm-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: ${api.url}}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {}\n`);
  const cm = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../src/server/controller-manager-main.ts', import.meta.url)), '--kubeconfig', kubeconfig, '--simulated-nodes', String(NODES), '--simulated-pod-start-time', '100ms', '--simulated-pod-ready-time', '100ms', '--simulated-pod-run-time', '1s'], { stdio: ['ignore', 'ignore', 'inherit'] });
  cm.once('exit', (code, sig) => code !== 0 && sig !== 'SIGTERM' && console.error(`controller manager exited: ${code ?? sig}`));
  try {
    await phase('cluster (remote controller manager)', api, { peakRss: () => api.peakRss() + peakRssOf(cm.pid) }, { inprocRate, rawRate, idleP99, bareRss });
  } finally {
    cm.kill('SIGTERM');
    await new Promise((r) => cm.once('exit', r));
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** VmHWM of a process (bytes). */
function peakRssOf(pid: number | undefined): number {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

interface Ceilings {
  inprocRate: number;
  rawRate: number;
  idleP99: number;
  bareRss: number;
}

async function phase(label: string, srv: ChildServer, rss: { peakRss(): number }, { inprocRate, rawRate, idleP99, bareRss }: Ceilings): Promise<void> {
  const pods = DEPLOYMENTS * REPLICAS;
  await namespace(srv.url);
  // wait for the nodes
  for (;;) {
    const n = (await (await fetch(`${srv.url}/api/v1/nodes`)).json()) as { items: unknown[] };
    if (n.items.length >= NODES) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const rev0 = await revision(srv.url);
  const dec0 = await decodes(srv.url);
  let t0 = performance.now();
  await pool(DEPLOYMENTS, (i) => ok(fetch(`${srv.url}/apis/apps/v1/namespaces/bench/deployments`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(deployment(i, 'nginx:1.26')) })));
  await allAvailable(srv.url);
  const createSecs = (performance.now() - t0) / 1000;
  const rev1 = await revision(srv.url);
  const createRate = (rev1 - rev0) / createSecs;
  console.log(`${label} create: all ${DEPLOYMENTS} Deployments Available in ${createSecs.toFixed(1)} s (ceiling ${((rev1 - rev0) / inprocRate).toFixed(1)} s: its ${rev1 - rev0} writes at the in-process create rate, ratio ${(createSecs / ((rev1 - rev0) / inprocRate)).toFixed(2)})`);
  console.log(`${label} create: API write rate ${createRate.toFixed(0)} writes/s (ceiling ${inprocRate} pod creates/s through the controllers' in-process write path, ratio ${(inprocRate / createRate).toFixed(2)}; ${rawRate.toFixed(0)}/s over HTTP)`);
  const probe = watchProbe(srv.url);
  t0 = performance.now();
  await pool(DEPLOYMENTS, (i) =>
    ok(fetch(`${srv.url}/apis/apps/v1/namespaces/bench/deployments/web-${i}`, { method: 'PATCH', headers: { 'Content-Type': 'application/strategic-merge-patch+json' }, body: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } }) })),
  );
  await allAvailable(srv.url);
  const rollSecs = (performance.now() - t0) / 1000;
  const rollP99 = p99(await probe.stop());
  const rev2 = await revision(srv.url);
  const dec2 = await decodes(srv.url);
  console.log(`${label} roll: all ${DEPLOYMENTS} Deployments rolled and Available in ${rollSecs.toFixed(1)} s (ceiling ${((rev2 - rev1) / inprocRate).toFixed(1)} s for its ${rev2 - rev1} writes at the in-process rate, ratio ${(rollSecs / ((rev2 - rev1) / inprocRate)).toFixed(2)})`);
  console.log(`${label} roll: API write rate ${((rev2 - rev1) / rollSecs).toFixed(0)} writes/s (ceiling ${inprocRate} in process, ratio ${(inprocRate / ((rev2 - rev1) / rollSecs)).toFixed(2)})`);
  console.log(`${label} roll: p99 watch delay ${rollP99.toFixed(1)} ms (ceiling ${idleP99.toFixed(1)} ms on an idle plain server, ratio ${(rollP99 / idleP99).toFixed(2)})`);
  console.log(`${label}: ${dec2 - dec0} stored objects decoded for ${rev2 - rev0} versions written, ${((dec2 - dec0) / (rev2 - rev0)).toFixed(2)} per version (ceiling 1: each version decoded once per process, by the watch cache)`);
  console.log(`${label}: peak RSS (server, plus the controller manager when remote) ${mib(rss.peakRss())} MiB (ceiling ${mib(bareRss)} MiB: the plain server holding ${Math.max(pods, 2000)} pods, ratio ${(rss.peakRss() / bareRss).toFixed(2)})`);
}
