// Service account tokens (upstream pkg/serviceaccount): TokenRequest issues JWTs signed with the
// service-account signing key; a presented token is verified (signature, iss, aud, exp/nbf/iat with
// a 60s leeway) and is valid only while its service account (and bound pod/secret) still exists with
// the same uid.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as jose from 'jose';
import { CREDENTIAL_ID_KEY, type UserInfo } from './user.js';
import { TokenError } from './jwt.js';

/** jwt.DefaultLeeway used by upstream's service account claim validation. */
const LEEWAY_SECONDS = 60;
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const SA_PREFIX = 'system:serviceaccount:';
export const SA_GROUP = 'system:serviceaccounts';
/** The key kept in the data directory when no --service-account-signing-key-file is given. */
export const GENERATED_KEY_FILE = 'service-account.key';

export interface ServiceAccountRef {
  namespace: string;
  name: string;
  uid: string;
}

export interface BoundObject {
  kind: 'Pod' | 'Secret';
  name: string;
  uid: string;
}

/** What a verified token refers to; the caller checks these objects still exist. */
export interface ServiceAccountClaims {
  serviceAccount: ServiceAccountRef;
  bound?: BoundObject;
  jti?: string;
  audiences: string[];
}

function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    return curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : 'ES256';
  }
  throw new Error(`unsupported service account key type ${key.asymmetricKeyType}`);
}

/** Every PEM block of a key file as a public key (private keys give their public half). */
function publicKeysOf(pem: string, file: string): KeyObject[] {
  const blocks = pem.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`no PEM key found in ${file}`);
  return blocks.map((b) => createPublicKey(b));
}

export interface ServiceAccountKeyOptions {
  issuer?: string;
  signingKeyFile?: string;
  keyFiles?: string[];
  /** Where a generated key is kept; undefined keeps it in memory only (memory store). */
  dataDir?: string;
  /** --api-audiences; defaults to the issuer. */
  apiAudiences?: string[];
}

export class ServiceAccountTokens {
  readonly issuer: string;
  readonly apiAudiences: string[];
  private readonly signingKey: KeyObject;
  private readonly alg: string;
  private readonly verifyKeys: KeyObject[];

  constructor(opts: ServiceAccountKeyOptions) {
    this.issuer = opts.issuer || DEFAULT_SERVICE_ACCOUNT_ISSUER;
    this.apiAudiences = opts.apiAudiences?.length ? opts.apiAudiences : [this.issuer];
    this.signingKey = loadSigningKey(opts);
    this.alg = algorithmOf(this.signingKey);
    this.verifyKeys = [createPublicKey(this.signingKey), ...(opts.keyFiles ?? []).flatMap((f) => publicKeysOf(readFileSync(f, 'utf8'), f))];
  }

  async issue(sa: ServiceAccountRef, audiences: string[], expirationSeconds: number, bound?: BoundObject): Promise<{ token: string; expires: Date }> {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + expirationSeconds;
    const k8s: Record<string, unknown> = { namespace: sa.namespace, serviceaccount: { name: sa.name, uid: sa.uid } };
    if (bound) k8s[bound.kind === 'Pod' ? 'pod' : 'secret'] = { name: bound.name, uid: bound.uid };
    const token = await new jose.SignJWT({ 'kubernetes.io': k8s })
      .setProtectedHeader({ alg: this.alg, kid: await keyId(this.signingKey) })
      .setIssuer(this.issuer)
      .setSubject(`${SA_PREFIX}${sa.namespace}:${sa.name}`)
      .setAudience(audiences)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.signingKey);
    return { token, expires: new Date(exp * 1000) };
  }

  /** Signature, issuer, times and audiences of a token this issuer signed; throws TokenError. */
  async verify(token: string, audiences: string[] = this.apiAudiences): Promise<ServiceAccountClaims> {
    let payload: jose.JWTPayload | undefined;
    let lastError: unknown;
    for (const key of this.verifyKeys) {
      try {
        payload = (await jose.jwtVerify(token, key, { issuer: this.issuer, clockTolerance: LEEWAY_SECONDS })).payload;
        break;
      } catch (e) {
        lastError = e;
        const code = (e as { code?: string }).code;
        if (code !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' && code !== 'ERR_JOSE_ALG_NOT_ALLOWED' && code !== 'ERR_JOSE_NOT_SUPPORTED') break;
      }
    }
    if (!payload) {
      const code = (lastError as { code?: string }).code;
      throw new TokenError(code === 'ERR_JWT_EXPIRED' ? 'service account token has expired' : `invalid service account token: ${(lastError as Error).message}`);
    }
    const now = Date.now() / 1000;
    if (typeof payload.exp !== 'number') throw new TokenError('service account token has no expiry');
    if (typeof payload.iat === 'number' && payload.iat > now + LEEWAY_SECONDS) throw new TokenError('service account token is issued in the future');
    const aud = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const matched = aud.filter((a) => audiences.includes(a));
    if (matched.length === 0) throw new TokenError('token audiences is invalid for the target audiences');
    const k8s = payload['kubernetes.io'] as Record<string, any> | undefined;
    const sa = k8s?.serviceaccount;
    if (!k8s || typeof k8s.namespace !== 'string' || typeof sa?.name !== 'string' || typeof sa?.uid !== 'string') throw new TokenError('service account token claims are missing');
    if (payload.sub !== `${SA_PREFIX}${k8s.namespace}:${sa.name}`) throw new TokenError('service account token subject does not match its claims');
    const ref = (kind: 'Pod' | 'Secret', v: any): BoundObject | undefined => (v && typeof v.name === 'string' ? { kind, name: v.name, uid: String(v.uid ?? '') } : undefined);
    return {
      serviceAccount: { namespace: k8s.namespace, name: sa.name, uid: sa.uid },
      bound: ref('Pod', k8s.pod) ?? ref('Secret', k8s.secret),
      jti: typeof payload.jti === 'string' ? payload.jti : undefined,
      audiences: matched,
    };
  }
}

export function serviceAccountUser(c: ServiceAccountClaims): UserInfo {
  const { namespace, name, uid } = c.serviceAccount;
  const extra: Record<string, string[]> = {};
  if (c.bound?.kind === 'Pod') {
    extra['authentication.kubernetes.io/pod-name'] = [c.bound.name];
    extra['authentication.kubernetes.io/pod-uid'] = [c.bound.uid];
  }
  if (c.jti) extra[CREDENTIAL_ID_KEY] = [`JTI=${c.jti}`];
  return { name: `${SA_PREFIX}${namespace}:${name}`, uid, groups: [SA_GROUP, `${SA_GROUP}:${namespace}`], extra };
}

async function keyId(key: KeyObject): Promise<string> {
  return jose.calculateJwkThumbprint(await jose.exportJWK(createPublicKey(key)));
}

function loadSigningKey(opts: ServiceAccountKeyOptions): KeyObject {
  if (opts.signingKeyFile) return createPrivateKey(readFileSync(opts.signingKeyFile));
  const generate = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  if (!opts.dataDir) return generate();
  const file = join(opts.dataDir, GENERATED_KEY_FILE);
  if (existsSync(file)) return createPrivateKey(readFileSync(file));
  const key = generate();
  mkdirSync(opts.dataDir, { recursive: true });
  writeFileSync(file, key.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  return key;
}
