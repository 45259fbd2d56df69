// Server-side apply and managedFields bookkeeping for every write, with structured-merge-diff
// semantics: appliers own the fields of their configuration, updaters own the fields they change,
// an apply that would change a field someone else owns is a conflict unless forced, and fields an
// applier stops applying are removed unless someone else still owns them.
import type { SchemaRegistry } from '../schema/registry.js';
import type { SchemaNode } from '../schema/types.js';
import type { KubeObject } from '../types.js';
import { FieldSet, typedFieldSet } from './fieldpath.js';
import { goQuote } from './go-format.js';
import { isObject, jsonEqual, type JsonObject } from './json-util.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  managerId,
  toSeconds,
  type ManagedFieldsEntry,
  type ManagerState,
  type Managers,
} from './managed-fields.js';
import { PatchError } from './patch-error.js';
import { pathString, type PathElement } from './path-element.js';
import { canonicalApiVersion } from '../names.js';
import { schemaTypes, type TypeNode } from './schema-types.js';
import { compareTyped, ensureNamedFieldsAreMembers, merge, prepareConfig, removeItems } from './typed-ops.js';

export { PatchError } from './patch-error.js';
export type { ManagedFieldsEntry } from './managed-fields.js';

export interface ManagedWriteOptions {
  manager: string;
  apiVersion: string;
  /** Root schema of the resource type (undefined: no schema, structure deduced). */
  schema: SchemaNode | undefined;
  reg: SchemaRegistry;
  /** Current time (RFC 3339); recorded with second precision. */
  now: string;
  /** 'status' etc. for writes through a sub-resource. */
  subresource?: string;
  /** Fields this write never owns (upstream reset fields: status via the main resource, spec via /status). */
  ignoredFields?: FieldSet;
  /**
   * Treat struct fields under the root as always present, like upstream's typed (Go) objects, so
   * e.g. an update that adds the first status field owns `.status.x` but not `.status` itself.
   * Default: true when the root schema is a $ref (built-in kinds), false for inline CRD schemas.
   */
  zeroStructs?: boolean;
}

export interface ApplyOptions extends ManagedWriteOptions {
  force: boolean;
  /**
   * The object's client-side last-applied configuration (kubectl.kubernetes.io/last-applied-configuration),
   * given for kubectl's first server-side apply: conflicts on fields it set, with the live value, are forced
   * (upstream lastAppliedManager, the client-side to server-side apply migration).
   */
  lastApplied?: unknown;
  /**
   * The resource's server defaults (mutating a copy; `live` is the stored object, for defaults that keep allocated
   * values). The stored object carries them, so a configuration that omits a defaulted member of an atomic field
   * (fieldRef.apiVersion, resourceFieldRef.divisor, the volumeClaimTemplates' apiVersion/kind/status/volumeMode)
   * differs from it before defaults and not after. Used for the last-applied comparison and to tell a no-op apply.
   */
  defaults?: (obj: KubeObject, live: KubeObject | undefined) => void;
  /** A built-in kind: members its structs do not declare are refused (upstream's typed conversion of the patch). */
  typedStructs?: boolean;
}

/** The manager whose applies may take over fields from a client-side last-applied configuration (upstream: kubectl only). */
export const KUBECTL_APPLY_MANAGER = 'kubectl';
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

export interface UpdateOptions extends ManagedWriteOptions {
  operation: 'Update';
}

export interface ApplyResult {
  /** The object to store (metadata.managedFields already set, absent when empty). */
  object: KubeObject;
  managedFields: ManagedFieldsEntry[];
}

export interface ApplyConflict {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
  time?: string;
  /** Field path as upstream prints it, e.g. `.spec.replicas` or `.spec.containers[name="c"].image`. */
  field: string;
  /** Status cause message, e.g. `conflict with "mgr" using apps/v1`. */
  message: string;
}

/** 409 Conflict: causes are `{reason: 'FieldManagerConflict', message, field}` per conflict. */
export class ApplyConflictError extends Error {
  constructor(readonly conflicts: ApplyConflict[]) {
    super(conflictMessage(conflicts));
    this.name = 'ApplyConflictError';
  }
}

