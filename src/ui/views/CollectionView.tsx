// A collection: server-side Table columns for any kind (CRD printer columns included), chunks loaded as
// the user scrolls, live rows from a Table watch, label-selector and text filters, sorting, ticking ages.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { sameGroup, type ApiResource, type Discovery, type InformerSnapshot } from '../../client/index.js';
import { ErrorState, EmptyState, LoadingState } from '../components/ErrorState.js';
import { VirtualTable, type SortState } from '../components/VirtualTable.js';
import { useCollection } from '../data/informers.js';
import { useAccess } from '../data/permissions.js';
import { BulkDeleteDialog, type Picked } from './BulkDeleteDialog.js';
import { filterRows, metadataColumns, objectOfRow, sortRows, tableColumns, type Row } from '../lib/table-view.js';
import { Link, href, navigate, newObjectPath, objectPath, setQuery, type Location, type TypeRef } from '../router.js';

/** Above this many objects the metadata-only mode is suggested. */
const LARGE = 20_000;

function useThrottled<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    const wait = last.current + ms - Date.now();
    if (wait <= 0) {
      last.current = Date.now();
      setV(value);
      return;
    }
    const t = setTimeout(() => {
      last.current = Date.now();
      setV(value);
    }, wait);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

function parseSort(s: string | null): SortState | undefined {
  if (!s) return undefined;
  return s.startsWith('-') ? { id: s.slice(1), desc: true } : { id: s, desc: false };
}

function markOnce(name: string): void {
  if (performance.getEntriesByName(name).length) return;
  requestAnimationFrame(() => {
    if (!performance.getEntriesByName(name).length) performance.mark(name);
  });
}

interface Props {
  type: TypeRef;
  discovery: Discovery | undefined;
  discoveryError: unknown;
  location: Location;
  filterRef: React.RefObject<HTMLInputElement | null>;
}

