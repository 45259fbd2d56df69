// Table and metadata-only representations (meta v1 Table, PartialObjectMetadata[List]).
import { clock } from '../registry/age.js';
import type { KubeObject, ResourceType, TableColumn } from '../registry/types.js';
import { cachedJsonLine } from '../watch/encode-cache.js';
import type { RowPieces } from './list-stream.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  includeObject: IncludeObject;
  metaGroup: string;
  noHeaders?: boolean;
}

export function toPartialObjectMetadata(obj: KubeObject, metaGroup: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `${metaGroup}/v1`, metadata: obj.metadata };
}

export function columnDefinitions(type: ResourceType | undefined) {
  const name = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 };
  if (!type?.columns)
    return [name, { name: 'Created At', type: 'date', format: '', description: 'CreationTimestamp is when the object was created.', priority: 0 }];
  return [
    name,
    ...type.columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
  ];
}

export function tableRow(obj: KubeObject, type: ResourceType | undefined, opts: TableOptions) {
  const cells: unknown[] = [obj.metadata?.name ?? ''];
  if (!type?.columns) cells.push(obj.metadata?.creationTimestamp ?? null);
  else
    for (const c of type.columns) {
      let v: unknown;
      try {
        v = c.cell(obj);
      } catch {
        v = null;
      }
      cells.push(v === undefined ? null : v);
    }
  const row: { cells: unknown[]; object?: unknown } = { cells };
  if (opts.includeObject === 'Object') row.object = obj;
  else if (opts.includeObject === 'Metadata') row.object = toPartialObjectMetadata(obj, opts.metaGroup);
  return row;
}

export function toTable(
  objs: KubeObject[],
  type: ResourceType | undefined,
  opts: TableOptions,
  listMeta: { resourceVersion?: string; continue?: string; remainingItemCount?: number } = {},
): Record<string, unknown> {
  const table: Record<string, unknown> = {
    kind: 'Table',
    apiVersion: `${opts.metaGroup}/v1`,
    metadata: listMeta,
  };
  table.columnDefinitions = opts.noHeaders ? [] : columnDefinitions(type);
  table.rows = objs.map((o) => tableRow(o, type, opts));
  return table;
}

/** A row's cached encoding: pieces of fixed bytes, with the slots of cells that read the clock. */
interface CachedRow {
  pieces: RowPieces;
  /** [slot in pieces, column index] of each cell recomputed per request. */
  volatile: [number, number][];
}

const rowCache = new WeakMap<KubeObject, Map<string, CachedRow>>();
const columnSetIds = new WeakMap<object, number>();
let nextColumnSetId = 1;

/** The cell's JSON as JSON.stringify writes it inside the cells array. */
function cellJson(obj: KubeObject, c: TableColumn): string {
  let v: unknown;
  try {
    v = c.cell(obj);
  } catch {
    v = null;
  }
  return JSON.stringify(v === undefined ? null : v) ?? 'null';
}

function buildRow(obj: KubeObject, type: ResourceType | undefined, opts: TableOptions): CachedRow {
  const pieces: RowPieces = [];
  const volatile: [number, number][] = [];
  let text = `{"cells":[${JSON.stringify(obj.metadata?.name ?? '')}`;
  if (!type?.columns) text += `,${JSON.stringify(obj.metadata?.creationTimestamp ?? null)}`;
  else
    type.columns.forEach((c, i) => {
      const reads = clock.reads;
      const json = cellJson(obj, c);
      if (clock.reads === reads) {
        text += `,${json}`;
        return;
      }
      // an age or running duration: recomputed per request
      pieces.push(Buffer.from(text + ','));
      volatile.push([pieces.length, i]);
      pieces.push(json);
      text = '';
    });
  text += ']';
  let tail: Buffer;
  if (opts.includeObject === 'None') tail = Buffer.from(text + '}');
  else if (opts.includeObject === 'Metadata') tail = Buffer.from(`${text},"object":${JSON.stringify(toPartialObjectMetadata(obj, opts.metaGroup))}}`);
  else {
    // the object as stored (toTable puts it in as is): its cached JSON bytes without the newline
    const json = typeof obj.apiVersion === 'string' ? cachedJsonLine(obj, obj.apiVersion) : Buffer.from(JSON.stringify(obj) + '\n');
    tail = Buffer.concat([Buffer.from(`${text},"object":`), json.subarray(0, json.length - 1), CLOSE_BRACE]);
  }
  pieces.push(tail);
  return { pieces, volatile };
}

const CLOSE_BRACE = Buffer.from('}');

/**
 * The bytes of tableRow(obj, type, opts) as JSON.stringify writes them, computed once per object
 * version and options and cached on the (immutable) object; cells that read the clock (ages) are
 * recomputed each time.
 */
export function tableRowPieces(obj: KubeObject, type: ResourceType | undefined, opts: TableOptions): RowPieces {
  const cols = type?.columns;
  let id = 0;
  if (cols) {
    id = columnSetIds.get(cols) ?? 0;
    if (id === 0) columnSetIds.set(cols, (id = nextColumnSetId++));
  }
  const key = `${id}:${opts.includeObject}:${opts.metaGroup}`;
  let m = rowCache.get(obj);
  let row = m?.get(key);
  if (!row) {
    row = buildRow(obj, type, opts);
    if (!m) rowCache.set(obj, (m = new Map()));
    m.set(key, row);
  }
  if (row.volatile.length === 0) return row.pieces;
  const out = row.pieces.slice();
  for (const [slot, col] of row.volatile) out[slot] = cellJson(obj, cols![col]!);
  return out;
}
