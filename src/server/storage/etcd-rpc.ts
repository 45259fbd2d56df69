// etcd v3 over raw gRPC: etcd's protos (bundled with the etcd3 npm package) loaded at run
// time, unary KV calls with deadlines and endpoint fail-over, and gRPC errors mapped to
// StoreError. The watch stream lives in etcd-watch.ts.
import { createRequire } from 'node:module';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { compactedError, futureRevisionError, unavailableError } from './errors.js';
import { StoreError } from './types.js';

// Wire shapes (proto field names kept; int64 as number, enums as numbers).
export interface PbKeyValue {
  key: Buffer;
  create_revision: number;
  mod_revision: number;
  version: number;
  value: Buffer;
}
export interface PbHeader {
  revision: number;
}
export interface PbRangeRequest {
  key: Uint8Array;
  range_end?: Uint8Array;
  limit?: number;
  revision?: number;
  keys_only?: boolean;
  count_only?: boolean;
}
export interface PbRangeResponse {
  header: PbHeader;
  kvs: PbKeyValue[];
  more: boolean;
  count: number;
}
export interface PbCompare {
  key: Uint8Array;
  target: number;
  result: number;
  version?: number;
  create_revision?: number;
  mod_revision?: number;
}
export type PbRequestOp =
  | { request_range: PbRangeRequest }
  | { request_put: { key: Uint8Array; value: Uint8Array; prev_kv?: boolean } }
  | { request_delete_range: { key: Uint8Array; prev_kv?: boolean } };
export interface PbResponseOp {
  response_range?: PbRangeResponse | null;
  response_put?: { prev_kv?: PbKeyValue | null } | null;
  response_delete_range?: { deleted: number; prev_kvs: PbKeyValue[] } | null;
}
export interface PbTxnRequest {
  compare: PbCompare[];
  success: PbRequestOp[];
  failure: PbRequestOp[];
}
export interface PbTxnResponse {
  header: PbHeader;
  succeeded: boolean;
  responses: PbResponseOp[];
}
export interface PbEvent {
  /** 0 = put, 1 = delete */
  type: number;
  kv: PbKeyValue;
  prev_kv: PbKeyValue | null;
}
export interface PbWatchResponse {
  header: PbHeader | null;
  watch_id: number;
  created: boolean;
  canceled: boolean;
  compact_revision: number;
  cancel_reason: string;
  events: PbEvent[];
}
export type PbWatchRequest =
  | { create_request: { key: Uint8Array; range_end: Uint8Array; start_revision: number; prev_kv: boolean } }
  | { cancel_request: { watch_id: number } };

export const CompareTarget = { Version: 0, Create: 1, Mod: 2 } as const;
export const CompareResult = { Equal: 0, Greater: 1, Less: 2, NotEqual: 3 } as const;
export const EVENT_DELETE = 1;

