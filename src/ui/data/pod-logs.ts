// Pod logs over the upstream pods/log subresource (the same path on the embedded server and through a
// kubeconfig proxy): a plain-text stream, read line by line into a bounded buffer. Lines are always asked
// with timestamps, so a follow that ends (container restarted, server closed the stream) resumes from the
// last line seen with sinceTime, dropping the lines it already has.
import { useEffect, useRef, useState } from 'react';
import { resourcePath, type Query } from '../../client/index.js';
import { api } from '../api.js';

export interface LogOptions {
  container?: string;
  follow?: boolean;
  previous?: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

export interface LogTarget {
  namespace: string;
  pod: string;
  container: string;
  /** Shown before each line when several streams share a view (`pod/container`). */
  prefix?: string;
}

export function logPath(t: Pick<LogTarget, 'namespace' | 'pod'>): string {
  return resourcePath({ group: '', version: 'v1', resource: 'pods', namespace: t.namespace, name: t.pod, subresource: 'log' });
}

/** The pods/log query (PodLogOptions), timestamps always on: the view strips them when hidden. */
export function logQuery(o: LogOptions): Query {
  return {
    container: o.container,
    follow: o.follow ? 'true' : undefined,
    previous: o.previous ? 'true' : undefined,
    timestamps: 'true',
    // sinceTime and sinceSeconds are exclusive (422 upstream); a resume names the time
    sinceTime: o.sinceTime,
    sinceSeconds: o.sinceTime ? undefined : o.sinceSeconds,
    tailLines: o.sinceTime ? undefined : o.tailLines,
    limitBytes: o.limitBytes,
  };
}

export interface LogLine {
  /** Position in the view's whole history (never reused, so trimming the front keeps later numbers). */
  seq: number;
  /** RFC 3339 timestamp the server put before the line, if any. */
  ts: string;
  text: string;
  prefix?: string;
}

const TS = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) /;

/** Splits `2026-…Z text` into its timestamp and text. */
export function splitTimestamp(line: string): { ts: string; text: string } {
  const m = TS.exec(line);
  return m ? { ts: m[1]!, text: line.slice(m[0].length) } : { ts: '', text: line };
}

/** Lines of a byte stream: whole lines out, the unfinished tail kept for the next chunk. */
export class LineSplitter {
  private tail = '';
  private readonly dec = new TextDecoder();
  push(chunk: Uint8Array): string[] {
    const text = this.tail + this.dec.decode(chunk, { stream: true });
    const parts = text.split('\n');
    this.tail = parts.pop()!;
    return parts.map((p) => (p.endsWith('\r') ? p.slice(0, -1) : p));
  }
  /** The unfinished last line, at the end of the stream. */
  end(): string[] {
    const rest = this.tail + this.dec.decode();
    this.tail = '';
    return rest ? [rest] : [];
  }
}

/**
 * The last `max` lines in a ring: line `seq` lives at slot `seq % max`, so appending overwrites the oldest
 * line in O(1) and a line is found by seq in O(1); nothing is ever copied or shifted (a 50k-line trim as
 * one slice was the view's longest task).
 */
export class LogBuffer {
  private readonly ring: (LogLine | undefined)[];
  private size = 0;
  private nextSeq = 0;
  /** Bumps on every change (the view re-renders on it). */
  version = 0;
  /** Lines dropped from the front to stay bounded. */
  dropped = 0;
  constructor(readonly max = 50_000) {
    if (!(max >= 1)) throw new RangeError('LogBuffer needs room for a line');
    this.ring = new Array<LogLine | undefined>(max);
  }

  append(lines: readonly { ts: string; text: string; prefix?: string }[]): void {
    if (!lines.length) return;
    for (const l of lines) {
      const seq = this.nextSeq++;
      if (this.size === this.max) this.dropped++;
      else this.size++;
      this.ring[seq % this.max] = { seq, ts: l.ts, text: l.text, prefix: l.prefix };
    }
    this.version++;
  }

