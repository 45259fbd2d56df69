// Storage entry point: pick a backend by kind, optionally wrapped with a value transformer.
import { EtcdStore } from './etcd.js';
import { MemoryStore } from './memory.js';
import { SqliteStore, type SqliteStoreOptions } from './sqlite.js';
import { TransformingStore } from './transform.js';
import type { RevisionedStore, ValueTransformer } from './types.js';

export * from './types.js';
export { MemoryStore } from './memory.js';
export { SqliteStore, SQLITE_FILE, type SqliteStoreOptions } from './sqlite.js';
export { TransformingStore } from './transform.js';
export { startCompactor, type CompactorOptions } from './compactor.js';
export { EtcdStore, type EtcdStoreOptions } from './etcd.js';
export { compactionTarget, etcdStoreOf, ElectedCompactionStore } from './etcd-compaction.js';
export { compareKeys, prefixEnd } from './keys.js';

export type StoreKind = 'memory' | 'sqlite' | 'etcd';

export interface CreateStoreOptions {
  kind: StoreKind;
  /** Required for sqlite: the database lives in <dataDir>/periscope.db. */
  dataDir?: string;
  sqlite?: SqliteStoreOptions;
  /** Required for etcd: client URLs (http://host:port). */
  etcdServers?: string[];
  /** etcd key prefix standing in for /registry (default /registry, upstream's layout). */
  etcdPrefix?: string;
  /** Log lines from the backend (etcd connection loss and recovery). */
  log?: (line: string) => void;
  /** Values pass through it on write and read (encryption at rest). */
  transformer?: ValueTransformer;
}

/** Builds an unopened store; call open() before use. */
export function createStore(opts: CreateStoreOptions): RevisionedStore {
  const store = createBackend(opts);
  return opts.transformer ? new TransformingStore(store, opts.transformer) : store;
}

function createBackend(opts: CreateStoreOptions): RevisionedStore {
  switch (opts.kind) {
    case 'memory':
      return new MemoryStore();
    case 'sqlite':
      if (!opts.dataDir) throw new Error('createStore: the sqlite store needs dataDir');
      return new SqliteStore(opts.dataDir, opts.sqlite);
    case 'etcd':
      if (!opts.etcdServers || opts.etcdServers.length === 0) throw new Error('createStore: the etcd store needs etcdServers');
      return new EtcdStore({ servers: opts.etcdServers, prefix: opts.etcdPrefix, log: opts.log });
    default:
      throw new Error(`createStore: unknown store kind ${String((opts as { kind: unknown }).kind)}`);
  }
}
