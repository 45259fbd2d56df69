// JSON Web Tokens for the authentication playground: decoding, building unsigned demo tokens,
// signing with a generated key, and checking a signature against pasted JWKS with WebCrypto.
// Browser-safe (globalThis.crypto, atob/btoa, TextEncoder), so the same code runs in Node tests.

export interface DecodedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** `<header>.<payload>` as sent, the bytes the signature covers. */
  signingInput: string;
  signature: Uint8Array;
}

export class JwtFormatError extends Error {}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function base64UrlEncode(data: Uint8Array | string): string {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function base64UrlDecode(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) throw new JwtFormatError('not base64url');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function jsonPart(part: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(base64UrlDecode(part)));
  } catch {
    throw new JwtFormatError(`the ${what} is not base64url-encoded JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwtFormatError(`the ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** Splits and decodes a compact JWS; throws JwtFormatError with a readable reason. */
export function decodeJwt(token: string): DecodedJwt {
  const parts = token.trim().split('.');
  if (parts.length !== 3) throw new JwtFormatError(`a JWT has 3 dot-separated parts, this has ${parts.length}`);
  const [h, p, s] = parts as [string, string, string];
  const header = jsonPart(h, 'header');
  const claims = jsonPart(p, 'payload');
  let signature: Uint8Array;
  try {
    signature = base64UrlDecode(s);
  } catch {
    throw new JwtFormatError('the signature is not base64url');
  }
  return { header, claims, signingInput: `${h}.${p}`, signature };
}

/** An unsigned demo token (`alg: none`): fine for the playground, never accepted by a server. */
export function buildUnsignedJwt(claims: Record<string, unknown>): string {
  return `${base64UrlEncode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64UrlEncode(JSON.stringify(claims))}.`;
}

export type JwsAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512';

/** The algorithms an OIDC authenticator accepts. */
export const JWS_ALGORITHMS: readonly JwsAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

interface AlgParams {
  kty: 'RSA' | 'EC';
  importParams: RsaHashedImportParams | EcKeyImportParams;
  verifyParams: AlgorithmIdentifier | RsaPssParams | EcdsaParams;
}

function algParams(alg: JwsAlgorithm): AlgParams {
  const bits = alg.slice(2);
  const hash = `SHA-${bits}`;
  switch (alg.slice(0, 2)) {
    case 'RS':
      return { kty: 'RSA', importParams: { name: 'RSASSA-PKCS1-v1_5', hash }, verifyParams: { name: 'RSASSA-PKCS1-v1_5' } };
    case 'PS':
      return { kty: 'RSA', importParams: { name: 'RSA-PSS', hash }, verifyParams: { name: 'RSA-PSS', saltLength: Number(bits) / 8 } };
    default: {
      const namedCurve = bits === '512' ? 'P-521' : `P-${bits}`;
      return { kty: 'EC', importParams: { name: 'ECDSA', namedCurve }, verifyParams: { name: 'ECDSA', hash } };
    }
  }
}

function isJwsAlgorithm(v: unknown): v is JwsAlgorithm {
  return typeof v === 'string' && (JWS_ALGORITHMS as readonly string[]).includes(v);
}

export interface SigningKey {
  alg: JwsAlgorithm;
  kid: string;
  privateKey: CryptoKey;
  /** The public half as a JWK with kid, alg and use set, ready to put in a JWKS. */
  publicJwk: JsonWebKey & { kid: string; alg: string; use: 'sig' };
}

/** A fresh key pair for signing demo tokens (RS*, PS* or ES*). */
export async function generateSigningKey(alg: JwsAlgorithm = 'RS256', kid = 'playground'): Promise<SigningKey> {
  const p = algParams(alg);
  const params =
    p.kty === 'RSA'
      ? { ...(p.importParams as RsaHashedImportParams), modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }
      : (p.importParams as EcKeyImportParams);
  const pair = (await crypto.subtle.generateKey(params, true, ['sign', 'verify'])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);
  delete jwk.key_ops;
  delete jwk.ext;
  return { alg, kid, privateKey: pair.privateKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}

export async function signJwt(claims: Record<string, unknown>, key: SigningKey): Promise<string> {
  const header = { alg: key.alg, typ: 'JWT', kid: key.kid };
  const input = `${base64UrlEncode(JSON.stringify(header))}.${base64UrlEncode(JSON.stringify(claims))}`;
  const sig = await crypto.subtle.sign(algParams(key.alg).verifyParams, key.privateKey, encoder.encode(input));
  return `${input}.${base64UrlEncode(new Uint8Array(sig))}`;
}

export type SignatureCheck =
  | { status: 'skipped'; detail: string }
  | { status: 'verified'; detail: string; kid?: string; alg: JwsAlgorithm }
  | { status: 'invalid'; detail: string };

function parseJwks(jwks: unknown): JsonWebKey[] | string {
  let value = jwks;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return 'the JWKS is not valid JSON';
    }
  }
  if (typeof value !== 'object' || value === null) return 'the JWKS must be a JSON object with a "keys" list';
  if (!Array.isArray(value) && 'kty' in value) return [value as JsonWebKey]; // a single JWK
  const keys = Array.isArray(value) ? value : (value as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) return 'the JWKS must be a JSON object with a "keys" list';
  return keys.filter((k): k is JsonWebKey => typeof k === 'object' && k !== null);
}

/**
 * Verifies the token's signature with the keys of a JWKS (a `{"keys": [...]}` document or its JSON
 * text). Skipped when no JWKS is given: the playground never pretends an unchecked token is signed.
 */
export async function verifyJwtSignature(token: DecodedJwt, jwks: unknown): Promise<SignatureCheck> {
  if (jwks === undefined || jwks === null || (typeof jwks === 'string' && jwks.trim() === '')) {
    return { status: 'skipped', detail: 'no JWKS given: the signature was not checked (the server checks it with the keys from OIDC discovery)' };
  }
  const keys = parseJwks(jwks);
  if (typeof keys === 'string') return { status: 'invalid', detail: keys };
  const alg = token.header.alg;
  if (alg === 'none') return { status: 'invalid', detail: 'the token is unsigned (alg "none"), which is never accepted' };
  if (!isJwsAlgorithm(alg)) return { status: 'invalid', detail: `unsupported signing algorithm ${JSON.stringify(alg)}; supported: ${JWS_ALGORITHMS.join(', ')}` };
  const p = algParams(alg);
  const kid = typeof token.header.kid === 'string' ? token.header.kid : undefined;
  const candidates = keys.filter((k) => k.kty === p.kty && (k.alg === undefined || k.alg === alg) && (kid === undefined || (k as { kid?: string }).kid === kid));
  if (candidates.length === 0) {
    return { status: 'invalid', detail: kid ? `no ${p.kty} key with kid "${kid}" for ${alg} in the JWKS` : `no ${p.kty} key for ${alg} in the JWKS` };
  }
  const data = encoder.encode(token.signingInput);
  for (const jwk of candidates) {
    let key: CryptoKey;
    try {
      const { key_ops: _ops, use: _use, ...pub } = jwk as JsonWebKey & { use?: string };
      key = await crypto.subtle.importKey('jwk', { ...pub, ext: true }, p.importParams, false, ['verify']);
    } catch {
      continue;
    }
    if (await crypto.subtle.verify(p.verifyParams, key, token.signature as BufferSource, data)) {
      const keyId = (jwk as { kid?: string }).kid;
      return { status: 'verified', detail: `signature verified with ${keyId ? `key "${keyId}"` : 'a key'} (${alg})`, kid: keyId, alg };
    }
  }
  return { status: 'invalid', detail: `the signature does not verify with ${candidates.length === 1 ? 'the matching key' : `any of the ${candidates.length} matching keys`}` };
}
