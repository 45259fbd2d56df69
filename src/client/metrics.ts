// The Prometheus text format (0.0.4) as a server's /metrics serves it, read incrementally with bounds
// (bytes read, line length, samples kept), and the feature gates upstream publishes there
// (`kubernetes_feature_enabled{name,stage}`). Hostile or broken text never throws: bad lines are counted.
import type { ApiClient } from './http.js';
import { isAbort } from './errors.js';

export interface MetricSample {
  name: string;
  /** Label name → value (a null-prototype object: label names never reach Object.prototype). */
  labels: Record<string, string>;
  value: number;
}

export interface ParseOptions {
  /** Keep samples of these metric names only (others are skipped before their labels are parsed). */
  names?: ReadonlySet<string>;
  /** Samples kept at most; the rest is dropped and `truncated` set. */
  maxSamples?: number;
  /** Longer lines are skipped as malformed. */
  maxLineLength?: number;
  /** Labels per sample at most. */
  maxLabels?: number;
}

export interface ParsedMetrics {
  samples: MetricSample[];
  /** Lines that were not comments, blank or well-formed samples. */
  malformed: number;
  /** Samples were dropped (maxSamples) or the text was cut (maxBytes). */
  truncated: boolean;
}

export const METRICS_LIMITS = {
  /** A large kube-apiserver's /metrics runs to tens of MiB; reading stops here. */
  maxBytes: 64 << 20,
  maxSamples: 10_000,
  maxLineLength: 64 << 10,
  maxLabels: 64,
};

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A sample value as Go's strconv.ParseFloat reads it (NaN, ±Inf included); undefined when not a number. */
export function parseSampleValue(tok: string): number | undefined {
  if (FLOAT.test(tok)) return Number(tok);
  if (/^[+-]?inf(inity)?$/i.test(tok)) return tok.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(tok)) return NaN;
  return undefined;
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/** One sample line, or undefined when malformed; `skip` when its metric is not wanted. */
function parseLine(line: string, opts: Required<Omit<ParseOptions, 'names'>> & { names?: ReadonlySet<string> }): MetricSample | 'skip' | undefined {
  let i = 0;
  while (isBlank(line[i])) i++;
  const name = METRIC_NAME.exec(line.slice(i, i + 256))?.[0];
  if (!name) return undefined;
  if (opts.names && !opts.names.has(name)) return 'skip';
  i += name.length;
  while (isBlank(line[i])) i++;
  const labels: Record<string, string> = Object.create(null);
  if (line[i] === '{') {
    i++;
    let count = 0;
    for (;;) {
      while (isBlank(line[i])) i++;
      if (line[i] === '}') {
        i++;
        break;
      }
      const label = LABEL_NAME.exec(line.slice(i, i + 256))?.[0];
      if (!label || ++count > opts.maxLabels) return undefined;
      i += label.length;
      while (isBlank(line[i])) i++;
      if (line[i] !== '=') return undefined;
      i++;
      while (isBlank(line[i])) i++;
      if (line[i] !== '"') return undefined;
      i++;
      let value = '';
      for (;;) {
        const c = line[i];
        if (c === undefined) return undefined; // unterminated
        if (c === '"') break;
        if (c === '\\') {
          const e = line[i + 1];
          if (e === '\\') value += '\\';
          else if (e === '"') value += '"';
          else if (e === 'n') value += '\n';
          else return undefined;
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      i++;
      if (label in labels) return undefined; // a label given twice is invalid
      labels[label] = value;
      while (isBlank(line[i])) i++;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') return undefined;
    }
  }
  const rest = line.slice(i).trim().split(/[ \t]+/);
  if (rest.length < 1 || rest.length > 2 || rest[0] === '') return undefined;
  const value = parseSampleValue(rest[0]!);
  if (value === undefined) return undefined;
  if (rest.length === 2 && !/^-?\d{1,19}$/.test(rest[1]!)) return undefined; // timestamp (ms)
  return { name, labels, value };
}

/** Reads the text format chunk by chunk: memory stays bounded by the samples kept and one line. */
export class MetricsTextParser {
  private readonly opts: Required<Omit<ParseOptions, 'names'>> & { names?: ReadonlySet<string> };
  private carry = '';
  /** The current line outgrew maxLineLength: dropped up to the next line feed. */
  private dropping = false;
  private readonly result: ParsedMetrics = { samples: [], malformed: 0, truncated: false };

  constructor(opts: ParseOptions = {}) {
    this.opts = {
      maxSamples: opts.maxSamples ?? METRICS_LIMITS.maxSamples,
      maxLineLength: opts.maxLineLength ?? METRICS_LIMITS.maxLineLength,
      maxLabels: opts.maxLabels ?? METRICS_LIMITS.maxLabels,
      names: opts.names,
    };
  }

  push(chunk: string): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl < 0) break;
      const piece = chunk.slice(start, nl);
      start = nl + 1;
      if (this.dropping) {
        this.dropping = false;
        continue;
      }
      const line = this.carry ? this.carry + piece : piece;
      this.carry = '';
      this.line(line);
    }
    if (start < chunk.length && !this.dropping) {
      this.carry += chunk.slice(start);
      if (this.carry.length > this.opts.maxLineLength) {
        this.carry = '';
        this.dropping = true;
        this.result.malformed++;
      }
    }
  }

  /** Marks the text as cut short (the partial last line is dropped). */
  cut(): ParsedMetrics {
    this.carry = '';
    this.result.truncated = true;
    return this.result;
  }

  end(): ParsedMetrics {
    if (this.carry) this.line(this.carry);
    this.carry = '';
    return this.result;
  }

  private line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.length > this.opts.maxLineLength) {
      this.result.malformed++;
      return;
    }
    const t = line.trimStart();
    if (t === '' || t.startsWith('#')) return;
    const s = parseLine(t, this.opts);
    if (s === 'skip') return;
    if (!s) {
      this.result.malformed++;
      return;
    }
    if (this.result.samples.length >= this.opts.maxSamples) {
      this.result.truncated = true;
      return;
    }
    this.result.samples.push(s);
  }
}

