// Lists in chunks with limit/continue. On 410 Expired (the continue token outlived the server's history)
// the list restarts from a fresh snapshot, and the chunk says so.
import { ApiError, isExpired } from './errors.js';
import type { ApiClient, ApiResponse } from './http.js';
import { listHead } from './list-head.js';
import { acceptFor, formOf, type Form, type Representation } from './media.js';
import { resourcePath, type ResourceRef } from './paths.js';
import { DEFAULT_COLUMNS, rowFromObject } from './table.js';
import type { ColumnDefinition, KubeList, KubeObject, Table, TableRow } from './types.js';

export interface ListOptions {
  /** object (default), table (server-side Table rows) or metadata (PartialObjectMetadata). */
  representation?: Representation;
  /** Chunk size; a function is asked before every request (chunks may grow as the list goes on). 0 = no limit. */
  limit?: number | (() => number);
  labelSelector?: string;
  fieldSelector?: string;
  /** Table rows: what row.object carries (default Metadata, needed to key rows). */
  includeObject?: 'None' | 'Metadata' | 'Object';
  signal?: AbortSignal;
  /** How many 410 restarts before giving up (default 3). */
  maxRestarts?: number;
  /**
   * Asked when a chunk's continue token shows at the start of its body: true asks for the next chunk at
   * once, so the server prepares it while this one downloads and decodes (one request ahead at most).
   */
  prefetch?: () => boolean;
}

export interface ListProgress {
  /** Items received so far in this (possibly restarted) list. */
  items: number;
  /** Items the server says are left after this chunk, when it says. */
  remainingItemCount?: number;
}

export interface ListChunk {
  /** What the server answered with: Table, PartialObjectMetadataList or a plain list. */
  form: Form;
  /** Objects (plain or metadata-only lists). */
  items: KubeObject[];
  /** Table rows; for a table request answered with a plain list, rows made from the objects. */
  rows: TableRow[];
  columns?: ColumnDefinition[];
  resourceVersion: string;
  continue?: string;
  progress: ListProgress;
  /** This chunk begins a fresh list after a 410: drop everything received before it. */
  restarted: boolean;
  /** Why the list restarted. */
  restartReason?: ApiError;
  last: boolean;
}

/** One chunk's request, and the next one's when it was started early. */
interface Flight {
  cont: string | undefined;
  response: Promise<ApiResponse>;
  abort: AbortController;
  /** The continue token its body's head showed (null: none, or the head did not come first). */
  head?: string | null;
  /** The chunk being received for the consumer: only this one may have a request ahead of it. */
  current: boolean;
  next?: Flight;
}

