// The Events list: newest first (not by name), filters by type and reason, the object each is about as
// a link, messages wrapped in full, how many times each happened. Live: the list is an informer.
import { useMemo } from 'react';
import { resourceForKind, type ApiResource, type Discovery, type KubeObject } from '../../client/index.js';
import { ErrorState, LoadingState } from '../components/ErrorState.js';
import { useCollection } from '../data/informers.js';
import { ageOf, useNow } from '../lib/age.js';
import { eventRows, type EventRow } from '../lib/events.js';
import { Link, href, objectPath, setQuery, type Location, type TypeRef } from '../router.js';

/** Rows drawn at most: the newest; the filters narrow the rest. */
const MAX_ROWS = 500;

function ObjectLink({ row, discovery, listNamespace }: { row: EventRow; discovery: Discovery | undefined; listNamespace: string }) {
  const o = row.object;
  if (!o?.kind || !o.name) return <span className="muted">—</span>;
  const label = `${o.kind}/${o.name}`;
  const r: ApiResource | undefined = discovery ? resourceForKind(discovery, o.apiVersion ?? 'v1', o.kind) : undefined;
  if (!r) return <span>{label}</span>;
  return (
    <Link href={href(objectPath(r, r.namespaced ? (o.namespace ?? row.namespace) : undefined, o.name), { ns: listNamespace || undefined })} data-testid="event-object">
      {label}
    </Link>
  );
}

export function EventsView({ type, discovery, location }: { type: TypeRef; discovery: Discovery | undefined; location: Location }) {
  const namespace = location.query.get('ns') ?? '';
  const typeFilter = location.query.get('type') ?? '';
  const reasonFilter = location.query.get('reason') ?? '';
  const now = useNow();
  const info = discovery?.resources.find((r) => r.group === type.group && r.version === type.version && r.resource === type.resource);
  const events = useCollection<KubeObject>({ group: type.group, version: type.version, resource: type.resource, namespace: namespace || undefined, representation: 'object' });
  const all = useMemo(() => eventRows(events.data?.items ?? []), [events.data]);
  const reasons = useMemo(() => [...new Set(all.map((r) => r.reason).filter(Boolean))].sort(), [all]);
  const rows = useMemo(() => all.filter((r) => (!typeFilter || r.type === typeFilter) && (!reasonFilter || r.reason === reasonFilter)), [all, typeFilter, reasonFilter]);
  const shown = rows.slice(0, MAX_ROWS);
  return (
    <div className="events-view" data-testid="events-view">
      <div className="toolbar">
        <h2 className="title" data-testid="collection-title">
          Events{namespace ? <span className="muted small"> in {namespace}</span> : <span className="muted small"> in all namespaces</span>}
          <span className="muted small"> {info ? `${info.group || 'core'}/${info.version}` : ''}</span>
        </h2>
        <div className="filters">
          <label className="check">
            Type{' '}
            <select value={typeFilter} onChange={(e) => setQuery({ type: e.target.value || undefined }, { replace: true })} data-testid="events-type">
              <option value="">any</option>
              <option value="Warning">Warning</option>
              <option value="Normal">Normal</option>
            </select>
          </label>
          <label className="check">
            Reason{' '}
            <select value={reasonFilter} onChange={(e) => setQuery({ reason: e.target.value || undefined }, { replace: true })} data-testid="events-reason">
              <option value="">any</option>
              {reasonFilter && !reasons.includes(reasonFilter) && <option value={reasonFilter}>{reasonFilter}</option>}
              {reasons.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <span className="muted small" data-testid="events-count" role="status">
            {events.data ? `${rows.length.toLocaleString('en-US')} of ${all.length.toLocaleString('en-US')} events, newest first${rows.length > MAX_ROWS ? ` (the newest ${MAX_ROWS} shown)` : ''}` : ''}
          </span>
        </div>
      </div>
      {events.error ? (
        <ErrorState error={events.error} onRetry={() => void events.refetch()} />
      ) : !events.data ? (
        <LoadingState label="Reading events…" />
      ) : rows.length === 0 ? (
        <p className="muted">No events{typeFilter || reasonFilter ? ' match the filters' : ''}.</p>
      ) : (
        <section className="panel" aria-label="Events">
        <table className="simple events-table">
          <thead>
            <tr>
              <th scope="col">Last seen</th>
              <th scope="col">Type</th>
              <th scope="col">Reason</th>
              <th scope="col">Object</th>
              <th scope="col" className="num">
                Count
              </th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.uid} className={r.type === 'Warning' ? 'warn' : undefined} data-testid="event-row" data-type={r.type} data-last={r.lastText}>
                <td title={r.lastText}>{ageOf(r.lastText, now)}</td>
                <td className={r.type === 'Warning' ? 'tone-bad' : undefined}>{r.type}</td>
                <td>{r.reason}</td>
                <td>
                  {!namespace && r.namespace && <span className="muted">{r.namespace}/</span>}
                  <ObjectLink row={r} discovery={discovery} listNamespace={namespace} />
                </td>
                <td className="num" data-testid="event-count">
                  {r.count}
                </td>
                <td className="wrap">{r.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </section>
      )}
    </div>
  );
}
