// metadata.managedFields entries <-> per-manager field sets, as the upstream field manager keeps
// them: one entry per (manager, operation, apiVersion for updates, subresource), at most
// MAX_UPDATE_MANAGERS update entries (older ones merged into "ancient-changes"), sorted on output.
import { FieldSet } from './fieldpath.js';
import { isObject } from './json-util.js';

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

export interface ManagerState {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: FieldSet;
  /** The wire fieldsV1 this set was decoded from, reused while the set is unchanged. */
  decoded?: { set: FieldSet; fieldsV1: Record<string, unknown> };
}

/** Managers by identifier. */
export type Managers = Map<string, ManagerState>;

export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES = 'ancient-changes';

/**
 * Identity of an entry: the JSON of manager, operation, apiVersion (updates only) and subresource,
 * so an applier keeps one entry across versions while updaters get one per version.
 */
let lastId: { manager: string; operation: string; apiVersion: string; subresource?: string; id: string } | undefined;
export function managerId(manager: string, operation: 'Apply' | 'Update', apiVersion: string, subresource?: string): string {
  // consecutive writes mostly come from one manager: remember the last identity
  const l = lastId;
  if (l && l.manager === manager && l.operation === operation && l.apiVersion === apiVersion && l.subresource === subresource) return l.id;
  const id = managerIdOf(manager, operation, apiVersion, subresource);
  lastId = { manager, operation, apiVersion, subresource, id };
  return id;
}

function managerIdOf(manager: string, operation: 'Apply' | 'Update', apiVersion: string, subresource?: string): string {
  const o: Record<string, string> = {};
  if (manager) o.manager = manager;
  o.operation = operation;
  if (operation === 'Update' && apiVersion) o.apiVersion = apiVersion;
  if (subresource) o.subresource = subresource;
  return JSON.stringify(o);
}

/** Decodes entries; throws on a malformed one (callers decide what to fall back to). */
export function decodeManagedFields(entries: unknown): Managers {
  const out: Managers = new Map();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((e, i) => {
    if (!isObject(e)) throw new Error(`managed fields entry ${i} must be an object`);
    if (e.fieldsType === undefined || e.fieldsType === '') throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error(`invalid operation ${JSON.stringify(e.operation)} in managed fields entry ${i}`);
    const manager = typeof e.manager === 'string' ? e.manager : '';
    const apiVersion = typeof e.apiVersion === 'string' ? e.apiVersion : '';
    const subresource = typeof e.subresource === 'string' && e.subresource ? e.subresource : undefined;
    const state: ManagerState = { manager, operation: e.operation, apiVersion, set: decodeFields(e.fieldsV1) };
    if (isObject(e.fieldsV1)) state.decoded = { set: state.set, fieldsV1: e.fieldsV1 };
    if (subresource) state.subresource = subresource;
    if (typeof e.time === 'string' && e.time) state.time = e.time;
    out.set(managerId(manager, e.operation, apiVersion, subresource), state);
  });
  return out;
}

/**
 * The last parsed fieldsV1 objects and their sets, so a write that reads the same object version again (a retry,
 * a dry run, the next patch of a cached object) parses nothing. Bounded: keyed weakly it kept a set tree (about
 * 5 KB) alive beside every object version the watch cache's history retains (44 MiB of a 2,000-pod cluster's heap,
 * 1 in 7 bytes); upstream's field manager parses on every write and keeps nothing.
 */
const DECODED_SETS_MAX = 1024;
const decodedSets = new Map<object, FieldSet>();

/** How many parsed sets the memo holds (tests). */
export function decodedSetsHeld(): number {
  return decodedSets.size;
}

/** Parses fieldsV1, memoized for the last few objects (stored objects are decoded again on every write). */
function decodeFields(v: unknown): FieldSet {
  if (v === undefined || v === null) return new FieldSet();
  if (!isObject(v)) return FieldSet.fromFieldsV1(v);
  let s = decodedSets.get(v);
  if (!s) {
    s = FieldSet.fromFieldsV1(v);
    if (decodedSets.size >= DECODED_SETS_MAX) decodedSets.delete(decodedSets.keys().next().value!);
    decodedSets.set(v, s);
  }
  return s;
}

/** `[]` or `[{}]` in a write asks to clear managedFields. */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && isObject(entries[0]) && Object.keys(entries[0]).length === 0;
}

const seconds = (t: string | undefined): number => {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Merges the oldest update entries, per apiVersion, into "ancient-changes" until at most max remain. */
export function capUpdateManagers(managers: Managers, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managers].filter(([, m]) => m.operation === 'Update').map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(managers.get(a)!.time) - seconds(managers.get(b)!.time) || cmp(a, b));
  const firstByVersion = new Map<string, string>();
  let remaining = updaters.length;
  for (let i = 0; i < updaters.length && remaining > max; i++) {
    const id = updaters[i]!;
    const m = managers.get(id);
    if (!m) continue;
    const bucket = managerId(ANCIENT_CHANGES, 'Update', m.apiVersion);
    const first = firstByVersion.get(m.apiVersion);
    if (first === undefined) {
      firstByVersion.set(m.apiVersion, id);
      continue;
    }
    if (!managers.has(bucket)) {
      const f = managers.get(first)!;
      managers.delete(first);
      managers.set(bucket, { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: f.apiVersion, set: f.set, ...(f.time ? { time: f.time } : {}) });
    }
    const b = managers.get(bucket)!;
    const merged: ManagerState = { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: m.apiVersion, set: m.set.union(b.set) };
    if (m.time) merged.time = m.time;
    managers.set(bucket, merged);
    managers.delete(id);
    remaining--;
  }
}

/** Entries in upstream order: Apply before Update, then oldest first, then manager, apiVersion, subresource. */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const m of managers.values()) {
    if (m.set.isEmpty()) continue;
    const e = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion } as ManagedFieldsEntry;
    if (m.time) e.time = m.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = m.decoded?.set === m.set ? m.decoded.fieldsV1 : m.set.toFieldsV1();
    if (m.subresource) e.subresource = m.subresource;
    out.push(e);
  }
  out.sort(
    (a, b) =>
      cmp(a.operation, b.operation) ||
      seconds(a.time) - seconds(b.time) ||
      cmp(a.manager, b.manager) ||
      cmp(a.apiVersion, b.apiVersion) ||
      cmp(a.subresource ?? '', b.subresource ?? ''),
  );
  return out;
}

/** RFC 3339 with second precision, as managedFields times are written. */
let secondsIn = '';
let secondsOut = '';
export function toSeconds(now: string): string {
  // every write of one second passes the same stamp: remember the last answer
  if (now === secondsIn) return secondsOut;
  secondsOut = toSecondsUncached(now);
  secondsIn = now;
  return secondsOut;
}

function toSecondsUncached(now: string): string {
  const ms = Date.parse(now);
  if (Number.isNaN(ms)) return now;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
