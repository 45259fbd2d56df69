// Managed fields (server-side apply ownership): fieldsV1 sets flattened into readable paths.
import type { ManagedFieldsEntry } from '../../client/index.js';

/** One fieldsV1 key as a path segment: f:name → .name, k:{"name":"x"} → [name=x], v:"a" → [="a"], i:0 → [0]. */
function segment(key: string): string {
  if (key.startsWith('f:')) return `.${key.slice(2)}`;
  if (key.startsWith('i:')) return `[${key.slice(2)}]`;
  if (key.startsWith('v:')) return `[=${key.slice(2)}]`;
  if (key.startsWith('k:')) {
    try {
      const o = JSON.parse(key.slice(2)) as Record<string, unknown>;
      return `[${Object.entries(o)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(',')}]`;
    } catch {
      return `[${key.slice(2)}]`;
    }
  }
  return `.${key}`;
}

/** Leaf paths a fieldsV1 set owns (a `.` entry marks the node itself as owned). */
export function flattenFields(fields: Record<string, unknown> | undefined, prefix = ''): string[] {
  if (!fields) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (k === '.') {
      if (prefix) out.push(prefix);
      continue;
    }
    const p = prefix + segment(k);
    const children = v && typeof v === 'object' ? Object.keys(v as object) : [];
    if (children.length === 0) out.push(p);
    else out.push(...flattenFields(v as Record<string, unknown>, p));
  }
  return out;
}

export interface FieldOwnership {
  path: string;
  managers: { manager: string; operation: string; subresource?: string }[];
}

/** Every owned path with the managers that own it, sorted by path. */
export function ownershipByField(entries: ManagedFieldsEntry[] | undefined): FieldOwnership[] {
  const by = new Map<string, FieldOwnership>();
  for (const e of entries ?? []) {
    for (const path of flattenFields(e.fieldsV1)) {
      let f = by.get(path);
      if (!f) by.set(path, (f = { path, managers: [] }));
      f.managers.push({ manager: e.manager ?? '(unknown)', operation: e.operation ?? '', subresource: e.subresource });
    }
  }
  return [...by.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