const STRIPPED = FieldSet.of(
  [{ t: 'f', name: 'apiVersion' }],
  [{ t: 'f', name: 'kind' }],
  [{ t: 'f', name: 'metadata' }],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((n) => [
    { t: 'f', name: 'metadata' } as const,
    { t: 'f', name: n } as const,
  ]),
);

export const BEFORE_FIRST_APPLY = 'before-first-apply';

const MANAGED_FIELDS = FieldSet.of([
  { t: 'f', name: 'metadata' },
  { t: 'f', name: 'managedFields' },
]);

/**
 * Server-side apply of `applied` onto `live` (undefined: create). Returns the merged object with
 * its new managedFields; throws ApplyConflictError (unless opts.force) or PatchError.
 */
export function applyPatch(live: KubeObject | undefined, applied: KubeObject, opts: ApplyOptions): ApplyResult {
  if (!isObject(applied)) throw new PatchError('BadRequest', 'apply patch must be an object');
  if (isObject(applied.metadata) && applied.metadata.managedFields !== undefined) throw new PatchError('BadRequest', 'metadata.managedFields must be nil');
  const root = schemaTypes(opts.reg).root(opts.schema);
  let config: unknown;
  const undeclared: string[] | undefined = opts.typedStructs ? [] : undefined;
  try {
    config = prepareConfig(applied, root, { undeclared });
  } catch (e) {
    if (e instanceof PatchError) throw new PatchError('BadRequest', `failed to create typed patch object (${objectRef(applied)}): ${e.message}`);
    throw e;
  }
  // structured-merge-diff's ValidationErrors: one error as is, several under "errors:" (in Go's map order there,
  // sorted here); upstream answers 500, a plain error (kubernetes#139253): a 400 here, the input being the client's
  undeclared?.sort();
  if (undeclared?.length)
    throw new PatchError('BadRequest', `failed to create typed patch object (${objectRef(applied)}): ${undeclared.length === 1 ? undeclared[0] : ['errors:', ...undeclared.map((u) => '  ' + u)].join('\n')}`);
  const managers = decodeOrEmpty(live?.metadata?.managedFields);
  const liveObj = live ? withoutManagedFields(live) : {};
  // An object nobody manages yet (created without tracking, or managedFields cleared): its
  // current fields belong to "before-first-apply", so the first apply can conflict with them.
  if (live && managers.size === 0) recordUpdate(managers, {}, liveObj, root, { ...opts, manager: BEFORE_FIRST_APPLY, subresource: undefined });

  const applierId = managerId(opts.manager, 'Apply', opts.apiVersion, opts.subresource);
  const previous = managers.get(applierId);
  let set = typedFieldSet(config, root).difference(STRIPPED);
  if (opts.ignoredFields) set = set.recursiveDifference(opts.ignoredFields);
  const applier: ManagerState = { manager: opts.manager, operation: 'Apply', apiVersion: opts.apiVersion, set };
  if (opts.subresource) applier.subresource = opts.subresource;
  if (previous?.time) applier.time = previous.time;
  if (previous && previous.apiVersion === opts.apiVersion && previous.set.equals(set)) {
    // Unchanged ownership: keep the decoded set (and its wire form) as is.
    applier.set = previous.set;
    if (previous.decoded) applier.decoded = previous.decoded;
  }
  managers.set(applierId, applier);

  let object = merge(liveObj, config, root) as JsonObject;
  // the configuration may spell the group either way (rbac.authorization.k8s.io/v1 for ...service.io/v1): one
  // version, so the object keeps the live spelling and an alias spelling is no change (nor a conflict)
  if (typeof object.apiVersion === 'string' && typeof liveObj.apiVersion === 'string' && canonicalApiVersion(object.apiVersion) === canonicalApiVersion(liveObj.apiVersion))
    object.apiVersion = liveObj.apiVersion;
  object = prune(object, managers, applierId, previous?.set, root);

  const ignore = opts.ignoredFields ? MANAGED_FIELDS.union(opts.ignoredFields) : MANAGED_FIELDS;
  const cmp = compareTyped(liveObj, object, root, ignore, zeroStructs(opts));
  const changed = cmp.modified.union(cmp.added);
  let conflicts: ApplyConflict[] = [];
  const conflictPaths: PathElement[][] = [];
  for (const [id, m] of [...managers].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    if (id === applierId) continue;
    const c = m.set.intersection(changed);
    for (const p of c.paths()) {
      conflicts.push(conflictOf(m, pathString(p)));
      conflictPaths.push(p);
    }
  }
  if (conflicts.length && !opts.force && opts.lastApplied !== undefined) {
    const allowed = allowedFromLastApplied(opts.lastApplied, liveObj, root, opts.apiVersion, opts.defaults && ((o: KubeObject) => opts.defaults!(o, live)));
    if (allowed) conflicts = conflicts.filter((_, i) => !allowed.has(conflictPaths[i]!));
  }
  if (conflicts.length && !opts.force) throw new ApplyConflictError(conflicts);
  disown(managers, changed, cmp.removed, applierId);
  if (applier.set.isEmpty()) managers.delete(applierId);
  else if (!applier.time || ((!cmp.added.isEmpty() || !cmp.modified.isEmpty() || !cmp.removed.isEmpty()) && !sameAfterDefaults(liveObj, object, root, ignore, opts, live))) {
    // As upstream, the time moves only when the object changes; a new entry always gets one
    // (upstream leaves it without time, kubernetes#127938).
    applier.time = toSeconds(opts.now);
  }
  capUpdateManagers(managers);
  const managedFields = encodeManagedFields(managers);
  return { object: keepMetadataOrder(setManagedFields(object as KubeObject, managedFields), live), managedFields };
}

