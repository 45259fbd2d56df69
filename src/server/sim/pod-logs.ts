// What a simulated container writes to its log. A log is a pure function of the pod object: each container
// start (state.running / state.terminated, and lastState.terminated for the previous start) prints a start
// line, then the lines the pod asks for with the `sim.periscope.dev/log` annotation, and, when it ended, why.
// Nothing is stored: lines are computed lazily from the start time, so a generator at 100 lines/s over days
// costs nothing until read, and the previous start's log is there after a restart or a server restart.
//
// `sim.periscope.dev/log` is either plain text (its lines are printed once, when each container starts) or
// a JSON generator: {"rate": 2, "levels": {"info": 8, "warn": 1, "error": 1}, "format": "json"|"text",
// "messages": ["..."], "container": "name"} — `rate` lines per second (0.01–100), levels weighted, messages
// picked deterministically (seeded by pod uid, container, start and line number).
import { FAIL_ANNOTATION } from '../controllers/simulated-kubelet.js';
import type { KubeObject } from '../registry/types.js';

export const LOG_ANNOTATION = 'sim.periscope.dev/log';

type Obj = Record<string, any>;

export interface LogLine {
  /** ms since the epoch */
  readonly ts: number;
  readonly stream: 'stdout' | 'stderr';
  readonly text: string;
}

interface Generator {
  periodMs: number;
  levels: [string, number][];
  total: number;
  json: boolean;
  messages: string[];
}

/** One start of one container, and what it printed. */
export interface ContainerRun {
  readonly container: string;
  /** restart number of this start (0 for the first) */
  readonly index: number;
  readonly containerID: string;
  readonly startedAt: number;
  /** when it ended, if it has */
  readonly finishedAt?: number;
  readonly exitCode?: number;
  readonly reason?: string;
  /** number of lines printed up to `at` (ms) */
  count(at: number): number;
  /** the line with this index (0 ≤ i < count(∞)) */
  line(i: number): LogLine;
  /** the index of the first line at or after `ts` */
  firstAtOrAfter(ts: number): number;
}

const MAX_STATIC_LINES = 10_000;
const DEFAULT_MESSAGES = [
  'GET /healthz 200 1ms',
  'GET /api/items 200 12ms',
  'POST /api/orders 201 34ms',
  'cache refreshed',
  'connected to upstream',
  'processed batch',
  'slow request: GET /api/report took 1204ms',
  'retrying connection to database',
  'request failed: upstream timed out',
];

function parseGenerator(v: Obj): Generator | undefined {
  const rate = typeof v.rate === 'number' && Number.isFinite(v.rate) ? Math.min(100, Math.max(0.01, v.rate)) : 1;
  const levels: [string, number][] = [];
  const lv = v.levels && typeof v.levels === 'object' && !Array.isArray(v.levels) ? (v.levels as Obj) : { info: 8, warn: 1, error: 1 };
  for (const [k, w] of Object.entries(lv).slice(0, 16)) if (typeof w === 'number' && w > 0 && Number.isFinite(w)) levels.push([k.slice(0, 16), w]);
  if (levels.length === 0) levels.push(['info', 1]);
  const messages = Array.isArray(v.messages) ? v.messages.filter((m): m is string => typeof m === 'string').slice(0, 1000).map((m) => m.slice(0, 4096)) : [];
  return { periodMs: 1000 / rate, levels, total: levels.reduce((a, [, w]) => a + w, 0), json: v.format === 'json', messages: messages.length ? messages : DEFAULT_MESSAGES };
}

/** What the annotation asks a container to print: static lines and/or a generator. */
function logSpec(pod: KubeObject, container: string): { lines: string[]; gen?: Generator } {
  const raw = pod.metadata?.annotations?.[LOG_ANNOTATION];
  if (typeof raw !== 'string' || raw === '') return { lines: [] };
  if (raw.trimStart().startsWith('{')) {
    try {
      const v = JSON.parse(raw) as Obj;
      if (v && typeof v === 'object') {
        if (typeof v.container === 'string' && v.container !== container) return { lines: [] };
        const lines = Array.isArray(v.lines) ? v.lines.filter((l): l is string => typeof l === 'string').slice(0, MAX_STATIC_LINES) : [];
        return { lines, gen: v.rate === undefined && lines.length ? undefined : parseGenerator(v) };
      }
    } catch {
      // not JSON: printed as text
    }
  }
  return { lines: raw.replace(/\n$/, '').split('\n').slice(0, MAX_STATIC_LINES) };
}