export function CollectionView({ type, discovery, discoveryError, location, filterRef }: Props) {
  const q = location.query;
  const info: ApiResource | undefined = discovery?.resources.find((r) => sameGroup(r.group, type.group) && r.version === type.version && r.resource === type.resource);
  const namespace = info?.namespaced ? (q.get('ns') ?? '') : '';
  const labelSelector = q.get('l') ?? '';
  const text = q.get('q') ?? '';
  const sort = parseSort(q.get('sort'));
  const wide = q.get('wide') === '1';
  const metaOnly = q.get('meta') === '1';
  const loadAllWanted = q.get('all') === '1' || !!text || !!sort;
  const access = useAccess(info, namespace);
  // across all namespaces a namespaced create is decided per namespace: only the form can tell
  const createAllowed = info?.namespaced && !namespace ? undefined : access.can('create');

  const coll = useCollection<Row>(
    info
      ? {
          group: type.group,
          version: type.version,
          resource: type.resource,
          namespace: namespace || undefined,
          representation: metaOnly ? 'metadata' : 'table',
          labelSelector: labelSelector || undefined,
          lazy: true,
        }
      : undefined,
  );
  const snap: InformerSnapshot<Row> | undefined = coll.data;
  const informer = coll.informer;

  useEffect(() => {
    if (loadAllWanted && informer && snap?.synced && !snap.complete) informer.loadAll();
  }, [loadAllWanted, informer, snap?.synced, snap?.complete]);

  const allNamespaces = !!info?.namespaced && !namespace;
  const columns = useMemo(
    () => (metaOnly ? metadataColumns({ allNamespaces }) : tableColumns(snap?.columns, { allNamespaces, wide })),
    [metaOnly, allNamespaces, wide, snap?.columns],
  );

  // sorted/filtered views follow in-place updates at most once a second; structure changes at once
  const contentVersion = useThrottled(snap?.version ?? 0, text || sort ? 1000 : 0);
  const rows = useMemo(() => {
    let r: readonly Row[] = snap?.items ?? [];
    if (text) r = filterRows(r, text, columns);
    if (sort) {
      const col = columns.find((c) => c.id === sort.id);
      if (col) r = sortRows(r, col, sort.desc);
    }
    return r;
  }, [snap?.items, snap?.structureVersion, text, sort?.id, sort?.desc, columns, text || sort ? contentVersion : 0]); // eslint-disable-line react-hooks/exhaustive-deps

  const placeholders = !text && !sort && snap && !snap.complete ? Math.max(snap.remaining ?? 0, 1) : 0;
  const [selected, setSelected] = useState(0);
  // rows picked for a bulk action (Space or the row's box), by row key
  const [picked, setPicked] = useState<Map<string, Picked>>(new Map());
  const [bulkDeleting, setBulkDeleting] = useState(false);
  const collectionId = `${type.group}/${type.resource}/${namespace}/${labelSelector}/${metaOnly}`;
  useEffect(() => setSelected(0), [collectionId]);

  useEffect(() => {
    if (!snap?.synced) return;
    if (rows.length > 0) markOnce('periscope:first-rows');
    if (snap.complete) markOnce('periscope:all-rows');
  }, [snap?.synced, snap?.complete, rows.length]);

  const onRangeChange = useCallback(
    (_first: number, last: number) => {
      if (informer && snap && !snap.complete && last >= snap.loaded - 150) informer.ensureLoaded(last + 500);
    },
    [informer, snap],
  );

  const keyOf = useCallback((r: Row) => {
    const m = objectOfRow(r)?.metadata;
    return m?.namespace ? `${m.namespace}/${m.name}` : (m?.name ?? '');
  }, []);
  const rowHref = useCallback(
    (r: Row) => {
      const m = objectOfRow(r)?.metadata;
      if (!m?.name) return undefined;
      return href(objectPath(type, m.namespace, m.name), { ns: namespace || undefined });
    },
    [type, namespace],
  );
  const onOpen = useCallback((r: Row) => {
    const h = rowHref(r);
    if (h) navigate(h);
  }, [rowHref]);
  const { pickedKeys, onToggle } = usePicking(keyOf, picked, setPicked);
  const onSort = useCallback(
    (id: string) => {
      const next = sort?.id !== id ? id : sort.desc ? undefined : `-${id}`;
      setQuery({ sort: next }, { replace: true });
    },
    [sort],
  );

  const [labelDraft, setLabelDraft] = useState(labelSelector);
  useEffect(() => setLabelDraft(labelSelector), [labelSelector]);
  const [textDraft, setTextDraft] = useState(text);
  useEffect(() => setTextDraft(text), [text]);
  useEffect(() => {
    if (textDraft === text) return;
    const t = setTimeout(() => setQuery({ q: textDraft || undefined }, { replace: true }), 150);
    return () => clearTimeout(t);
  }, [textDraft]); // eslint-disable-line react-hooks/exhaustive-deps

  if (!info) {
    if (discoveryError) return <ErrorState error={discoveryError} />;
    if (!discovery) return <LoadingState label="Discovering API types…" />;
    return (
      <EmptyState title={`${type.resource} is not served`}>
        The server does not serve {type.group || 'core'}/{type.version} {type.resource}. If it comes from a CustomResourceDefinition, it appears here as soon as it is
        established.
      </EmptyState>
    );
  }

  const total = snap ? snap.loaded + (snap.complete ? 0 : (snap.remaining ?? 0)) : undefined;
  const where = info.namespaced ? (namespace ? `in ${namespace}` : 'in all namespaces') : 'cluster-wide';

  return (
    <div className="collection" data-testid="collection" data-resource={type.resource}>
      <div className="toolbar">
        <h2 className="title" data-testid="collection-title">
          {info.kind}
          <span className="muted small">
            {' '}
            {type.resource}.{type.group || 'core'}/{type.version} · {where}
          </span>
        </h2>
        <div className="toolbar-row">
          <input
            ref={filterRef}
            type="search"
            className="filter"
            data-testid="text-filter"
            placeholder="Filter rows… ( / )"
            aria-label="Filter rows"
            value={textDraft}
            onChange={(e) => setTextDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                setTextDraft('');
                e.currentTarget.blur();
              }
              if (e.key === 'ArrowDown') (document.querySelector('[data-testid=resource-table]') as HTMLElement | null)?.focus();
            }}
          />
          <form
            className="label-form"
            onSubmit={(e) => {
              e.preventDefault();
              setQuery({ l: labelDraft.trim() || undefined });
            }}
          >
            <input
              className="label-selector"
              data-testid="label-selector"
              placeholder="Label selector, e.g. app=web,tier!=db"
              aria-label="Label selector"
              value={labelDraft}
              onChange={(e) => setLabelDraft(e.target.value)}
            />
          </form>
          <label className="check" title="Show the server's lower-priority columns (kubectl -o wide)">
            <input type="checkbox" checked={wide} disabled={metaOnly} onChange={(e) => setQuery({ wide: e.target.checked }, { replace: true })} /> wide
          </label>
          <label className="check" title="Metadata-only mode: PartialObjectMetadata lists, lighter for very large collections">
            <input type="checkbox" data-testid="metadata-only" checked={metaOnly} onChange={(e) => setQuery({ meta: e.target.checked })} /> metadata only
          </label>
          {info.verbs.includes('create') &&
            (createAllowed === false ? (
              <button className="btn small" data-testid="new-object" disabled title={access.missing('create')}>
                New {info.kind}
              </button>
            ) : (
              <Link className="btn small" data-testid="new-object" href={href(newObjectPath(type), { ns: namespace || undefined })} title={`Create a ${info.kind} from a template`}>
                New {info.kind}
              </Link>
            ))}
          {picked.size > 0 && info.verbs.includes('delete') && (
            <button className="btn small danger" data-testid="bulk-delete" disabled={access.can('delete') === false} title={access.can('delete') === false ? access.missing('delete') : undefined} onClick={() => setBulkDeleting(true)}>
              Delete {picked.size}…
            </button>
          )}
          {snap && !snap.complete && (
            <button className="btn small" data-testid="load-all" onClick={() => setQuery({ all: true }, { replace: true })}>
              Load all
            </button>
          )}
        </div>
        <div className="status-row">
          <span data-testid="row-count" className="count">
            {snap ? (
              <>
                {text ? `${rows.length.toLocaleString()} of ` : ''}
                {snap.loaded.toLocaleString()}
                {!snap.complete && total !== undefined ? ` of ~${total.toLocaleString()}` : ''} {snap.loaded === 1 ? 'row' : 'rows'}
              </>
            ) : (
              'loading…'
            )}
          </span>
          {snap && !snap.complete && total ? (
            <progress className="progress" data-testid="list-progress" max={total} value={snap.loaded} title={`${snap.loaded} of ~${total} loaded`} />
          ) : null}
          {snap && <CollectionState snap={snap} />}
          {snap?.form === 'list' && !metaOnly && <span className="muted small" title="The server did not return the Table form">plain list</span>}
          {total !== undefined && total > LARGE && !metaOnly && (
            <button className="link small" onClick={() => setQuery({ meta: true })}>
              Large collection: switch to metadata-only
            </button>
          )}
        </div>
      </div>
      {coll.isError ? (
        <ErrorState error={coll.error} onRetry={() => void coll.refetch()} />
      ) : !snap ? (
        <LoadingState label={`Listing ${type.resource}…`} />
      ) : (
        <>
          {snap.error && (snap.state === 'error' || snap.state === 'stale') && <ErrorState error={snap.error} compact />}
          {snap.complete && snap.loaded === 0 ? (
            <EmptyState title={`No ${type.resource} ${where}`}>{labelSelector ? `Nothing matches the label selector "${labelSelector}".` : 'New objects appear here as they are created.'}</EmptyState>
          ) : text && rows.length === 0 && snap.complete ? (
            <EmptyState title="No rows match the filter">Clear the filter to see all {snap.loaded.toLocaleString()} rows.</EmptyState>
          ) : (
            <VirtualTable
              rows={rows}
              placeholders={placeholders}
              columns={columns}
              version={snap.version}
              keyOf={keyOf}
              sort={sort}
              onSort={onSort}
              selected={selected}
              onSelect={setSelected}
              onOpen={onOpen}
              rowHref={rowHref}
              onRangeChange={onRangeChange}
              label={`${info.kind} list`}
              checked={pickedKeys}
              onToggle={info.verbs.includes('delete') ? onToggle : undefined}
            />
          )}
        </>
      )}
      {bulkDeleting && info && (
        <BulkDeleteDialog info={info} picked={[...picked.values()]} onClose={() => setBulkDeleting(false)} onDone={() => setPicked(new Map())} />
      )}
    </div>
  );
}

function usePicking(keyOf: (r: Row) => string, picked: Map<string, Picked>, setPicked: (m: Map<string, Picked>) => void) {
  const pickedKeys = useMemo(() => new Set(picked.keys()), [picked]);
  const onToggle = useCallback(
    (r: Row) => {
      const k = keyOf(r);
      const o = objectOfRow(r);
      const next = new Map(picked);
      if (next.has(k)) next.delete(k);
      else if (o?.metadata?.name) next.set(k, { key: k, name: o.metadata.name, namespace: o.metadata.namespace });
      setPicked(next);
    },
    [keyOf, picked, setPicked],
  );
  return { pickedKeys, onToggle };
}

function CollectionState({ snap }: { snap: InformerSnapshot<unknown> }) {
  const label = snap.state === 'live' ? (snap.complete ? 'live' : 'live · loading on scroll') : snap.state;
  return (
    <span className={`pill state-${snap.state}`} data-testid="collection-state" data-state={snap.state} title={snap.relists ? `relisted ${snap.relists}× (${snap.lastRelistReason})` : undefined}>
      {label}
      {snap.relists > 0 && <span className="muted"> · relisted</span>}
    </span>
  );
}
