// In-memory revisioned store: a sorted index of live keys for current reads,
// per-key version lists for reads at past revisions, and one global event log
// (a contiguous run of revisions after the compacted one) feeding watches.
//
// Revisions follow etcd: an empty store is at revision 1, the first write
// gets 2. Returned KeyValue objects are frozen and shared with the store;
// their value bytes must be treated as read-only.
import {
  checkKey,
  checkReadRevision,
  compactedError,
  conflictError,
  futureRevisionError,
  keyExistsError,
  keyNotFoundError,
  unavailableError,
} from './errors.js';
import { prefixEnd, rangeStart } from './keys.js';
import { SortedKeys } from './sorted-keys.js';
import type {
  GetResult,
  KeyValue,
  RangeOptions,
  RangeResult,
  RevisionedStore,
  StoreEvent,
  StoreWatch,
  WatchHandlers,
} from './types.js';
import { WatchHub, type EventBatch, type EventLog } from './watch-hub.js';

interface Version {
  /** For a tombstone: the last value, with modRevision = deletion revision. */
  kv: KeyValue;
  deleted: boolean;
}

/** Events scanned per readEvents call before returning a partial batch. */
const MAX_SCAN = 10_000;

export class MemoryStore implements RevisionedStore {
  readonly name = 'memory';
  private rev = 1;
  private compacted = 0;
  private state: 'new' | 'open' | 'closed' = 'new';
  private readonly history = new Map<string, Version[]>();
  /** Keys that exist at the current revision. */
  private readonly live = new SortedKeys();
  /** Keys with any retained version (live or deleted), for past reads. */
  private readonly all = new SortedKeys();
  /** Every event with revision > compacted, in order; log[i].revision === log[0].revision + i. */
  private log: StoreEvent[] = [];
  private readonly hub: WatchHub;

  constructor() {
    const events: EventLog = {
      readEvents: (prefix, after, limit) => this.readEvents(prefix, after, limit),
      compactedRevision: () => this.compacted,
    };
    this.hub = new WatchHub(events, this.rev);
  }

  async open(): Promise<void> {
    this.state = 'open';
  }

  async close(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'closed';
    this.hub.closeAll();
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    this.checkOpen();
    checkKey(key);
    const versions = this.history.get(key);
    const current = versions?.[versions.length - 1];
    if (current && !current.deleted) throw keyExistsError(key);
    const rev = this.rev + 1;
    const kv = Object.freeze({ key, value: copyBytes(value), createRevision: rev, modRevision: rev });
    this.commit(key, versions, { kv, deleted: false }, { type: 'put', kv, revision: rev });
    return kv;
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    this.checkOpen();
    const versions = this.history.get(key);
    const current = this.liveVersion(key, versions);
    if (current.kv.modRevision !== expectedModRevision) {
      throw conflictError(key, expectedModRevision, current.kv.modRevision);
    }
    const rev = this.rev + 1;
    const kv = Object.freeze({
      key,
      value: copyBytes(value),
      createRevision: current.kv.createRevision,
      modRevision: rev,
    });
    this.commit(key, versions, { kv, deleted: false }, { type: 'put', kv, prevKv: current.kv, revision: rev });
    return kv;
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.checkOpen();
    const versions = this.history.get(key);
    const current = this.liveVersion(key, versions);
    if (expectedModRevision !== undefined && current.kv.modRevision !== expectedModRevision) {
      throw conflictError(key, expectedModRevision, current.kv.modRevision);
    }
    const rev = this.rev + 1;
    const kv = Object.freeze({ ...current.kv, modRevision: rev });
    this.commit(key, versions, { kv, deleted: true }, { type: 'delete', kv, prevKv: current.kv, revision: rev });
    return kv;
  }

  async get(key: string, revision?: number): Promise<GetResult> {
    this.checkOpen();
    const rev = checkReadRevision(revision, this.rev, this.compacted);
    const versions = this.history.get(key);
    if (!versions) return { revision: rev };
    const version = rev === this.rev ? versions[versions.length - 1] : versionAt(versions, rev);
    if (!version || version.deleted) return { revision: rev };
    return { kv: version.kv, revision: rev };
  }

