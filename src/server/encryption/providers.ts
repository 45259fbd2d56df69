// Encryption-at-rest providers (k8s.io/apiserver/pkg/storage/value/encrypt): each writes
// `<prefix><payload>` and reads back the payload after its own prefix.
//   aescbc    k8s:enc:aescbc:v1:<key>:    16-byte random IV ‖ AES-256-CBC with PKCS#7 padding (no AAD)
//   aesgcm    k8s:enc:aesgcm:v1:<key>:    12-byte random nonce ‖ AES-GCM ciphertext ‖ 16-byte tag; AAD = storage key
//   secretbox k8s:enc:secretbox:v1:<key>: 24-byte random nonce ‖ XSalsa20-Poly1305 box
//   identity  (no prefix)                 plain bytes; refuses values that carry an encryption prefix
// AES is Node's crypto; secretbox is @noble/ciphers. No cipher is written here.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { ENCRYPTED_PREFIX, encryptionPrefix } from '../../config/encryption-prefix.js';

export { ENCRYPTED_PREFIX };

export type ProviderKind = 'aescbc' | 'aesgcm' | 'secretbox' | 'identity' | 'kms';

/** One way of writing and reading values: a provider with one key (upstream's prefix transformer). */
export interface PrefixTransformer {
  readonly kind: ProviderKind;
  /** Prefix written before the payload; '' for identity. */
  readonly prefix: string;
  /** Stored bytes (prefix included) for a plain value at key. */
  encrypt(key: string, plain: Uint8Array): Promise<Uint8Array> | Uint8Array;
  /** Plain value from the payload (the bytes after the prefix); throws when it cannot. */
  decrypt(key: string, payload: Uint8Array): Promise<DecryptResult> | DecryptResult;
}

export interface DecryptResult {
  value: Uint8Array;
  /** Readable, but written under an older key: the next write should re-encrypt it (KMS key-id change). */
  stale?: boolean;
}

const textEncoder = new TextEncoder();

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** Decoded key bytes of a config `secret` (base64; lengths are checked by the validator). */
export function keyBytes(secret: string): Buffer {
  return Buffer.from(secret, 'base64');
}

function withPrefix(prefix: string, payload: Uint8Array): Uint8Array {
  return concatBytes(textEncoder.encode(prefix), payload);
}

const AES_BLOCK = 16;
const GCM_NONCE = 12;
const GCM_TAG = 16;

export function aescbc(name: string, key: Buffer): PrefixTransformer {
  const prefix = encryptionPrefix('aescbc', name);
  return {
    kind: 'aescbc',
    prefix,
    encrypt(_key, plain) {
      const iv = randomBytes(AES_BLOCK);
      const c = createCipheriv('aes-256-cbc', key, iv); // PKCS#7 padding is Node's default
      return withPrefix(prefix, Buffer.concat([iv, c.update(plain), c.final()]));
    },
    decrypt(_key, payload) {
      if (payload.length < 2 * AES_BLOCK || payload.length % AES_BLOCK !== 0) throw new Error('the stored data is not a multiple of the AES block size');
      const d = createDecipheriv('aes-256-cbc', key, payload.subarray(0, AES_BLOCK));
      return { value: new Uint8Array(Buffer.concat([d.update(payload.subarray(AES_BLOCK)), d.final()])) };
    },
  };
}

/** AES-GCM sealing with a random nonce; the storage key is the additional authenticated data (upstream). */
export function gcmSeal(key: Buffer, aad: string, plain: Uint8Array): Buffer {
  const nonce = randomBytes(GCM_NONCE);
  const c = createCipheriv(gcmAlgorithm(key), key, nonce);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([nonce, body, c.getAuthTag()]);
}

export function gcmOpen(key: Buffer, aad: string, sealed: Uint8Array): Uint8Array {
  if (sealed.length < GCM_NONCE + GCM_TAG) throw new Error('the stored data was shorter than the required size');
  const d = createDecipheriv(gcmAlgorithm(key), key, sealed.subarray(0, GCM_NONCE));
  d.setAAD(Buffer.from(aad, 'utf8'));
  d.setAuthTag(sealed.subarray(sealed.length - GCM_TAG));
  return new Uint8Array(Buffer.concat([d.update(sealed.subarray(GCM_NONCE, sealed.length - GCM_TAG)), d.final()]));
}

function gcmAlgorithm(key: Buffer): 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm' {
  if (key.length === 16) return 'aes-128-gcm';
  if (key.length === 24) return 'aes-192-gcm';
  if (key.length === 32) return 'aes-256-gcm';
  throw new Error(`invalid AES key size ${key.length}`);
}

// Upstream's guidance: a random 96-bit nonce stays safe for about 2^32 writes per key,
// so aesgcm keys must be rotated well before that (see README, "Encryption at rest").
export function aesgcm(name: string, key: Buffer): PrefixTransformer {
  const prefix = encryptionPrefix('aesgcm', name);
  return {
    kind: 'aesgcm',
    prefix,
    encrypt: (storageKey, plain) => withPrefix(prefix, gcmSeal(key, storageKey, plain)),
    decrypt: (storageKey, payload) => ({ value: gcmOpen(key, storageKey, payload) }),
  };
}

const SECRETBOX_NONCE = 24;

export function secretbox(name: string, key: Buffer): PrefixTransformer {
  const prefix = encryptionPrefix('secretbox', name);
  const k = new Uint8Array(key);
  return {
    kind: 'secretbox',
    prefix,
    encrypt(_key, plain) {
      const nonce = new Uint8Array(randomBytes(SECRETBOX_NONCE));
      return withPrefix(prefix, concatBytes(nonce, xsalsa20poly1305(k, nonce).encrypt(plain)));
    },
    decrypt(_key, payload) {
      if (payload.length < SECRETBOX_NONCE + 16) throw new Error('the stored data was shorter than the required size');
      const nonce = payload.subarray(0, SECRETBOX_NONCE);
      return { value: xsalsa20poly1305(k, nonce).decrypt(payload.subarray(SECRETBOX_NONCE)) };
    },
  };
}

const ENCRYPTED_PREFIX_BYTES = textEncoder.encode(ENCRYPTED_PREFIX);

export function hasPrefix(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

export const identity: PrefixTransformer = {
  kind: 'identity',
  prefix: '',
  encrypt: (_key, plain) => plain,
  decrypt(_key, payload) {
    // upstream: identity refuses encrypted data so a later provider of the list can read it
    if (hasPrefix(payload, ENCRYPTED_PREFIX_BYTES)) throw new Error('identity transformer tried to read encrypted data');
    return { value: payload };
  },
};