  clear(): void {
    this.dropped += this.size;
    for (let s = this.firstSeq; s < this.nextSeq; s++) this.ring[s % this.max] = undefined;
    this.size = 0;
    this.version++;
  }

  get length(): number {
    return this.size;
  }
  get firstSeq(): number {
    return this.nextSeq - this.size;
  }
  /** Seq of the newest line (firstSeq - 1 when empty). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }
  /** Line by seq (undefined once dropped). */
  at(seq: number): LogLine | undefined {
    return seq >= this.nextSeq - this.size && seq < this.nextSeq ? this.ring[seq % this.max] : undefined;
  }
  /** Every line held, oldest first: a copy, O(n) (download only). */
  all(): LogLine[] {
    const out: LogLine[] = [];
    for (let s = this.firstSeq; s < this.nextSeq; s++) out.push(this.ring[s % this.max]!);
    return out;
  }
}

type Incoming = { ts: string; text: string; prefix?: string };

/**
 * Lines from any number of streams, handed to the buffer once a frame (`schedule`, requestAnimationFrame
 * in the page): streams push as chunks arrive, the view sees one change per frame. What waits is bounded
 * too: past `max` waiting lines (a hidden tab gets no frames) they go straight into the ring, which keeps
 * only the newest anyway.
 */
export class LogBatcher {
  private pending: Incoming[][] = [];
  private waiting = 0;
  private scheduled = false;
  private closed = false;
  constructor(
    private readonly buffer: LogBuffer,
    private readonly schedule: (flush: () => void) => void,
    private readonly onFlush: (version: number) => void,
  ) {}

  push(lines: Incoming[]): void {
    if (this.closed || !lines.length) return;
    this.pending.push(lines);
    this.waiting += lines.length;
    if (this.waiting > this.buffer.max) this.drain();
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(() => {
        this.scheduled = false;
        if (this.closed) return;
        this.drain();
        this.onFlush(this.buffer.version);
      });
    }
  }

  /** Lines waiting for the next frame. */
  get backlog(): number {
    return this.waiting;
  }

  private drain(): void {
    for (const chunk of this.pending) this.buffer.append(chunk);
    this.pending = [];
    this.waiting = 0;
  }

  close(): void {
    this.closed = true;
    this.pending = [];
    this.waiting = 0;
  }
}

/** Resume point of a stream: the last timestamp seen and how many lines carried it (to drop on resume). */
export class ResumeMark {
  ts = '';
  sameTs: string[] = [];
  note(ts: string, text: string): void {
    if (!ts) return;
    if (ts !== this.ts) {
      this.ts = ts;
      this.sameTs = [];
    }
    this.sameTs.push(text);
  }
  /** After a resume from `ts`: drops the lines at exactly `ts` that were already seen, once each. */
  filter(): (ts: string, text: string) => boolean {
    const seen = [...this.sameTs];
    const from = this.ts;
    return (ts, text) => {
      if (!from || ts !== from) return true;
      const i = seen.indexOf(text);
      if (i < 0) return true;
      seen.splice(i, 1);
      return false;
    };
  }
}

export interface StreamHandlers {
  onLines(lines: { ts: string; text: string; prefix?: string }[]): void;
  /** The stream ended (EOF); `error` set when it failed or never started. */
  onEnd(error?: unknown): void;
  onOpen?(): void;
}

/**
 * Reads one pods/log stream until it ends or `signal` aborts. Resolves when done. A 204 (no node yet)
 * ends at once with no lines, as upstream answers.
 */