  async range(opts: RangeOptions): Promise<RangeResult> {
    this.checkOpen();
    const rev = checkReadRevision(opts.revision, this.rev, this.compacted);
    const start = rangeStart(opts.prefix, opts.startKey);
    const end = prefixEnd(opts.prefix);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const kvs: KeyValue[] = [];

    if (rev === this.rev) {
      const from = this.live.lowerBound(start);
      const count = Math.max(0, this.live.endIndex(end) - from);
      const take = Math.min(count, limit);
      for (let i = 0; i < take; i++) {
        const versions = this.history.get(this.live.at(from + i))!;
        kvs.push(versions[versions.length - 1].kv);
      }
      return { kvs, revision: rev, more: take < count, count };
    }

    // a past revision has no live index: keys are visited one by one, so a scanner paging a large
    // type (count: false) stops one past its page instead of walking the rest of the range per page
    const counting = opts.count !== false;
    let count = 0;
    const to = this.all.endIndex(end);
    for (let i = this.all.lowerBound(start); i < to; i++) {
      const version = versionAt(this.history.get(this.all.at(i))!, rev);
      if (!version || version.deleted) continue;
      count++;
      if (kvs.length < limit) kvs.push(version.kv);
      else if (!counting) break;
    }
    return { kvs, revision: rev, more: kvs.length < count, count };
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.rev;
  }

  async compactedRevision(): Promise<number> {
    this.checkOpen();
    return this.compacted;
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision <= this.compacted) return;
    if (revision > this.rev) throw futureRevisionError(this.rev);
    const first = this.log.length > 0 ? this.log[0].revision : this.rev + 1;
    const dropped = Math.max(0, Math.min(this.log.length, revision - first + 1));
    const touched = new Set<string>();
    for (let i = 0; i < dropped; i++) touched.add(this.log[i].kv.key);
    this.log = this.log.slice(dropped);
    this.compacted = revision;

    // Only keys written since the last compaction can hold superseded versions.
    const gone = new Set<string>();
    for (const key of touched) {
      const versions = this.history.get(key)!;
      let keepFrom = lastIndexAtOrBefore(versions, revision);
      if (keepFrom < 0) continue;
      if (versions[keepFrom].deleted) keepFrom++;
      if (keepFrom > 0) versions.splice(0, keepFrom);
      if (versions.length === 0) {
        this.history.delete(key);
        gone.add(key);
      }
    }
    this.all.removeAll(gone);
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): StoreWatch {
    this.checkOpen();
    return this.hub.watch(prefix, afterRevision, handlers);
  }

  private readEvents(prefix: string, after: number, limit: number): EventBatch {
    if (after < this.compacted) throw compactedError(this.compacted);
    const log = this.log;
    if (log.length === 0) return { events: [], upTo: this.rev };
    const events: StoreEvent[] = [];
    const begin = Math.max(0, after + 1 - log[0].revision);
    const stop = Math.min(log.length, begin + MAX_SCAN);
    let i = begin;
    for (; i < stop && events.length < limit; i++) {
      const event = log[i];
      if (event.kv.key.startsWith(prefix)) events.push(event);
    }
    const upTo = i >= log.length ? this.rev : log[i - 1]?.revision ?? after;
    return { events, upTo };
  }

  private liveVersion(key: string, versions: Version[] | undefined): Version {
    checkKey(key);
    const current = versions?.[versions.length - 1];
    if (!current || current.deleted) throw keyNotFoundError(key);
    return current;
  }

  private commit(key: string, versions: Version[] | undefined, version: Version, event: StoreEvent): void {
    this.rev = event.revision;
    if (versions) {
      versions.push(version);
    } else {
      this.history.set(key, [version]);
      this.all.insert(key);
    }
    if (version.deleted) this.live.remove(key);
    else if (event.prevKv === undefined) this.live.insert(key);
    this.log.push(Object.freeze(event));
    this.hub.advance(this.rev);
  }

  private checkOpen(): void {
    if (this.state !== 'open') throw unavailableError(`memory store is ${this.state === 'new' ? 'not open' : 'closed'}`);
  }
}

function copyBytes(value: Uint8Array): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError('store value must be a Uint8Array');
  return new Uint8Array(value);
}

/** Index of the last version with modRevision <= rev, or -1. */
function lastIndexAtOrBefore(versions: Version[], rev: number): number {
  let lo = 0;
  let hi = versions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (versions[mid].kv.modRevision <= rev) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function versionAt(versions: Version[], rev: number): Version | undefined {
  const i = lastIndexAtOrBefore(versions, rev);
  return i < 0 ? undefined : versions[i];
}
