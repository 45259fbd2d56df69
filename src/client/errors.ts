// Typed errors: a Status answer from the server (ApiError) or no answer at all (NetworkError).

import { isStatus as isServerStatus, type Status as ServerStatus, type StatusCause, type StatusDetails } from '../api/status.js';
export type { StatusCause, StatusDetails };

/** A Status as any server may send it: only `kind` is certain. */
export type Status = Partial<Omit<ServerStatus, 'kind' | 'reason'>> & { kind: 'Status'; reason?: string };

export function isStatus(v: unknown): v is Status {
  return isServerStatus(v);
}

const REASON_BY_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The server answered with an error (a Status, or a bare HTTP error from something in between). */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: StatusDetails;
  readonly status?: Status;
  readonly warnings: string[];
  /** Trace id of the server's trace of this request (W3C `traceresponse` header), when the server sampled it. */
  readonly traceId?: string;

  constructor(code: number, message: string, opts: { reason?: string; details?: StatusDetails; status?: Status; warnings?: string[]; traceId?: string } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.reason = opts.reason || REASON_BY_CODE[code] || (code >= 500 ? 'InternalError' : 'Unknown');
    this.details = opts.details;
    this.status = opts.status;
    this.warnings = opts.warnings ?? [];
    this.traceId = opts.traceId;
  }

  get causes(): StatusCause[] {
    return this.details?.causes ?? [];
  }

  get retryAfterSeconds(): number | undefined {
    return this.details?.retryAfterSeconds;
  }

  /** Builds the error from an HTTP status and whatever body came with it. */
  static from(httpStatus: number, body: unknown, statusText = '', warnings: string[] = [], traceId?: string): ApiError {
    if (isStatus(body)) {
      const code = typeof body.code === 'number' && body.code > 0 ? body.code : httpStatus;
      return new ApiError(code, body.message || body.reason || statusText || `HTTP ${code}`, { reason: body.reason, details: body.details, status: body, warnings, traceId });
    }
    const text = typeof body === 'string' ? body.trim().slice(0, 500) : '';
    return new ApiError(httpStatus, text || statusText || `HTTP ${httpStatus}`, { warnings, traceId });
  }
}

/** The trace id of a W3C `traceresponse` header (`00-<trace-id>-<span-id>-<flags>`), if well-formed. */
export function traceIdOf(header: string | null | undefined): string | undefined {
  const m = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec((header ?? '').trim());
  return m && !/^0+$/.test(m[1]!) ? m[1] : undefined;
}

/** No HTTP answer: the connection failed or broke off. */
export class NetworkError extends Error {
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
    this.name = 'NetworkError';
  }
}

export function isApiError(e: unknown, code?: number): e is ApiError {
  return e instanceof ApiError && (code === undefined || e.code === code);
}

/** 410: the requested resourceVersion (or continue token) is older than the server's history. */
export function isExpired(e: unknown): boolean {
  return e instanceof ApiError && (e.code === 410 || e.reason === 'Expired' || e.reason === 'Gone');
}

export function isAbort(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: string }).name === 'AbortError';
}

/** Errors worth retrying as-is: no answer, throttling, server trouble. */
export function isTransient(e: unknown): boolean {
  if (e instanceof NetworkError) return true;
  if (e instanceof ApiError) return e.code === 429 || e.code >= 500 || e.code === 408;
  return false;
}
