// The dry-run preview: what the server would store (a Monaco diff against the current object), the
// Warning headers it sent, and Confirm to send the same request for real.
import { useMemo, useState } from 'react';
import type { KubeObject } from '../../client/index.js';
import { MonacoDiff } from '../monaco/index.js';
import { NOISE_FIELDS, printObject, withoutNoise, type TextFormat } from './documents.js';
import type { WriteRequest } from './requests.js';

export interface Review {
  request: WriteRequest;
  /** What the server answered to the dry run: the object it would store. */
  result: KubeObject | undefined;
  warnings: string[];
}

interface Props {
  review: Review;
  /** The object as it is now (undefined when creating). */
  current: KubeObject | undefined;
  format: TextFormat;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

export function ReviewDialog({ review, current, format, busy, onConfirm, onClose }: Props) {
  const [showNoise, setShowNoise] = useState(false);
  const original = useMemo(() => (current ? printObject(showNoise ? current : withoutNoise(current), format) : ''), [current, showNoise, format]);
  const modified = useMemo(() => (review.result ? printObject(showNoise ? review.result : withoutNoise(review.result), format) : ''), [review.result, showNoise, format]);
  const unchanged = original === modified;
  const q = new URLSearchParams(Object.entries(review.request.query).filter(([, v]) => v !== undefined && v !== null && v !== '') as [string, string][]);
  return (
    <div
      className="overlay"
      role="dialog"
      aria-modal="true"
      aria-label="Dry-run preview"
      onClick={onClose}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !busy) {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <div className="dialog wide review" data-testid="review-dialog" onClick={(e) => e.stopPropagation()}>
        <div className="dialog-head">
          <h3>Dry run: what the server would store</h3>
          <span className="muted small mono" data-testid="review-request">
            {review.request.method} {review.request.path}?{q.toString()}&amp;dryRun=All · {review.request.contentType}
          </span>
        </div>
        <div className="review-tools">
          <span className="muted small">{current ? 'left: the object now · right: the result' : 'the object the server would create'}</span>
          <span className="spacer" />
          <label className="check" title={`Show ${NOISE_FIELDS.join(', ')}`}>
            <input type="checkbox" data-testid="noise-toggle" checked={showNoise} onChange={(e) => setShowNoise(e.target.checked)} /> show server-managed fields
          </label>
        </div>
        <MonacoDiff original={original} modified={modified} language={format} testId="review-diff" className="review-diff" />
        {review.request.method === 'PATCH' && !review.request.contentType.startsWith('application/apply-patch') && (
          <details className="review-patch">
            <summary>The patch sent</summary>
            <pre className="mono small" data-testid="review-patch">
              {review.request.body}
            </pre>
          </details>
        )}
        {unchanged && current && (
          <div className="banner" data-testid="review-unchanged">
            The server would store no change{showNoise ? '' : ' (apart from server-managed fields)'}.
          </div>
        )}
        {review.warnings.length > 0 && (
          <div className="banner banner-warn" data-testid="review-warnings">
            <strong>
              {review.warnings.length} warning{review.warnings.length === 1 ? '' : 's'} from the server
            </strong>
            <ul className="plain-list">
              {review.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          </div>
        )}
        <div className="dialog-actions">
          {/* focus moves into the dialog: Tab reaches Confirm, Escape goes back */}
          <button className="btn" onClick={onClose} disabled={busy} autoFocus>
            Back to editing
          </button>
          <button className="btn primary" data-testid="confirm-button" onClick={onConfirm} disabled={busy}>
            {busy ? 'Saving…' : current ? 'Confirm: save' : 'Confirm: create'}
          </button>
        </div>
      </div>
    </div>
  );
}