export async function* listPages(client: ApiClient, ref: ResourceRef, opts: ListOptions = {}): AsyncGenerator<ListChunk> {
  const rep = opts.representation ?? 'object';
  const maxRestarts = opts.maxRestarts ?? 3;
  const path = resourcePath({ ...ref, name: undefined });
  const accept = acceptFor(rep, { list: true });
  let restarts = 0;
  let cont: string | undefined;
  let received = 0;
  let restartReason: ApiError | undefined;

  const send = (c: string | undefined): Flight => {
    const abort = new AbortController();
    const outer = opts.signal;
    const onAbort = () => abort.abort(outer?.reason);
    if (outer?.aborted) abort.abort(outer.reason);
    else outer?.addEventListener('abort', onAbort, { once: true });
    const limit = typeof opts.limit === 'function' ? opts.limit() : (opts.limit ?? 500);
    const flight: Flight = { cont: c, abort, current: false, response: undefined as unknown as Promise<ApiResponse> };
    flight.response = client.request('GET', path, {
      accept,
      signal: abort.signal,
      query: {
        limit: limit > 0 ? limit : undefined,
        continue: c,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        includeObject: rep === 'table' ? opts.includeObject : undefined,
      },
      onPrefix: opts.prefetch
        ? (text) => {
            const head = listHead(text);
            if (head.state === 'more') return false;
            flight.head = head.state === 'found' ? (head.metadata.continue ?? null) : null;
            goAhead(flight);
            return true;
          }
        : undefined,
    });
    flight.response.then(
      () => outer?.removeEventListener('abort', onAbort),
      () => outer?.removeEventListener('abort', onAbort),
    );
    return flight;
  };
  // the server works on the next chunk while this one is still on its way and being decoded; one ahead
  // at most, so a server faster than the consumer never piles up chunks in memory
  const goAhead = (f: Flight) => {
    if (f.current && f.head && !f.next && !f.abort.signal.aborted && opts.prefetch?.()) f.next = send(f.head);
  };
  const drop = (f: Flight | undefined) => {
    if (!f) return;
    f.response.catch(() => {});
    f.abort.abort();
    drop(f.next);
  };

  const start = (f: Flight) => {
    f.current = true;
    goAhead(f);
    return f;
  };
  let flight = start(send(undefined));
  let ahead: Flight | undefined;
  try {
    for (;;) {
      let body: unknown;
      try {
        body = (await flight.response).body;
      } catch (e) {
        if (flight.cont !== undefined && isExpired(e) && restarts < maxRestarts) {
          restarts++;
          restartReason = e as ApiError;
          received = 0;
          drop(flight.next);
          flight = start(send(undefined));
          continue;
        }
        throw e;
      }
      const form = formOf(body);
      const chunk: ListChunk = {
        form,
        items: [],
        rows: [],
        resourceVersion: '',
        progress: { items: 0 },
        restarted: restartReason !== undefined,
        restartReason,
        last: true,
      };
      restartReason = undefined;
      if (form === 'Table') {
        const t = body as Table;
        chunk.rows = t.rows ?? [];
        chunk.columns = t.columnDefinitions;
        chunk.resourceVersion = t.metadata?.resourceVersion ?? '';
        cont = t.metadata?.continue || undefined;
        chunk.progress.remainingItemCount = t.metadata?.remainingItemCount;
      } else if (form === 'list' || form === 'PartialObjectMetadataList') {
        const l = body as KubeList;
        chunk.items = l.items ?? [];
        if (rep === 'table') {
          chunk.rows = chunk.items.map(rowFromObject);
          chunk.columns = DEFAULT_COLUMNS;
        }
        chunk.resourceVersion = l.metadata?.resourceVersion ?? '';
        cont = l.metadata?.continue || undefined;
        chunk.progress.remainingItemCount = l.metadata?.remainingItemCount;
      } else {
        throw new ApiError(500, `unexpected list response (${form})`, { reason: 'InternalError' });
      }
      received += form === 'Table' ? chunk.rows.length : chunk.items.length;
      chunk.progress.items = received;
      chunk.continue = cont;
      chunk.last = cont === undefined;
      ahead = flight.next;
      flight.next = undefined;
      yield chunk;
      const next = ahead;
      ahead = undefined;
      if (chunk.last) {
        drop(next);
        return;
      }
      // the early request is used only if it asked for exactly what the whole body says comes next
      if (next && next.cont === cont) flight = start(next);
      else {
        drop(next);
        flight = start(send(cont));
      }
    }
  } finally {
    // a consumer that stops early (or an error) leaves no request behind
    drop(ahead);
    drop(flight.next);
  }
}

/** The whole list, through every chunk. */
export async function listAll(client: ApiClient, ref: ResourceRef, opts: ListOptions = {}): Promise<{ items: KubeObject[]; rows: TableRow[]; columns?: ColumnDefinition[]; resourceVersion: string; form: Form; restarts: number }> {
  const items: KubeObject[] = [];
  const rows: TableRow[] = [];
  let columns: ColumnDefinition[] | undefined;
  let rv = '';
  let form: Form = 'unknown';
  let restarts = 0;
  for await (const c of listPages(client, ref, opts)) {
    if (c.restarted) {
      items.length = 0;
      rows.length = 0;
      restarts++;
    }
    for (const o of c.items) items.push(o);
    for (const r of c.rows) rows.push(r);
    columns ??= c.columns;
    rv = c.resourceVersion;
    form = c.form;
  }
  return { items, rows, columns, resourceVersion: rv, form, restarts };
}