/**
 * metadata keys in the live object's order, managedFields included (the merge keeps the others' order; the
 * entries are set afresh): a stored object is compared byte for byte, so a moved key would be a change.
 */
function keepMetadataOrder(obj: KubeObject, live: KubeObject | undefined): KubeObject {
  const was = live?.metadata;
  const meta = obj.metadata;
  if (!isObject(was) || !isObject(meta) || !('managedFields' in was) || !('managedFields' in meta)) return obj;
  const ordered: JsonObject = {};
  for (const k in was) if (k in meta) ordered[k] = (meta as JsonObject)[k];
  for (const k in meta) if (!(k in ordered)) ordered[k] = (meta as JsonObject)[k];
  obj.metadata = ordered as KubeObject['metadata'];
  return obj;
}

/**
 * managedFields after a non-apply write (create, update, patch) by opts.manager: it takes the
 * fields whose values changed from old to next, others lose them. Entries in next (when valid and
 * non-empty) replace the live ones, `[]`/`[{}]` clears them, sub-resource writes keep the live ones.
 * Set the result on next with setManagedFields.
 */
export function updateManagedFields(old: KubeObject | undefined, next: KubeObject, opts: UpdateOptions): ManagedFieldsEntry[] {
  const sent = next.metadata?.managedFields;
  let managers: Managers;
  if (opts.subresource) managers = decodeOrEmpty(old?.metadata?.managedFields);
  else if (isResetManagedFields(sent)) managers = new Map();
  else {
    const stored = old?.metadata?.managedFields;
    // Usually the write carries back what it read: reuse the stored entries (decoded sets are memoized per object).
    managers = sent !== undefined && !jsonEqual(sent, stored) ? decodeOrEmpty(sent) : new Map();
    if (managers.size === 0) managers = decodeOrEmpty(stored);
  }
  recordUpdate(managers, old ?? {}, next, schemaTypes(opts.reg).root(opts.schema), opts);
  capUpdateManagers(managers);
  return encodeManagedFields(managers);
}

