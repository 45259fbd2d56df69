// Benchmark child: a living cluster (every controller, N simulated nodes, short kubelet delays) or, with
// `--bare`, the plain API server; memory store, quiet. Prints `URL <url>`.
import { startServer } from '../src/server/app.js';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const bare = process.argv.includes('--bare');
const server = await startServer({
  port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0,
  // the bench drives the server hard: the in-flight limits would answer 429 to the load generator
  maxRequestsInflight: 0, maxMutatingRequestsInflight: 0,
  controllers: bare ? [] : ['*'],
  simulatedNodes: bare ? 0 : arg('--nodes', 100),
  simulatedPodStartMs: 100, simulatedPodReadyMs: 100, simulatedPodRunMs: 1000,
}, { log: () => {} });
process.stdout.write(`URL ${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
