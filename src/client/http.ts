// The HTTP client: request building, credentials, decoding, typed errors and Warning headers.
// Framework-free; runs in browsers and Node 20 (global fetch).
import { Decoder } from 'cbor-x';
import { ApiError, NetworkError, isAbort, traceIdOf } from './errors.js';
import { mediaEssence } from './media.js';
import { resourcePath, withQuery, type Query, type ResourceRef } from './paths.js';
import { parseWarnings } from './warnings.js';

export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

export interface ClientOptions {
  /** Origin (and optional path prefix) of the API; '' = same origin (browser). */
  baseUrl?: string;
  /** Bearer token sent as `Authorization: Bearer ...`. */
  token?: TokenSource;
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /**
   * Watches over WebSocket (falling back to a streamed fetch when the upgrade fails): true in browsers,
   * where HTTP/1.1 streams are limited to six per host. Needs a global WebSocket.
   */
  webSocketWatches?: boolean;
  /** Called for each Warning header text of every response. */
  onWarning?: (warning: string, request: { method: string; path: string }) => void;
}

export interface RequestOptions {
  /** A string or bytes are sent as-is; anything else as JSON. */
  body?: unknown;
  contentType?: string;
  query?: Query;
  accept?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * Shown the decoded start of a successful response's body as it streams in (up to 64 KiB), until it
   * returns true: lets a pager read a list's continue token before the rows have arrived.
   */
  onPrefix?: (text: string) => boolean;
}

/** How much of a body onPrefix is shown at most. */
const PREFIX_LIMIT = 64 * 1024;

/** The whole body, showing its start to onPrefix while it arrives. */
async function readBody(res: Response, onPrefix: ((text: string) => boolean) | undefined): Promise<Uint8Array> {
  if (!onPrefix || !res.body) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  let watching = true;
  let prefix = '';
  const dec = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    total += value.length;
    if (watching) {
      // a first read can be megabytes: only its start is looked at
      prefix += dec.decode(value.length > PREFIX_LIMIT ? value.subarray(0, PREFIX_LIMIT) : value, { stream: true });
      let satisfied = true;
      try {
        satisfied = onPrefix(prefix);
      } catch {
        // a hook's fault must not cost the response
      }
      watching = !satisfied && prefix.length < PREFIX_LIMIT;
      if (!watching) prefix = '';
    }
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  contentType: string;
  body: T;
  warnings: string[];
}

/** Options of write requests, as query parameters. */
export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  force?: boolean;
}

const cbor = new Decoder({ mapsAsObjects: true, useRecords: false });

