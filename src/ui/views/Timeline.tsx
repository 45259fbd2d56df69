// One object's history within what the server retains (data/history.ts replays it from the watch), each
// version shown as a diff from the one before with who made it (the managedFields entry written last). Where history
// is no longer retained the server answers 410 (Expired) and the view says so.
import { useMemo, useState } from 'react';
import type { KubeObject, ManagedFieldsEntry, ResourceRef } from '../../client/index.js';
import { useObjectHistory as useHistory, type Version } from '../data/history.js';
import { printObject, withoutNoise } from '../editor/documents.js';
import { changedHunks, diffLines } from '../lib/line-diff.js';
import { classifyChange, fieldDiff, restoreBody, type ChangeKind } from '../lib/history.js';
import { ReviewDialog, type Review } from '../editor/ReviewDialog.js';
import { buildWrite, sendWrite } from '../editor/requests.js';
import { ErrorState } from '../components/ErrorState.js';


const entryKey = (e: ManagedFieldsEntry) => `${e.manager}\u0000${e.operation}\u0000${e.subresource ?? ''}`;

/**
 * Who made a version: the managedFields entry this write added or changed (its fields or time) against
 * the version before; timestamps have one-second resolution, so "written last" alone cannot tell.
 */
export function authorOf(obj: KubeObject, prev?: KubeObject): ManagedFieldsEntry | undefined {
  const before = new Map((prev?.metadata?.managedFields ?? []).map((e) => [entryKey(e), e]));
  const entries = obj.metadata?.managedFields ?? [];
  // a writer's entry is new or re-stamped; an entry that only lost fields (taken over by the writer) is not the writer's
  const stamped = entries.filter((e) => {
    const b = before.get(entryKey(e));
    return !b || b.time !== e.time;
  });
  const changed = entries.filter((e) => JSON.stringify(before.get(entryKey(e))?.fieldsV1) !== JSON.stringify(e.fieldsV1));
  let best: ManagedFieldsEntry | undefined;
  for (const e of stamped.length ? stamped : changed.length ? changed : entries) if (!best || (e.time ?? '') >= (best.time ?? '')) best = e;
  return best;
}

const CHANGE_LABEL: Record<ChangeKind, string> = { created: 'Created', deleted: 'Deleted', spec: 'Changed', status: 'Status only' };
type Filter = 'spec' | 'all' | 'status';

function versionLabel(v: Version, kind: ChangeKind): string {
  const t = authorOf(v.object)?.time ?? v.object.metadata?.creationTimestamp ?? '';
  return `resourceVersion ${v.object.metadata?.resourceVersion} · ${CHANGE_LABEL[kind].toLowerCase()}${t ? ` · ${t}` : ''}`;
}

