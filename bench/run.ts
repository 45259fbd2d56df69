// Benchmark dispatcher: `npx tsx bench/run.ts [name...]` runs the named
// benchmarks, or all of them when no name is given. Register new ones below.
const benches: Record<string, () => Promise<void>> = {
  storage: () => import('./storage.js').then((m) => m.benchStorage()),
  etcd: () => import('./etcd.js').then((m) => m.benchEtcd()),
  api: () => import('./api.js').then((m) => m.benchApi()),
  'list-watch': () => import('./list-watch.js').then((m) => m.benchListWatch()),
  watch: () => import('./list-watch.js').then((m) => m.watch()),
  encodings: () => import('./encodings.js').then((m) => m.benchEncodings()),
  writes: () => import('./writes.js').then((m) => m.benchWrites()),
  ui: () => import('./ui.js').then((m) => m.benchUi()),
  encryption: () => import('./encryption.js').then((m) => m.benchEncryption()),
  fuzz: () => import('./fuzz.js').then((m) => m.benchFuzz()),
  cluster: () => import('./cluster.js').then((m) => m.benchCluster()),
  'cold-start': () => import('./cold-start.js').then((m) => m.benchColdStart()),
  start: () => import('./start.js').then((m) => m.benchStart()),
};

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const unknown = requested.filter((name) => !(name in benches));
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}`);
    process.exitCode = 1;
    return;
  }
  for (const name of requested.length > 0 ? requested : Object.keys(benches)) {
    const t0 = performance.now();
    await benches[name]();
    console.log(`${name}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
}

await main();
