// Cold start at scale: a SQLite store holding 100k pods (and, with BENCH_COLD_CONFIGMAPS=N, N small
// configmaps): from process start to /readyz 200 (readiness waits for the watch caches to load), then
// the first limit=500 page. Absolute goals, printed beside each figure; the raw ceiling is a bare
// node process reading every row of the same database with better-sqlite3.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PODS = Number(process.env.BENCH_COLD_PODS ?? 100_000);
const CONFIGMAPS = Number(process.env.BENCH_COLD_CONFIGMAPS ?? 0);
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 3);

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

function run(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
    p.on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`${args[0]} exited with ${c}`))));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function rawGet(url: string): Promise<{ status: number; gzip: boolean; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'Accept-Encoding': 'gzip', Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, gzip: res.headers['content-encoding'] === 'gzip', body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function coldStart(dir: string, list: string): Promise<{ ready: number; firstPage: number; rss: number }> {
  const port = await freePort();
  const t0 = performance.now();
  // BENCH_PROF=<dir>: the server writes a V8 CPU profile there when it stops (as bench/lib/child.ts)
  const prof = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const proc = spawn(process.execPath, [...prof, '--import', 'tsx', here('./serve-cold.ts'), dir, String(port)], { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    let ready = 0;
    while (!ready) {
      if (proc.exitCode !== null) throw new Error('server exited');
      try {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`);
        await r.text();
        if (r.status === 200) ready = performance.now() - t0;
      } catch {
        // not listening yet
      }
      if (!ready) await sleep(10);
    }
    // as kubectl asks (gzip accepted); the compressed bytes are read, not inflated, so the figure is
    // the server's (fetch's own inflate took seconds on a loaded machine)
    const t1 = performance.now();
    const page = await rawGet(`http://127.0.0.1:${port}${list}?limit=500`);
    const firstPage = performance.now() - t1;
    const body = JSON.parse((page.gzip ? gunzipSync(page.body) : page.body).toString()) as { items?: unknown[] };
    if (page.status !== 200 || body.items?.length !== 500) throw new Error(`first page: ${page.status}`);
    const m = readFileSync(`/proc/${proc.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
    return { ready, firstPage, rss: m ? Number(m[1]) * 1024 : NaN };
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function scenario(label: string, kind: 'pods' | 'configmaps', n: number, list: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-cold-'));
  try {
    const s0 = performance.now();
    await run([here('./seed-sqlite.ts'), dir, kind, String(n)]);
    console.log(`cold-start ${label}: seeded in ${((performance.now() - s0) / 1000).toFixed(1)} s`);
    // the ceiling: a bare process opening the database and reading every current row
    const c0 = performance.now();
    await run([here('./lib/read-all-sqlite.ts'), dir]);
    const ceiling = performance.now() - c0;
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await coldStart(dir, list));
    const ready = median(runs.map((r) => r.ready));
    const first = median(runs.map((r) => r.firstPage));
    const rss = median(runs.map((r) => r.rss));
    console.log(`cold-start ${label} ready ${(ready / 1000).toFixed(2)} s (goal 3.00 s; raw read-all ceiling ${(ceiling / 1000).toFixed(2)} s) runs ${runs.map((r) => (r.ready / 1000).toFixed(2)).join('/')}`);
    console.log(`cold-start ${label} first page limit=500 after ready ${first.toFixed(0)} ms (goal 50 ms)`);
    console.log(`cold-start ${label} RSS after first page ${(rss / 2 ** 20).toFixed(0)} MiB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchColdStart(): Promise<void> {
  if (PODS > 0) await scenario(`${PODS / 1000}k pods`, 'pods', PODS, '/api/v1/namespaces/bench/pods');
  if (CONFIGMAPS > 0) await scenario(`${CONFIGMAPS / 1000}k configmaps`, 'configmaps', CONFIGMAPS, '/api/v1/namespaces/bench/configmaps');
}