/** The write's manager takes the fields that changed from old to next; other managers lose them. */
function recordUpdate(managers: Managers, old: unknown, next: unknown, root: TypeNode, opts: ManagedWriteOptions): void {
  const ignore = opts.ignoredFields ? MANAGED_FIELDS.union(opts.ignoredFields) : MANAGED_FIELDS;
  const cmp = compareTyped(old, next, root, ignore, zeroStructs(opts));
  const changed = cmp.modified.union(cmp.added);
  disown(managers, changed, cmp.removed, undefined);
  const taken = changed.difference(STRIPPED);
  if (taken.isEmpty()) return;
  const id = managerId(opts.manager, 'Update', opts.apiVersion, opts.subresource);
  const prev = managers.get(id);
  const m: ManagerState = { manager: opts.manager, operation: 'Update', apiVersion: opts.apiVersion, set: prev ? prev.set.union(taken) : taken, time: toSeconds(opts.now) };
  if (opts.subresource) m.subresource = opts.subresource;
  if (prev?.decoded) m.decoded = prev.decoded;
  managers.set(id, m);
}

/** Sets (or, when empty, removes) metadata.managedFields on obj; returns obj. */
export function setManagedFields(obj: KubeObject, entries: ManagedFieldsEntry[]): KubeObject {
  if (entries.length) {
    obj.metadata ??= {};
    obj.metadata.managedFields = entries;
  } else if (obj.metadata) {
    delete obj.metadata.managedFields;
  }
  return obj;
}

/** Field manager for writes without ?fieldManager: the User-Agent up to its first '/', printable characters, at most 128 bytes. */
export function defaultFieldManager(userAgent: string | undefined): string {
  if (!userAgent) return '';
  const head = userAgent.split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!isPrintable(ch)) continue;
    if (bytes >= 128) break;
    out += ch;
    bytes += Buffer.byteLength(ch);
  }
  return out;
}

function isPrintable(ch: string): boolean {
  return ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

/** Takes changed and removed fields away from every manager but `keep`; drops managers left empty. */
function disown(managers: Managers, changed: FieldSet, removed: FieldSet, keep: string | undefined): void {
  for (const [id, m] of managers) {
    if (id === keep) continue;
    const set = m.set.difference(changed).difference(removed);
    if (set.isEmpty()) managers.delete(id);
    else if (set !== m.set) managers.set(id, { ...m, set });
  }
}

/**
 * Removes from merged what the applier owned last time and no longer applies, unless another
 * manager (or the new configuration) owns it; fields nobody applied are left alone.
 */
function prune(merged: JsonObject, managers: Managers, applierId: string, last: FieldSet | undefined, root: TypeNode): JsonObject {
  // Nothing stopped being applied: nothing to remove (the common re-apply).
  if (!last || last.isEmpty() || last.difference(managers.get(applierId)!.set).isEmpty()) return merged;
  const named = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(s, root);
  const lastNamed = named(last);
  const removedByLast = (removeItems(merged, lastNamed, root) ?? {}) as JsonObject;
  let managed = new FieldSet();
  for (const m of managers.values()) managed = managed.union(m.set);
  const mergedSet = named(typedFieldSet(merged, root));
  const unowned = mergedSet.difference(named(typedFieldSet(removedByLast, root)).union(named(managed)));
  const withoutUnowned = (removeItems(merged, unowned, root) ?? {}) as JsonObject;
  const toRemove = mergedSet.difference(named(typedFieldSet(withoutUnowned, root))).intersection(lastNamed);
  return (removeItems(merged, toRemove, root) ?? {}) as JsonObject;
}

function zeroStructs(opts: ManagedWriteOptions): boolean {
  return opts.zeroStructs ?? opts.schema?.$ref !== undefined;
}

function decodeOrEmpty(entries: unknown): Managers {
  try {
    return decodeManagedFields(entries);
  } catch {
    return new Map();
  }
}

/** A copy of obj without metadata.managedFields (copied so results never alias stored objects). */
function withoutManagedFields(obj: KubeObject): JsonObject {
  const out = cloneExcept(obj);
  if (isObject(out.metadata)) delete out.metadata.managedFields;
  return out;
}

function cloneExcept(obj: KubeObject): JsonObject {
  const copy = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) return v.map(copy);
    const o: JsonObject = {};
    for (const k in v as JsonObject) o[k] = copy((v as JsonObject)[k]);
    return o;
  };
  const out: JsonObject = {};
  for (const k in obj) {
    if (k === 'metadata' && isObject(obj.metadata)) {
      const meta: JsonObject = {};
      for (const mk in obj.metadata) if (mk !== 'managedFields') meta[mk] = copy(obj.metadata[mk]);
      out.metadata = meta;
    } else out[k] = copy(obj[k]);
  }
  return out;
}

