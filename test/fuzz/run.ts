// The fuzz driver: prepares a server (namespace, schemaless CRD, a few objects of each kind), sends the
// seed cases and N generated cases one at a time, and checks the properties on every response:
//   - no 5xx, and a response at all (no reset, no hang);
//   - every error is a Status (kind Status, status Failure, code = HTTP status) in the negotiated encoding;
//   - a rejected request leaves the store unchanged (keys and revisions under the case's guard prefix);
//   - the server stays up: no uncaught exception or unhandled rejection, and /readyz answers 200.
import fc from 'fast-check';
import { appendFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { decodeCbor } from '../../src/api/cbor.js';
import { decodeProtobufObject } from '../../src/api/protobuf/index.js';
import type { RevisionedStore } from '../../src/server/storage/types.js';
import { simpleCrd } from '../helpers/crd.js';
import { caseArb } from './arbitraries.js';
import { abbrev, describeCase, utf8, type FuzzCase } from './case.js';
import { seedCases } from './seeds.js';
import { collectionPath, CRD_GROUP, FUZZ_NS, TARGETS } from './targets.js';
import { Wire, type WireResponse } from './wire.js';

export interface FuzzServer {
  url: string;
  store: RevisionedStore;
}

export interface FuzzFailure {
  input: string;
  problem: string;
  status: number;
  response: string;
}

export interface FuzzReport {
  cases: number;
  seeds: number;
  fiveXX: number;
  crashes: number;
  noResponse: number;
  badStatus: number;
  storeChanged: number;
  /** Seeds past an upstream limit that were accepted. */
  acceptedOverLimit: number;
  /** Requests that set a timer past Node's 2^31-1 ms limit (it fires at once). */
  timerOverflows: number;
  byStatus: Record<number, number>;
  failures: FuzzFailure[];
  /** Every failure, grouped by problem (numbers and quoted values masked): count and first example. */
  problems: Map<string, { count: number; example: FuzzFailure }>;
  seconds: number;
}

export interface FuzzOptions {
  /** Generated cases (seeds are extra). */
  cases: number;
  seed?: number;
  includeSeeds?: boolean;
  /** The server decodes CBOR (CBORServingAndStorage on): include the CBOR seeds. */
  cbor?: boolean;
  /** Keep at most this many failure descriptions (counts are always complete). */
  keepFailures?: number;
  onProgress?: (done: number, report: FuzzReport) => void;
}

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };

/** Creates the fuzz namespace, the schemaless CRD and objects fz-0..fz-4 of every target kind. */
export async function prepareFuzzServer(server: FuzzServer): Promise<void> {
  const wire = new Wire(server.url, 10_000);
  const post = async (path: string, obj: unknown) => {
    const r = await wire.send({ method: 'POST', path, headers: JSON_HEADERS, body: utf8(JSON.stringify(obj)) });
    if (r.status !== 201 && r.status !== 409) throw new Error(`prepare: POST ${path} -> ${r.status} ${r.body}`);
  };
  try {
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: FUZZ_NS } });
    await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', simpleCrd({ group: CRD_GROUP, plural: 'widgets', kind: 'Widget' }));
    for (let i = 0; ; i++) {
      const r = await wire.send({ method: 'GET', path: `/apis/${CRD_GROUP}/v1/namespaces/${FUZZ_NS}/widgets`, headers: { Accept: 'application/json' } });
      if (r.status === 200) break;
      if (i > 200) throw new Error(`prepare: the fuzz CRD is not served (${r.status})`);
      await new Promise((res) => setTimeout(res, 25));
    }
    for (const t of TARGETS) for (let i = 0; i < 5; i++) await post(collectionPath(t, FUZZ_NS), t.make(`fz-${i}`, FUZZ_NS));
  } finally {
    wire.close();
  }
}

/** The first cases of a run: the seeds, then generated cases in batches (memory stays flat for large runs). */
export function* fuzzCases(opts: FuzzOptions): Generator<FuzzCase> {
  if (opts.includeSeeds ?? true) yield* seedCases({ cbor: opts.cbor ?? false });
  const seed = opts.seed ?? 0x5eed;
  const batch = 500;
  for (let done = 0, b = 0; done < opts.cases; b++) {
    const n = Math.min(batch, opts.cases - done);
    yield* fc.sample(caseArb, { numRuns: n, seed: seed + b });
    done += n;
  }
}

