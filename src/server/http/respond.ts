// Writing responses: negotiated objects, Status errors, warnings, gzip.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { StatusError, errors, type Status } from '../../api/status.js';
import { StoreError } from '../storage/types.js';
import { encodeObject, hasEncoder } from './encode.js';
import { contentTypeHeader, negotiate, type Negotiated } from './negotiate.js';

/** Upstream compresses responses larger than this (handlers/responsewriters: defaultGzipThresholdBytes). */
const GZIP_THRESHOLD = 128 * 1024;

export interface ResponseOptions {
  pretty?: boolean;
  /** Allow gzip (APIResponseCompression gate). */
  compression?: boolean;
  warnings?: string[];
}

/** `299 - "text"` as upstream's NewWarningHeader; identical texts are sent once. */
export function warningHeaders(texts: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of texts) {
    if (seen.has(t)) continue;
    seen.add(t);
    out.push(`299 - "${t.slice(0, 256).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
  }
  return out;
}

export function writeEncoded(
  req: IncomingMessage,
  res: ServerResponse,
  code: number,
  body: Buffer,
  contentType: string,
  opts: ResponseOptions = {},
): void {
  if (opts.warnings && opts.warnings.length > 0) res.setHeader('Warning', warningHeaders(opts.warnings));
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  const acceptsGzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  if (opts.compression && acceptsGzip && body.length >= GZIP_THRESHOLD) {
    const gz = gzipSync(body, { level: 1 });
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Content-Length', gz.length);
    res.writeHead(code);
    res.end(req.method === 'HEAD' ? undefined : gz);
    return;
  }
  res.setHeader('Content-Length', body.length);
  res.writeHead(code);
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function writeObject(
  req: IncomingMessage,
  res: ServerResponse,
  code: number,
  obj: unknown,
  n: Negotiated,
  opts: ResponseOptions = {},
): void {
  writeEncoded(req, res, code, encodeObject(obj, n.encoding, opts.pretty), contentTypeHeader(n, false), opts);
}

/** Converts anything thrown into an upstream Status. */
export function toStatusError(e: unknown): StatusError {
  if (e instanceof StatusError) return e;
  if (e instanceof StoreError) {
    if (e.code === 'Unavailable') return errors.unavailable(`storage is unavailable: ${e.message}`);
    return errors.internal(e.message);
  }
  return errors.internal(e instanceof Error ? e.message : String(e));
}

/** Writes a Status error, negotiated where possible (errors fall back to JSON). */
export function writeError(req: IncomingMessage, res: ServerResponse, e: unknown, opts: ResponseOptions = {}): void {
  const err = toStatusError(e);
  const status: Status = err.status;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (status.details?.retryAfterSeconds) res.setHeader('Retry-After', String(status.details.retryAfterSeconds));
  let n: Negotiated;
  try {
    // a 406 means the Accept could not be served: upstream writes it in its default form, JSON
    if (status.code === 406) throw new Error('not acceptable');
    n = negotiate(req.headers.accept, { protobuf: hasEncoder('protobuf'), cbor: false, transforms: false, watch: false });
  } catch {
    n = { encoding: 'json', representation: 'object', metaGroup: 'meta.service.io', metaVersion: 'v1', mediaType: 'application/json' };
  }
  writeEncoded(req, res, status.code, encodeObject(status, n.encoding, opts.pretty), contentTypeHeader(n, false), { warnings: opts.warnings });
}
