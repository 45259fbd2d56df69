// Empty, loading and error states, with what an error means for each HTTP status.
import type { ReactNode } from 'react';
import { ApiError, NetworkError } from '../../client/index.js';

export function describeError(e: unknown): { title: string; hint: string } {
  if (e instanceof NetworkError) return { title: 'Cannot reach the API server', hint: 'The connection failed. Periscope keeps retrying; check that the server is running.' };
  if (e instanceof ApiError) {
    switch (e.code) {
      case 401:
        return { title: 'Not authenticated (401)', hint: 'The server did not accept the credentials. In proxy mode, check the kubeconfig user.' };
      case 403:
        return { title: 'Forbidden (403)', hint: 'Your identity is not allowed to do this. Ask for RBAC access to this resource.' };
      case 404:
        return { title: 'Not found (404)', hint: 'It does not exist (any more), or the type is no longer served.' };
      case 410:
        return { title: 'Expired (410)', hint: 'The server no longer has the history this view was reading from; the list restarts from a fresh copy.' };
      case 429:
        return { title: 'Too many requests (429)', hint: 'The server is throttling; retrying later.' };
      default:
        if (e.code >= 500) return { title: `Server error (${e.code} ${e.reason})`, hint: 'The server failed to answer. Retrying may help.' };
        return { title: `${e.reason} (${e.code})`, hint: '' };
    }
  }
  return { title: 'Something went wrong', hint: '' };
}

export function ErrorState({ error, onRetry, compact }: { error: unknown; onRetry?: () => void; compact?: boolean }) {
  const { title, hint } = describeError(error);
  const message = (error as Error)?.message;
  const causes = error instanceof ApiError ? error.causes : [];
  return (
    <div className={compact ? 'state state-error compact' : 'state state-error'} role="alert" data-testid="error-state" data-code={error instanceof ApiError ? error.code : 'network'}>
      <div className="state-title">{title}</div>
      {message && <div className="state-message">{message}</div>}
      {causes.length > 0 && (
        <ul className="causes">
          {causes.map((c, i) => (
            <li key={i}>
              {c.field && <code>{c.field}</code>} {c.message}
            </li>
          ))}
        </ul>
      )}
      {hint && <div className="state-hint">{hint}</div>}
      <TraceId error={error} />
      {onRetry && (
        <button className="btn" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** The server's trace id of a failed call, to look the request up in the tracing backend. */
export function TraceId({ error }: { error: unknown }) {
  if (!(error instanceof ApiError) || !error.traceId) return null;
  return (
    <div className="state-hint" data-testid="trace-id">
      Trace ID: <code>{error.traceId}</code>
    </div>
  );
}

export function LoadingState({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state-loading" data-testid="loading-state">
      <span className="spinner" aria-hidden /> {label}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty" data-testid="empty-state">
      <div className="state-title">{title}</div>
      {children && <div className="state-hint">{children}</div>}
    </div>
  );
}