/** Two versions side by side, field by field. */
function Compare({ versions, kinds }: { versions: Version[]; kinds: ChangeKind[] }) {
  const n = versions.length;
  const [from, setFrom] = useState<number>(Math.max(0, n - 2));
  const [to, setTo] = useState<number>(n - 1);
  const a = versions[Math.min(from, n - 1)]?.object;
  const b = versions[Math.min(to, n - 1)]?.object;
  const changes = useMemo(() => fieldDiff(a, b), [a, b]);
  if (n < 2) return null;
  const pick = (value: number, set: (v: number) => void, id: string, label: string) => (
    <label className="check">
      {label}{' '}
      <select id={id} data-testid={id} value={Math.min(value, n - 1)} onChange={(e) => set(Number(e.target.value))}>
        {versions.map((v, i) => (
          <option key={v.object.metadata?.resourceVersion ?? i} value={i}>
            {versionLabel(v, kinds[i]!)}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <section className="panel compare" aria-labelledby="compare-h" data-testid="history-compare">
      <h3 id="compare-h">Compare two versions</h3>
      <div className="compare-pickers">
        {pick(from, setFrom, 'compare-from', 'From')}
        {pick(to, setTo, 'compare-to', 'to')}
      </div>
      {changes.length === 0 ? (
        <p className="muted small">No field differs.</p>
      ) : (
        <table className="simple field-diff" data-testid="field-diff">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">From</th>
              <th scope="col">To</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.path} data-testid="field-change" data-path={c.path}>
                <td className="mono small">{c.path}</td>
                <td className="mono small diff-del-cell">{c.before ?? <span className="muted">(none)</span>}</td>
                <td className="mono small diff-add-cell">{c.after ?? <span className="muted">(none)</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** "Restore this version": the editor's dry run first (its diff of what the server would store), then Confirm. */
function useRestore(objectRef: ResourceRef, current: KubeObject | undefined) {
  const [review, setReview] = useState<{ review: Review; version: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  // The restore is sent without a resourceVersion guard, as `kubectl rollout undo` patches without one:
  // controllers keep writing status while a rollout settles, and a guarded PUT then fails (409) between
  // the preview and Confirm. A PUT replaces spec and metadata only; status stays the server's.
  const start = async (v: Version) => {
    setError(undefined);
    setDone(undefined);
    setBusy(true);
    try {
      const restored = restoreBody(v.object, current);
      const { resourceVersion: _unguarded, ...metadata } = restored.metadata ?? {};
      const request = buildWrite(current ? 'replace' : 'create', objectRef, JSON.stringify({ ...restored, metadata }), { fieldValidation: 'Strict' });
      const dry = await sendWrite(request, true);
      setReview({ review: { request, result: dry.object, warnings: dry.warnings }, version: v.object.metadata?.resourceVersion ?? '' });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const confirm = async () => {
    if (!review) return;
    setBusy(true);
    try {
      await sendWrite(review.review.request, false);
      setDone(review.version);
      setReview(undefined);
    } catch (e) {
      setError(e);
      setReview(undefined);
    } finally {
      setBusy(false);
    }
  };
  return { review, busy, error, done, start, confirm, close: () => setReview(undefined) };
}

export function Timeline({ objectRef, object }: { objectRef: ResourceRef; object: KubeObject | undefined }) {
  const { versions, loading, expired, error } = useHistory(objectRef, object?.metadata?.resourceVersion);
  const [filter, setFilter] = useState<Filter>('spec');
  const restore = useRestore(objectRef, object);
  const kinds = useMemo(() => versions.map((v, i) => classifyChange(v.type, versions[i - 1]?.object, v.object)), [versions]);
  const entries = useMemo(() => {
    const texts = versions.map((v) => printObject(withoutNoise(v.object), 'yaml'));
    return versions
      .map((v, i) => {
        const diff = diffLines(i === 0 ? '' : texts[i - 1]!, texts[i]!);
        return { v, i, kind: kinds[i]!, hunks: diff ? changedHunks(diff) : undefined, author: authorOf(v.object, versions[i - 1]?.object) };
      })
      .reverse();
  }, [versions, kinds]);
  const shown = entries.filter((e) => filter === 'all' || (filter === 'status' ? e.kind === 'status' : e.kind !== 'status'));
  const hidden = entries.length - shown.length;
  const latest = versions.length - 1;
  return (
    <div className="timeline" data-testid="timeline">
      <p className="muted small">
        Changes of this object the server still retains, newest first, as its watch reports them (created, changed, deleted); each with the manager that wrote it (from managedFields).
        {loading && ' Reading history…'}
      </p>
      {!object && !loading && versions.length > 0 && (
        <div className="banner banner-warn" data-testid="timeline-deleted">
          This object no longer exists. Its last versions are kept below; restoring one creates it again.
        </div>
      )}
      {expired && (
        <div className="banner banner-warn" data-testid="timeline-expired">
          The server no longer retains the older history of this object (410 Expired): only the changes since then are shown.
        </div>
      )}
      {!!error && (
        <div className="banner banner-error" role="alert">
          {(error as Error).message}
        </div>
      )}
      {restore.error !== undefined && <ErrorState error={restore.error} compact />}
      {restore.done && (
        <p className="banner" role="status" data-testid="restored">
          Restored the content of resourceVersion {restore.done}.
        </p>
      )}
      <Compare key={versions.length} versions={versions} kinds={kinds} />
      <div className="history-filter">
        <label className="check">
          Show{' '}
          <select value={filter} onChange={(e) => setFilter(e.target.value as Filter)} data-testid="history-filter">
            <option value="spec">changes to spec and metadata</option>
            <option value="all">all changes</option>
            <option value="status">status-only changes</option>
          </select>
        </label>
        {hidden > 0 && (
          <span className="muted small" data-testid="history-hidden">
            {' '}
            {hidden} {filter === 'status' ? 'other' : 'status-only'} {hidden === 1 ? 'change' : 'changes'} hidden
          </span>
        )}
      </div>
      <ol className="timeline-list" data-testid="timeline-entries">
        {shown.map(({ v, i, kind, hunks, author }) => (
          <li key={v.object.metadata?.resourceVersion} className="timeline-entry" data-testid="timeline-entry" data-type={v.type} data-change={kind}>
            <div className="timeline-head">
              <strong>{CHANGE_LABEL[kind]}</strong> <span className="mono small">resourceVersion {v.object.metadata?.resourceVersion}</span>
              {author && (
                <span className="muted small" data-testid="timeline-author">
                  {' '}
                  by <span className="mono">{author.manager}</span> ({author.operation}
                  {author.subresource ? `, ${author.subresource}` : ''}){author.time ? ` at ${author.time}` : ''}
                </span>
              )}
              {v.type !== 'DELETED' && (i !== latest || !object) && (
                <button className="btn small" data-testid="restore-version" disabled={restore.busy} onClick={() => void restore.start(v)}>
                  Restore this version…
                </button>
              )}
            </div>
            {hunks ? (
              <pre className="diff mono small" data-testid="timeline-diff" tabIndex={0} aria-label={`Changes in resourceVersion ${v.object.metadata?.resourceVersion}`}>
                {hunks.map((h, k) =>
                  h === 'gap' ? (
                    <span key={k} className="diff-gap">
                      {'⋯\n'}
                    </span>
                  ) : (
                    <span key={k} className={h.op === '+' ? 'diff-add' : h.op === '-' ? 'diff-del' : 'diff-ctx'}>
                      {`${h.op} ${h.text}\n`}
                    </span>
                  ),
                )}
              </pre>
            ) : (
              <p className="muted small">Too large to diff line by line.</p>
            )}
          </li>
        ))}
      </ol>
      {restore.review && <ReviewDialog review={restore.review.review} current={object} format="yaml" busy={restore.busy} onConfirm={() => void restore.confirm()} onClose={restore.close} />}
    </div>
  );
}