export function parseMetricsText(text: string, opts?: ParseOptions): ParsedMetrics {
  const p = new MetricsTextParser(opts);
  p.push(text);
  return p.end();
}

/** GET /metrics, parsed as it streams in; reading stops after `maxBytes` (the result is then `truncated`). */
export async function readMetrics(client: ApiClient, opts: ParseOptions & { signal?: AbortSignal; maxBytes?: number } = {}): Promise<ParsedMetrics> {
  const maxBytes = opts.maxBytes ?? METRICS_LIMITS.maxBytes;
  const res = await client.open('GET', '/metrics', { accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1', signal: opts.signal });
  const parser = new MetricsTextParser(opts);
  const decoder = new TextDecoder();
  if (!res.body) return parser.end();
  const reader = res.body.getReader();
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.byteLength;
      if (read > maxBytes) {
        const keep = value.subarray(0, value.byteLength - (read - maxBytes));
        parser.push(decoder.decode(keep, { stream: true }));
        void reader.cancel().catch(() => {});
        return parser.cut();
      }
      parser.push(decoder.decode(value, { stream: true }));
    }
  } catch (e) {
    if (isAbort(e)) throw e;
    return parser.cut(); // the connection broke off: what arrived is still worth showing
  }
  parser.push(decoder.decode());
  return parser.end();
}

export interface FeatureGateState {
  name: string;
  /** ALPHA, BETA, DEPRECATED, or '' once generally available. */
  stage: string;
  enabled: boolean;
}

export const FEATURE_METRIC = 'kubernetes_feature_enabled';

/** The gates of `kubernetes_feature_enabled` samples, by name (a name given twice: the last one). */
export function featureGatesOf(samples: MetricSample[]): FeatureGateState[] {
  const byName = new Map<string, FeatureGateState>();
  for (const s of samples) {
    const name = s.labels['name'];
    if (s.name !== FEATURE_METRIC || !name) continue;
    byName.set(name, { name, stage: s.labels['stage'] ?? '', enabled: s.value === 1 });
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The server's feature gates from its /metrics (ApiError 403 when the user may not read /metrics). */
export async function readFeatureGates(client: ApiClient, opts: { signal?: AbortSignal; maxBytes?: number } = {}): Promise<{ gates: FeatureGateState[]; truncated: boolean }> {
  const m = await readMetrics(client, { ...opts, names: new Set([FEATURE_METRIC]) });
  return { gates: featureGatesOf(m.samples), truncated: m.truncated };
}