type ServiceCtor = new (target: string, creds: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => grpc.Client;
let services: { KV: ServiceCtor; Watch: ServiceCtor } | undefined;

function loadServices(): { KV: ServiceCtor; Watch: ServiceCtor } {
  if (services) return services;
  const require = createRequire(import.meta.url);
  const def = protoLoader.loadSync(require.resolve('etcd3/proto/rpc.proto'), {
    keepCase: true,
    longs: Number,
    enums: Number,
    defaults: true,
    oneofs: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { etcdserverpb: { KV: ServiceCtor; Watch: ServiceCtor } };
  services = { KV: pkg.etcdserverpb.KV, Watch: pkg.etcdserverpb.Watch };
  return services;
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // etcd comes back within seconds after a restart: reconnect quickly instead of grpc's 1 s..120 s backoff.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1000,
  // Notice a dead or partitioned etcd on idle connections (etcd allows pings every 5 s).
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
  'grpc.max_send_message_length': 16 * 1024 * 1024,
};

export interface Endpoint {
  url: string;
  kv: grpc.Client;
  watch: grpc.Client;
}

/** Parses http(s)://host:port into a gRPC target; bare host:port is taken as http. */
export function endpointTarget(url: string): { target: string; secure: boolean } {
  const m = /^(https?):\/\/([^/]+)\/?$/.exec(url.trim());
  if (m) return { target: m[2]!, secure: m[1] === 'https' };
  if (/^[^/]+:\d+$/.test(url.trim())) return { target: url.trim(), secure: false };
  throw new Error(`invalid etcd server URL "${url}": expected http://host:port`);
}

export interface CallOptions {
  /** Per-call deadline (default: the client's request timeout). */
  timeoutMs?: number;
}

/**
 * Unary etcd calls over one or more endpoints; a call failing with UNAVAILABLE moves later calls to
 * the next endpoint. Writes are not retried: their outcome is unknown when the connection drops.
 */
export class EtcdClient {
  readonly endpoints: Endpoint[];
  private current = 0;
  private closed = false;

  constructor(
    servers: string[],
    private readonly requestTimeoutMs: number,
  ) {
    if (servers.length === 0) throw new Error('etcd store: no etcd servers given');
    const { KV, Watch } = loadServices();
    this.endpoints = servers.map((url) => {
      const { target, secure } = endpointTarget(url);
      const creds = secure ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
      return { url, kv: new KV(target, creds, CHANNEL_OPTIONS), watch: new Watch(target, creds, CHANNEL_OPTIONS) };
    });
  }

  get endpoint(): Endpoint {
    return this.endpoints[this.current % this.endpoints.length]!;
  }

  /** Moves to the next endpoint (after a connection failure). */
  failover(from: Endpoint): void {
    if (this.endpoint === from && this.endpoints.length > 1) this.current++;
  }

  /** Reads are retried on the next endpoint when one is unreachable. */
  async range(req: PbRangeRequest, opts?: CallOptions): Promise<PbRangeResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.unary<PbRangeResponse>('Range', req, opts);
      } catch (err) {
        if (attempt >= this.endpoints.length || !isConnectionError(err as { code?: number }) || this.closed) throw err;
      }
    }
  }

  txn(req: PbTxnRequest, opts?: CallOptions): Promise<PbTxnResponse> {
    return this.unary('Txn', req, opts);
  }

  compact(revision: number, opts?: CallOptions): Promise<{ header: PbHeader }> {
    return this.unary('Compact', { revision, physical: false }, opts);
  }

  close(): void {
    this.closed = true;
    for (const e of this.endpoints) {
      e.kv.close();
      e.watch.close();
    }
  }

  private unary<T>(method: string, req: object, opts?: CallOptions): Promise<T> {
    if (this.closed) return Promise.reject(unavailableError('etcd store is closed'));
    const ep = this.endpoint;
    const deadline = Date.now() + (opts?.timeoutMs ?? this.requestTimeoutMs);
    return new Promise<T>((resolve, reject) => {
      const fn = (ep.kv as unknown as Record<string, Function>)[method]!;
      fn.call(ep.kv, req, { deadline }, (err: grpc.ServiceError | null, res: T) => {
        if (!err) return resolve(res);
        if (isConnectionError(err)) this.failover(ep);
        reject(err);
      });
    });
  }
}

export function isConnectionError(err: { code?: number }): boolean {
  return err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED || err.code === grpc.status.CANCELLED;
}

export const COMPACTED_MESSAGE = 'required revision has been compacted';
export const FUTURE_MESSAGE = 'required revision is a future revision';

export function grpcMessage(err: unknown): string {
  const e = err as { details?: string; message?: string };
  // grpc-js appends an often empty "Resolution note:" to connection failures.
  return (e.details || e.message || String(err)).replace(/\.?\s*Resolution note:\s*$/, '');
}

/**
 * Maps a failed etcd call to a StoreError. Compacted and FutureRevision need the revision to
 * report, which the caller supplies through the lookups.
 */
export async function toStoreError(
  err: unknown,
  url: string,
  lookups: { compacted: () => Promise<number>; current: () => Promise<number> },
): Promise<StoreError> {
  if (err instanceof StoreError) return err;
  const message = grpcMessage(err);
  if (message.includes(COMPACTED_MESSAGE)) return compactedError(await lookups.compacted().catch(() => 0));
  if (message.includes(FUTURE_MESSAGE)) return futureRevisionError(await lookups.current().catch(() => 0));
  const code = (err as { code?: number }).code;
  const what = code === grpc.status.DEADLINE_EXCEEDED ? 'timed out' : code === grpc.status.UNAVAILABLE ? 'unreachable' : 'failed';
  return unavailableError(`etcd ${url} ${what}: ${message}`);
}

const utf8 = new TextEncoder();

export function keyBytes(key: string): Buffer {
  return Buffer.from(utf8.encode(key));
}

/** The byte-wise end of a prefix range (etcd's "prefix + 1"); \0 (all keys from start) for an empty or all-0xff prefix. */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}
