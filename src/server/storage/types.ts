// The revisioned store: the one storage interface the API server uses.
// Semantics follow etcd v3 MVCC: one global, strictly increasing revision;
// every key carries the revision that created it and the one that last changed it.

export interface KeyValue {
  key: string;
  /** Stored bytes (after the value transformer, if any, has been undone). */
  value: Uint8Array;
  createRevision: number;
  modRevision: number;
  /** Set by a value transformer when the value was readable but not in the form a write would produce now (an older key): a rewrite is not a no-op. */
  stale?: boolean;
}

export type StoreEventType = 'put' | 'delete';

export interface StoreEvent {
  type: StoreEventType;
  /** For 'put' the new value; for 'delete' the last value, with modRevision set to the deletion revision. */
  kv: KeyValue;
  /** The value before this change (undefined for a create). */
  prevKv?: KeyValue;
  /** Revision of this change (== kv.modRevision). */
  revision: number;
}

export interface RangeOptions {
  /** Keys starting with this prefix. */
  prefix: string;
  /** First key to return (inclusive); must start with prefix. */
  startKey?: string;
  /** At most this many keys (0 or undefined = no limit). */
  limit?: number;
  /** Read at this past revision; undefined = current. */
  revision?: number;
  /**
   * Values a value transformer cannot turn back (undecryptable, KMS plugin down) come back empty
   * instead of failing the whole range: for internal scanners that decode each value and skip
   * the ones they cannot read (the watch cache, the object feed).
   */
  lenient?: boolean;
  /**
   * false: the caller reads only `more` (internal scanners paging through a whole type), so a store
   * may skip counting the rest of the range; `count` is then only a lower bound.
   */
  count?: boolean;
}

export interface RangeResult {
  kvs: KeyValue[];
  /** The revision the read was served at. */
  revision: number;
  /** True when more keys exist after the last returned one. */
  more: boolean;
  /** Number of keys in [startKey, end of prefix) at that revision, including the returned ones. */
  count: number;
}

export interface GetResult {
  kv?: KeyValue;
  /** The revision the read was served at. */
  revision: number;
}

export type StoreErrorCode =
  | 'KeyExists' // create on an existing key
  | 'KeyNotFound' // update/delete of a missing key
  | 'Conflict' // compare-and-swap revision mismatch
  | 'Compacted' // asked for a revision older than the compacted one
  | 'FutureRevision' // asked for a revision newer than the current one
  | 'Unavailable' // backend down or closed
  | 'Corrupt'; // stored bytes cannot be read back (decode or transform failure)

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** For Compacted: the compacted revision; for FutureRevision: the current revision. */
    readonly revision?: number,
    readonly key?: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export interface WatchHandlers {
  /**
   * Events in revision order; each revision delivered exactly once.
   * Returning a promise makes this watch wait for it before the next batch
   * (back-pressure for one watcher; writers and other watchers are not held up).
   */
  onEvents(events: StoreEvent[]): void | Promise<void>;
  /** The watch ended with an error (Compacted when the start revision is gone, Unavailable ...). No further calls. */
  onError(err: StoreError): void;
  /** Optional: the store has delivered every change up to this revision (progress notification). */
  onProgress?(revision: number): void;
}

export interface StoreWatch {
  stop(): void;
}

export interface RevisionedStore {
  /** Open (create tables, connect). Resolves when reads and writes work. */
  open(): Promise<void>;
  close(): Promise<void>;

  /** Fails with KeyExists when the key exists. */
  create(key: string, value: Uint8Array): Promise<KeyValue>;
  /** Fails with KeyNotFound when missing, Conflict when modRevision differs. */
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue>;
  /** Deletes the key; when expectedModRevision is given it must match. Returns the last value with modRevision = deletion revision. */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;

  get(key: string, revision?: number): Promise<GetResult>;
  range(opts: RangeOptions): Promise<RangeResult>;

  /** Revision of the last write; an empty store is at revision 1 (as in etcd), so the first write gets 2. */
  currentRevision(): Promise<number>;
  /** Revision below which history has been removed (0 = none). */
  compactedRevision(): Promise<number>;
  /**
   * Remove history older than revision: past reads at < revision and watches from < revision fail with Compacted
   * (the state at revision itself stays readable, and a watch from it gets every later change).
   * A revision at or below the compacted one is a no-op; one above the current revision fails with FutureRevision.
   */
  compact(revision: number): Promise<void>;

  /**
   * Every change under prefix with revision > afterRevision, in order, none lost, none duplicated.
   * afterRevision may be past (replayed from history) or future (waits); below the compacted revision
   * the watch ends with onError(Compacted). Handlers are always called asynchronously.
   */
  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): StoreWatch;

  /** Backend name: memory, sqlite, etcd. */
  readonly name: string;
}

/** Turns stored bytes into plain bytes and back (encryption at rest plugs in here). */
export interface ValueTransformer {
  toStorage(key: string, plain: Uint8Array): Promise<Uint8Array> | Uint8Array;
  /**
   * Throws when the bytes cannot be transformed back (surfaced as StoreError('Corrupt')).
   * May say the value is stale: readable, but written under an older key or provider.
   */
  fromStorage(key: string, stored: Uint8Array): Promise<Uint8Array | TransformedValue> | Uint8Array | TransformedValue;
}

export interface TransformedValue {
  value: Uint8Array;
  stale: boolean;
}