export async function runFuzz(server: FuzzServer, opts: FuzzOptions): Promise<FuzzReport> {
  const wire = new Wire(server.url);
  const keep = opts.keepFailures ?? 200;
  const report: FuzzReport = { cases: 0, seeds: 0, fiveXX: 0, crashes: 0, noResponse: 0, badStatus: 0, storeChanged: 0, acceptedOverLimit: 0, timerOverflows: 0, byStatus: {}, failures: [], problems: new Map(), seconds: 0 };
  const fail = (c: FuzzCase, problem: string, r: WireResponse) => {
    const f = { input: describeCase(c), problem, status: r.status, response: abbrev(r.body.toString('utf8').replace(/\s+/g, ' '), 300) };
    if (report.failures.length < keep) report.failures.push(f);
    const key = `${problem.replace(/\d+e\+\d+|\d{4,}/g, 'N').split('\n')[0]} | ${problemOfResponse(f.response)}`;
    const g = report.problems.get(key);
    if (g) g.count++;
    else report.problems.set(key, { count: 1, example: f });
  };
  // An uncaught exception or unhandled rejection in the (in-process) server is a crash.
  const crashes: string[] = [];
  const onCrash = (e: unknown) => crashes.push(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  // A timer past 2^31-1 ms fires after 1 ms (Node's TimeoutOverflowWarning): a watch that ends at once.
  const overflows: string[] = [];
  const onWarning = (w: Error) => {
    if (w.name === 'TimeoutOverflowWarning') overflows.push(w.message);
  };
  process.on('warning', onWarning);
  const seedCount = (opts.includeSeeds ?? true) ? seedCases({ cbor: opts.cbor ?? false }).length : 0;
  const trace = process.env.FUZZ_TRACE;
  // FUZZ_SKIP=<regexp of labels>: leave out inputs known to abort the process, to see past them while they are being fixed
  const skip = process.env.FUZZ_SKIP ? new RegExp(process.env.FUZZ_SKIP) : undefined;
  const t0 = performance.now();
  try {
    for (const c of fuzzCases(opts)) {
      const before = c.guard ? await snapshot(server.store, c.guard) : undefined;
      const crashesBefore = crashes.length;
      const overflowsBefore = overflows.length;
      // FUZZ_TRACE=<file>: each input is written before it is sent, so a fatal crash (OOM abort) names its input
      if (skip?.test(c.label)) continue;
      if (trace) appendFileSync(trace, describeCase(c) + '\n');
      const sent = performance.now();
      const r = await wire.send(c).catch((e: Error): WireResponse => ({ status: -1, headers: {}, body: Buffer.from(e.message), cut: false }));
      report.cases++;
      if (trace) appendFileSync(trace, `  -> ${r.status} in ${(performance.now() - sent).toFixed(0)} ms\n`);
      if (report.cases <= seedCount) report.seeds++;
      if (r.status === -1) continue; // the client refused to send it (e.g. a header node:http will not write): not a server input
      report.byStatus[r.status] = (report.byStatus[r.status] ?? 0) + 1;
      if (r.status === 0) {
        report.noResponse++;
        fail(c, r.cut ? 'no response: the request hung past the read window' : `no response (${r.error ?? 'connection closed'})`, r);
      } else if (r.status >= 500 && !tooLargeResourceVersion(c, r)) {
        report.fiveXX++;
        fail(c, `${r.status} for client input`, r);
      }
      if (c.expectReject && r.status > 0 && r.status < 400) {
        report.acceptedOverLimit++;
        fail(c, `accepted (${r.status}) an input upstream rejects`, r);
      }
      if (r.status >= 400 && c.method !== 'HEAD') {
        const problem = statusProblem(r);
        if (problem) {
          report.badStatus++;
          fail(c, problem, r);
        }
      }
      if (before && r.status >= 400) {
        const after = await snapshot(server.store, c.guard!);
        const diff = diffSnapshots(before, after);
        if (diff) {
          report.storeChanged++;
          fail(c, `rejected request changed the store: ${diff}`, r);
        }
      }
      // warnings are emitted on the next tick: give them one before looking
      if (/timeout/i.test(c.path)) await new Promise((res) => setImmediate(res));
      if (overflows.length > overflowsBefore) {
        report.timerOverflows++;
        fail(c, `timer overflow: ${overflows.at(-1)}`, r);
      }
      const crashed = crashes.length > crashesBefore;
      if (crashed || r.status === 0 || report.cases % 100 === 0) {
        // a busy event loop (an input still being chewed on) gets a few read windows before the server counts as gone
        let ready = await wire.send({ method: 'GET', path: '/readyz', headers: {} });
        for (let i = 0; i < 3 && ready.status === 0; i++) ready = await wire.send({ method: 'GET', path: '/readyz', headers: {} });
        if (crashed || ready.status !== 200) {
          report.crashes++;
          fail(c, `server crashed: ${crashed ? abbrev(crashes.at(-1)!, 400) : `/readyz -> ${ready.status} ${ready.error ?? (ready.cut ? 'no answer' : '')}`}`, r);
          if (ready.status === 0) break; // the server is gone: nothing more to learn
        }
      }
      if (opts.onProgress && report.cases % 1000 === 0) opts.onProgress(report.cases, report);
    }
  } finally {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    process.off('warning', onWarning);
    wire.close();
    report.seconds = (performance.now() - t0) / 1000;
  }
  return report;
}

/**
 * Upstream answers a read at a valid resourceVersion the store has not reached with 504 (storage/errors.go,
 * reason Timeout, cause ResourceVersionTooLarge): the one 5xx for client input. A resourceVersion that is
 * not a uint64 is a 400 upstream (strconv.ParseUint), never a wait.
 */
function tooLargeResourceVersion(c: FuzzCase, r: WireResponse): boolean {
  if (r.status !== 504) return false;
  const rv = new URL(c.path, 'http://x').searchParams.get('resourceVersion') ?? '';
  if (!/^\d{1,20}$/.test(rv) || BigInt(rv) > 2n ** 64n - 1n) return false;
  const st = decodeBody(r);
  return st?.reason === 'Timeout' && st.details?.causes?.some((x: { reason?: string }) => x.reason === 'ResourceVersionTooLarge');
}

function decodeBody(r: WireResponse): any {
  const ct = String(r.headers['content-type'] ?? '');
  if (ct.includes('protobuf')) return decodeProtobufObject(r.body);
  if (ct.includes('cbor')) return decodeCbor(r.body);
  if (ct.includes('yaml')) return parseYaml(r.body.toString('utf8'));
  if (ct.includes('json')) return JSON.parse(r.body.toString('utf8'));
  throw new Error(`Content-Type "${ct}" is not a Status encoding`);
}

/** Why an error response is not a Status in the negotiated encoding (undefined = it is one). */
export function statusProblem(r: WireResponse): string | undefined {
  if (r.cut) return 'error response body never ended';
  let obj: any;
  try {
    obj = decodeBody(r);
  } catch (e) {
    return `error body is not a decodable Status: ${(e as Error).message}`;
  }
  if (obj?.kind !== 'Status') return `error body kind is ${JSON.stringify(obj?.kind)}, not Status`;
  if (obj.status !== 'Failure') return `Status.status is ${JSON.stringify(obj.status)}`;
  if (obj.code !== r.status) return `Status.code ${obj.code} != HTTP ${r.status}`;
  if (typeof obj.message !== 'string' && obj.message !== undefined) return 'Status.message is not a string';
  return undefined;
}

type Snapshot = Map<string, { rev: number; terminating: boolean }>;

async function snapshot(store: RevisionedStore, prefix: string): Promise<Snapshot> {
  const res = await store.range({ prefix });
  // the components' Leases are renewed by their holders (the controller manager's leader lease every 2 s)
  return new Map(res.kvs.filter((kv) => !/\/leases\/(kube-system|kube-node-lease)\//.test(kv.key)).map((kv) => [kv.key, { rev: kv.modRevision, terminating: terminating(kv.value) }]));
}

/** An object already being deleted: the controllers finishing an accepted delete may update or remove it meanwhile. */
function terminating(value: Uint8Array): boolean {
  try {
    return Boolean((JSON.parse(Buffer.from(value).toString('utf8')) as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp);
  } catch {
    return false;
  }
}

function diffSnapshots(a: Snapshot, b: Snapshot): string | undefined {
  const out: string[] = [];
  for (const [k, { rev }] of b) {
    const was = a.get(k);
    if (was === undefined) out.push(`created ${k}`);
    else if (was.rev !== rev && !was.terminating) out.push(`updated ${k}`);
  }
  for (const [k, was] of a) if (!b.has(k) && !was.terminating) out.push(`deleted ${k}`);
  return out.length ? out.slice(0, 3).join(', ') + (out.length > 3 ? ` (+${out.length - 3})` : '') : undefined;
}

/** The message of a Status response with names and numbers masked, for grouping. */
function problemOfResponse(text: string): string {
  const m = text.match(/"message":"((?:[^"\\]|\\.)*)"/) ?? text.match(/message: (.*?) reason:/);
  return (m?.[1] ?? text.slice(0, 80)).replace(/\\?"[^"]*\\?"/g, '"…"').replace(/\d+/g, 'N').slice(0, 160);
}

/** A one-paragraph summary plus the failures grouped by problem, for test output and the bench. */
export function formatReport(r: FuzzReport): string {
  const lines = [
    `fuzz: ${r.cases} cases (${r.seeds} seeds) in ${r.seconds.toFixed(1)} s = ${(r.cases / r.seconds).toFixed(0)} cases/s; 5xx ${r.fiveXX}, crashes ${r.crashes}, no response ${r.noResponse}, non-Status errors ${r.badStatus}, store changed by rejected requests ${r.storeChanged}, over-limit inputs accepted ${r.acceptedOverLimit}, timer overflows ${r.timerOverflows}`,
    `statuses: ${Object.entries(r.byStatus)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ')}`,
  ];
  if (r.problems.size) lines.push(`distinct problems (${r.problems.size}):`);
  for (const [key, g] of r.problems) lines.push(`  ${g.count}× ${key}\n    e.g. input: ${g.example.input}\n    response ${g.example.status}: ${g.example.response}`);
  return lines.join('\n');
}
