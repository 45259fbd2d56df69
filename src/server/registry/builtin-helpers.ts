// Shared pieces of the built-in resource-type table: the type constructor, printer-column helpers,
// label-selector rendering and small object accessors.
import { ageSince } from './age.js';
import { builtinSchemas } from './schema/registry.js';
import type { KubeObject, ResourceType, Scope, Strategy, SubresourceDef, TableColumn, Verb } from './types.js';

export const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB_VERBS: Verb[] = ['get', 'patch', 'update'];

export type Obj = Record<string, unknown>;

/** Object-valued field or an empty object (read-only use). */
export function obj(v: unknown): Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

export function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** Object-valued child, created when absent (for defaulting). */
export function ensure(parent: Obj, key: string): Obj {
  const cur = parent[key];
  if (cur !== null && typeof cur === 'object' && !Array.isArray(cur)) return cur as Obj;
  const made: Obj = {};
  parent[key] = made;
  return made;
}

export function setDefault(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null) o[key] = value;
}

export const spec = (o: KubeObject): Obj => obj(o.spec);
export const status = (o: KubeObject): Obj => obj(o.status);

export interface KindDef {
  group: string;
  version: string;
  kind: string;
  plural: string;
  /** Definition name in builtin-definitions.json. */
  schemaRef: string;
  scope: Scope;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: boolean;
  columns?: TableColumn[];
  strategy: Strategy;
  /** Shares the storage of this group's resource of the same plural (events.k8s.io Events). */
  storageGroup?: string;
}

export function builtinType(d: KindDef): ResourceType {
  const subresources: SubresourceDef[] = [];
  if (d.status) subresources.push({ name: 'status', kind: d.kind, verbs: SUB_VERBS });
  if (d.scale) {
    subresources.push({
      name: 'scale',
      kind: 'Scale',
      group: 'autoscaling',
      version: 'v1',
      verbs: SUB_VERBS,
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.spec.selector',
    });
  }
  const schema = builtinSchemas.get(d.schemaRef);
  if (!schema) throw new Error(`no built-in schema ${d.schemaRef}`);
  return {
    group: d.group,
    version: d.version,
    kind: d.kind,
    listKind: `${d.kind}List`,
    plural: d.plural,
    singular: d.kind.toLowerCase(),
    shortNames: d.shortNames ?? [],
    categories: d.categories ?? [],
    scope: d.scope,
    verbs: ALL_VERBS,
    subresources,
    schema,
    schemaRef: d.schemaRef,
    columns: d.columns,
    strategy: d.strategy,
    custom: false,
    served: true,
    ...(d.storageGroup !== undefined ? { storageGroup: d.storageGroup } : {}),
  };
}

// ---- printer columns ----

export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is when the object was created, as a duration.',
  cell: (o) => ageSince(o.metadata?.creationTimestamp),
};

export function col(name: string, cell: (o: KubeObject) => unknown, opts: { type?: TableColumn['type']; priority?: number; description?: string } = {}): TableColumn {
  const c: TableColumn = { name, type: opts.type ?? 'string', cell };
  if (opts.priority) c.priority = opts.priority;
  if (opts.description) c.description = opts.description;
  return c;
}

/** matchLabels / matchExpressions rendered as a selector string ("<none>" when empty). */
export function labelSelectorString(sel: unknown): string {
  const s = obj(sel);
  const parts: string[] = [];
  const labels = obj(s.matchLabels);
  for (const k of Object.keys(labels).sort()) parts.push(`${k}=${str(labels[k])}`);
  for (const e of arr(s.matchExpressions)) {
    const x = obj(e);
    const key = str(x.key);
    const values = arr(x.values).map(str).sort().join(',');
    switch (x.operator) {
      case 'In':
        parts.push(`${key} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${key} notin (${values})`);
        break;
      case 'Exists':
        parts.push(key);
        break;
      case 'DoesNotExist':
        parts.push(`!${key}`);
        break;
    }
  }
  return parts.length ? parts.join(',') : '<none>';
}

/** A plain key=value map as a selector string ("<none>" when empty). */
export function mapSelectorString(m: unknown): string {
  const labels = obj(m);
  const keys = Object.keys(labels).sort();
  return keys.length ? keys.map((k) => `${k}=${str(labels[k])}`).join(',') : '<none>';
}

/** Whether a LabelSelector (matchLabels + matchExpressions) selects the given labels. */
export function selectorMatches(sel: unknown, labels: Record<string, unknown>): boolean {
  const s = obj(sel);
  const ml = obj(s.matchLabels);
  for (const k of Object.keys(ml)) if (labels[k] !== ml[k]) return false;
  for (const e of arr(s.matchExpressions)) {
    const x = obj(e);
    const key = str(x.key);
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    const values = arr(x.values).map(str);
    switch (x.operator) {
      case 'In':
        if (!has || !values.includes(str(labels[key]))) return false;
        break;
      case 'NotIn':
        if (has && values.includes(str(labels[key]))) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

export function isEmptySelector(sel: unknown): boolean {
  const s = obj(sel);
  return Object.keys(obj(s.matchLabels)).length === 0 && arr(s.matchExpressions).length === 0;
}

/** Containers / Images / Selector columns of workload kinds (priority 1). */
export function podTemplateColumns(templatePath: (o: KubeObject) => Obj, selector?: (o: KubeObject) => unknown): TableColumn[] {
  const containers = (o: KubeObject) => arr(obj(obj(templatePath(o)).spec).containers).map(obj);
  const out = [
    col('Containers', (o) => containers(o).map((c) => str(c.name)).join(','), { priority: 1 }),
    col('Images', (o) => containers(o).map((c) => str(c.image)).join(','), { priority: 1 }),
  ];
  if (selector) out.push(col('Selector', (o) => labelSelectorString(selector(o)), { priority: 1 }));
  return out;
}

export function orNone(s: string): string {
  return s === '' ? '<none>' : s;
}

/**
 * A virtual, create-only review kind (TokenReview, SubjectAccessReview, ...): nothing is stored; the REST
 * layer routes its POST to the group's handler. `schemaPackage` is the upstream definition prefix.
 */
export function reviewType(group: string, schemaPackage: string, kind: string, plural: string, scope: Scope = 'Cluster'): ResourceType {
  const schemaRef = `io.k8s.api.${schemaPackage}.${kind}`;
  return {
    group,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    categories: [],
    scope,
    verbs: ['create'],
    subresources: [],
    schema: builtinSchemas.get(schemaRef),
    schemaRef,
    strategy: {},
    custom: false,
    served: true,
  };
}
