// Deleting several objects picked in a list: each is first asked with dryRun=All (what the server says
// per object), then deleted one by one with progress; failures stay listed, the outcome is a toast.
import { useEffect, useState } from 'react';
import type { ApiResource } from '../../client/index.js';
import { toast } from '../components/Toasts.js';
import { deleteAction, sendAction } from '../data/writes.js';

export interface Picked {
  key: string;
  name: string;
  namespace?: string;
}

type State = { phase: 'dry' } | { phase: 'ok' } | { phase: 'deleted' } | { phase: 'error'; message: string };

export function BulkDeleteDialog({ info, picked, onClose, onDone }: { info: ApiResource; picked: Picked[]; onClose(): void; onDone(): void }) {
  const [states, setStates] = useState<Record<string, State>>({});
  const [running, setRunning] = useState(false);
  const [finished, setFinished] = useState(false);
  const refOf = (p: Picked) => ({ group: info.group, version: info.version, resource: info.resource, namespace: info.namespaced ? p.namespace : undefined, name: p.name });
  useEffect(() => {
    let live = true;
    void (async () => {
      for (const p of picked) {
        try {
          await sendAction(deleteAction(refOf(p)), true);
          if (live) setStates((s) => ({ ...s, [p.key]: { phase: 'ok' } }));
        } catch (e) {
          if (live) setStates((s) => ({ ...s, [p.key]: { phase: 'error', message: (e as Error)?.message ?? String(e) } }));
        }
      }
    })();
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const dryDone = picked.every((p) => states[p.key] && states[p.key]!.phase !== 'dry');
  const deletable = picked.filter((p) => states[p.key]?.phase === 'ok');
  const deleted = picked.filter((p) => states[p.key]?.phase === 'deleted').length;
  const confirm = async () => {
    setRunning(true);
    let failed = 0;
    for (const p of deletable) {
      try {
        await sendAction(deleteAction(refOf(p)), false);
        setStates((s) => ({ ...s, [p.key]: { phase: 'deleted' } }));
      } catch (e) {
        failed++;
        setStates((s) => ({ ...s, [p.key]: { phase: 'error', message: (e as Error)?.message ?? String(e) } }));
      }
    }
    setRunning(false);
    setFinished(true);
    toast(failed ? 'bad' : 'ok', `Deleted ${deletable.length - failed} of ${picked.length} ${info.resource}${failed ? `; ${failed} failed` : ''}`);
    if (!failed) {
      onDone();
      onClose();
    }
  };
  return (
    <div className="overlay" role="dialog" aria-modal="true" aria-label="Delete selected" onClick={() => !running && onClose()}>
      <div className="dialog wide" data-testid="bulk-delete-dialog" onClick={(e) => e.stopPropagation()}>
        <h3>
          Delete {picked.length} {info.resource}
        </h3>
        <p className="muted small">Each was asked first with dryRun=All. {running || finished ? `${deleted} of ${deletable.length} deleted.` : ''}</p>
        <table className="simple">
          <tbody>
            {picked.map((p) => {
              const st = states[p.key];
              return (
                <tr key={p.key} data-testid="bulk-delete-item" data-state={st?.phase ?? 'dry'}>
                  <td className="mono">{p.namespace ? `${p.namespace}/${p.name}` : p.name}</td>
                  <td className="wrap">{!st ? <span className="muted">dry run…</span> : st.phase === 'error' ? <span className="bad">{st.message}</span> : st.phase === 'ok' ? 'would be deleted' : st.phase}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <div className="dialog-actions">
          <button className="btn" onClick={onClose} disabled={running} autoFocus>
            {finished ? 'Close' : 'Cancel'}
          </button>
          {!finished && (
            <button className="btn primary danger" data-testid="bulk-delete-confirm" disabled={!dryDone || running || !deletable.length} onClick={() => void confirm()}>
              {running ? 'Deleting…' : `Confirm: delete ${deletable.length}`}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
