// Writing responses: negotiated objects, Status errors, warnings, gzip.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tracer, tracingEnabled } from '../tracing.js';
import { gzipSync } from 'node:zlib';
import { StatusError, errors, statusWire, type Status } from '../../api/status.js';
import { StoreError } from '../storage/types.js';
import { isStackOverflow } from '../../api/nesting.js';
import { bodyAbandoned } from './body.js';
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

/** Upstream's warning recorder limits (apiserver pkg/endpoints/filters/warning.go). */
const WARNING_TOTAL_RUNES = 4 * 1024;
const WARNING_ITEM_RUNES = 256;

/**
 * NewWarningHeader's text: quoted with `\\` and `"` escaped, sent as UTF-8 bytes (Node writes header
 * strings as latin1, so the UTF-8 bytes go through as latin1 characters).
 */
function warningHeader(text: string): string {
  const quoted = `299 - "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return Buffer.from(quoted, 'utf8').toString('latin1');
}

/** NewWarningHeader refuses texts with control characters; the recorder drops them. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function truncateRunes(text: string, runes: number): string {
  let i = 0;
  let n = 0;
  for (const ch of text) {
    if (n === runes) return text.slice(0, i);
    i += ch.length;
    n++;
  }
  return text;
}

/**
 * `299 - "text"` headers (NewWarningHeader), as upstream's recorder writes them: identical texts once;
 * while the texts total at most 4,096 runes they go out whole; past that every text is cut to 256
 * runes and texts are added until the total reaches 4,096 runes, the rest dropped.
 */
export function warningHeaders(texts: string[]): string[] {
  const seen = new Set<string>();
  const ordered: string[] = [];
  let written = 0;
  let truncating = false;
  for (const text of texts) {
    if (text.length === 0 || seen.has(text) || CONTROL.test(text)) continue;
    if (truncating && written >= WARNING_TOTAL_RUNES) break;
    seen.add(text);
    ordered.push(text);
    const runes = truncating ? Math.min(runeCount(text, WARNING_ITEM_RUNES + 1), WARNING_ITEM_RUNES) : runeCount(text, WARNING_TOTAL_RUNES + 1);
    if (truncating || written + runes <= WARNING_TOTAL_RUNES) {
      written += runes;
      continue;
    }
    // over the limit: replay everything so far cut to the item limit, and keep cutting
    truncating = true;
    written = 0;
    for (const t of ordered) written += Math.min(runeCount(t, WARNING_ITEM_RUNES + 1), WARNING_ITEM_RUNES);
  }
  return ordered.map((t) => warningHeader(truncating ? truncateRunes(t, WARNING_ITEM_RUNES) : t));
}

/** Runes (code points) in text, counting no further than `max`. */
function runeCount(text: string, max: number): number {
  let n = 0;
  for (const _ of text) if (++n >= max) break;
  return n;
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
  // a body refused (413) or still arriving when the answer is ready is never read: close after answering
  // (Go's net/http, upstream's server, likewise closes rather than drain a large unread body)
  if (bodyAbandoned(req) || !req.complete) closeAfterResponse(req, res);
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

/**
 * The rest of an unread body is never read: the response says `Connection: close`, then the
 * socket is half-closed and, after a grace period for the client to read the answer, destroyed.
 */
function closeAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  // Node drains a body nobody consumed once the answer is sent (IncomingMessage _dump): a read(0)
  // marks it consumed, so at most one buffer of it is taken off the wire
  req.pause();
  req.read(0);
  // Node ends `Connection: close` exchanges with socket.destroySoon(): a reset while the client is
  // still sending can discard the answer before the client reads it. Half-close, destroy later.
  const socket = req.socket as Socket & { destroySoon?: () => void };
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  };
}

/** How long a client has to read the answer before the connection is dropped. */
const CLOSE_GRACE_MS = 2000;

export function writeObject(
  req: IncomingMessage,
  res: ServerResponse,
  code: number,
  obj: unknown,
  n: Negotiated,
  opts: ResponseOptions = {},
): void {
  writeSerialized(req, res, code, () => encodeObject(obj, n.encoding, opts.pretty), n, opts);
}

/** Writes the bytes `encode` returns (an object's encoding, possibly cached) in upstream's "SerializeObject" span (responsewriters). */
export function writeSerialized(req: IncomingMessage, res: ServerResponse, code: number, encode: () => Buffer, n: Negotiated, opts: ResponseOptions = {}): void {
  if (!tracingEnabled()) {
    writeEncoded(req, res, code, encode(), contentTypeHeader(n, false), opts);
    return;
  }
  const span = tracer().startSpan('SerializeObject', { attributes: { 'encoding': n.encoding } });
  try {
    writeEncoded(req, res, code, encode(), contentTypeHeader(n, false), opts);
  } finally {
    span.end();
  }
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

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
  // a body deep enough to exhaust a recursive step (schema walk, managed fields…) is the client's fault
  const err = isStackOverflow(e) && BODY_METHODS.has(req.method ?? '') ? errors.badRequest('the request body is nested too deeply to process') : toStatusError(e);
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
  writeEncoded(req, res, status.code, encodeObject(statusWire(status), n.encoding, opts.pretty), contentTypeHeader(n, false), { warnings: opts.warnings });
}
