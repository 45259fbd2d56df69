// Table and metadata-only representations (meta v1 Table, PartialObjectMetadata[List]).
import type { KubeObject, ResourceType } from '../registry/types.js';

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
