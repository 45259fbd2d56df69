// The two kinds of conflict: server-side apply claiming fields another manager owns (force, or drop
// them from the configuration), and a write against an older version (rebase onto the newer one).
import { useMemo } from 'react';
import { threeWayMerge } from '../lib/patches.js';
import { MonacoDiff } from '../monaco/index.js';
import { printObject, type TextFormat } from './documents.js';
import type { ApplyConflict } from './requests.js';

export function ApplyConflictsPanel({ conflicts, busy, onForce, onDrop, onClose }: { conflicts: ApplyConflict[]; busy: boolean; onForce: () => void; onDrop: () => void; onClose: () => void }) {
  return (
    <section className="panel conflict-panel" data-testid="apply-conflicts">
      <h3>
        Apply conflict: {conflicts.length} field{conflicts.length === 1 ? '' : 's'} owned by another manager
      </h3>
      <p className="muted small">
        Your configuration sets these fields to values other managers set differently. Force to take ownership (their values are overwritten and they lose the fields), or drop the
        fields from your configuration and leave them to their owners.
      </p>
      <table className="simple">
        <thead>
          <tr>
            <th>Field</th>
            <th>Owner</th>
            <th>Through</th>
          </tr>
        </thead>
        <tbody>
          {conflicts.map((c) => (
            <tr key={c.field + c.manager} data-testid="conflict-row">
              <td className="mono">{c.field}</td>
              <td>
                <span className="pill">{c.manager}</span>
              </td>
              <td className="muted small">
                {c.apiVersion ?? ''}
                {c.subresource ? ` (${c.subresource})` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="dialog-actions">
        <button className="btn" onClick={onClose} disabled={busy}>
          Dismiss
        </button>
        <button className="btn" data-testid="conflict-drop" onClick={onDrop} disabled={busy}>
          Drop these fields and review again
        </button>
        <button className="btn danger" data-testid="conflict-force" onClick={onForce} disabled={busy}>
          Force: take ownership and review again
        </button>
      </div>
    </section>
  );
}

interface RebaseProps {
  base: unknown;
  yours: unknown;
  theirs: unknown;
  format: TextFormat;
  /** Why: a 409 on save, or the watch saw a newer version. */
  reason: string;
  onRebase: (merged: unknown) => void;
  onTakeTheirs: () => void;
  onClose: () => void;
}

/** Three-way view: base → theirs, base → yours, and what rebasing yours onto theirs keeps. */
export function RebasePanel({ base, yours, theirs, format, reason, onRebase, onTakeTheirs, onClose }: RebaseProps) {
  const merge = useMemo(() => threeWayMerge(base, yours, theirs), [base, yours, theirs]);
  const [b, y, t] = useMemo(() => [printObject(base, format), printObject(yours, format), printObject(theirs, format)], [base, yours, theirs, format]);
  return (
    <section className="panel rebase-panel" data-testid="rebase-view">
      <h3>The object changed on the server</h3>
      <p className="muted small">{reason}</p>
      <div className="three-way">
        <div>
          <div className="pane-title">Theirs: base → the server's version now</div>
          <MonacoDiff original={b} modified={t} language={format} testId="rebase-theirs" className="rebase-diff" sideBySide={false} />
        </div>
        <div>
          <div className="pane-title">Yours: base → your edit</div>
          <MonacoDiff original={b} modified={y} language={format} testId="rebase-yours" className="rebase-diff" sideBySide={false} />
        </div>
      </div>
      {merge.conflicts.length > 0 ? (
        <div className="banner banner-warn" data-testid="rebase-conflicts">
          Both sides changed {merge.conflicts.length === 1 ? 'this field' : 'these fields'}; rebasing keeps yours:{' '}
          {merge.conflicts.map((c) => (
            <code key={c} className="chip">
              {c}
            </code>
          ))}
        </div>
      ) : (
        <div className="muted small">No field was changed on both sides: your changes apply cleanly on top of theirs.</div>
      )}
      <div className="dialog-actions">
        <button className="btn" onClick={onClose}>
          Keep editing as is
        </button>
        <button className="btn" data-testid="take-theirs" onClick={onTakeTheirs}>
          Discard mine, load theirs
        </button>
        <button className="btn primary" data-testid="rebase-button" onClick={() => onRebase(merge.merged)}>
          Rebase my changes onto theirs
        </button>
      </div>
    </section>
  );
}
