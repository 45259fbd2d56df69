// KMS v2 envelope encryption (k8s.io/apiserver/pkg/storage/value/encrypt/envelope/kmsv2):
// the plugin (gRPC over a unix socket) encrypts a random 32-byte seed once; every write derives a
// fresh AES-256-GCM key from that seed with HKDF-SHA256 and a random 32-byte info (upstream's
// HKDF_SHA256_XNONCE_AES_GCM_SEED), so the plugin is not called per write.
// Stored: `k8s:enc:kms:v2:<name>:` + EncryptedObject{ encryptedData = info ‖ nonce ‖ ct ‖ tag,
// keyID, encryptedDEKSource, annotations, encryptedDEKSourceType }.
// - Status is polled (1m while healthy, 10s while not, as upstream); a new key_id from Status
//   makes the next write use a new seed encrypted under the new key.
// - Writes need a healthy, recently checked plugin; otherwise they fail (503) and nothing is written.
// - Reads decrypt the seed through the plugin once and cache it (by encrypted seed, 1h as upstream),
//   so cached seeds keep reading while the plugin is down.
import { createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { StoreError } from '../storage/types.js';
import { kmsCodecs, KMS_SERVICE, DEK_SOURCE_AES_GCM_KEY, DEK_SOURCE_HKDF_SEED, type Codec, type EncryptedObject, type StatusResponse } from './kms-proto.js';
import { encryptionPrefix } from '../../config/encryption-prefix.js';
import { concatBytes, gcmOpen, gcmSeal, type DecryptResult, type PrefixTransformer } from './providers.js';

const SEED_BYTES = 32;
const INFO_BYTES = 32;
/** upstream kmsv2 cacheTTL (a day) */
const DEK_CACHE_TTL_MS = 24 * 60 * 60 * 1000;
/** upstream kmsv2 limits on what the plugin returns and what is stored */
const KEY_ID_MAX_BYTES = 1024;
const DEK_SOURCE_MAX_BYTES = 1024;
const ANNOTATIONS_MAX_BYTES = 32 * 1024;
const DEK_CACHE_MAX = 1000;
/** upstream: healthz is polled every minute while healthy and every 10s while not. */
const POLL_HEALTHY_MS = 60_000;
const POLL_UNHEALTHY_MS = 10_000;
/** upstream kmsv2PluginWriteDEKSourceMaxTTL: a write seed is trusted this long after the last good Status. */
const WRITE_STATE_MAX_AGE_MS = 3 * 60_000;

export interface KmsV2Options {
  name: string;
  /** unix:///path or unix:/path */
  endpoint: string;
  timeoutMs: number;
}

interface WriteState {
  seed: Buffer;
  encryptedSeed: Uint8Array;
  keyID: string;
  annotations: Record<string, Uint8Array>;
  checkedAt: number;
}

/** A gRPC client of one plugin. */
class KmsClient {
  private readonly client: grpc.Client;
  constructor(
    endpoint: string,
    private readonly timeoutMs: number,
  ) {
    const path = endpoint.replace(/^unix:(\/\/)?/, '');
    this.client = new grpc.Client(`unix:${path}`, grpc.credentials.createInsecure());
  }

  call<Req, Res>(method: string, reqCodec: Codec<Req>, resCodec: Codec<Res>, req: Partial<Req>): Promise<Res> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        `${KMS_SERVICE}/${method}`,
        (v: Partial<Req>) => reqCodec.encode(v),
        (b: Buffer) => resCodec.decode(b),
        req,
        new grpc.Metadata(),
        { deadline: Date.now() + this.timeoutMs },
        (err, res) => (err || !res ? reject(err ?? new Error('empty response')) : resolve(res)),
      );
    });
  }

  close(): void {
    this.client.close();
  }
}

export class KmsV2Provider implements PrefixTransformer {
  readonly kind = 'kms' as const;
  readonly prefix: string;
  private readonly client: KmsClient;
  private state?: WriteState;
  private refreshing?: Promise<WriteState>;
  private readonly seeds = new Map<string, { seed: Buffer; at: number }>();
  private lastKeyID = '';
  private lastError?: string;
  private healthy = false;
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(readonly opts: KmsV2Options) {
    this.prefix = encryptionPrefix('kms', opts.name);
    this.client = new KmsClient(opts.endpoint, opts.timeoutMs);
  }

  get name(): string {
    return this.opts.name;
  }

  /** Starts the Status poll (the first check runs now). */
  start(): void {
    const tick = async () => {
      await this.check().catch(() => undefined);
      if (!this.closed) this.timer = setTimeout(tick, this.healthy ? POLL_HEALTHY_MS : POLL_UNHEALTHY_MS).unref();
    };
    void tick();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.client.close();
  }

