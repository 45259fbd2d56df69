// The collection view model: columns from the server's columnDefinitions (no per-kind code), cell text,
// ticking ages, sorting and text filtering over rows.
import type { ColumnDefinition, KubeObject, TableRow } from '../../client/index.js';
import { formatAge, parseTime } from './age.js';

/** A row is a Table row, or an object (metadata-only and plain lists). */
export type Row = TableRow | KubeObject;

export function objectOfRow(row: Row): KubeObject | undefined {
  return Array.isArray((row as TableRow).cells) ? (row as TableRow).object : (row as KubeObject);
}

export interface ViewColumn {
  id: string;
  name: string;
  type: string;
  description?: string;
  priority: number;
  numeric: boolean;
  value(row: Row): unknown;
  /** Set when the column shows a time: rendered as a ticking relative age. */
  timestamp?(row: Row): number | undefined;
  /** Sort ages young-first (an Age column), dates old-first. */
  ageLike?: boolean;
  /** Set when the cell carries a relative time printed by the server (`3 (95s ago)`): re-derived so it ticks. */
  ticking?: boolean;
}

const isNumeric = (t: string) => t === 'integer' || t === 'number';

function fromDefinition(def: ColumnDefinition, index: number): ViewColumn {
  const cell = (row: Row) => (row as TableRow).cells?.[index];
  const col: ViewColumn = {
    id: def.name,
    name: def.name,
    type: def.type,
    description: def.description,
    priority: def.priority ?? 0,
    numeric: isNumeric(def.type),
    value: cell,
  };
  if (def.type !== 'date' && def.name === 'Restarts') col.ticking = true;
  if (def.type === 'date') col.timestamp = (row) => parseTime(cell(row));
  else if (def.name.toLowerCase() === 'age' && def.type === 'string') {
    // servers print ages as text at request time; re-derive from the object so it keeps ticking
    col.timestamp = (row) => parseTime(objectOfRow(row)?.metadata?.creationTimestamp);
    col.ageLike = true;
  }
  return col;
}

const namespaceColumn: ViewColumn = {
  id: '__namespace',
  name: 'Namespace',
  type: 'string',
  priority: 0,
  numeric: false,
  value: (row) => objectOfRow(row)?.metadata?.namespace ?? '',
};

/** Columns for Table rows; the Namespace column is added when listing every namespace, as kubectl does. */
export function tableColumns(defs: ColumnDefinition[] | undefined, opts: { allNamespaces: boolean; wide: boolean }): ViewColumn[] {
  const cols = (defs ?? []).map(fromDefinition).filter((c) => opts.wide || c.priority === 0);
  return opts.allNamespaces ? [namespaceColumn, ...cols] : cols;
}

/** Columns of the metadata-only mode, read from PartialObjectMetadata. */
export function metadataColumns(opts: { allNamespaces: boolean }): ViewColumn[] {
  const cols: ViewColumn[] = [
    { id: 'Name', name: 'Name', type: 'string', priority: 0, numeric: false, value: (r) => objectOfRow(r)?.metadata?.name ?? '' },
    {
      id: 'Labels',
      name: 'Labels',
      type: 'string',
      priority: 0,
      numeric: false,
      value: (r) =>
        Object.entries(objectOfRow(r)?.metadata?.labels ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(','),
    },
    {
      id: 'Age',
      name: 'Age',
      type: 'date',
      priority: 0,
      numeric: false,
      ageLike: true,
      value: (r) => objectOfRow(r)?.metadata?.creationTimestamp,
      timestamp: (r) => parseTime(objectOfRow(r)?.metadata?.creationTimestamp),
    },
  ];
  return opts.allNamespaces ? [namespaceColumn, ...cols] : cols;
}

const AGO = /^(.*)\((\d+[smhdy](?:\d+[smhdy])*) ago\)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, y: 365 * 86_400_000 };

