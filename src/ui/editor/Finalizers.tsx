// Finalizers, each removable after a confirmation: a JSON patch that tests the finalizer is still at
// its index before removing it, so a concurrent change never removes the wrong one.
import { useState } from 'react';
import type { KubeObject, ResourceRef } from '../../client/index.js';
import { removeFinalizer } from '../data/writes.js';

interface Props {
  object: KubeObject;
  objectRef: ResourceRef;
  /** Finalizers read-only (no remove buttons). */
  readOnly?: boolean;
  /** Why they are read-only (a missing permission), shown as a tooltip. */
  readOnlyReason?: string;
}

export function FinalizerList({ object, objectRef, readOnly, readOnlyReason }: Props) {
  const finalizers = object.metadata?.finalizers ?? [];
  const [asking, setAsking] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  if (!finalizers.length) return <span className="muted">none</span>;
  const remove = async (f: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await removeFinalizer(objectRef, object, f);
      setAsking(undefined);
    } catch (e) {
      setError(`Removing ${f} failed: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="finalizers" data-testid="finalizer-list">
      {finalizers.map((f) => (
        <div key={f} className="finalizer" data-testid="finalizer" data-finalizer={f}>
          <code className="chip" title={readOnlyReason}>
            {f}
          </code>
          {!readOnly &&
            (asking === f ? (
              <span className="confirm-inline" data-testid="finalizer-confirm">
                Remove it? Whatever it guards (cleanup by its controller) will not happen{object.metadata?.deletionTimestamp ? ', and the object may be deleted at once' : ''}.
                <button className="btn small danger" data-testid="finalizer-remove-yes" disabled={busy} onClick={() => void remove(f)}>
                  Remove
                </button>
                <button className="btn small" disabled={busy} onClick={() => setAsking(undefined)}>
                  Cancel
                </button>
              </span>
            ) : (
              <button className="link small" data-testid="finalizer-remove" onClick={() => setAsking(f)} title={`Remove the finalizer ${f}`}>
                remove
              </button>
            ))}
        </div>
      ))}
      {error && (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}
