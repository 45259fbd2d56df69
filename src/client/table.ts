// Helpers over the Table form: rows from plain objects (when a server answers without Table support),
// row keys, and Table watch events.
import { objectKey } from './paths.js';
import type { ColumnDefinition, KubeObject, Table, TableRow } from './types.js';

/** The columns a server without Table support would have printed by default. */
export const DEFAULT_COLUMNS: ColumnDefinition[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
  { name: 'Created At', type: 'date', format: '', description: 'CreationTimestamp is when the object was created.', priority: 0 },
];

export function rowFromObject(o: KubeObject): TableRow {
  return { cells: [o.metadata?.name ?? '', o.metadata?.creationTimestamp ?? null], object: o };
}

export function rowKey(row: TableRow): string {
  return objectKey(row.object?.metadata);
}

/** The single row carried by a Table watch event (the first event also carries the column definitions). */
export function rowOfTableEvent(t: Table): TableRow | undefined {
  return t.rows?.[0];
}
