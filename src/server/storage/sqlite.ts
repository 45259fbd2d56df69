// SQLite revisioned store (kine-like): one `log` row per revision plus a
// `current` table pointing each live key at its latest row, so current reads
// never scan history. Writes issued in the same event-loop turn share one
// transaction (group commit); a write's promise resolves only after COMMIT,
// and in WAL mode a committed transaction survives the process being killed.
// synchronous=NORMAL (the default here) can lose the last commits on power
// loss; pass { synchronous: 'full' } to fsync every commit.
//
// The database is opened with locking_mode=EXCLUSIVE, so a second process
// (or a second store in this process) fails to open it with Unavailable
// instead of corrupting the in-memory revision counter. The OS drops the
// lock when the owning process dies, so restart after kill -9 just works.
//
// A read never sees the open batch's writes: one that needs them (its key or range was written in
// the batch, or it asks for a revision the batch assigned) commits the batch first; any other read
// runs against the committed state at committedRev without forcing a commit, so reads between
// writes (admission lookups, namespace checks) no longer end each batch after one write.
//
// Revisions follow etcd: an empty store is at revision 1, the first write
// gets 2. compact(rev) keeps the state at rev; persisted in `meta`.
import { preparePrivateDataDir } from './private-files.js';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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
import {
  StoreError,
  type GetResult,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type RevisionedStore,
  type StoreEvent,
  type StoreWatch,
  type WatchHandlers,
} from './types.js';
import { WatchHub, type EventBatch, type EventLog } from './watch-hub.js';

export interface SqliteStoreOptions {
  /** 'normal' (default) survives process crashes; 'full' also survives power loss. */
  synchronous?: 'normal' | 'full';
  /** Recent committed events kept decoded in memory for live watchers (default 10000). */
  recentEvents?: number;
  /** How long open() waits for another holder of the database lock (default 2000 ms). */
  lockTimeoutMs?: number;
}

