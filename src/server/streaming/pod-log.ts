// GET pods/{name}/log: PodLogOptions as upstream validates them (pkg/registry/core/pod/rest/log.go,
// pkg/apis/core/validation ValidatePodLogOptions) and the log of the simulated container, streamed with
// backpressure; with follow it goes on until the container stops, limitBytes is reached or the client goes.
import type { ServerResponse } from 'node:http';
import { errors, failure } from '../../api/status.js';
import type { KubeObject } from '../registry/types.js';
import { delay } from '../sim/abortable.js';
import { containerRun, formatTimestamp, type ContainerRun, type LogLine } from '../sim/pod-logs.js';

export interface LogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: number;
  limitBytes?: number;
  stream: 'All' | 'Stdout' | 'Stderr';
}

/** Go's strconv.ParseBool truths, as upstream's query conversion reads booleans (Python's client sends `True`). */
export const queryBool = (v: string | null): boolean => v !== null && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);
const bool = queryBool;

function int(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d{1,19}$/.test(v)) throw errors.badRequest(`unable to parse "${name}" value ${JSON.stringify(v.slice(0, 100))}: strconv.ParseInt: parsing ${JSON.stringify(v.slice(0, 100))}: invalid syntax`);
  return Number(v);
}

function invalid(field: string, value: unknown, detail: string) {
  return errors.invalid('', 'PodLogOptions', '', [{ type: 'FieldValueInvalid', field, detail: `Invalid value: ${JSON.stringify(value)}: ${detail}` }]);
}

