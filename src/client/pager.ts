// Lists in chunks with limit/continue. On 410 Expired (the continue token outlived the server's history)
// the list restarts from a fresh snapshot, and the chunk says so.
import { ApiError, isExpired } from './errors.js';
import type { ApiClient } from './http.js';
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

export async function* listPages(client: ApiClient, ref: ResourceRef, opts: ListOptions = {}): AsyncGenerator<ListChunk> {
  const rep = opts.representation ?? 'object';
  const maxRestarts = opts.maxRestarts ?? 3;
  let restarts = 0;
  let cont: string | undefined;
  let received = 0;
  let restartReason: ApiError | undefined;
  for (;;) {
    const limit = typeof opts.limit === 'function' ? opts.limit() : (opts.limit ?? 500);
    let body: unknown;
    try {
      const res = await client.request('GET', resourcePath({ ...ref, name: undefined }), {
        accept: acceptFor(rep, { list: true }),
        signal: opts.signal,
        query: {
          limit: limit > 0 ? limit : undefined,
          continue: cont,
          labelSelector: opts.labelSelector,
          fieldSelector: opts.fieldSelector,
          includeObject: rep === 'table' ? opts.includeObject : undefined,
        },
      });
      body = res.body;
    } catch (e) {
      if (cont !== undefined && isExpired(e) && restarts < maxRestarts) {
        restarts++;
        restartReason = e as ApiError;
        cont = undefined;
        received = 0;
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
    yield chunk;
    if (chunk.last) return;
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