function printManager(m: ManagerState): string {
  let s = goQuote(m.manager);
  if (m.subresource) s += ` with subresource ${goQuote(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

/**
 * Fields a client-side apply set that still hold the value it set: the last-applied configuration's fields minus
 * those modified, added or removed between it and the live object (upstream lastAppliedManager). The configuration
 * is compared after the server's defaults, as the client-side apply's write was stored with them: an atomic field
 * it set (a fieldRef, the volumeClaimTemplates list) still holds "its" value when live differs only by defaults.
 * Undefined when it is unusable (not an object, another apiVersion, not typeable).
 */
function allowedFromLastApplied(lastApplied: unknown, live: unknown, root: TypeNode, apiVersion: string, defaults?: (obj: KubeObject) => void): FieldSet | undefined {
  if (!isObject(lastApplied) || canonicalApiVersion(String(lastApplied.apiVersion ?? '')) !== apiVersion) return undefined;
  try {
    const typed = prepareConfig(lastApplied, root);
    const cmp = compareTyped(defaulted(lastApplied, root, defaults) ?? typed, live, root);
    return typedFieldSet(typed, root).difference(cmp.modified).difference(cmp.added).difference(cmp.removed);
  } catch {
    return undefined;
  }
}

/**
 * Whether the merged object, once the server's defaults fill what the configuration omitted, is the live object:
 * then the apply stores nothing new (a re-apply of a manifest without fieldRef.apiVersion is no change).
 */
function sameAfterDefaults(liveObj: JsonObject, merged: JsonObject, root: TypeNode, ignore: FieldSet, opts: ApplyOptions, live: KubeObject | undefined): boolean {
  if (!opts.defaults || !live) return false;
  try {
    const copy = structuredClone(merged) as KubeObject;
    opts.defaults(copy, live);
    const cmp = compareTyped(liveObj, copy, root, ignore, zeroStructs(opts));
    return cmp.added.isEmpty() && cmp.modified.isEmpty() && cmp.removed.isEmpty();
  } catch {
    return false;
  }
}

/** The typed configuration after the server's defaults; undefined without defaults or when they fail on it. */
function defaulted(config: JsonObject, root: TypeNode, defaults: ((obj: KubeObject) => void) | undefined): unknown {
  if (!defaults) return undefined;
  try {
    const copy = structuredClone(config) as KubeObject;
    defaults(copy);
    return prepareConfig(copy, root);
  } catch {
    return undefined;
  }
}

function conflictOf(m: ManagerState, field: string): ApplyConflict {
  const c: ApplyConflict = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion, field, message: `conflict with ${printManager(m)}` };
  if (m.subresource) c.subresource = m.subresource;
  if (m.time) c.time = m.time;
  return c;
}

function conflictMessage(conflicts: ApplyConflict[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: ${conflicts[0]!.message}: ${conflicts[0]!.field}`;
  const lines: string[] = [];
  let prev: string | undefined;
  for (const c of conflicts) {
    if (c.message !== prev) lines.push(`conflicts with ${c.message.slice('conflict with '.length)}:`);
    prev = c.message;
    lines.push(`- ${c.field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** `namespace/name; group/version, Kind=kind` as upstream names an object in apply errors. */
function objectRef(obj: KubeObject): string {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const av = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const gv = av.includes('/') ? av : '/' + av;
  return `${meta.namespace ?? ''}/${meta.name ?? ''}; ${gv}, Kind=${obj.kind ?? ''}`;
}
