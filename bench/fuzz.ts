// Fuzz benchmark (issue 14): ≥ 100,000 fuzz cases (seeds + generated, test/fuzz) against one in-process
// server (memory store, CBOR on), printing the case count, 5xx, crashes and cases/s, and beside it the
// ceiling measured in the same run: as many trivial GET /version requests over the same kind of
// keep-alive connection, one at a time like the fuzz cases (the request-rate ceiling).
// BENCH_FUZZ_CASES sets the generated case count; FUZZ_SEED the seed.
import { startServer } from '../src/server/app.js';
import { parseFeatureGates } from '../src/server/features.js';
import { formatReport, prepareFuzzServer, runFuzz } from '../test/fuzz/run.js';
import { Wire } from '../test/fuzz/wire.js';
import { API_SERVER_CONTROLLERS } from '../test/helpers/server.js';

const CASES = Number(process.env.BENCH_FUZZ_CASES ?? 100_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

export async function benchFuzz(): Promise<void> {
  const server = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, featureGates: parseFeatureGates('CBORServingAndStorage=true'),
      // a plain API server, as the fuzz test uses: workload controllers' own writes would read as changes by rejected requests
      controllers: API_SERVER_CONTROLLERS },
    { log: () => {} },
  );
  try {
    await prepareFuzzServer(server);
    console.log(`fuzz: ${CASES} generated cases plus seeds, seed ${SEED} (rerun with FUZZ_SEED=${SEED})`);
    const report = await runFuzz(server, {
      cases: CASES,
      seed: SEED,
      cbor: true,
      keepFailures: 40,
      onProgress: (done, r) => {
        if (done % 10_000 === 0) console.log(`  ${done} cases, ${(done / ((performance.now() - started) / 1000)).toFixed(0)} cases/s, 5xx ${r.fiveXX}, crashes ${r.crashes}, failures ${r.failures.length}`);
      },
    });

    // ceiling: the same number of trivial requests, sequential, on the same server
    const wire = new Wire(server.url);
    const t0 = performance.now();
    let bad = 0;
    for (let i = 0; i < report.cases; i++) if ((await wire.send({ method: 'GET', path: '/version', headers: { Accept: 'application/json' } })).status !== 200) bad++;
    const ceilingSecs = (performance.now() - t0) / 1000;
    wire.close();

    const rate = report.cases / report.seconds;
    const ceiling = report.cases / ceilingSecs;
    console.log(formatReport(report));
    console.log('');
    console.log(`fuzz cases            ${report.cases}`);
    console.log(`5xx (client input)    ${report.fiveXX}`);
    console.log(`crashes               ${report.crashes}`);
    console.log(`other failures        no response ${report.noResponse}, non-Status errors ${report.badStatus}, store changed ${report.storeChanged}, over-limit accepted ${report.acceptedOverLimit}, timer overflows ${report.timerOverflows}`);
    console.log(`fuzz cases/s          ${rate.toFixed(0)}   ceiling (GET /version ×${report.cases}${bad ? `, ${bad} failed` : ''}) ${ceiling.toFixed(0)} req/s   ratio ${(rate / ceiling).toFixed(2)}`);
  } finally {
    await server.close();
  }
}

const started = performance.now();