/** PodLogOptions from the query, validated as upstream (422 kind PodLogOptions). */
export function parseLogOptions(query: URLSearchParams): LogOptions {
  const o: LogOptions = {
    container: query.get('container') ?? '',
    follow: bool(query.get('follow')),
    previous: bool(query.get('previous')),
    timestamps: bool(query.get('timestamps')),
    tailLines: int(query, 'tailLines'),
    sinceSeconds: int(query, 'sinceSeconds'),
    limitBytes: int(query, 'limitBytes'),
    stream: 'All',
  };
  const st = query.get('stream');
  if (st !== null && st !== '') {
    if (st !== 'All' && st !== 'Stdout' && st !== 'Stderr')
      throw errors.invalid('', 'PodLogOptions', '', [{ type: 'FieldValueNotSupported', field: 'stream', detail: `Unsupported value: ${JSON.stringify(st)}: supported values: "All", "Stderr", "Stdout"` }]);
    o.stream = st;
  }
  const since = query.get('sinceTime');
  if (since !== null && since !== '') {
    const t = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(since) ? Date.parse(since) : NaN;
    if (Number.isNaN(t)) throw errors.badRequest(`parsing time ${JSON.stringify(since.slice(0, 100))} as "2006-01-02T15:04:05Z07:00": cannot parse`);
    o.sinceTime = t;
  }
  if (o.tailLines !== undefined && o.tailLines < 0) throw invalid('tailLines', o.tailLines, 'must be greater than or equal to 0');
  if (o.limitBytes !== undefined && o.limitBytes < 1) throw invalid('limitBytes', o.limitBytes, 'must be greater than 0');
  if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) throw invalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0');
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined)
    throw errors.invalid('', 'PodLogOptions', '', [{ type: 'FieldValueForbidden', field: '', detail: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' }]);
  if (o.stream !== 'All' && o.tailLines !== undefined)
    throw errors.invalid('', 'PodLogOptions', '', [{ type: 'FieldValueForbidden', field: '', detail: 'Forbidden: `tailLines` and specific `stream` are mutually exclusive for now' }]);
  return o;
}

/** Containers of a pod in upstream's VisitContainers order (init, regular, ephemeral). */
export function containerNames(pod: KubeObject): string[] {
  const s = (pod['spec'] as Record<string, any>) ?? {};
  return [...(s.initContainers ?? []), ...(s.containers ?? []), ...(s.ephemeralContainers ?? [])].map((c: any) => String(c?.name ?? ''));
}

/** The container a request names, or the only one (pkg/registry/core/pod/strategy.go validateContainer). */
export function validateContainer(container: string, pod: KubeObject): string {
  const name = pod.metadata?.name ?? '';
  const s = (pod['spec'] as Record<string, any>) ?? {};
  if (container === '') {
    const regular: any[] = s.containers ?? [];
    if (regular.length === 1) return String(regular[0].name);
    if (regular.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
    throw errors.badRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`);
  }
  if (!containerNames(pod).includes(container)) throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** How often a followed log looks for new lines (and whether its container stopped). */
const FOLLOW_POLL_MS = 200;

export interface LogSource {
  /** the pod as it is now (undefined once deleted) */
  pod(): KubeObject | undefined;
  now(): number;
}

/**
 * Serves the log. Checks (container, the kubelet's state errors) run before anything is written, so their
 * errors are plain Status answers.
 */
export async function serveLog(res: ServerResponse, pod: KubeObject, opts: LogOptions, source: LogSource, signal: AbortSignal): Promise<void> {
  const container = validateContainer(opts.container, pod);
  if (!(pod['spec'] as Record<string, any>)?.nodeName) {
    // no kubelet to ask yet: upstream answers with no content
    res.writeHead(204);
    res.end();
    return;
  }
  const found = containerRun(pod, container, opts.previous);
  if ('error' in found) throw failure(400, 'BadRequest', found.error);
  const run = found.run;
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private', 'X-Content-Type-Options': 'nosniff' });
  res.flushHeaders();
  let remaining = opts.limitBytes ?? Infinity;
  const now = source.now();
  let end = run.count(now);
  let i = 0;
  if (opts.sinceSeconds !== undefined || opts.sinceTime !== undefined) {
    const since = opts.sinceTime ?? now - opts.sinceSeconds! * 1000;
    i = Math.min(end, run.firstAtOrAfter(since));
  }
  if (opts.tailLines !== undefined) i = Math.max(i, end - opts.tailLines);
  const write = async (line: LogLine): Promise<boolean> => {
    if (opts.stream === 'Stdout' && line.stream !== 'stdout') return true;
    if (opts.stream === 'Stderr' && line.stream !== 'stderr') return true;
    let buf = Buffer.from(`${opts.timestamps ? formatTimestamp(line.ts) + ' ' : ''}${line.text}\n`);
    if (buf.length > remaining) buf = buf.subarray(0, remaining);
    remaining -= buf.length;
    if (!res.write(buf)) await new Promise<void>((r) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        r();
      };
      res.on('drain', done);
      res.on('close', done);
    });
    return remaining > 0 && !signal.aborted && !res.destroyed;
  };
  for (;;) {
    for (; i < end; i++) if (!(await write(run.line(i)))) return void res.end();
    if (!opts.follow || run.finishedAt !== undefined) return void res.end();
    // follow: wait for more lines; end once this start of the container is over (or the pod is gone)
    await delay(FOLLOW_POLL_MS, signal);
    if (signal.aborted || res.destroyed) return;
    const cur = source.pod();
    const again = cur && cur.metadata?.uid === pod.metadata?.uid ? containerRun(cur, container, false) : undefined;
    if (!again || 'error' in again || again.run.containerID !== run.containerID) {
      // this start is over: what it printed up to now, then the end
      const lastFound = cur ? sameRun(cur, container, run) : undefined;
      const final = lastFound ?? run;
      const finalEnd = final.finishedAt !== undefined ? final.count(Infinity) : final.count(source.now());
      for (; i < finalEnd; i++) if (!(await write(final.line(i)))) break;
      return void res.end();
    }
    if (again.run.finishedAt !== undefined) {
      const fin = again.run;
      for (end = fin.count(Infinity); i < end; i++) if (!(await write(fin.line(i)))) break;
      return void res.end();
    }
    end = again.run.count(source.now());
  }
}

/** The followed start as the pod now reports it (after it ended it may be the previous one). */
function sameRun(pod: KubeObject, container: string, run: ContainerRun): ContainerRun | undefined {
  for (const previous of [false, true]) {
    const f = containerRun(pod, container, previous);
    if ('run' in f && f.run.containerID === run.containerID) return f.run;
  }
  return undefined;
}