/** Milliseconds of a kubectl duration like `95s`, `3m2s`, `4h`, `12d`. */
export function parseShortDuration(text: string): number | undefined {
  let ms = 0;
  let matched = '';
  for (const m of text.matchAll(/(\d+)([smhdy])/g)) {
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched += m[0];
  }
  return matched === text && matched ? ms : undefined;
}

// when each row was first seen: the server printed its "(… ago)" relative to about that moment
const seenAt = new WeakMap<object, number>();

/** A server-printed `N (95s ago)` cell kept ticking: the moment it names, moved on by the time since the row arrived. */
export function tickingText(text: string, row: Row, now: number): string {
  const m = AGO.exec(text);
  const dur = m ? parseShortDuration(m[2]!) : undefined;
  if (!m || dur === undefined || !now) return text;
  let seen = seenAt.get(row);
  if (seen === undefined) seenAt.set(row, (seen = now));
  return `${m[1]}(${formatAge(now - (seen - dur))} ago)`;
}

export function cellText(col: ViewColumn, row: Row, now: number): string {
  if (col.timestamp) {
    const t = col.timestamp(row);
    if (t !== undefined) return formatAge(now - t);
  }
  const v = col.value(row);
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return col.ticking ? tickingText(v, row, now) : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(', ');
  return JSON.stringify(v);
}

function sortKey(col: ViewColumn, row: Row): number | string {
  if (col.timestamp) {
    const t = col.timestamp(row) ?? 0;
    return col.ageLike ? -t : t;
  }
  const v = col.value(row);
  if (col.numeric) return typeof v === 'number' ? v : Number(v ?? Number.NEGATIVE_INFINITY);
  if (v === null || v === undefined) return '';
  return (typeof v === 'string' ? v : JSON.stringify(v)).toLowerCase();
}

/** A sorted copy (stable); keys computed once per row. */
export function sortRows<R extends Row>(rows: readonly R[], col: ViewColumn, desc: boolean): R[] {
  const keyed = rows.map((r, i) => ({ r, i, k: sortKey(col, r) }));
  const dir = desc ? -1 : 1;
  keyed.sort((a, b) => (a.k < b.k ? -dir : a.k > b.k ? dir : a.i - b.i));
  return keyed.map((x) => x.r);
}

const searchText = new WeakMap<object, string>();

/** Rows whose name or any cell contains every word of the query (case-insensitive). */
export function filterRows<R extends Row>(rows: readonly R[], query: string, cols: ViewColumn[]): R[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return rows.slice();
  const out: R[] = [];
  for (const r of rows) {
    let s = searchText.get(r);
    if (s === undefined) {
      const o = objectOfRow(r);
      s = [o?.metadata?.name ?? '', o?.metadata?.namespace ?? '', ...cols.filter((c) => !c.timestamp).map((c) => cellText(c, r, 0))].join('\u0000').toLowerCase();
      searchText.set(r, s);
    }
    if (words.every((w) => s!.includes(w))) out.push(r);
  }
  return out;
}

const BAD_STATUS = /^(CrashLoopBackOff|Error|ErrImagePull|ImagePullBackOff|InvalidImageName|CreateContainerError|CreateContainerConfigError|OOMKilled|Failed|Evicted|NodeLost|Init:Error|Init:CrashLoopBackOff|ContainerStatusUnknown|Unknown)$/;
const OK_STATUS = /^(Running|Completed|Succeeded|Complete|Active|Bound|Ready|True)$/;

/** Colour of a Status / Phase cell as kubectl users read it: healthy, in progress, or failing. */
export function statusTone(column: Pick<ViewColumn, 'name'>, text: string): 'ok' | 'bad' | 'progress' | undefined {
  if (column.name !== 'Status' && column.name !== 'Phase') return undefined;
  if (BAD_STATUS.test(text)) return 'bad';
  if (OK_STATUS.test(text)) return 'ok';
  if (/^(Pending|ContainerCreating|PodInitializing|Terminating|Init:\d+\/\d+)$/.test(text)) return 'progress';
  return undefined;
}