/** A small deterministic hash → [0, 1). */
function unit(seed: string, i: number): number {
  let h = 2166136261;
  for (let k = 0; k < seed.length; k++) h = Math.imul(h ^ seed.charCodeAt(k), 16777619);
  h = Math.imul(h ^ i, 2246822507);
  h ^= h >>> 13;
  h = Math.imul(h, 3266489909);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

export function formatTimestamp(ms: number): string {
  // kubelet prints RFC3339Nano with a fixed 9-digit fraction
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

function failureText(pod: KubeObject, name: string, exitCode: number): string | undefined {
  const fail = pod.metadata?.annotations?.[FAIL_ANNOTATION];
  if (exitCode === 0) return `[periscope-sim] container ${name} completed (exit code 0)`;
  if (fail === 'crash' || fail === 'exit')
    return `[periscope-sim] container ${name} is failing: the pod's annotation ${FAIL_ANNOTATION}=${fail} makes it exit with code ${exitCode}`;
  return `[periscope-sim] container ${name} exited with code ${exitCode}`;
}

function makeRun(pod: KubeObject, c: Obj, index: number, containerID: string, startedAt: number, term?: Obj): ContainerRun {
  const name = String(c.name);
  const image = String((spec(pod).containers ?? []).find((x: Obj) => x?.name === name)?.image ?? c.image ?? '');
  const { lines, gen } = logSpec(pod, name);
  const finishedAt = term ? Date.parse(term.finishedAt) || startedAt : undefined;
  const exitCode = term ? Number(term.exitCode ?? 0) : undefined;
  const head: LogLine[] = [
    { ts: startedAt, stream: 'stdout', text: `[periscope-sim] container ${name} started (image ${image}, restart ${index})` },
    ...lines.map((text) => ({ ts: startedAt, stream: 'stdout' as const, text })),
  ];
  const endLine: LogLine | undefined =
    finishedAt !== undefined ? { ts: finishedAt, stream: exitCode === 0 ? 'stdout' : 'stderr', text: failureText(pod, name, exitCode!)! } : undefined;
  const seed = `${pod.metadata?.uid}/${name}/${index}`;
  // generated line i is printed at startedAt + (i+1)·period, and never after the container ended
  const genCount = (at: number) => {
    if (!gen) return 0;
    const until = finishedAt !== undefined ? Math.min(at, finishedAt) : at;
    return until < startedAt ? 0 : Math.floor((until - startedAt) / gen.periodMs);
  };
  const genLine = (i: number): LogLine => {
    const g = gen!;
    const ts = startedAt + Math.round((i + 1) * g.periodMs);
    let pick = unit(seed, i * 2) * g.total;
    let level = g.levels[0]![0];
    for (const [l, w] of g.levels) {
      if (pick < w) {
        level = l;
        break;
      }
      pick -= w;
    }
    const msg = g.messages[Math.floor(unit(seed, i * 2 + 1) * g.messages.length)]!;
    const text = g.json ? JSON.stringify({ time: new Date(ts).toISOString(), level, msg, seq: i }) : `${new Date(ts).toISOString()} ${level.toUpperCase()} ${msg}`;
    return { ts, stream: level === 'error' || level === 'warn' ? 'stderr' : 'stdout', text };
  };
  const count = (at: number) => (at < startedAt ? 0 : head.length + genCount(at) + (endLine && at >= endLine.ts ? 1 : 0));
  return {
    container: name,
    index,
    containerID,
    startedAt,
    finishedAt,
    exitCode,
    reason: term?.reason,
    count,
    line(i) {
      if (i < head.length) return head[i]!;
      const g = i - head.length;
      if (g < genCount(Infinity)) return genLine(g);
      return endLine!;
    },
    firstAtOrAfter(ts) {
      if (ts <= startedAt) return 0;
      if (!gen) return endLine && ts <= endLine.ts ? head.length : Infinity;
      // generated line i has ts ≥ ts once (i+1)·period ≥ ts − startedAt
      const i = Math.max(0, Math.ceil((ts - startedAt) / gen.periodMs - 1));
      let k = i;
      while (k > 0 && genLine(k - 1).ts >= ts) k--;
      while (k < genCount(Infinity) && genLine(k).ts < ts) k++;
      if (k < genCount(Infinity)) return head.length + k;
      return endLine && ts <= endLine.ts ? head.length + genCount(Infinity) : Infinity;
    },
  };
}

function spec(pod: KubeObject): Obj {
  return (pod['spec'] as Obj) ?? {};
}

export type RunLookup = { run: ContainerRun } | { error: string };

/**
 * The start of `container` whose log `kubectl logs [--previous]` reads, or the kubelet's error for it
 * (pkg/kubelet/kubelet_pods.go validateContainerLogStatus).
 */
export function containerRun(pod: KubeObject, container: string, previous: boolean): RunLookup {
  const name = pod.metadata?.name ?? '';
  const st = (pod['status'] as Obj) ?? {};
  const all: Obj[] = [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? []), ...(st.ephemeralContainerStatuses ?? [])];
  const cs = all.find((c) => c?.name === container);
  if (!cs) return { error: `container "${container}" in pod "${name}" is waiting to start: ContainerCreating` };
  const restarts = Number(cs.restartCount ?? 0);
  const last = cs.lastState?.terminated as Obj | undefined;
  const prevRun = () => makeRun(pod, cs, Math.max(0, restarts - 1), String(last!.containerID ?? ''), Date.parse(last!.startedAt) || Date.parse(last!.finishedAt) || 0, last);
  if (previous) {
    if (!last) return { error: `previous terminated container "${container}" in pod "${name}" not found` };
    return { run: prevRun() };
  }
  const state = (cs.state ?? {}) as Obj;
  if (state.running) return { run: makeRun(pod, cs, restarts, String(cs.containerID ?? ''), Date.parse(state.running.startedAt) || 0) };
  if (state.terminated) {
    const t = state.terminated as Obj;
    if (!t.containerID && !cs.containerID) return { error: `container "${container}" in pod "${name}" is terminated` };
    return { run: makeRun(pod, cs, restarts, String(t.containerID ?? cs.containerID), Date.parse(t.startedAt) || 0, t) };
  }
  if (state.waiting && last) return { run: prevRun() };
  // the kubelet's words for the common pending failures
  const reason = state.waiting?.reason ?? 'ContainerCreating';
  if (reason === 'ErrImagePull') return { error: `container "${container}" in pod "${name}" is waiting to start: image can't be pulled` };
  if (reason === 'ImagePullBackOff') return { error: `container "${container}" in pod "${name}" is waiting to start: trying and failing to pull image` };
  return { error: `container "${container}" in pod "${name}" is waiting to start: ${reason}` };
}
