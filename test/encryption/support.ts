// Shared bits of the encryption-at-rest tests: configuration files, a server per backend, and
// the raw stored bytes (read under the transformer, straight from memory, SQLite or etcd).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startServer, type ApiServer } from '../../src/server/app.js';
import type { ServerFlags } from '../../src/server/flags.js';
import { TransformingStore } from '../../src/server/storage/transform.js';
import type { RevisionedStore } from '../../src/server/storage/types.js';
import { startEtcd, type EtcdProcess } from '../etcd/etcd-process.js';
import { client } from '../helpers/server.js';

export type Backend = 'memory' | 'sqlite' | 'etcd';
export const BACKENDS: Backend[] = ['memory', 'sqlite', 'etcd'];

export const key32 = () => randomBytes(32).toString('base64');

export type Provider = Record<string, unknown>;
export const aescbc = (...keys: [string, string][]): Provider => ({ aescbc: { keys: keys.map(([name, secret]) => ({ name, secret })) } });
export const aesgcm = (...keys: [string, string][]): Provider => ({ aesgcm: { keys: keys.map(([name, secret]) => ({ name, secret })) } });
export const secretbox = (...keys: [string, string][]): Provider => ({ secretbox: { keys: keys.map(([name, secret]) => ({ name, secret })) } });
export const identity: Provider = { identity: {} };
export const kms = (name: string, endpoint: string): Provider => ({ kms: { apiVersion: 'v2', name, endpoint, timeout: '2s' } });

export function encryptionConfig(entries: { resources: string[]; providers: Provider[] }[]): string {
  return stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: entries });
}

export interface Harness {
  server: ApiServer;
  api: ReturnType<typeof client>;
  dir: string;
  configFile: string;
  /** Server log lines so far. */
  logs: string[];
  /** The raw store under the transformer. */
  raw(): RevisionedStore;
  /** Stored bytes of a key as text (latin1, so binary survives). */
  rawText(key: string): Promise<string | undefined>;
  writeConfig(text: string): void;
  /** Stops and starts the server on the same data (sqlite, etcd). */
  restart(flags?: Partial<ServerFlags>): Promise<void>;
  close(): Promise<void>;
}

let etcd: EtcdProcess | undefined;
let etcdUsers = 0;

export async function harness(backend: Backend, config: string, flags: Partial<ServerFlags> = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-enc-'));
  const configFile = join(dir, 'encryption.yaml');
  writeFileSync(configFile, config);
  if (backend === 'etcd') {
    etcdUsers++;
    etcd ??= await startEtcd();
  }
  const etcdPrefix = `/t-${randomBytes(4).toString('hex')}/registry`;
  const base: Partial<ServerFlags> = {
    port: 0,
    store: backend,
    dataDir: dir,
    etcdServers: etcd && backend === 'etcd' ? [etcd.url] : [],
    etcdPrefix,
    demoData: false,
    requestLog: false,
    staticDir: '',
    compactionIntervalMs: 0,
    encryptionProviderConfig: configFile,
    ...flags,
  };
  const logs: string[] = [];
  const log = (line: string) => void logs.push(line);
  const h: Harness = {
    logs,
    server: await startServer(base, { log }),
    api: undefined as never,
    dir,
    configFile,
    raw: () => (h.server.store as TransformingStore).inner,
    async rawText(key) {
      const got = await h.raw().get(key);
      return got.kv && Buffer.from(got.kv.value).toString('latin1');
    },
    writeConfig: (text) => writeFileSync(configFile, text),
    async restart(more = {}) {
      await h.server.close();
      h.server = await startServer({ ...base, ...more }, { log });
      h.api = client(h.server.url);
    },
    async close() {
      await h.server.close();
      rmSync(dir, { recursive: true, force: true });
      if (backend === 'etcd' && --etcdUsers === 0) {
        await etcd?.cleanup();
        etcd = undefined;
      }
    },
  };
  h.api = client(h.server.url);
  return h;
}

export const ns = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
export const secret = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { password: value } });
export const configMap = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } });

/** Retries until check stops throwing. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
