// Lists and watch fan-out with realistic pods, each beside a raw node:http ceiling in the same run.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startChild, type ChildServer } from './lib/child.js';

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000);
const WATCH_SECONDS = Number(process.env.BENCH_WATCH_SECONDS ?? 30);
const WRITES_PER_SECOND = 200;
const TABLE = 'application/json;as=Table;g=meta.service.io;v=v1';

async function timed(url: string, accept = 'application/json'): Promise<{ ms: number; bytes: number; body: string }> {
  const t0 = performance.now();
  const r = await fetch(url, { headers: { Accept: accept } });
  const body = await r.text();
  return { ms: performance.now() - t0, bytes: body.length, body };
}

async function median(runs: number, fn: () => Promise<number>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) xs.push(await fn());
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)]!;
}

function line(metric: string, v: number, ceiling: number, unit: string): void {
  console.log(`list-watch ${metric} ${v.toFixed(1)}${unit} (ceiling ${ceiling.toFixed(1)}${unit}, ratio ${(ceiling / v).toFixed(2)})`);
}

async function pagedList(base: string, limit: number): Promise<{ first: number; total: number; items: number }> {
  const t0 = performance.now();
  let first = 0;
  let cont = '';
  let items = 0;
  for (;;) {
    const r = await fetch(`${base}/api/v1/namespaces/bench/pods?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    const body = (await r.json()) as { items: unknown[]; metadata: { continue?: string } };
    items += body.items.length;
    if (!first) first = performance.now() - t0;
    if (!body.metadata.continue) break;
    cont = body.metadata.continue;
  }
  return { first, total: performance.now() - t0, items };
}

async function lists(n: number): Promise<void> {
  const api = await startChild('serve-api.ts', ['memory', '', '--seed-pods', String(n)]);
  const raw = await startChild('serve-raw-list.ts', [String(n)]);
  try {
    const url = `${api.url}/api/v1/namespaces/bench/pods`;
    // the first list after start encodes every object version once (cached for later lists and watches);
    // it is reported on its own, the figure beside the ceiling is the median of the next three
    const cold = (await timed(url)).ms;
    const full = await median(3, async () => (await timed(url)).ms);
    const fullRaw = await median(3, async () => (await timed(`${raw.url}/pods`)).ms);
    const size = (await timed(url)).bytes;
    line(`${n / 1000}k pods full list (${(size / 1e6).toFixed(1)} MB)`, full, fullRaw, 'ms');
    console.log(`list-watch ${n / 1000}k pods first full list after start (encodes each object once) ${cold.toFixed(1)}ms`);
    const paged = await pagedList(api.url, 500);
    const firstRaw = await median(3, async () => (await timed(`${raw.url}/pods?limit=500`)).ms);
    line(`${n / 1000}k pods paged list limit=500 first page`, paged.first, firstRaw, 'ms');
    line(`${n / 1000}k pods paged list limit=500 total (${paged.items} items)`, paged.total, fullRaw, 'ms');
    const table = await median(3, async () => (await timed(url, TABLE)).ms);
    line(`${n / 1000}k pods Table list`, table, fullRaw, 'ms');
    console.log(`list-watch ${n / 1000}k pods Table list time / JSON list time ${(table / full).toFixed(2)} (goal <= 1.00)`);
    console.log(`list-watch ${n / 1000}k pods peak server RSS ${(api.peakRss() / 2 ** 20).toFixed(0)} MiB (ceiling ${(raw.peakRss() / 2 ** 20).toFixed(0)} MiB, ratio ${(raw.peakRss() / api.peakRss()).toFixed(2)})`);
    // the memory goal: RSS with the pods in the watch cache against their encoded JSON (memory store: its bytes count too)
    console.log(`list-watch ${n / 1000}k pods server RSS now ${(api.rss() / 2 ** 20).toFixed(0)} MiB = ${(api.rss() / size).toFixed(2)}x the list's JSON (goal <= 1.50x; peak ${(api.peakRss() / size).toFixed(2)}x)`);
  } finally {
    await api.stop();
    await raw.stop();
  }
}

interface FanOut {
  p50: number;
  p99: number;
  delivered: number;
  rss: number;
  /** Server CPU time during the writes, and its system (kernel) part. */
  cpuMs: number;
  sysMs: number;
  /** The watcher processes' CPU time during the writes (the load generator's own cost). */
  genCpuMs: number;
  /** How far behind its schedule the writer fell at worst (ms). */
  behind: number;
  /** Server CPU per write with no watcher (ms), measured before the watchers open. */
  writeCpuMs: number;
}

const WATCH_WORKERS = Number(process.env.BENCH_WATCH_WORKERS ?? 4);

/** CPU time (user + system) a process has used, in ms; `sys`: the system part only. */
function cpuMs(pid: number, sys = false): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (((sys ? 0 : Number(f[11])) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN;
  }
}

/**
 * `total` POSTs at WRITES_PER_SECOND, at most 64 in flight; each object carries the time it was due in
 * a `bench/sent` annotation. Returns how far behind schedule the writer fell at worst.
 */
async function writeAt(u: URL, postPath: string, total: number, namespace: string, prefix = 'w'): Promise<{ behind: number }> {
  const writeAgent = new Agent({ keepAlive: true, maxSockets: 8 });
  const t0 = performance.now();
  const inflight: Promise<void>[] = [];
  let behind = 0;
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / WRITES_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    else behind = Math.max(behind, -wait);
    // stamped with the time the write was due, not when it went out: a writer held up (by a slow
    // server or its own CPU) must not hide that delay from the latency (coordinated omission)
    const body = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${prefix}-${i}`, namespace, annotations: { 'bench/sent': String(performance.timeOrigin + due) } },
      data: { payload: 'x'.repeat(512) },
    });
    inflight.push(
      new Promise<void>((resolve) => {
        const req = request({ agent: writeAgent, host: u.hostname, port: u.port, path: postPath, method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        req.on('error', () => resolve());
        req.end(body);
      }),
    );
    if (inflight.length > 64) await Promise.all(inflight.splice(0, 32));
  }
  await Promise.all(inflight);
  writeAgent.destroy();
  return { behind };
}

/** Writes made with no watcher open, to tell the write path's CPU from the fan-out's. */
const CALIBRATION_WRITES = 600;

/**
 * Server CPU per write with nobody watching (POSTs into a namespace no watcher looks at), the same
 * writes as the fan-out's: what is left of the fan-out's CPU after it is the fan-out's own.
 */
async function writeCpu(server: ChildServer, postPath: string, namespace: string): Promise<number> {
  // warm the write path first (its first writes are compiled as they run)
  await writeAt(new URL(server.url), postPath, CALIBRATION_WRITES / 2, namespace, 'warm');
  await new Promise((r) => setTimeout(r, 500));
  const cpu0 = cpuMs(server.proc.pid!);
  await writeAt(new URL(server.url), postPath, CALIBRATION_WRITES, namespace);
  await new Promise((r) => setTimeout(r, 500));
  return (cpuMs(server.proc.pid!) - cpu0) / CALIBRATION_WRITES;
}

/**
 * The watchers live in WATCH_WORKERS processes (one generator process was the bottleneck: its own
 * ceiling measured seconds); latencies come back as histograms and are merged here.
 */
export async function fanOut(server: ChildServer, watchPath: string, postPath: string, calibration: { postPath: string; namespace: string }): Promise<FanOut> {
  const u = new URL(server.url);
  const writeCpuMs = await writeCpu(server, calibration.postPath, calibration.namespace);
  const per = Math.ceil(WATCHERS / WATCH_WORKERS);
  const workers = Array.from({ length: WATCH_WORKERS }, (_, i) =>
    spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./lib/watch-worker.ts', import.meta.url)), server.url, watchPath, String(Math.min(per, WATCHERS - i * per))], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const lines = workers.map((w) => createInterface({ input: w.stdout! })[Symbol.asyncIterator]());
  await Promise.all(lines.map(async (it) => {
    const first = await it.next();
    if (first.value !== 'READY') throw new Error(`watch worker: ${first.value}`);
  }));
  await new Promise((r) => setTimeout(r, 500));
  const cpu0 = cpuMs(server.proc.pid!);
  const sys0 = cpuMs(server.proc.pid!, true);
  const genCpu = () => workers.reduce((t, w) => t + cpuMs(w.pid!), 0);
  const gen0 = genCpu();
  const { behind } = await writeAt(u, postPath, WATCH_SECONDS * WRITES_PER_SECOND, 'bench');
  await new Promise((r) => setTimeout(r, 1000));
  const cpu = cpuMs(server.proc.pid!) - cpu0;
  const sys = cpuMs(server.proc.pid!, true) - sys0;
  const gen = genCpu() - gen0;
  const fine = new Float64Array(2000);
  const coarse = new Float64Array(60_000);
  let delivered = 0;
  await Promise.all(
    workers.map(async (w, i) => {
      w.stdin!.write('STOP\n');
      const r = JSON.parse((await lines[i]!.next()).value as string) as { delivered: number; fine: number[]; coarse: number[] };
      delivered += r.delivered;
      r.fine.forEach((c, j) => (fine[j]! += c));
      r.coarse.forEach((c, j) => (coarse[j]! += c));
    }),
  );
  const q = (p: number) => {
    let want = Math.ceil(p * delivered);
    for (let j = 0; j < fine.length; j++) if ((want -= fine[j]!) <= 0) return (j + 1) * 0.05;
    for (let j = 100; j < coarse.length; j++) if ((want -= coarse[j]!) <= 0) return j + 1;
    return NaN;
  };
  return { p50: q(0.5), p99: q(0.99), delivered, rss: server.peakRss(), cpuMs: cpu, sysMs: sys, genCpuMs: gen, behind, writeCpuMs };
}

export async function watch(): Promise<void> {
  const api = await startChild('serve-api.ts', ['memory', '', '--seed-pods', '10']);
  await fetch(`${api.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-calibration' } }) });
  const a = await fanOut(api, '/api/v1/namespaces/bench/configmaps?watch=1&resourceVersion=0', '/api/v1/namespaces/bench/configmaps', {
    postPath: '/api/v1/namespaces/bench-calibration/configmaps',
    namespace: 'bench-calibration',
  });
  await api.stop();
  const raw = await startChild('serve-raw-list.ts', ['10']);
  const c = await fanOut(raw, '/configmaps?watch=1', '/configmaps', { postPath: '/configmaps', namespace: 'bench' });
  await raw.stop();
  const expected = WATCHERS * WATCH_SECONDS * WRITES_PER_SECOND;
  console.log(`list-watch watch fan-out ${WATCHERS} watchers x ${WRITES_PER_SECOND} writes/s x ${WATCH_SECONDS}s: delivered ${a.delivered}/${expected}, lost ${expected - a.delivered} (ceiling ${c.delivered}, lost ${expected - c.delivered}); writer at worst ${a.behind.toFixed(0)} ms behind schedule (ceiling ${c.behind.toFixed(0)} ms)`);
  line('watch delivery latency p50', a.p50, c.p50, 'ms');
  line('watch delivery latency p99', a.p99, c.p99, 'ms');
  console.log(`list-watch watch delivery latency goals: server p99 < 100ms, ceiling p99 < 50ms (latency: from the time each write was due to the read that brought the event)`);
  const perEvent = (f: FanOut) => (f.cpuMs * 1000) / Math.max(1, f.delivered);
  const sysShare = (f: FanOut) => `${((100 * f.sysMs) / Math.max(1, f.cpuMs)).toFixed(0)}% system`;
  console.log(`list-watch watch fan-out server CPU per delivered event ${perEvent(a).toFixed(1)}µs, ${sysShare(a)} (ceiling ${perEvent(c).toFixed(1)}µs, ${sysShare(c)}, ratio ${(perEvent(c) / perEvent(a)).toFixed(2)}) over ${WATCH_WORKERS} watcher processes`);
  // the fan-out's own share: what the server spent beyond the writes themselves (as measured with no watcher)
  const fanOutPerEvent = (f: FanOut) => ((f.cpuMs - f.writeCpuMs * WATCH_SECONDS * WRITES_PER_SECOND) * 1000) / Math.max(1, f.delivered);
  console.log(`list-watch watch fan-out server CPU per delivered event beyond the write itself ${fanOutPerEvent(a).toFixed(1)}µs (ceiling ${fanOutPerEvent(c).toFixed(1)}µs, ratio ${(fanOutPerEvent(c) / fanOutPerEvent(a)).toFixed(2)}); server CPU per write with no watcher ${(a.writeCpuMs * 1000).toFixed(0)}µs (ceiling ${(c.writeCpuMs * 1000).toFixed(0)}µs)`);
  const genPerEvent = (f: FanOut) => (f.genCpuMs * 1000) / Math.max(1, f.delivered);
  console.log(`list-watch watch fan-out load generator CPU per delivered event ${genPerEvent(a).toFixed(1)}µs (against the ceiling ${genPerEvent(c).toFixed(1)}µs)`);
  console.log(`list-watch watch fan-out peak server RSS ${(a.rss / 2 ** 20).toFixed(0)} MiB (ceiling ${(c.rss / 2 ** 20).toFixed(0)} MiB, ratio ${(c.rss / a.rss).toFixed(2)})`);
}

export async function benchListWatch(): Promise<void> {
  for (const n of (process.env.BENCH_PODS ?? '10000,100000').split(',').map(Number)) await lists(n);
  await watch();
}
