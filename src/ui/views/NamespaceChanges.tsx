// "What changed in the last N minutes" in one namespace: every kind's objects (metadata-only, paged),
// those whose managedFields were written within the window, newest first, with who wrote them.
// Deletions leave nothing to list: they are not shown.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApiResource, Discovery, KubeObject, ManagedFieldsEntry } from '../../client/index.js';
import { useBrowsableResources } from '../data/discovery.js';
import { keys } from '../data/keys.js';
import { eachLimited, listPages } from '../data/scan.js';
import { searchableKinds } from '../lib/search-rank.js';
import { Link, href, objectPath } from '../router.js';

interface Change {
  resource: ApiResource;
  name: string;
  entry: ManagedFieldsEntry;
  created: boolean;
  createdAt?: string;
}

const WINDOWS = [5, 15, 60, 24 * 60];

function latest(o: KubeObject): ManagedFieldsEntry | undefined {
  let best: ManagedFieldsEntry | undefined;
  for (const e of o.metadata?.managedFields ?? []) if (e.time && (!best || e.time >= best.time!)) best = e;
  return best;
}

export function NamespaceChanges({ namespace, discovery }: { namespace: string; discovery: Discovery }) {
  const [minutes, setMinutes] = useState(15);
  // Events served by two groups are one list of objects: read once
  const kinds = searchableKinds(useBrowsableResources(discovery).filter((r) => r.namespaced));
  const q = useQuery({
    queryKey: keys.namespaceChanges(namespace, minutes, kinds.length),
    queryFn: async ({ signal }) => {
      const since = new Date(Date.now() - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
      const out: Change[] = [];
      await eachLimited(
        kinds,
        4,
        async (k) => {
          try {
            for await (const page of listPages(k, { namespace, signal }))
              for (const o of page) {
                const e = latest(o);
                // "created" only when the latest write is the creation itself (same second); a later write is a change
                if (e?.time && e.time >= since) out.push({ resource: k, name: o.metadata!.name!, entry: e, created: !!o.metadata?.creationTimestamp && e.time <= o.metadata.creationTimestamp, createdAt: o.metadata?.creationTimestamp });
              }
          } catch {
            // a kind we may not list
          }
        },
        signal,
      );
      return out.sort((a, b) => (b.entry.time ?? '').localeCompare(a.entry.time ?? ''));
    },
  });
  return (
    <div className="timeline" data-testid="namespace-changes">
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
      {q.data && q.data.length === 0 && <p className="muted">Nothing changed in this window (deletions are not listed).</p>}
      <ol className="timeline-list">
        {(q.data ?? []).map((c) => (
          <li key={`${c.resource.group}/${c.resource.resource}/${c.name}`} className="timeline-entry" data-type={c.created ? 'ADDED' : 'MODIFIED'} data-testid="namespace-change">
            <Link href={href(objectPath(c.resource, namespace, c.name, 'history'))}>
              {c.resource.kind}/{c.name}
            </Link>{' '}
            <span className="muted small">
              {c.created ? 'created' : 'changed'} by <span className="mono">{c.entry.manager}</span> ({c.entry.operation}) at {c.entry.time}
              {!c.created && c.createdAt ? ` · created ${c.createdAt}` : ''}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}