export const SQLITE_FILE = 'periscope.db';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (
  revision INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  value BLOB,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  deleted INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS log_key_revision ON log(key, revision);
CREATE TABLE IF NOT EXISTS current (
  key TEXT PRIMARY KEY,
  revision INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta(name, value) VALUES ('schema', 1), ('compacted', 0);
`;

/** Writes per transaction before committing early. */
const MAX_BATCH = 1000;
/** Revisions per compaction transaction (the event loop runs between them). */
const COMPACT_CHUNK = 5000;
/** Revisions scanned per replay query. */
const REPLAY_WINDOW = 10_000;

interface Row {
  key: string;
  revision: number;
  value: Buffer | null;
  create_revision: number;
}

interface EventRow extends Row {
  deleted: number;
  prev_revision: number;
  prev_value: Buffer | null;
  prev_create: number | null;
}

interface Batch {
  startRev: number;
  events: StoreEvent[];
  /** Keys written in this batch: a read touching one of them commits the batch first. */
  keys: Set<string>;
  waiters: Array<{ resolve(): void; reject(err: unknown): void }>;
}

type Stmt = Database.Statement<unknown[], unknown>;

export class SqliteStore implements RevisionedStore {
  readonly name = 'sqlite';
  readonly path: string;
  private readonly synchronous: 'normal' | 'full';
  private readonly recentMax: number;
  private readonly lockTimeoutMs: number;
  private db: Database.Database | undefined;
  private state: 'new' | 'open' | 'closed' = 'new';
  private stmts!: ReturnType<typeof prepareStatements>;
  /** Revision of the last write issued (may be uncommitted while a batch is open). */
  private rev = 1;
  private committedRev = 1;
  private compacted = 0;
  private batch: Batch | undefined;
  /** Committed events, contiguous revisions ending at committedRev. */
  private recent: StoreEvent[] = [];
  private readonly hub: WatchHub;

  constructor(
    readonly dataDir: string,
    opts: SqliteStoreOptions = {},
  ) {
    this.path = join(dataDir, SQLITE_FILE);
    this.synchronous = opts.synchronous ?? 'normal';
    this.recentMax = opts.recentEvents ?? 10_000;
    this.lockTimeoutMs = opts.lockTimeoutMs ?? 2000;
    const events: EventLog = {
      readEvents: (prefix, after, limit) => this.readEvents(prefix, after, limit),
      compactedRevision: () => this.compacted,
    };
    this.hub = new WatchHub(events, 1);
  }

  async open(): Promise<void> {
    if (this.state === 'open') return;
    let db: Database.Database | undefined;
    try {
      preparePrivateDataDir(this.dataDir, [this.path, `${this.path}-wal`, `${this.path}-shm`]);
      db = new Database(this.path, { timeout: this.lockTimeoutMs });
      // Exclusive locking must be set before WAL so no shared-memory index is used.
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${this.synchronous.toUpperCase()}`);
      db.pragma('cache_size = -32768');
      db.exec('BEGIN IMMEDIATE');
      db.exec(SCHEMA);
      db.exec('COMMIT');
    } catch (err) {
      db?.close();
      throw unavailableError(`cannot open ${this.path}: ${errorMessage(err)}`);
    }
    this.db = db;
    this.stmts = prepareStatements(db);
    this.compacted = this.stmts.metaGet.pluck().get('compacted') as number;
    const maxRev = (this.stmts.maxRevision.pluck().get() as number | null) ?? 0;
    this.rev = this.committedRev = Math.max(1, maxRev, this.compacted);
    this.recent = [];
    this.state = 'open';
    this.hub.advance(this.rev);
    const pendingFrom = this.stmts.metaGet.pluck().get('compact_from') as number | undefined;
    if (pendingFrom !== undefined) {
      // A compaction was interrupted: its deletes are idempotent, so redo them.
      await this.removeHistory(pendingFrom, this.compacted);
    }
  }

  async close(): Promise<void> {
    if (this.state !== 'open') return;
    try {
      this.flush();
    } finally {
      this.state = 'closed';
      this.hub.closeAll();
      this.db!.close();
      this.db = undefined;
    }
  }

  create(key: string, value: Uint8Array): Promise<KeyValue> {
    return this.write(() => {
      checkKey(key);
      const bytes = copyBytes(value);
      if (this.stmts.currentRevision.get(key) !== undefined) throw keyExistsError(key);
      const rev = this.rev + 1;
      this.stmts.insertLog.run(rev, key, bytes, rev, 0, 0);
      this.stmts.upsertCurrent.run(key, rev);
      this.rev = rev;
      const kv: KeyValue = { key, value: bytes, createRevision: rev, modRevision: rev };
      return { result: kv, event: { type: 'put', kv, revision: rev } };
    });
  }

  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    return this.write(() => {
      checkKey(key);
      const bytes = copyBytes(value);
      const prev = this.liveRow(key);
      if (prev.revision !== expectedModRevision) throw conflictError(key, expectedModRevision, prev.revision);
      const rev = this.rev + 1;
      this.stmts.insertLog.run(rev, key, bytes, prev.create_revision, prev.revision, 0);
      this.stmts.upsertCurrent.run(key, rev);
      this.rev = rev;
      const kv: KeyValue = { key, value: bytes, createRevision: prev.create_revision, modRevision: rev };
      return { result: kv, event: { type: 'put', kv, prevKv: rowToKv(prev), revision: rev } };
    });
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.write(() => {
      checkKey(key);
      const prev = this.liveRow(key);
      if (expectedModRevision !== undefined && prev.revision !== expectedModRevision) {
        throw conflictError(key, expectedModRevision, prev.revision);
      }
      const rev = this.rev + 1;
      this.stmts.insertLog.run(rev, key, null, prev.create_revision, prev.revision, 1);
      this.stmts.deleteCurrent.run(key);
      this.rev = rev;
      const prevKv = rowToKv(prev);
      const kv: KeyValue = { ...prevKv, modRevision: rev };
      return { result: kv, event: { type: 'delete', kv, prevKv, revision: rev } };
    });
  }

  async get(key: string, revision?: number): Promise<GetResult> {
    this.checkOpen();
    if (this.batch && (this.batch.keys.has(key) || (revision !== undefined && revision > this.committedRev))) this.flush();
    // without an open batch's write to this key, the current row is the committed one
    const rev = checkReadRevision(revision, this.committedRev, this.compacted);
    if (rev === this.committedRev) {
      const row = this.stmts.getCurrent.get(key) as Row | undefined;
      return row ? { kv: rowToKv(row), revision: rev } : { revision: rev };
    }
    const row = this.stmts.getAt.get(key, rev) as (Row & { deleted: number }) | undefined;
    return row && !row.deleted ? { kv: rowToKv(row), revision: rev } : { revision: rev };
  }

  async range(opts: RangeOptions): Promise<RangeResult> {
    this.checkOpen();
    if (this.batch && ((opts.revision !== undefined && opts.revision > this.committedRev) || touchesPrefix(this.batch.keys, opts.prefix))) this.flush();
    // the open batch wrote nothing under the prefix: its current rows are the committed ones
    const rev = checkReadRevision(opts.revision, this.committedRev, this.compacted);
    const start = rangeStart(opts.prefix, opts.startKey);
    const end = prefixEnd(opts.prefix);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : -1;
    const bounds = end === undefined ? [start] : [start, end];
    const s = this.stmts;
    const current = rev === this.committedRev;
    // without a count, one row past the limit tells whether there is more (COUNT over the rest of
    // the range on every page made a full scan quadratic)
    const probe = opts.count === false && limit >= 0;
    // an unlimited range runs a statement without LIMIT: a bound `LIMIT -1` made SQLite take ~20x
    // longer on a small range (4 such reads per admitted write, for webhook configurations and policies)
    const rows = (
      limit < 0
        ? current
          ? (end === undefined ? s.rangeCurrentOpenAll : s.rangeCurrentAll).all(...bounds)
          : (end === undefined ? s.rangeAtOpenAll : s.rangeAtAll).all(...bounds, rev)
        : current
          ? (end === undefined ? s.rangeCurrentOpen : s.rangeCurrent).all(...bounds, probe ? limit + 1 : limit)
          : (end === undefined ? s.rangeAtOpen : s.rangeAt).all(...bounds, rev, probe ? limit + 1 : limit)
    ) as Row[];
    if (probe) {
      const more = rows.length > limit;
      if (more) rows.length = limit;
      return { kvs: rows.map(rowToKv), revision: rev, more, count: rows.length + (more ? 1 : 0) };
    }
    let count = rows.length;
    if (limit >= 0 && rows.length === limit) {
      count = (
        current
          ? (end === undefined ? s.countCurrentOpen : s.countCurrent).get(...bounds)
          : (end === undefined ? s.countAtOpen : s.countAt).get(...bounds, rev)
      ) as number;
    }
    return { kvs: rows.map(rowToKv), revision: rev, more: rows.length < count, count };
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    this.flush();
    return this.rev;
  }

  async compactedRevision(): Promise<number> {
    this.checkOpen();
    return this.compacted;
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    this.flush();
    if (revision <= this.compacted) return;
    if (revision > this.rev) throw futureRevisionError(this.rev);
    const from = this.compacted;
    // Reads and watches below the new revision fail from here on, before any row goes.
    this.compacted = revision;
    this.guard(() =>
      this.db!.transaction(() => {
        this.stmts.metaSet.run('compacted', revision);
        this.stmts.metaSetMin.run('compact_from', from);
      }).immediate(),
    );
    await this.removeHistory(from, revision);
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): StoreWatch {
    this.checkOpen();
    return this.hub.watch(prefix, afterRevision, handlers);
  }

  /** Deletes rows superseded at or before `to` by rows in (from, to], a chunk at a time. */
  private async removeHistory(from: number, to: number): Promise<void> {
    for (let lo = from; lo < to && this.state === 'open'; lo += COMPACT_CHUNK) {
      const hi = Math.min(lo + COMPACT_CHUNK, to);
      this.flush();
      this.guard(() =>
        this.db!.transaction(() => {
          this.stmts.deleteSuperseded.run(lo, hi);
          this.stmts.deleteTombstones.run(lo, hi);
          if (hi === to) this.stmts.metaDelete.run('compact_from');
        }).immediate(),
      );
      if (hi < to) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private readEvents(prefix: string, after: number, limit: number): EventBatch {
    if (after < this.compacted) throw compactedError(this.compacted);
    const recent = this.recent;
    if (recent.length > 0 && after + 1 >= recent[0].revision) {
      const events: StoreEvent[] = [];
      let i = after + 1 - recent[0].revision;
      for (; i < recent.length && events.length < limit; i++) {
        if (recent[i].kv.key.startsWith(prefix)) events.push(recent[i]);
      }
      return { events, upTo: i >= recent.length ? this.committedRev : recent[i - 1].revision };
    }
    this.checkOpen();
    // Replay from the log table (the rows are committed, so no flush is needed).
    const upper = Math.min(this.committedRev, after + REPLAY_WINDOW);
    const end = prefixEnd(prefix);
    const rows = (
      end === undefined
        ? this.stmts.eventsOpen.all(after, upper, prefix, limit)
        : this.stmts.events.all(after, upper, prefix, end, limit)
    ) as EventRow[];
    const events = rows.map(rowToEvent);
    return { events, upTo: rows.length === limit ? rows[rows.length - 1].revision : upper };
  }

  private liveRow(key: string): Row {
    const row = this.stmts.getCurrent.get(key) as Row | undefined;
    if (!row) throw keyNotFoundError(key);
    return row;
  }

  /** Runs one write inside the open batch transaction; resolves after its COMMIT. */
  private write<T>(op: () => { result: T; event: StoreEvent }): Promise<T> {
    try {
      this.checkOpen();
      if (!this.batch) this.beginBatch();
    } catch (err) {
      return Promise.reject(err);
    }
    const batch = this.batch!;
    let out: { result: T; event: StoreEvent };
    try {
      out = op();
    } catch (err) {
      // Validation errors are thrown before the op touches the database.
      if (err instanceof StoreError || err instanceof TypeError) return Promise.reject(err);
      const failure = unavailableError(`sqlite write failed: ${errorMessage(err)}`);
      this.abortBatch(failure);
      return Promise.reject(failure);
    }
    batch.events.push(out.event);
    batch.keys.add(out.event.kv.key);
    const done = new Promise<T>((resolve, reject) => {
      batch.waiters.push({ resolve: () => resolve(out.result), reject });
    });
    if (batch.waiters.length >= MAX_BATCH) this.flush();
    return done;
  }

  private beginBatch(): void {
    this.guard(() => this.db!.exec('BEGIN IMMEDIATE'));
    const batch: Batch = { startRev: this.rev, events: [], keys: new Set(), waiters: [] };
    this.batch = batch;
    setImmediate(() => {
      if (this.batch === batch) this.flush();
    });
  }

  /** Commits the open batch, if any, and acknowledges its writes. */
  private flush(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    try {
      this.db!.exec('COMMIT');
    } catch (err) {
      this.batch = batch;
      this.abortBatch(unavailableError(`sqlite commit failed: ${errorMessage(err)}`));
      return;
    }
    this.committedRev = this.rev;
    if (batch.events.length > 0) {
      this.recent.push(...batch.events);
      if (this.recent.length > 2 * this.recentMax) {
        this.recent = this.recent.slice(this.recent.length - this.recentMax);
      }
    }
    for (const w of batch.waiters) w.resolve();
    this.hub.advance(this.committedRev);
  }

  private abortBatch(err: StoreError): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    try {
      if (this.db!.inTransaction) this.db!.exec('ROLLBACK');
    } catch {
      // The connection rolls back on its own when ROLLBACK itself fails.
    }
    this.rev = batch.startRev;
    for (const w of batch.waiters) w.reject(err);
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof StoreError) throw err;
      throw unavailableError(`sqlite: ${errorMessage(err)}`);
    }
  }

  private checkOpen(): void {
    if (this.state !== 'open') throw unavailableError(`sqlite store is ${this.state === 'new' ? 'not open' : 'closed'}`);
  }
}

