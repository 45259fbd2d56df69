// Deleting an object: propagation policy and grace period, a dry run first (what would happen, and
// which dependents garbage collection would remove), finalizers each removable.
import { useEffect, useMemo, useState } from 'react';
import type { ApiResource, Discovery, KubeObject, ResourceRef } from '../../client/index.js';
import type { Dependent } from '../data/dependents.js';
import { useDependents } from '../data/queries.js';
import { deleteWithOptions as sendDelete, type DeleteOutcome as Outcome, type PropagationPolicy } from '../data/writes.js';
import { ErrorState } from '../components/ErrorState.js';
import { Link, href, objectPath } from '../router.js';
import { FinalizerList } from './Finalizers.js';

export type { PropagationPolicy } from '../data/writes.js';

interface Props {
  info: ApiResource;
  object: KubeObject;
  discovery: Discovery;
  listNamespace: string;
  onClose: () => void;
  /** After the real delete: gone means the object no longer exists. */
  onDeleted: (gone: boolean) => void;
}

export function DeleteDialog({ info, object, discovery, listNamespace, onClose, onDeleted }: Props) {
  const m = object.metadata ?? {};
  const ref: ResourceRef = useMemo(() => ({ group: info.group, version: info.version, resource: info.resource, namespace: m.namespace, name: m.name }), [info, m.namespace, m.name]);
  const [policy, setPolicy] = useState<PropagationPolicy>('Background');
  const [graceText, setGraceText] = useState('');
  const grace = graceText.trim() === '' ? undefined : Number(graceText);
  const graceInvalid = grace !== undefined && !(Number.isInteger(grace) && grace >= 0);
  const [dry, setDry] = useState<{ key: string; outcome?: Outcome; error?: unknown }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const key = `${policy}/${graceText}`;

  // dry run whenever the options change
  useEffect(() => {
    if (graceInvalid) return;
    let stale = false;
    sendDelete(ref, m.uid, policy, grace, true).then(
      (outcome) => !stale && setDry({ key, outcome }),
      (e: unknown) => !stale && setDry({ key, error: e }),
    );
    return () => {
      stale = true;
    };
  }, [key, ref, m.uid]); // eslint-disable-line react-hooks/exhaustive-deps

  // the scan runs once per dialog; the object's own updates do not change its uid
  const scan = useDependents(discovery, object);
  const deps: { dependents: Dependent[]; skipped: string[]; error?: unknown } | undefined = scan.isPending ? undefined : scan.error ? { dependents: [], skipped: [], error: scan.error } : scan.data;

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const r = await sendDelete(ref, m.uid, policy, grace, false);
      onDeleted(r.gone);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const current = dry?.key === key ? dry : undefined;
  const outcome = current?.outcome;
  const pendingFinalizers = outcome?.object?.metadata?.finalizers ?? [];
  const removed = (deps?.dependents ?? []).filter((d) => !d.otherOwners.length);

  return (
    <div className="overlay" role="dialog" aria-label={`Delete ${m.name}`} onClick={onClose}>
      <div className="dialog wide delete-dialog" data-testid="delete-dialog" onClick={(e) => e.stopPropagation()}>
        <h3>
          Delete {info.kind} <span className="mono">{m.name}</span>
          {m.namespace && <span className="muted small"> in {m.namespace}</span>}
        </h3>
        {m.deletionTimestamp && (
          <div className="banner banner-deleting" data-testid="already-deleting">
            Already being deleted since {m.deletionTimestamp}
            {m.finalizers?.length ? `; waiting for finalizers: ${m.finalizers.join(', ')}` : ''}.
          </div>
        )}
        <RecreatedBy object={object} />
        <div className="delete-options">
          <label className="check">
            propagation
            <select data-testid="delete-policy" value={policy} onChange={(e) => setPolicy(e.target.value as PropagationPolicy)}>
              <option value="Background">Background: delete now, dependents after</option>
              <option value="Foreground">Foreground: dependents first, then this</option>
              <option value="Orphan">Orphan: keep dependents (drop their owner reference)</option>
            </select>
          </label>
          <label className="check">
            grace period (s)
            <input data-testid="delete-grace" className={graceInvalid ? 'invalid' : ''} inputMode="numeric" placeholder="default" value={graceText} onChange={(e) => setGraceText(e.target.value)} size={7} />
          </label>
        </div>

        <section className="delete-section" data-testid="delete-dry-run">
          <h4>Dry run</h4>
          {graceInvalid ? (
            <span className="bad">The grace period must be a whole number of seconds.</span>
          ) : !current ? (
            <span className="muted">Asking the server (dryRun=All)…</span>
          ) : current.error ? (
            <ErrorState error={current.error} compact />
          ) : outcome?.gone ? (
            <span data-testid="dry-run-outcome" data-outcome="gone">
              The server would delete it at once.
            </span>
          ) : (
            <span data-testid="dry-run-outcome" data-outcome="pending">
              The server would mark it for deletion (deletionTimestamp){pendingFinalizers.length ? `; it stays until these finalizers are removed: ${pendingFinalizers.join(', ')}` : ''}
              {outcome?.object?.metadata?.deletionGracePeriodSeconds ? `; grace period ${outcome.object.metadata.deletionGracePeriodSeconds}s` : ''}.
            </span>
          )}
          {outcome?.warnings.length ? <div className="banner banner-warn">{outcome.warnings.join('; ')}</div> : null}
        </section>

        <section className="delete-section" data-testid="delete-dependents">
          <h4>Dependents (ownerReferences)</h4>
          {!deps ? (
            <span className="muted">Looking through every type for objects owned by it…</span>
          ) : deps.error ? (
            <ErrorState error={deps.error} compact />
          ) : deps.dependents.length === 0 ? (
            <span className="muted" data-testid="no-dependents">
              Nothing is owned by this object.
            </span>
          ) : (
            <>
              <div className="small">
                {policy === 'Orphan'
                  ? `${deps.dependents.filter((d) => d.depth === 1).length} dependent(s) would be kept, their owner reference to this object removed.`
                  : `Garbage collection would remove ${removed.length} object(s)${policy === 'Foreground' ? ' before this one' : ' after this one is gone'}:`}
              </div>
              <ul className="plain-list dependents">
                {deps.dependents.map((d) => (
                  <li key={d.uid} data-testid="dependent" style={{ paddingLeft: (d.depth - 1) * 16 }}>
                    <Link href={href(objectPath(d.type, d.namespace, d.name), { ns: listNamespace || undefined })}>
                      {d.type.kind}/{d.name}
                    </Link>
                    {d.namespace && d.namespace !== m.namespace && <span className="muted small"> in {d.namespace}</span>}
                    {d.otherOwners.length > 0 && <span className="pill">stays: also owned by {d.otherOwners.map((o) => `${o.kind}/${o.name}`).join(', ')}</span>}
                    {d.blocksOwnerDeletion && policy === 'Foreground' && <span className="pill muted">blocks owner deletion</span>}
                  </li>
                ))}
              </ul>
            </>
          )}
          {deps?.skipped.length ? <div className="muted small">Could not list: {deps.skipped.join(', ')}</div> : null}
        </section>

        <section className="delete-section">
          <h4>Finalizers</h4>
          <FinalizerList object={object} objectRef={ref} />
        </section>

        {error !== undefined && <ErrorState error={error} compact />}
        <div className="dialog-actions">
          <button className="btn" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button className="btn danger" data-testid="delete-confirm" disabled={busy || !outcome || graceInvalid} onClick={() => void confirm()}>
            {busy ? 'Deleting…' : 'Delete'}
          </button>
        </div>
      </div>
    </div>
  );
}

/** A controller-owned object comes back: say who will recreate it (as people expect from a ReplicaSet's pod). */
function RecreatedBy({ object }: { object: KubeObject }) {
  const owner = object.metadata?.ownerReferences?.find((o) => o.controller);
  if (!owner || !['ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'ReplicationController'].includes(owner.kind)) return null;
  return (
    <div className="banner" data-testid="delete-recreated-by">
      {owner.kind} <span className="mono">{owner.name}</span> owns this {object.kind ?? 'object'}: it will create a replacement{owner.kind === 'StatefulSet' ? ' with the same name' : ''} after the delete.
    </div>
  );
}
