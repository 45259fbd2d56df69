// Object semantics on top of the revisioned store for one resource type:
// identity and timestamps, generation, resourceVersion, CAS updates, status handling, two-phase delete.
import { CACHE_CATCH_UP_MS, cachedObjects, freezeShared } from './cached-objects.js';
import { countDecode } from './decode-count.js';
import { randomUUID } from 'node:crypto';
import { deepEqual } from '../../api/merge-patch.js';
import { errors, StatusError, type Target } from '../../api/status.js';
import { StoreError, type KeyValue, type RevisionedStore } from '../storage/types.js';
import { collectionPrefix, objectKey, typePrefix } from './keys.js';
import type { FieldError, KubeObject, ObjectMeta, ResourceType } from './types.js';

export interface WriteOptions {
  dryRun?: boolean;
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** A decoded object with the store revision it was read at. */
export interface StoredObject {
  obj: KubeObject;
  modRevision: number;
  key: string;
  /** Stored under an older encryption key or provider: an unchanged update still rewrites it (storage migration). */
  stale?: boolean;
  /**
   * The watch cache's object, not read from storage (readForUpdate): `obj` is shared (read-only) and may be older
   * than storage. A write on it is a CAS on its revision, so a stale one fails and the writer reads again; a
   * successful write proves it current and clears the flag.
   */
  suggested?: boolean;
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

let stampSecond = -1;
let stamp = '';
/** RFC 3339 with second precision, as the API records times; formatted once per second. */
export function nowTimestamp(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    stamp = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return stamp;
}

/** Server-assigned fields of a new object (ResourceStore.restoreSystemFields). */
export interface SystemFields {
  uid?: string;
  creationTimestamp?: string;
  generation?: number;
}

/** Stored bytes never carry resourceVersion: it is the key's modRevision, set on read. */
export function encodeForStorage(obj: KubeObject): Uint8Array {
  const meta = obj.metadata;
  if (meta && meta.resourceVersion !== undefined) {
    const { resourceVersion: _rv, ...rest } = meta;
    return textEncoder.encode(JSON.stringify({ ...obj, metadata: rest }));
  }
  return textEncoder.encode(JSON.stringify(obj));
}

/**
 * The largest object the store takes: etcd refuses requests over its --max-request-bytes (default
 * 1572864, 1.5 MiB). Every write path (API and controllers) encodes here, so the check lives here: 413.
 */
export const MAX_STORED_OBJECT_BYTES = 1_572_864;

export function checkStoredSize(bytes: Uint8Array): void {
  if (bytes.length > MAX_STORED_OBJECT_BYTES)
    throw errors.tooLarge(`Request entity too large: the object is ${bytes.length} bytes once encoded, limit is ${MAX_STORED_OBJECT_BYTES}`);
}

export function decodeFromStorage(kv: KeyValue): KubeObject {
  countDecode();
  let obj: KubeObject;
  try {
    obj = JSON.parse(textDecoder.decode(kv.value)) as KubeObject;
  } catch (e) {
    throw new StoreError('Corrupt', `failed to decode stored object: ${(e as Error).message}`, undefined, kv.key);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
    throw new StoreError('Corrupt', 'stored object is not a JSON object', undefined, kv.key);
  obj.metadata = obj.metadata ?? {};
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}

/**
 * A stored key-value of the type under `typePrefix` as an object: the watch cache's copy of exactly that version
 * when a loaded cache holds it (shared, read only), else decoded here. For reads that range over many objects
 * (quota usage, a budget's pods, a namespace's content) and only look at them.
 */
export function sharedOrDecoded(store: RevisionedStore, typePrefix: string, kv: KeyValue): KubeObject {
  const o = cachedObjects(store, typePrefix)?.objectAt(kv.key, kv.modRevision);
  return o === undefined ? decodeFromStorage(kv) : freezeShared(o);
}

/**
 * The watch cache's copies of a page read from storage: waits (briefly, as readShared) for the cache to hold the
 * newest version in the page, so a version written just before the read is not decoded here and again by the cache.
 */
export async function sharedOrDecodedPage(store: RevisionedStore, typePrefix: string, kvs: KeyValue[]): Promise<KubeObject[]> {
  const cache = cachedObjects(store, typePrefix);
  let newest = 0;
  for (const kv of kvs) if (kv.modRevision > newest) newest = kv.modRevision;
  if (cache && cache.revision < newest) {
    try {
      await cache.waitFresh(newest, CACHE_CATCH_UP_MS);
    } catch {
      // still behind: the versions it lacks are decoded here
    }
  }
  return kvs.map((kv) => sharedOrDecoded(store, typePrefix, kv));
}

const GENERATE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
export function generateNameSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += GENERATE_CHARS[Math.floor(Math.random() * GENERATE_CHARS.length)];
  return s;
}

/** Everything except metadata and status: a change here bumps metadata.generation. */
function specPart(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/**
 * The stored object and its successor hold the same values. Key order is no change: upstream's typed objects
 * encode in their struct's field order and unstructured ones with sorted keys, so a manifest or patch that only
 * orders keys differently writes nothing there either.
 */
export function sameObject(next: KubeObject, old: KubeObject): boolean {
  const { resourceVersion: _n, ...nm } = next.metadata ?? {};
  const { resourceVersion: _o, ...om } = old.metadata ?? {};
  return deepEqual({ ...next, metadata: nm }, { ...old, metadata: om });
}

export type Validator = (obj: KubeObject, old: KubeObject | undefined) => FieldError[];

export class ResourceStore {
  constructor(
    readonly type: ResourceType,
    readonly store: RevisionedStore,
  ) {}

  target(name?: string): Target {
    return { group: this.type.group, resource: this.type.plural, name };
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(this.type, namespace, name);
  }

  prefix(namespace?: string): string {
    return collectionPrefix(this.type, namespace);
  }

  /** Key relative to the type prefix (continue tokens carry this). */
  relativeKey(key: string): string {
    return key.slice(typePrefix(this.type).length);
  }

  /** The form an object is stored in (another version's, for types sharing a storage). */
  stored(obj: KubeObject): KubeObject {
    return this.type.strategy.convertTo ? this.type.strategy.convertTo(obj) : obj;
  }

  hasStatus(): boolean {
    return this.type.subresources.some((s) => s.name === 'status');
  }

  /**
   * The stored object (a fresh copy the caller may change). `shared` may supply an already decoded,
   * read-only copy of that exact version (the watch cache's), sparing a decode on reads that only serve it.
   */
  async read(
    namespace: string | undefined,
    name: string,
    revision?: number,
    shared?: (key: string, modRevision: number) => KubeObject | undefined,
  ): Promise<StoredObject | undefined> {
    const key = this.key(namespace, name);
    try {
      const res = await this.store.get(key, revision);
      if (!res.kv) return undefined;
      const obj = shared?.(key, res.kv.modRevision) ?? decodeFromStorage(res.kv);
      const stored: StoredObject = { obj, modRevision: res.kv.modRevision, key };
      if (res.kv.stale) stored.stale = true;
      return stored;
    } catch (e) {
      // an undecodable object is reported as corrupt, naming its key
      if (e instanceof StoreError && e.code === 'Corrupt') throw mapStoreError(new StoreError('Corrupt', e.message, e.revision, e.key ?? key), this.target(name));
      throw e;
    }
  }

  /**
   * The stored object, shared and read-only: storage says which version is current, the watch cache supplies it
   * decoded (waiting briefly for the cache to apply a version it has not seen yet); decoded here only when no
   * cache holds it. Callers copy before changing it.
   */
  async readShared(namespace: string | undefined, name: string): Promise<StoredObject | undefined> {
    const key = this.key(namespace, name);
    try {
      const res = await this.store.get(key);
      if (!res.kv) return undefined;
      const obj = (await this.cachedAt(key, res.kv.modRevision)) ?? decodeFromStorage(res.kv);
      const stored: StoredObject = { obj, modRevision: res.kv.modRevision, key };
      if (res.kv.stale) stored.stale = true;
      return stored;
    } catch (e) {
      if (e instanceof StoreError && e.code === 'Corrupt') throw mapStoreError(new StoreError('Corrupt', e.message, e.revision, e.key ?? key), this.target(name));
      throw e;
    }
  }

  /** The watch cache's decoded copy of exactly version `modRevision` of `key`, waiting a little for the cache to reach it. */
  private async cachedAt(key: string, modRevision: number): Promise<KubeObject | undefined> {
    const cache = cachedObjects(this.store, typePrefix(this.type));
    if (!cache) return undefined;
    let o = cache.objectAt(key, modRevision);
    if (o === undefined && cache.revision < modRevision) {
      try {
        await cache.waitFresh(modRevision, CACHE_CATCH_UP_MS);
      } catch {
        return undefined;
      }
      o = cache.objectAt(key, modRevision);
    }
    return o === undefined ? undefined : freezeShared(o);
  }

  /**
   * Where an update starts, as upstream's GuaranteedUpdate with the Cacher's cachedExistingObject: the watch
   * cache's current object (shared, read-only; `suggested`, since storage may hold a newer version), else the
   * stored one (readShared). A dry run reads storage: it writes nothing whose CAS would catch a stale base.
   */
  async readForUpdate(namespace: string | undefined, name: string, dryRun = false): Promise<StoredObject | undefined> {
    if (!dryRun) {
      const key = this.key(namespace, name);
      const o = cachedObjects(this.store, typePrefix(this.type))?.current(key);
      const rv = Number(o?.metadata?.resourceVersion);
      if (o && rv > 0) return { obj: freezeShared(o), modRevision: rv, key, suggested: true };
    }
    return this.readShared(namespace, name);
  }

  async mustRead(namespace: string | undefined, name: string): Promise<StoredObject> {
    const cur = await this.read(namespace, name);
    if (!cur) throw errors.notFound(this.target(name));
    return cur;
  }

  /** The system fields of a new object: uid, creationTimestamp, generation; no resourceVersion, selfLink or deletion fields. */
  assignSystemFields(obj: KubeObject): void {
    this.restoreSystemFields(obj, { uid: randomUUID(), creationTimestamp: nowTimestamp(), generation: this.type.custom || this.type.strategy.tracksGeneration ? 1 : undefined });
  }

  /**
   * Puts back the system fields assigned before mutating admission, so nothing a webhook set there is stored
   * (upstream fills uid and creationTimestamp in the store's Create, after admission; the uid stays the one
   * defaulting saw, e.g. a Job's generated selector).
   */
  restoreSystemFields(obj: KubeObject, saved: SystemFields): void {
    const meta: ObjectMeta = (obj.metadata ??= {});
    meta.uid = saved.uid;
    meta.creationTimestamp = saved.creationTimestamp;
    if (saved.generation === undefined) delete meta.generation;
    else meta.generation = saved.generation;
    delete meta.resourceVersion;
    delete (meta as Record<string, unknown>).selfLink;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }

  /**
   * Merges server-owned fields of `old` into `next` for an update of the main resource or a sub-resource,
   * checks immutables and finalizer rules, and bumps generation. Returns field errors (422) if any.
   */
  prepareUpdate(next: KubeObject, old: KubeObject, subresource: string): FieldError[] {
    const errs: FieldError[] = [];
    const om = old.metadata!;
    if (subresource === 'status' || subresource === 'approval') {
      // only status changes through /status (and a CSR's /approval)
      const status = next.status;
      for (const k of Object.keys(next)) delete next[k];
      Object.assign(next, structuredClone(old));
      if (status === undefined) delete next.status;
      else next.status = status;
      delete next.metadata!.resourceVersion;
    } else if (this.hasStatus()) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
    // a patch may share untouched subtrees with the stored object: never write into the stored metadata
    const nm: ObjectMeta = (next.metadata = next.metadata === om || !next.metadata ? { ...next.metadata } : next.metadata);
    if (nm.uid !== undefined && nm.uid !== om.uid)
      errs.push({ type: 'FieldValueInvalid', field: 'metadata.uid', detail: `Invalid value: ${JSON.stringify(nm.uid)}: field is immutable` });
    nm.uid = om.uid;
    nm.creationTimestamp = om.creationTimestamp;
    nm.name = om.name;
    if (this.type.scope === 'Namespaced') nm.namespace = om.namespace;
    if (om.deletionTimestamp) {
      nm.deletionTimestamp = om.deletionTimestamp;
      if (om.deletionGracePeriodSeconds !== undefined) nm.deletionGracePeriodSeconds = om.deletionGracePeriodSeconds;
      const before = new Set(om.finalizers ?? []);
      const added = (nm.finalizers ?? []).filter((f) => !before.has(f));
      if (added.length > 0)
        errs.push({
          type: 'FieldValueForbidden',
          field: 'metadata.finalizers',
          detail: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        });
    } else {
      delete nm.deletionTimestamp;
      delete nm.deletionGracePeriodSeconds;
    }
    if (this.type.custom || this.type.strategy.tracksGeneration) {
      nm.generation = om.generation ?? 1;
      if (subresource === '' && !deepEqual(specPart(next), specPart(old))) nm.generation += 1;
    } else if (om.generation !== undefined) nm.generation = om.generation;
    else delete nm.generation;
    if (this.type.strategy.prepareUpdate) errs.push(...this.type.strategy.prepareUpdate(next, old, subresource));
    return errs;
  }

  checkPreconditions(cur: KubeObject, pre: Preconditions | undefined): void {
    if (!pre) return;
    const name = cur.metadata?.name;
    if (pre.uid !== undefined && pre.uid !== null && pre.uid !== cur.metadata?.uid)
      throw errors.conflict(this.target(name), `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${cur.metadata?.uid ?? ''}`);
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== null && pre.resourceVersion !== cur.metadata?.resourceVersion)
      throw errors.conflict(
        this.target(name),
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cur.metadata?.resourceVersion ?? ''}`,
      );
  }
}

/**
 * Upstream's ShouldDeleteDuringUpdate: an update removes an object in deletion once its last finalizer is gone,
 * unless a grace period is still running (pods); a namespace also needs its spec.finalizers emptied.
 */
export function shouldDeleteDuringUpdate(type: ResourceType, next: KubeObject, old: KubeObject): boolean {
  const om = old.metadata ?? {};
  if ((next.metadata?.finalizers ?? []).length > 0 || !om.deletionTimestamp) return false;
  if (om.deletionGracePeriodSeconds !== undefined && om.deletionGracePeriodSeconds !== 0) return false;
  if (type.group === '' && type.plural === 'namespaces') {
    const specFinalizers = (next.spec as { finalizers?: unknown[] } | undefined)?.finalizers ?? [];
    if (specFinalizers.length > 0) return false;
  }
  return true;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Maps storage failures to upstream Status errors. */
export function mapStoreError(e: unknown, t: Target): unknown {
  if (e instanceof StatusError) return e;
  if (!(e instanceof StoreError)) return e;
  switch (e.code) {
    case 'Conflict':
      return errors.conflict(t);
    case 'KeyNotFound':
      return errors.notFound(t);
    case 'KeyExists':
      return errors.alreadyExists(t);
    case 'Compacted':
      return errors.expired('The resourceVersion for the provided list is too old.');
    case 'Unavailable':
      return errors.unavailable(`storage is unavailable: ${e.message}`);
    case 'Corrupt':
      // upstream's StorageError text (code 7 = ErrCodeCorruptObj); the unsafe deleter recognises "corrupt object"
      return errors.internal(`StorageError: corrupt object, Code: 7, Key: ${e.key ?? t.name ?? ''}, ResourceVersion: 0, AdditionalErrorMsg: ${e.message}`);
    default:
      return errors.internal(e.message);
  }
}

const storesByType = new WeakMap<ResourceType, ResourceStore>();

/** The one ResourceStore of a type over a store (made on first use). */
export function resourceStoreFor(type: ResourceType, store: RevisionedStore): ResourceStore {
  let rs = storesByType.get(type);
  if (!rs || rs.store !== store) storesByType.set(type, (rs = new ResourceStore(type, store)));
  return rs;
}