function prepareStatements(db: Database.Database) {
  const p = (sql: string): Stmt => db.prepare(sql);
  const cols = 'l.key, l.revision, l.value, l.create_revision';
  // Latest row per key at a past revision, via the (key, revision) index.
  const atRev = (end: boolean) => `
    SELECT key, MAX(revision) AS r FROM log
    WHERE key >= ? ${end ? 'AND key < ?' : ''} AND revision <= ? GROUP BY key`;
  /** The revision of a log row's key current at the revision bound to `?`. */
  const latestAt = 'SELECT MAX(revision) FROM log WHERE key = l.key AND revision <= ?';
  const eventsSql = (end: boolean) => `
    SELECT l.key, l.revision, l.value, l.create_revision, l.deleted, l.prev_revision,
           p.value AS prev_value, p.create_revision AS prev_create
    FROM log l LEFT JOIN log p ON p.revision = l.prev_revision
    WHERE l.revision > ? AND l.revision <= ? AND +l.key >= ? ${end ? 'AND +l.key < ?' : ''}
    ORDER BY l.revision LIMIT ?`;
  return {
    metaGet: p('SELECT value FROM meta WHERE name = ?'),
    metaSet: p('INSERT INTO meta(name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value'),
    metaSetMin: p(
      'INSERT INTO meta(name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = MIN(value, excluded.value)',
    ),
    metaDelete: p('DELETE FROM meta WHERE name = ?'),
    maxRevision: p('SELECT MAX(revision) FROM log'),
    currentRevision: p('SELECT revision FROM current WHERE key = ?'),
    getCurrent: p(`SELECT ${cols} FROM current c JOIN log l ON l.revision = c.revision WHERE c.key = ?`),
    getAt: p(
      'SELECT key, revision, value, create_revision, deleted FROM log WHERE key = ? AND revision <= ? ORDER BY revision DESC LIMIT 1',
    ),
    insertLog: p(
      'INSERT INTO log(revision, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    upsertCurrent: p(
      'INSERT INTO current(key, revision) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET revision = excluded.revision',
    ),
    deleteCurrent: p('DELETE FROM current WHERE key = ?'),
    rangeCurrent: p(
      `SELECT ${cols} FROM current c JOIN log l ON l.revision = c.revision WHERE c.key >= ? AND c.key < ? ORDER BY c.key LIMIT ?`,
    ),
    rangeCurrentOpen: p(
      `SELECT ${cols} FROM current c JOIN log l ON l.revision = c.revision WHERE c.key >= ? ORDER BY c.key LIMIT ?`,
    ),
    rangeCurrentAll: p(`SELECT ${cols} FROM current c JOIN log l ON l.revision = c.revision WHERE c.key >= ? AND c.key < ? ORDER BY c.key`),
    rangeCurrentOpenAll: p(`SELECT ${cols} FROM current c JOIN log l ON l.revision = c.revision WHERE c.key >= ? ORDER BY c.key`),
    rangeAtAll: p(`SELECT ${cols} FROM (${atRev(true)}) m JOIN log l ON l.revision = m.r WHERE l.deleted = 0 ORDER BY l.key`),
    rangeAtOpenAll: p(`SELECT ${cols} FROM (${atRev(false)}) m JOIN log l ON l.revision = m.r WHERE l.deleted = 0 ORDER BY l.key`),
    countCurrent: p('SELECT COUNT(*) FROM current WHERE key >= ? AND key < ?').pluck(),
    countCurrentOpen: p('SELECT COUNT(*) FROM current WHERE key >= ?').pluck(),
    // a page at a past revision walks log_key_revision in key order and stops at LIMIT (a GROUP BY
    // subquery built and sorted every remaining key per page: 126 ms a page in the middle of 100k
    // pods, most of a cold start's CPU while the controllers' feed paged through the store; now ~4 ms)
    rangeAt: p(`SELECT ${cols} FROM log l WHERE l.key >= ? AND l.key < ? AND l.revision = (${latestAt}) AND l.deleted = 0 ORDER BY l.key LIMIT ?`),
    rangeAtOpen: p(`SELECT ${cols} FROM log l WHERE l.key >= ? AND l.revision = (${latestAt}) AND l.deleted = 0 ORDER BY l.key LIMIT ?`),
    countAt: p(`SELECT COUNT(*) FROM (${atRev(true)}) m JOIN log l ON l.revision = m.r WHERE l.deleted = 0`).pluck(),
    countAtOpen: p(`SELECT COUNT(*) FROM (${atRev(false)}) m JOIN log l ON l.revision = m.r WHERE l.deleted = 0`).pluck(),
    events: p(eventsSql(true)),
    eventsOpen: p(eventsSql(false)),
    deleteSuperseded: p(`
      DELETE FROM log WHERE revision IN (
        SELECT o.revision FROM log n JOIN log o ON o.key = n.key AND o.revision < n.revision
        WHERE n.revision > ? AND n.revision <= ?)`),
    deleteTombstones: p('DELETE FROM log WHERE revision > ? AND revision <= ? AND deleted = 1'),
  };
}

/** Whether a key written in the open batch lies under prefix (the range a read covers). */
function touchesPrefix(keys: Set<string>, prefix: string): boolean {
  for (const k of keys) if (k.startsWith(prefix)) return true;
  return false;
}

function bytesOf(buf: Buffer | null): Uint8Array {
  if (!buf) return new Uint8Array(0);
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

function rowToKv(row: Row): KeyValue {
  return { key: row.key, value: bytesOf(row.value), createRevision: row.create_revision, modRevision: row.revision };
}

function rowToEvent(row: EventRow): StoreEvent {
  const prevKv: KeyValue | undefined =
    row.prev_revision > 0
      ? {
          key: row.key,
          value: bytesOf(row.prev_value),
          createRevision: row.prev_create ?? row.create_revision,
          modRevision: row.prev_revision,
        }
      : undefined;
  if (row.deleted) {
    const kv: KeyValue = { ...prevKv!, modRevision: row.revision, createRevision: row.create_revision };
    return { type: 'delete', kv, prevKv, revision: row.revision };
  }
  return { type: 'put', kv: rowToKv(row), prevKv, revision: row.revision };
}

function copyBytes(value: Uint8Array): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError('store value must be a Uint8Array');
  return new Uint8Array(value);
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
