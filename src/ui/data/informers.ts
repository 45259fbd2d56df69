// Informers bound to react-query: one informer per query key; its watch events replace the query's data
// (no polling). The informer stops when react-query garbage-collects the query.
import { hashKey, useQuery, useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { Informer, acceptFor, resourcePath, type ConnectionState, type InformerSnapshot, type KubeObject, type TableRow } from '../../client/index.js';
import { api } from '../api.js';
import { parseRoute } from '../router.js';

/** Rows of a collection's first chunk: small, so the first rows show soon; the rest follows in larger chunks. */
const FIRST_PAGE_SIZE = 200;

export interface CollectionParams {
  group: string;
  version: string;
  resource: string;
  namespace?: string;
  representation: 'table' | 'metadata' | 'object';
  labelSelector?: string;
  fieldSelector?: string;
  /** Load chunks as the user scrolls instead of everything up front. */
  lazy?: boolean;
  /** Keep managedFields (object views); dropped from list rows to save memory. */
  keepManagedFields?: boolean;
}

interface Entry {
  informer: Informer<unknown>;
  key: QueryKey;
  label: string;
  unsubscribe: () => void;
}

const entries = new Map<string, Entry>();
const connListeners = new Set<() => void>();
let bound: QueryClient | undefined;

export function collectionKey(p: CollectionParams): QueryKey {
  return ['informer', p.group, p.version, p.resource, p.namespace ?? '', p.representation, p.labelSelector ?? '', p.fieldSelector ?? '', p.lazy ? 'lazy' : 'all', p.keepManagedFields ? 'mf' : ''];
}

function stripManagedFields<T>(item: T): T {
  const o = (Array.isArray((item as TableRow).cells) ? (item as TableRow).object : item) as KubeObject | undefined;
  if (!o?.metadata?.managedFields) return item;
  const { managedFields: _drop, ...meta } = o.metadata;
  const stripped = { ...o, metadata: meta };
  return (o === (item as unknown) ? stripped : { ...(item as TableRow), object: stripped }) as T;
}

/** Stops informers whose queries react-query dropped. Call once with the app's QueryClient. */
export function bindInformersTo(qc: QueryClient): void {
  if (bound === qc) return;
  bound = qc;
  qc.getQueryCache().subscribe((ev) => {
    if (ev.type === 'removed') stopEntry(hashKey(ev.query.queryKey));
  });
}

function stopEntry(hash: string): void {
  const e = entries.get(hash);
  if (!e) return;
  entries.delete(hash);
  e.unsubscribe();
  e.informer.stop();
  notifyConn();
}

function informerFor(qc: QueryClient, key: QueryKey, p: CollectionParams): Informer<unknown> {
  const hash = hashKey(key);
  const existing = entries.get(hash);
  if (existing) return existing.informer;
  const informer = new Informer<unknown>({
    client: api,
    ref: { group: p.group, version: p.version, resource: p.resource, namespace: p.namespace },
    representation: p.representation,
    labelSelector: p.labelSelector,
    fieldSelector: p.fieldSelector,
    lazy: p.lazy,
    firstPageSize: FIRST_PAGE_SIZE,
    pageSize: 500,
    bulkPageSize: 5000,
    batchMs: 50,
    transform: p.keepManagedFields ? undefined : stripManagedFields,
  });
  let lastState: ConnectionState | undefined;
  const unsubscribe = informer.subscribe((_change, snap) => {
    // before the first sync the query's own fetch is pending; afterwards every change becomes query data
    if (snap.synced) qc.setQueryData(key, snap);
    if (snap.state !== lastState) {
      lastState = snap.state;
      notifyConn();
    }
  });
  entries.set(hash, { informer, key, label: `${p.resource}${p.namespace ? ` in ${p.namespace}` : ''}`, unsubscribe });
  informer.start();
  notifyConn();
  return informer;
}

/**
 * On a collection's URL, asks for its first chunk as the page starts, while discovery (which the view
 * needs before it asks) is still on its way: the informer's identical first request then takes this
 * answer. Only the request a collection view makes (Table rows of the URL's namespace and label
 * selector); another one (a cluster-scoped type with ?ns=) goes unused.
 */
export function preloadFirstChunk(pathname: string, search: string): void {
  const route = parseRoute(pathname);
  if (route.name !== 'list') return;
  const q = new URLSearchParams(search);
  if (q.get('meta') === '1') return;
  api.preload(resourcePath({ group: route.group, version: route.version, resource: route.resource, namespace: q.get('ns') || undefined }), {
    accept: acceptFor('table', { list: true }),
    // the pager's first request, parameter for parameter
    query: { limit: FIRST_PAGE_SIZE, continue: undefined, labelSelector: q.get('l') || undefined, fieldSelector: undefined, includeObject: undefined },
  });
}

export type Snapshot<T> = InformerSnapshot<T>;

/** A live collection: the query's data is the informer's snapshot, replaced on every batch of watch events. */
export function useCollection<T = unknown>(p: CollectionParams | undefined) {
  const qc = useQueryClient();
  const key = p ? collectionKey(p) : ['informer', 'none'];
  const query = useQuery({
    queryKey: key,
    enabled: !!p,
    queryFn: async () => {
      const inf = informerFor(qc, key, p!);
      try {
        await inf.whenSynced();
      } catch (e) {
        stopEntry(hashKey(key));
        throw e;
      }
      return inf.snapshot() as InformerSnapshot<T>;
    },
    staleTime: Infinity,
    // an unobserved informer stops soon: browsers allow six HTTP/1.1 connections per host and every
    // watch holds one, so lingering watches would starve new requests
    gcTime: 1500,
    structuralSharing: false,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  const informer = p ? (entries.get(hashKey(key))?.informer as Informer<T> | undefined) : undefined;
  return { ...query, data: query.data as InformerSnapshot<T> | undefined, informer };
}

/** One object, kept live by a watch on its name. */
export function useObject(ref: { group: string; version: string; resource: string; namespace?: string; name: string } | undefined) {
  const c = useCollection<KubeObject>(
    ref
      ? {
          group: ref.group,
          version: ref.version,
          resource: ref.resource,
          namespace: ref.namespace,
          representation: 'object',
          fieldSelector: `metadata.name=${ref.name}`,
          keepManagedFields: true,
        }
      : undefined,
  );
  return { ...c, object: c.data?.items[0] };
}

// ---- connection summary over every active informer ----

export interface ConnectionSummary {
  state: ConnectionState | 'idle';
  total: number;
  counts: Partial<Record<ConnectionState, number>>;
  worst?: { label: string; state: ConnectionState; error?: string };
  liveAt?: number;
}

const RANK: Record<ConnectionState, number> = { stopped: 0, live: 1, connecting: 2, reconnecting: 3, stale: 4, error: 5 };
let summary: ConnectionSummary = { state: 'idle', total: 0, counts: {} };

function notifyConn(): void {
  const counts: Partial<Record<ConnectionState, number>> = {};
  let worst: ConnectionSummary['worst'];
  let liveAt: number | undefined;
  for (const e of entries.values()) {
    const s = e.informer.snapshot();
    counts[s.state] = (counts[s.state] ?? 0) + 1;
    if (!worst || RANK[s.state] > RANK[worst.state]) worst = { label: e.label, state: s.state, error: s.error?.message };
    if (s.liveAt && (!liveAt || s.liveAt < liveAt)) liveAt = s.liveAt;
  }
  summary = { state: worst?.state ?? 'idle', total: entries.size, counts, worst, liveAt };
  for (const l of connListeners) l();
}

export function useConnectionSummary(): ConnectionSummary {
  return useSyncExternalStore(
    (fn) => {
      connListeners.add(fn);
      return () => connListeners.delete(fn);
    },
    () => summary,
  );
}
