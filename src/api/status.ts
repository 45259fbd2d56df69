// Upstream-shaped Status objects and the error type that carries them.

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string; resourceVersion?: string; remainingItemCount?: number };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason | '';
  details?: StatusDetails;
  code: number;
}

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'Timeout'
  | 'ServiceUnavailable';

export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message ?? status.reason ?? `status ${status.code}`);
    this.name = 'StatusError';
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): string {
    return this.status.reason ?? '';
  }
}

export function isStatus(v: unknown): v is Status {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

export function failure(code: number, reason: StatusReason | '', message: string, details?: StatusDetails): StatusError {
  return new StatusError(statusWire({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code }));
}

const nonEmpty = (v: unknown) => v !== undefined && v !== null && v !== '' && v !== 0 && !(Array.isArray(v) && v.length === 0);

/**
 * A Status as upstream's encoder writes it (metav1.Status): keys in the struct's order, kind, apiVersion,
 * metadata, status, message, reason, details, code, every field but metadata omitted when empty (omitempty),
 * details kept when present (a pointer) with its own empty fields omitted.
 */
export function statusWire(s: Status): Status {
  const out: Record<string, unknown> = { kind: s.kind ?? 'Status', apiVersion: s.apiVersion ?? 'v1', metadata: s.metadata ?? {} };
  if (nonEmpty(s.status)) out.status = s.status;
  if (nonEmpty(s.message)) out.message = s.message;
  if (nonEmpty(s.reason)) out.reason = s.reason;
  if (s.details) {
    const d = s.details;
    const details: Record<string, unknown> = {};
    for (const k of ['name', 'group', 'kind', 'uid'] as const) if (nonEmpty(d[k])) details[k] = d[k];
    if (nonEmpty(d.causes))
      details.causes = d.causes!.map((c) => {
        const cause: Record<string, unknown> = {};
        for (const k of ['reason', 'message', 'field'] as const) if (nonEmpty(c[k])) cause[k] = c[k];
        return cause;
      });
    if (nonEmpty(d.retryAfterSeconds)) details.retryAfterSeconds = d.retryAfterSeconds;
    out.details = details;
  }
  if (nonEmpty(s.code)) out.code = s.code;
  return out as unknown as Status;
}

/** `pods` or `deployments.apps`, as upstream's GroupResource.String(). */
export function groupResource(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** What upstream puts in details.kind for most errors: the resource (plural). */
export interface Target {
  group: string;
  resource: string;
  name?: string;
}

export const errors = {
  badRequest: (message: string) => failure(400, 'BadRequest', message),
  unauthorized: (message = 'Unauthorized') => failure(401, 'Unauthorized', message),
  forbidden(t: Target, message: string): StatusError {
    const gr = groupResource(t.group, t.resource);
    const what = t.name !== undefined ? `${gr} "${t.name}"` : gr;
    return failure(403, 'Forbidden', `${what} is forbidden: ${message}`, { name: t.name, group: t.group, kind: t.resource });
  },
  notFound(t: Target): StatusError {
    return failure(404, 'NotFound', `${groupResource(t.group, t.resource)} "${t.name ?? ''}" not found`, {
      name: t.name,
      group: t.group,
      kind: t.resource,
    });
  },
  alreadyExists(t: Target): StatusError {
    return failure(409, 'AlreadyExists', `${groupResource(t.group, t.resource)} "${t.name ?? ''}" already exists`, {
      name: t.name,
      group: t.group,
      kind: t.resource,
    });
  },
  conflict(t: Target, why = 'the object has been modified; please apply your changes to the latest version and try again'): StatusError {
    return failure(409, 'Conflict', `Operation cannot be fulfilled on ${groupResource(t.group, t.resource)} "${t.name ?? ''}": ${why}`, {
      name: t.name,
      group: t.group,
      kind: t.resource,
    });
  },
  /** 422 with field causes. `kind` is the Kind (not resource) as upstream. */
  invalid(group: string, kind: string, name: string, causes: { type: string; field: string; detail: string }[]): StatusError {
    const gk = group ? `${kind}.${group}` : kind;
    const parts = causes.map((c) => `${c.field}: ${c.detail}`);
    const summary = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
    return failure(422, 'Invalid', `${gk} "${name}" is invalid: ${summary}`, {
      name,
      group,
      kind,
      causes: causes.map((c) => ({ reason: c.type, message: c.detail, field: c.field })),
    });
  },
  methodNotAllowed: (message: string) => failure(405, 'MethodNotAllowed', message),
  notAcceptable: (message: string) => failure(406, 'NotAcceptable', message),
  unsupportedMediaType: (accepted: string[]) =>
    failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`),
  tooLarge: (message = 'Request entity too large: limit is 3145728') => failure(413, 'RequestEntityTooLarge', message),
  gone: (message: string) => failure(410, 'Gone', message),
  expired: (message: string) => failure(410, 'Expired', message),
  tooManyRequests: (message: string, retryAfterSeconds?: number) =>
    failure(429, 'TooManyRequests', message, retryAfterSeconds ? { retryAfterSeconds } : undefined),
  internal: (message: string) => failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
  timeout: (message: string, retryAfterSeconds?: number, causes?: StatusCause[]) =>
    failure(504, 'Timeout', `Timeout: ${message}`, { causes, retryAfterSeconds }),
  unavailable: (message: string) => failure(503, 'ServiceUnavailable', message),
};