  /**
   * One Status call (the health check): the plugin must answer version v2, healthz "ok" and a key_id.
   * A changed key_id retires the write seed. Throws with upstream-like text when unhealthy.
   */
  async check(): Promise<void> {
    let res: StatusResponse;
    try {
      res = await this.client.call('Status', kmsCodecs.StatusRequest, kmsCodecs.StatusResponse, {});
    } catch (e) {
      throw this.fail(`failed to perform status section of the healthz check for KMS Provider ${this.name}, error: ${grpcMessage(e)}`);
    }
    if (res.version !== 'v2' && res.version !== 'v2beta1') throw this.fail(`got unexpected KMS plugin version ${JSON.stringify(res.version)}, expected v2`);
    if (res.healthz !== 'ok') throw this.fail(`got unexpected healthz status: ${res.healthz}`);
    if (res.key_id === '') throw this.fail('got an empty key ID from the KMS plugin');
    if (Buffer.byteLength(res.key_id, 'utf8') > KEY_ID_MAX_BYTES) throw this.fail(`keyID is ${Buffer.byteLength(res.key_id, 'utf8')} bytes, which exceeds the max size of ${KEY_ID_MAX_BYTES}`);
    this.healthy = true;
    this.lastError = undefined;
    if (this.state && this.state.keyID !== res.key_id) this.state = undefined; // key rotated: next write takes a new seed
    else if (this.state) this.state.checkedAt = Date.now();
    this.lastKeyID = res.key_id;
  }

  private fail(message: string): Error {
    this.healthy = false;
    this.lastError = message;
    this.state = undefined; // no writes until the plugin answers again
    return new Error(message);
  }

  /** The key id of the current write seed, or the last one Status reported. */
  get keyID(): string {
    return this.state?.keyID ?? this.lastKeyID;
  }

  get lastHealthError(): string | undefined {
    return this.lastError;
  }

