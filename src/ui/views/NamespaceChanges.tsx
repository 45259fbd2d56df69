// "What changed in the last N minutes" in one namespace: creations, changes (with who made them) and
// deletions, newest first (data/namespace-changes.ts reads them). Each links to the object's history,
// a deleted object's too.
import { useState } from 'react';
import type { Discovery } from '../../client/index.js';
import { useBrowsableResources } from '../data/discovery.js';
import { useNamespaceChanges } from '../data/namespace-changes.js';
import { searchableKinds } from '../lib/search-rank.js';
import { Link, href, objectPath } from '../router.js';

const WINDOWS = [5, 15, 60, 24 * 60];

export function NamespaceChanges({ namespace, discovery }: { namespace: string; discovery: Discovery }) {
  const [minutes, setMinutes] = useState(15);
  // Events served by two groups are one list of objects: read once
  const kinds = searchableKinds(useBrowsableResources(discovery).filter((r) => r.namespaced));
  const q = useNamespaceChanges(namespace, minutes, kinds);
  return (
    <section className="panel timeline" data-testid="namespace-changes" aria-label={`Changes in ${namespace}`}>
      <label className="check">
        What changed in {namespace} in the last{' '}
        <select value={minutes} onChange={(e) => setMinutes(Number(e.target.value))} data-testid="changes-window">
          {WINDOWS.map((m) => (
            <option key={m} value={m}>
              {m < 60 ? `${m} minutes` : m === 60 ? 'hour' : 'day'}
            </option>
          ))}
        </select>
      </label>
      {q.isLoading && <p className="muted">Reading every kind in the namespace…</p>}
      {q.changes && q.changes.length === 0 && !q.deletionsLoading && <p className="muted">Nothing changed in this window.</p>}
      {q.changes && q.deletionsLoading && (
        <p className="muted small" data-testid="deletions-checking">
          Looking for deletions…
        </p>
      )}
      {q.expired.length > 0 && (
        <p className="muted small" data-testid="changes-expired">
          The server no longer retains the history of {q.expired.join(', ')}: deletions of those may be missing.
        </p>
      )}
      <ol className="timeline-list">
        {(q.changes ?? []).map((c) => (
          <li key={`${c.resource.group}/${c.resource.resource}/${c.name}/${c.type}/${c.resourceVersion}`} className="timeline-entry" data-type={c.type} data-testid="namespace-change">
            <Link href={href(objectPath(c.resource, namespace, c.name, 'history'))}>
              {c.resource.kind}/{c.name}
            </Link>{' '}
            <span className="muted small">
              {c.type === 'DELETED' ? (
                <>
                  <span className="tone-bad">deleted</span> at resourceVersion {c.resourceVersion}
                  {c.entry?.time ? ` · last written at ${c.entry.time} by ` : ''}
                  {c.entry?.time && <span className="mono">{c.entry.manager}</span>}
                </>
              ) : (
                <>
                  {c.type === 'ADDED' ? 'created' : 'changed'} by <span className="mono">{c.entry?.manager}</span> ({c.entry?.operation}) at {c.entry?.time}
                  {c.type === 'MODIFIED' && c.createdAt ? ` · created ${c.createdAt}` : ''}
                </>
              )}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
