// Wire shapes the explorer reads: objects, lists, Tables and metadata-only forms (meta v1).

export type { KubeList, KubeObject, ListMeta, ManagedFieldsEntry, ObjectMeta, OwnerReference } from '../api/types.js';
import type { KubeObject, ListMeta } from '../api/types.js';

export interface ColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
}

export interface TableRow {
  cells: unknown[];
  /** PartialObjectMetadata (includeObject=Metadata, the default) or the full object (includeObject=Object). */
  object?: KubeObject;
  conditions?: unknown[];
}

export interface Table {
  apiVersion?: string;
  kind: 'Table';
  metadata?: ListMeta;
  columnDefinitions?: ColumnDefinition[];
  rows?: TableRow[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T = unknown> {
  type: WatchEventType;
  object: T;
}
