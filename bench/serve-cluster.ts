// Benchmark child: a living cluster (every controller, N simulated nodes, short kubelet delays) or, with
// `--bare`, the plain API server; memory store, quiet. Prints `URL <url>`.
import { startServer } from '../src/server/app.js';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const bare = process.argv.includes('--bare');
// --external: the API server alone; the controllers, scheduler and nodes run in `npm run controller-manager`
const external = process.argv.includes('--external');
const server = await startServer({
  port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0,
  // the bench drives the server hard: the in-flight limits would answer 429 to the load generator
  maxRequestsInflight: 0, maxMutatingRequestsInflight: 0,
  controllers: bare ? [] : ['*'],
  disableControllerManager: external,
  simulatedNodes: bare || external ? 0 : arg('--nodes', 100),
  simulatedPodStartMs: 100, simulatedPodReadyMs: 100, simulatedPodRunMs: 1000,
}, { log: () => {} });
process.stdout.write(`URL ${server.url}\n`);
// `--measure-writes N`: the controllers' own write path (in process, no HTTP) creating N pods, printed as
// `WRITES <per second>`: the ceiling of the write rate a living cluster can reach
const measure = process.argv.indexOf('--measure-writes');
if (measure > 0) {
  const { ApiWriter, COMPONENTS } = await import('../src/server/controllers/api-writer.js');
  const n = Number(process.argv[measure + 1]);
  const w = new ApiWriter({ store: server.store, types: server.types, admission: server.deps.admission, caches: server.deps.caches, log: () => {} }, COMPONENTS.controllerManager);
  await w.create('', 'namespaces', undefined, { metadata: { name: 'ceiling' } });
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < n; i = next++)
        await w.create('', 'pods', 'ceiling', { metadata: { name: `p-${i}`, namespace: 'ceiling' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } });
    }),
  );
  process.stdout.write(`WRITES ${(n / ((performance.now() - t0) / 1000)).toFixed(0)}\n`);
}

// BENCH_MEM=<file>: a line of memory figures every 500 ms (process.memoryUsage, V8 heap, and what the store and the
// watch caches retain), to find where a living cluster's memory goes
if (process.env.BENCH_MEM) {
  const { appendFileSync } = await import('node:fs');
  const v8 = await import('node:v8');
  const file = process.env.BENCH_MEM;
  const t0 = Date.now();
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const eld = monitorEventLoopDelay({ resolution: 5 });
  eld.enable();
  const sample = () => {
    const m = process.memoryUsage();
    const h = v8.getHeapStatistics();
    // internals, for the diagnosis only
    const st = server.store as unknown as { log?: unknown[]; history?: Map<string, { kv: { value: Uint8Array } }[]> };
    let versions = 0;
    let bytes = 0;
    for (const vs of st.history?.values() ?? []) for (const v of vs) (versions++, (bytes += v.kv.value.length));
    const caches = (server.deps.caches as unknown as { caches: Map<string, { history: unknown[]; objects: Map<string, unknown>; watchers: Set<unknown> }> }).caches;
    const hist: Record<string, number> = {};
    let histTotal = 0;
    for (const [p, c] of caches) {
      histTotal += c.history.length;
      if (c.history.length > 500) hist[p.replace('/registry/', '')] = c.history.length;
    }
    const line = { t: Date.now() - t0, rss: m.rss >> 20, heapUsed: m.heapUsed >> 20, heapTotal: m.heapTotal >> 20, external: m.external >> 20, arrayBuffers: m.arrayBuffers >> 20, mallocedMem: h.malloced_memory >> 20, storeLog: st.log?.length, storeVersions: versions, storeMiB: bytes >> 20, loopP99: Math.round(eld.percentile(99) / 1e6), loopMax: Math.round(eld.max / 1e6), histTotal, hist };
    eld.reset();
    appendFileSync(file, JSON.stringify(line) + '\n');
    // BENCH_HEAPSNAP=<store log length>: one heap snapshot once the store holds that many events
    const at = Number(process.env.BENCH_HEAPSNAP);
    if (at > 0 && !snapped && (st.log?.length ?? 0) >= at) {
      snapped = true;
      appendFileSync(file, `snapshot ${v8.writeHeapSnapshot()}\n`);
    }
  };
  let snapped = false;
  // BENCH_CPUPROF=<file> with BENCH_CPUPROF_AT=<store log length>: a CPU profile from then until SIGTERM (the roll)
  const profAt = Number(process.env.BENCH_CPUPROF_AT);
  if (process.env.BENCH_CPUPROF && profAt > 0) {
    const { Session } = await import('node:inspector');
    const session = new Session();
    session.connect();
    const post = (m: string, p?: object) => new Promise<unknown>((res, rej) => session.post(m, p ?? {}, (e, r) => (e ? rej(e) : res(r))));
    const timer = setInterval(() => {
      const st = server.store as unknown as { log?: unknown[] };
      if ((st.log?.length ?? 0) < profAt) return;
      clearInterval(timer);
      void post('Profiler.enable').then(() => post('Profiler.setSamplingInterval', { interval: 500 })).then(() => post('Profiler.start'));
      process.removeAllListeners('SIGTERM');
      process.on('SIGTERM', () => void post('Profiler.stop').then((r) => {
        appendFileSync(process.env.BENCH_CPUPROF!, JSON.stringify((r as { profile: unknown }).profile));
        return server.close();
      }).then(() => process.exit(0)));
    }, 100);
    timer.unref();
  }
  setInterval(sample, 500).unref();
}

process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
