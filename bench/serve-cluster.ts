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

process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
