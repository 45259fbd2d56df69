// An object's history told truthfully: what kind of change each watch event was (created, deleted, a
// change to what was asked for, or only the controllers reporting status), a field-level diff between
// any two versions, and the object a "restore" sends.
import type { KubeObject } from '../../client/index.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Metadata the server keeps itself: never a change anyone made, never restored. */
const SERVER_META = ['managedFields', 'resourceVersion', 'generation', 'uid', 'creationTimestamp', 'selfLink'];

export type ChangeKind = 'created' | 'deleted' | 'spec' | 'status';

function withoutServerMeta(o: KubeObject): Obj {
  const meta = { ...(o.metadata ?? {}) } as Obj;
  for (const k of SERVER_META) delete meta[k];
  return { ...(o as Obj), metadata: meta };
}

/**
 * 'status' when nothing but `status` changed (a controller reporting), 'spec' when anything a person
 * asks for did (spec, data, labels, annotations, finalizers...).
 */
export function classifyChange(type: 'ADDED' | 'MODIFIED' | 'DELETED', prev: KubeObject | undefined, next: KubeObject): ChangeKind {
  if (type === 'ADDED' || !prev) return 'created';
  if (type === 'DELETED') return 'deleted';
  const a = withoutServerMeta(prev);
  const b = withoutServerMeta(next);
  delete a.status;
  delete b.status;
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b)) ? 'status' : 'spec';
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObj(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k])]),
  );
}

/** Leaf paths (`spec.template.spec.containers[0].image`) with their JSON values. */
function flatten(v: unknown, path: string, out: Map<string, string>): void {
  if (isObj(v) && Object.keys(v).length) {
    for (const [k, x] of Object.entries(v)) flatten(x, path ? (/^[A-Za-z_][\w-]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`) : k, out);
  } else if (Array.isArray(v) && v.length) {
    v.forEach((x, i) => flatten(x, `${path}[${i}]`, out));
  } else if (!isObj(v) && !Array.isArray(v)) out.set(path, JSON.stringify(v));
  // an empty map or list is no field of its own: `labels: {}` and no labels read the same
}

export interface FieldChange {
  path: string;
  before?: string;
  after?: string;
}

/** Field-level differences between two versions (server-kept metadata left out), in path order. */
export function fieldDiff(a: KubeObject | undefined, b: KubeObject | undefined): FieldChange[] {
  const fa = new Map<string, string>();
  const fb = new Map<string, string>();
  if (a) flatten(withoutServerMeta(a), '', fa);
  if (b) flatten(withoutServerMeta(b), '', fb);
  const out: FieldChange[] = [];
  for (const p of new Set([...fa.keys(), ...fb.keys()])) {
    const x = fa.get(p);
    const y = fb.get(p);
    if (x !== y) out.push({ path: p, before: x, after: y });
  }
  return out.sort((p, q) => p.path.localeCompare(q.path));
}

/**
 * What "restore this version" sends: the old version's content (spec, data, labels, annotations...)
 * over the current object's identity. With a current object: a replace guarded by the current
 * resourceVersion (a change in between is a conflict, never overwritten); without one (it was deleted):
 * a create of the old content, server-set metadata dropped. Status is the controllers' to write.
 */
export function restoreBody(old: KubeObject, current: KubeObject | undefined): KubeObject {
  const { status: _s, ...content } = old as Obj;
  const oldMeta = { ...(old.metadata ?? {}) } as Obj;
  for (const k of SERVER_META) delete oldMeta[k];
  delete oldMeta.deletionTimestamp;
  delete oldMeta.deletionGracePeriodSeconds;
  if (!current) return { ...(content as KubeObject), metadata: oldMeta as KubeObject['metadata'] };
  const cur = current.metadata ?? {};
  return {
    ...(content as KubeObject),
    metadata: { ...oldMeta, uid: cur.uid, resourceVersion: cur.resourceVersion, ownerReferences: cur.ownerReferences, finalizers: cur.finalizers } as KubeObject['metadata'],
  };
}