export async function readLogStream(target: LogTarget, opts: LogOptions, h: StreamHandlers, signal: AbortSignal, mark?: ResumeMark): Promise<void> {
  const keep = opts.sinceTime && mark ? mark.filter() : undefined;
  let res: Response;
  try {
    res = await api.open('GET', logPath(target), { query: logQuery({ ...opts, container: target.container }), accept: 'text/plain, */*', signal });
  } catch (e) {
    if (!signal.aborted) h.onEnd(e);
    return;
  }
  h.onOpen?.();
  if (!res.body || res.status === 204) {
    h.onEnd();
    return;
  }
  const reader = res.body.getReader();
  const split = new LineSplitter();
  const emit = (raw: string[]) => {
    const out: { ts: string; text: string; prefix?: string }[] = [];
    for (const r of raw) {
      const { ts, text } = splitTimestamp(r);
      if (keep && !keep(ts, text)) continue;
      mark?.note(ts, text);
      out.push({ ts, text, prefix: target.prefix });
    }
    if (out.length) h.onLines(out);
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      emit(split.push(value));
    }
    emit(split.end());
    h.onEnd();
  } catch (e) {
    if (!signal.aborted) h.onEnd(e);
  } finally {
    reader.releaseLock?.();
  }
}

export type StreamState = { phase: 'connecting' | 'streaming' | 'ended' | 'reconnecting'; error?: undefined } | { phase: 'error'; error: unknown };

const RETRY_MS = [1000, 2000, 5000, 10_000];

function retryable(e: unknown): boolean {
  const code = (e as { code?: number } | undefined)?.code;
  // forbidden, gone, or a request the server will never accept: asking again changes nothing
  return code === undefined || code === 400 || code === 429 || code >= 500;
}

/**
 * Streams of several log targets into one bounded buffer, batched to one change a frame. With
 * follow, a stream that ends is resumed (backing off while nothing comes) until the options change.
 */
export function useLogStreams(targets: readonly LogTarget[], opts: LogOptions, max = 50_000): { buffer: LogBuffer; version: number; states: Record<string, StreamState> } {
  const bufRef = useRef<LogBuffer>(undefined);
  const [version, setVersion] = useState(0);
  const [states, setStates] = useState<Record<string, StreamState>>({});
  const key = JSON.stringify([targets.map((t) => [t.namespace, t.pod, t.container, t.prefix]), opts]);
  if (!bufRef.current) bufRef.current = new LogBuffer(max);
  const buffer = bufRef.current;

  useEffect(() => {
    const ac = new AbortController();
    buffer.clear();
    setStates({});
    setVersion(buffer.version);
    let frame = 0;
    const batcher = new LogBatcher(
      buffer,
      (flush) => {
        frame = requestAnimationFrame(() => {
          frame = 0;
          flush();
        });
      },
      (v) => !ac.signal.aborted && setVersion(v),
    );
    const setState = (id: string, s: StreamState) => !ac.signal.aborted && setStates((prev) => ({ ...prev, [id]: s }));
    const sleep = (ms: number) => new Promise<void>((r) => {
      const t = setTimeout(r, ms);
      ac.signal.addEventListener('abort', () => { clearTimeout(t); r(); }, { once: true });
    });
    for (const t of targets) {
      const id = `${t.pod}/${t.container}`;
      void (async () => {
        const mark = new ResumeMark();
        let attempt = 0;
        while (!ac.signal.aborted) {
          let got = false;
          let failed: unknown;
          setState(id, { phase: attempt ? 'reconnecting' : 'connecting' });
          await readLogStream(
            t,
            mark.ts ? { ...opts, sinceTime: mark.ts } : opts,
            {
              onOpen: () => setState(id, { phase: 'streaming' }),
              onLines: (lines) => {
                got = true;
                batcher.push(lines);
              },
              onEnd: (e) => {
                failed = e;
              },
            },
            ac.signal,
            mark,
          );
          if (ac.signal.aborted) return;
          if (failed !== undefined) setState(id, { phase: 'error', error: failed });
          else setState(id, { phase: 'ended' });
          if (!opts.follow || opts.previous || (failed !== undefined && !retryable(failed))) return;
          attempt = got ? 1 : attempt + 1;
          await sleep(RETRY_MS[Math.min(attempt - 1, RETRY_MS.length - 1)]!);
        }
      })();
    }
    return () => {
      ac.abort();
      batcher.close();
      if (frame) cancelAnimationFrame(frame);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, buffer]);

  return { buffer, version, states };
}
