// API benchmark: GET of one object and POST of small objects over HTTP, 64 keep-alive connections,
// beside a raw node:http server answering the same bytes (measured in the same run).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, type ChildServer } from './lib/child.js';
import { runLoad, type LoadResult, type LoadSpec } from './lib/http-load.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = 64;

function report(name: string, r: LoadResult, c: LoadResult): void {
  console.log(`api ${name} requests/s ${Math.round(r.rps)} (ceiling ${Math.round(c.rps)}, ratio ${(r.rps / c.rps).toFixed(2)})`);
  console.log(`api ${name} p50 ${r.p50.toFixed(2)}ms (ceiling ${c.p50.toFixed(2)}ms, ratio ${(c.p50 / r.p50).toFixed(2)})`);
  console.log(`api ${name} p99 ${r.p99.toFixed(2)}ms (ceiling ${c.p99.toFixed(2)}ms, ratio ${(c.p99 / r.p99).toFixed(2)})`);
  if (r.errors) console.log(`api ${name} errors ${r.errors}`);
}

/**
 * The load with the server's CPU time per request beside it: on a shared machine the requests/s of
 * two runs moved with the load of the moment, the CPU a request costs the server much less.
 */
async function measured(server: ChildServer, spec: LoadSpec): Promise<LoadResult & { cpuUs: number }> {
  const c0 = server.cpuMs();
  const r = await runLoad(spec);
  return { ...r, cpuUs: (1000 * (server.cpuMs() - c0)) / Math.max(1, r.requests) };
}

function reportCpu(name: string, r: { cpuUs: number }, c: { cpuUs: number }): void {
  console.log(`api ${name} server cpu/request ${r.cpuUs.toFixed(0)}us (ceiling ${c.cpuUs.toFixed(0)}us, ratio ${(c.cpuUs / r.cpuUs).toFixed(2)})`);
}

export async function benchApi(): Promise<void> {
  const api = await startChild('serve-api.ts');
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } };
  await fetch(`${api.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ns) });
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', labels: { app: 'bench' } }, data: { key: 'value', other: 'x'.repeat(200) } };
  await fetch(`${api.url}/api/v1/namespaces/bench/configmaps`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(cm) });
  const getBytes = Buffer.from(await (await fetch(`${api.url}/api/v1/namespaces/bench/configmaps/one`)).arrayBuffer());
  const postBody = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `p-${i}`, labels: { app: 'bench' } }, data: { key: 'value' } });
  const postBytes = Buffer.from(
    await (await fetch(`${api.url}/api/v1/namespaces/bench/configmaps`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: postBody(-1) })).arrayBuffer(),
  );
  const dir = mkdtempSync(join(tmpdir(), 'bench-api-'));
  writeFileSync(join(dir, 'get'), getBytes);
  writeFileSync(join(dir, 'post'), postBytes);
  const raw = await startChild('serve-raw.ts', [join(dir, 'get'), join(dir, 'post')]);
  try {
    const getApi = await runLoad({ url: `${api.url}/api/v1/namespaces/bench/configmaps/one`, method: 'GET', concurrency: CONCURRENCY, seconds: SECONDS });
    const getRaw = await runLoad({ url: `${raw.url}/x`, method: 'GET', concurrency: CONCURRENCY, seconds: SECONDS });
    report('get', getApi, getRaw);
    const postApi = await measured(api, { url: `${api.url}/api/v1/namespaces/bench/configmaps`, method: 'POST', body: postBody, concurrency: CONCURRENCY, seconds: SECONDS });
    const postRaw = await measured(raw, { url: `${raw.url}/x`, method: 'POST', body: postBody, concurrency: CONCURRENCY, seconds: SECONDS });
    report('post', postApi, postRaw);
    reportCpu('post', postApi, postRaw);
  } finally {
    await api.stop();
    await raw.stop();
  }
  await benchDurablePost(postBody, dir);
}

/** POST on the SQLite store (what the product ships with) beside raw inserts with the same durability. */
async function benchDurablePost(postBody: (i: number) => string, dir: string): Promise<void> {
  const apiDir = mkdtempSync(join(tmpdir(), 'bench-api-sqlite-'));
  const rawDir = mkdtempSync(join(tmpdir(), 'bench-raw-sqlite-'));
  const api = await startChild('serve-api.ts', ['sqlite', apiDir]);
  const raw = await startChild('serve-raw-sqlite.ts', [rawDir, join(dir, 'post')]);
  try {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } };
    await fetch(`${api.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ns) });
    const postApi = await measured(api, { url: `${api.url}/api/v1/namespaces/bench/configmaps`, method: 'POST', body: postBody, concurrency: CONCURRENCY, seconds: SECONDS });
    const postRaw = await measured(raw, { url: `${raw.url}/x`, method: 'POST', body: postBody, concurrency: CONCURRENCY, seconds: SECONDS });
    report('post sqlite', postApi, postRaw);
    reportCpu('post sqlite', postApi, postRaw);
  } finally {
    await api.stop();
    await raw.stop();
    rmSync(apiDir, { recursive: true, force: true });
    rmSync(rawDir, { recursive: true, force: true });
  }
}
