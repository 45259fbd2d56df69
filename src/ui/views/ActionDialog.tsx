// An action's dry run and confirm, with the care of the editor: the request goes first with
// dryRun=All, the dialog shows what the server would store against the object now, and Confirm sends
// the same request for real; the outcome is a toast.
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { KubeObject } from '../../client/index.js';
import { ErrorState } from '../components/ErrorState.js';
import { toast } from '../components/Toasts.js';
import { sendAction, type ActionRequest, type ActionResult } from '../data/writes.js';
import { printObject, withoutNoise } from '../editor/documents.js';
import { MonacoDiff } from '../monaco/index.js';

interface Props {
  request: ActionRequest;
  current: KubeObject;
  /** Shown above the diff (an HPA warning, what will recreate a pod …). */
  children?: ReactNode;
  onClose(): void;
  onDone?(result: ActionResult): void;
}

export function ActionDialog({ request, current, children, onClose, onDone }: Props) {
  const [dry, setDry] = useState<ActionResult>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const ac = new AbortController();
    setDry(undefined);
    setError(undefined);
    sendAction(request, true, ac.signal).then(setDry, (e) => !ac.signal.aborted && setError(e));
    return () => ac.abort();
  }, [request]);
  const original = useMemo(() => printObject(withoutNoise(current), 'yaml'), [current]);
  const modified = useMemo(() => (dry?.object ? printObject(withoutNoise(dry.object), 'yaml') : ''), [dry]);
  const name = `${current.kind ?? ''} ${current.metadata?.name ?? ''}`.trim();
  const confirm = async () => {
    setBusy(true);
    try {
      const r = await sendAction(request, false);
      toast('ok', `${request.title}: done for ${name}${r.warnings.length ? ` (warning: ${r.warnings.join('; ')})` : ''}`);
      onDone?.(r);
      onClose();
    } catch (e) {
      toast('bad', `${request.title} failed for ${name}: ${(e as Error)?.message ?? e}`);
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div
      className="overlay"
      role="dialog"
      aria-modal="true"
      aria-label={request.title}
      onClick={onClose}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !busy) {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <div className="dialog wide review" data-testid="action-dialog" onClick={(e) => e.stopPropagation()}>
        <div className="dialog-head">
          <h3>
            {request.title}: {name}
          </h3>
          <span className="muted small mono" data-testid="action-request">
            {request.method} {request.path}?dryRun=All · {request.contentType ?? ''}
          </span>
        </div>
        {children}
        {error !== undefined && <ErrorState error={error} compact />}
        {!dry && error === undefined && <div className="muted small">Asking the server for a dry run…</div>}
        {dry && (
          <>
            <span className="muted small">left: the object now · right: what the server would store</span>
            <MonacoDiff original={original} modified={modified} language="yaml" testId="action-diff" className="review-diff" />
            {typeof request.body === 'string' && (
              <details className="review-patch">
                <summary>The patch sent</summary>
                <pre className="mono small" data-testid="action-patch">
                  {request.body}
                </pre>
              </details>
            )}
            {original === modified && (
              <div className="banner" data-testid="action-unchanged">
                The server would store no change.
              </div>
            )}
            {dry.warnings.length > 0 && (
              <div className="banner banner-warn" data-testid="action-warnings">
                {dry.warnings.join(' · ')}
              </div>
            )}
          </>
        )}
        <div className="dialog-actions">
          <button className="btn" onClick={onClose} disabled={busy} autoFocus>
            Cancel
          </button>
          <button className="btn primary" data-testid="action-confirm" onClick={() => void confirm()} disabled={busy || !dry}>
            {busy ? 'Working…' : `Confirm: ${request.title.toLowerCase()}`}
          </button>
        </div>
      </div>
    </div>
  );
}