  private async writeState(): Promise<WriteState> {
    const s = this.state;
    if (s && Date.now() - s.checkedAt < WRITE_STATE_MAX_AGE_MS) return s;
    this.refreshing ??= this.newState().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async newState(): Promise<WriteState> {
    await this.check();
    // same key id as before: the seed stays in use, trusted for another period (upstream)
    if (this.state) return this.state;
    const seed = randomBytes(SEED_BYTES);
    let res;
    try {
      res = await this.client.call('Encrypt', kmsCodecs.EncryptRequest, kmsCodecs.EncryptResponse, { plaintext: seed, uid: randomUUID() });
    } catch (e) {
      throw this.fail(`failed to encrypt DEK, error: ${grpcMessage(e)}`);
    }
    const invalid = validateEncryptedObject({ encryptedData: new Uint8Array(1), keyID: res.key_id, encryptedDEKSource: res.ciphertext, annotations: res.annotations ?? {}, encryptedDEKSourceType: DEK_SOURCE_HKDF_SEED });
    if (invalid) throw this.fail(`failed to encrypt DEK: ${invalid}`);
    const state: WriteState = { seed, encryptedSeed: res.ciphertext, keyID: res.key_id, annotations: res.annotations ?? {}, checkedAt: Date.now() };
    this.rememberSeed(cacheKey(DEK_SOURCE_HKDF_SEED, res.ciphertext, res.key_id, state.annotations), seed);
    this.state = state;
    return state;
  }

  async encrypt(key: string, plain: Uint8Array): Promise<Uint8Array> {
    let s: WriteState;
    try {
      s = await this.writeState();
    } catch (e) {
      throw new StoreError('Unavailable', `KMS provider ${this.name} cannot encrypt: ${(e as Error).message}`);
    }
    const info = randomBytes(INFO_BYTES);
    const data = concatBytes(info, gcmSeal(deriveKey(s.seed, info), key, plain));
    const obj = kmsCodecs.EncryptedObject.encode({
      encryptedData: data,
      keyID: s.keyID,
      encryptedDEKSource: s.encryptedSeed,
      annotations: s.annotations,
      encryptedDEKSourceType: DEK_SOURCE_HKDF_SEED,
    });
    return concatBytes(new TextEncoder().encode(this.prefix), obj);
  }

  async decrypt(key: string, payload: Uint8Array): Promise<DecryptResult> {
    const obj = kmsCodecs.EncryptedObject.decode(payload);
    const invalid = validateEncryptedObject(obj);
    if (invalid) throw new Error(invalid);
    const source = await this.dekSource(obj);
    let value: Uint8Array;
    if (obj.encryptedDEKSourceType === DEK_SOURCE_HKDF_SEED) {
      if (obj.encryptedData.length < INFO_BYTES) throw new Error('encrypted data is too short');
      const info = obj.encryptedData.subarray(0, INFO_BYTES);
      value = gcmOpen(deriveKey(source, info), key, obj.encryptedData.subarray(INFO_BYTES));
    } else if (obj.encryptedDEKSourceType === DEK_SOURCE_AES_GCM_KEY) {
      value = gcmOpen(source, key, obj.encryptedData); // a plain DEK per object (older upstream writers)
    } else {
      throw new Error(`unknown encryptedDEKSourceType ${obj.encryptedDEKSourceType}`);
    }
    // data written under another KMS key (or DEK source type) is stale: a rewrite moves it to the current key
    const current = this.keyID;
    return { value, stale: (current !== '' && current !== obj.keyID) || obj.encryptedDEKSourceType !== DEK_SOURCE_HKDF_SEED };
  }

  private async dekSource(obj: EncryptedObject): Promise<Buffer> {
    const { encryptedDEKSource: encrypted, keyID, annotations } = obj;
    const id = cacheKey(obj.encryptedDEKSourceType, encrypted, keyID, annotations);
    const hit = this.seeds.get(id);
    if (hit && Date.now() - hit.at < DEK_CACHE_TTL_MS) return hit.seed;
    let res;
    try {
      res = await this.client.call('Decrypt', kmsCodecs.DecryptRequest, kmsCodecs.DecryptResponse, { ciphertext: encrypted, key_id: keyID, annotations, uid: randomUUID() });
    } catch (e) {
      // an unreachable plugin is an outage (503), not a corrupt object: nothing may be force-deleted for it
      const code = (e as { code?: number }).code;
      if (code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED) {
        throw new StoreError('Unavailable', `KMS provider ${this.name} cannot decrypt: failed to decrypt DEK, error: ${grpcMessage(e)}`);
      }
      throw new Error(`failed to decrypt DEK, error: ${grpcMessage(e)}`);
    }
    const seed = Buffer.from(res.plaintext);
    this.rememberSeed(id, seed);
    return seed;
  }

  private rememberSeed(id: string, seed: Buffer): void {
    this.seeds.delete(id);
    this.seeds.set(id, { seed, at: Date.now() });
    if (this.seeds.size > DEK_CACHE_MAX) this.seeds.delete(this.seeds.keys().next().value!);
  }
}

/** The seed cache key: everything the plugin needs to decrypt (type, encrypted source, key id, annotations), hashed. */
function cacheKey(type: number, source: Uint8Array, keyID: string, annotations: Record<string, Uint8Array>): string {
  const h = createHash('sha256');
  const part = (b: Uint8Array | string) => {
    const bytes = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
    const len = Buffer.alloc(4);
    len.writeUInt32BE(bytes.length);
    h.update(len).update(bytes);
  };
  part(String(type));
  part(source);
  part(keyID);
  for (const k of Object.keys(annotations).sort()) {
    part(k);
    part(annotations[k]!);
  }
  return h.digest('base64');
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** upstream ValidateEncryptedObject: the error text, or undefined when valid. */
export function validateEncryptedObject(o: EncryptedObject): string | undefined {
  if (o.encryptedDEKSourceType !== DEK_SOURCE_AES_GCM_KEY && o.encryptedDEKSourceType !== DEK_SOURCE_HKDF_SEED) return `unknown encryptedDEKSourceType: ${o.encryptedDEKSourceType}`;
  if (o.encryptedData.length === 0) return 'encrypted data is empty';
  if (o.encryptedDEKSource.length === 0) return 'failed to validate encrypted DEK source: encrypted DEK source is empty';
  if (o.encryptedDEKSource.length > DEK_SOURCE_MAX_BYTES)
    return `failed to validate encrypted DEK source: encrypted DEK source is ${o.encryptedDEKSource.length} bytes, which exceeds the max size of ${DEK_SOURCE_MAX_BYTES}`;
  const keyIDBytes = Buffer.byteLength(o.keyID, 'utf8');
  if (keyIDBytes === 0) return 'failed to validate key id: keyID is empty';
  if (keyIDBytes > KEY_ID_MAX_BYTES) return `failed to validate key id: keyID is ${keyIDBytes} bytes, which exceeds the max size of ${KEY_ID_MAX_BYTES}`;
  let total = 0;
  for (const [k, v] of Object.entries(o.annotations ?? {})) {
    // a fully qualified domain name: at least two DNS labels, at most 253 characters
    const labels = k.split('.');
    if (k.length > 253 || labels.length < 2 || !labels.every((l) => l.length <= 63 && DNS_LABEL.test(l))) {
      return `failed to validate annotations: annotations: Invalid value: "${k}": should be a domain with at least two segments separated by dots`;
    }
    total += Buffer.byteLength(k, 'utf8') + v.length;
  }
  if (total > ANNOTATIONS_MAX_BYTES) return `failed to validate annotations: total size of annotations is ${total}, which exceeds the max size of ${ANNOTATIONS_MAX_BYTES}`;
  return undefined;
}

function deriveKey(seed: Buffer, info: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', seed, Buffer.alloc(0), info, 32));
}

function grpcMessage(e: unknown): string {
  const err = e as { code?: number; details?: string; message?: string };
  if (err.code === grpc.status.DEADLINE_EXCEEDED) return 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';
  if (err.code === grpc.status.UNAVAILABLE) return `rpc error: code = Unavailable desc = ${err.details ?? err.message}`;
  return err.details ?? err.message ?? String(e);
}