export function decodeBody(bytes: Uint8Array, contentType: string): unknown {
  const e = mediaEssence(contentType);
  if (e === 'application/cbor' || e === 'application/cbor-seq') return bytes.length ? cbor.decode(bytes) : undefined;
  const text = new TextDecoder().decode(bytes);
  if (e === 'application/json' || e.endsWith('+json') || (!e && /^\s*[{[]/.test(text))) {
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      return text;
    }
  }
  return text;
}

function writeQuery(o: WriteOptions | undefined): Query {
  if (!o) return {};
  return { dryRun: o.dryRun ? 'All' : undefined, fieldManager: o.fieldManager, fieldValidation: o.fieldValidation, force: o.force ? 'true' : undefined };
}

/** A preloaded answer is taken only this soon after it was asked for. */
const PRELOAD_TTL_MS = 10_000;

export class ApiClient {
  readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly preloaded = new Map<string, { at: number; response: Promise<ApiResponse> }>();

  constructor(readonly options: ClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
  }

  url(path: string, query?: Query): string {
    return this.baseUrl + withQuery(path, query);
  }

  /** The bearer token to send, if any. */
  async bearerToken(): Promise<string | undefined> {
    const t = this.options.token;
    return (typeof t === 'function' ? await t() : t) || undefined;
  }

  private async headers(opts: RequestOptions, hasBody: boolean): Promise<Record<string, string>> {
    const h: Record<string, string> = { Accept: opts.accept ?? 'application/json', ...this.options.headers, ...opts.headers };
    const t = this.options.token;
    const token = typeof t === 'function' ? await t() : t;
    if (token) h['Authorization'] = `Bearer ${token}`;
    if (hasBody) h['Content-Type'] = opts.contentType ?? 'application/json';
    return h;
  }

  /**
   * Sends a request and returns the raw response once headers arrived (the body is not read).
   * Non-2xx answers become ApiError (their body read for the Status); no answer becomes NetworkError.
   */
  async open(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const hasBody = opts.body !== undefined;
    let body: BodyInit | undefined;
    if (hasBody) body = typeof opts.body === 'string' || opts.body instanceof Uint8Array ? (opts.body as BodyInit) : JSON.stringify(opts.body);
    let res: Response;
    try {
      res = await this.fetchFn(this.url(path, opts.query), { method, headers: await this.headers(opts, hasBody), body, signal: opts.signal });
    } catch (e) {
      if (isAbort(e)) throw e;
      throw new NetworkError(`${method} ${path}: ${(e as Error)?.message ?? e}`, e);
    }
    const warnings = parseWarnings(res.headers.get('warning'));
    if (warnings.length && this.options.onWarning) for (const w of warnings) this.options.onWarning(w, { method, path });
    if (res.status >= 400) {
      let parsed: unknown;
      try {
        parsed = decodeBody(new Uint8Array(await res.arrayBuffer()), res.headers.get('content-type') ?? '');
      } catch (e) {
        if (isAbort(e)) throw e;
        parsed = undefined;
      }
      throw ApiError.from(res.status, parsed, res.statusText, warnings, traceIdOf(res.headers.get('traceresponse')));
    }
    return res;
  }

  /**
   * Sends a GET now; the next request for the same URL with the same Accept takes its answer instead
   * of asking again (once, within 10 s; a failed preload is simply asked again). A page asks for what it
   * will show before the code that shows it has everything it needs (discovery) to ask.
   */
  preload(path: string, opts: Pick<RequestOptions, 'query' | 'accept'> = {}): void {
    const response = this.request('GET', path, { query: opts.query, accept: opts.accept });
    response.catch(() => {});
    this.preloaded.set(`${opts.accept ?? ''} ${this.url(path, opts.query)}`, { at: Date.now(), response });
  }

  /** Any request; the body is decoded by its content type (JSON, CBOR, else text). */
  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    if (this.preloaded.size > 0 && method === 'GET' && opts.body === undefined) {
      const key = `${opts.accept ?? ''} ${this.url(path, opts.query)}`;
      const hit = this.preloaded.get(key);
      this.preloaded.delete(key);
      if (hit && Date.now() - hit.at < PRELOAD_TTL_MS) {
        try {
          return (await hit.response) as ApiResponse<T>;
        } catch {
          // asked again below
        }
      }
    }
    const res = await this.open(method, path, opts);
    let bytes: Uint8Array;
    try {
      bytes = await readBody(res, opts.onPrefix);
    } catch (e) {
      if (isAbort(e)) throw e;
      throw new NetworkError(`${method} ${path}: response broke off: ${(e as Error)?.message ?? e}`, e);
    }
    const contentType = res.headers.get('content-type') ?? '';
    return { status: res.status, headers: res.headers, contentType, body: decodeBody(bytes, contentType) as T, warnings: parseWarnings(res.headers.get('warning')) };
  }

  async get<T = unknown>(ref: ResourceRef, opts: RequestOptions = {}): Promise<T> {
    return (await this.request<T>('GET', resourcePath(ref), opts)).body;
  }

  async create<T = unknown>(ref: ResourceRef, body: unknown, opts: RequestOptions & WriteOptions = {}): Promise<T> {
    return (await this.request<T>('POST', resourcePath({ ...ref, name: undefined }), { ...opts, body, query: { ...writeQuery(opts), ...opts.query } })).body;
  }

  async replace<T = unknown>(ref: ResourceRef, body: unknown, opts: RequestOptions & WriteOptions = {}): Promise<T> {
    return (await this.request<T>('PUT', resourcePath(ref), { ...opts, body, query: { ...writeQuery(opts), ...opts.query } })).body;
  }

  /** contentType: application/merge-patch+json, application/json-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml. */
  async patch<T = unknown>(ref: ResourceRef, body: unknown, contentType: string, opts: RequestOptions & WriteOptions = {}): Promise<T> {
    return (await this.request<T>('PATCH', resourcePath(ref), { ...opts, body, contentType, query: { ...writeQuery(opts), ...opts.query } })).body;
  }

  /**
   * With a DeleteOptions body the server reads options from the body only (as upstream), so the
   * options given here go into that body; without one they go into the query.
   */
  async delete<T = unknown>(ref: ResourceRef, opts: RequestOptions & WriteOptions & { propagationPolicy?: string; gracePeriodSeconds?: number } = {}): Promise<T> {
    if (opts.body !== undefined && typeof opts.body === 'object' && opts.body !== null) {
      const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions', ...(opts.body as Record<string, unknown>) };
      if (opts.dryRun) body.dryRun = ['All'];
      if (opts.propagationPolicy !== undefined) body.propagationPolicy = opts.propagationPolicy;
      if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
      return (await this.request<T>('DELETE', resourcePath(ref), { ...opts, body })).body;
    }
    const query = { ...writeQuery(opts), propagationPolicy: opts.propagationPolicy, gracePeriodSeconds: opts.gracePeriodSeconds, ...opts.query };
    return (await this.request<T>('DELETE', resourcePath(ref), { ...opts, query })).body;
  }
}
