// JWT authenticators of an AuthenticationConfiguration (upstream plugin/pkg/authenticator/token/oidc):
// OIDC discovery, JWKS (refetched on an unknown kid), signature and time checks, audiences, claim
// validation rules, claim mappings and user validation rules. CEL is compiled once per configuration.
import * as jose from 'jose';
import { evaluateMetered } from '../cel/cost.js';
import { compileCel, type CelCompiled, type CelPurpose } from '../../config/cel.js';
import type { ClaimValidationRule, JWTAuthenticator } from '../../config/types.js';
import { httpsFetcher } from './https-fetch.js';
import type { UserInfo } from './user.js';

/** Signing algorithms upstream accepts for ID tokens (RSA, ECDSA, RSA-PSS). */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];
/** go-oidc's allowed clock skew for `nbf`; `exp` is checked strictly. */
const NBF_SKEW_SECONDS = 5 * 60;
/** Upstream polls an unavailable issuer's discovery every 10 s. */
export const DISCOVERY_RETRY_MS = 10_000;

export class TokenError extends Error {}

type Claims = Record<string, unknown>;

function compile(purpose: CelPurpose, expression: string): CelCompiled {
  const r = compileCel(purpose, expression);
  if (!r.ok) throw new Error(`${expression}: ${r.message}`);
  return r;
}

function run(c: CelCompiled, vars: Record<string, unknown>, what: string): unknown {
  try {
    // upstream compiles claim rules and mappings with the per-call cost limit
    return evaluateMetered(c.program, vars).value;
  } catch (e) {
    throw new TokenError(`oidc: error evaluating ${what} expression: ${(e as Error).message.split('\n')[0]}`);
  }
}

type Rule = { kind: 'claim'; claim: string; value: string } | { kind: 'cel'; c: CelCompiled; message?: string };
type Mapping = { claim: string; prefix: string } | { c: CelCompiled };

function mapping(m: { claim?: string; prefix?: string; expression?: string } | undefined, purpose: CelPurpose): Mapping | undefined {
  if (!m) return undefined;
  if (m.expression) return { c: compile(purpose, m.expression) };
  if (m.claim) return { claim: m.claim, prefix: m.prefix ?? '' };
  return undefined;
}

/** A string or list result of a mapping; `""`, `[]` and null mean absent. */
function stringList(v: unknown, what: string): string[] {
  if (v === null || v === undefined || v === '') return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new TokenError(`oidc: ${what} must be a string or an array of strings`);
}

export class JwtAuthenticator {
  readonly issuerUrl: string;
  private readonly audiences: string[];
  private readonly fetcher: ReturnType<typeof httpsFetcher>;
  private readonly discoveryUrl: string;
  private readonly rules: Rule[];
  private readonly username: Mapping;
  private readonly groups?: Mapping;
  private readonly uid?: Mapping;
  private readonly extra: { key: string; c: CelCompiled }[];
  private readonly userRules: { c: CelCompiled; message?: string }[];
  private keys?: jose.JWTVerifyGetKey;
  private attempting = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private lastError = 'discovery has not completed';
  private settle!: () => void;
  private readonly ready = new Promise<void>((resolve) => (this.settle = resolve));
  private readonly retryMs: number;

  constructor(
    cfg: JWTAuthenticator,
    private readonly log: (l: string) => void = () => {},
    opts: { retryMs?: number } = {},
  ) {
    this.retryMs = opts.retryMs ?? DISCOVERY_RETRY_MS;
    this.issuerUrl = cfg.issuer.url;
    this.audiences = cfg.issuer.audiences;
    this.fetcher = httpsFetcher(cfg.issuer.certificateAuthority || undefined);
    this.discoveryUrl = cfg.issuer.discoveryURL || `${cfg.issuer.url.replace(/\/$/, '')}/.well-known/openid-configuration`;
    this.rules = (cfg.claimValidationRules ?? []).map((r: ClaimValidationRule): Rule =>
      r.expression ? { kind: 'cel', c: compile('claimValidation', r.expression), message: r.message } : { kind: 'claim', claim: r.claim ?? '', value: r.requiredValue ?? '' },
    );
    this.username = mapping(cfg.claimMappings.username, 'claimMappingString')!;
    this.groups = mapping(cfg.claimMappings.groups, 'claimMappingStringOrList');
    this.uid = mapping(cfg.claimMappings.uid, 'claimMappingString');
    this.extra = (cfg.claimMappings.extra ?? []).map((e) => ({ key: e.key, c: compile('claimMappingStringOrList', e.valueExpression) }));
    this.userRules = (cfg.userValidationRules ?? []).map((r) => ({ c: compile('userValidation', r.expression), message: r.message }));
  }

  /**
   * Starts discovery in the background (upstream oidc.New: a goroutine polls every 10 s until the provider is
   * initialized). Requests never fetch discovery: a token of an issuer not yet initialized fails at once.
   */
  start(): void {
    if (this.stopped || this.keys || this.attempting) return;
    this.attempting = true;
    this.discover().then(
      (k) => {
        this.attempting = false;
        if (!this.stopped) this.keys = k;
        this.settle();
      },
      (e) => {
        this.attempting = false;
        this.lastError = (e as Error).message;
        this.log(`jwt authenticator ${this.issuerUrl}: ${this.lastError}; tokens of this issuer fail until it is reachable (retrying every ${this.retryMs / 1000}s)`);
        this.settle();
        if (this.stopped) return;
        this.timer = setTimeout(() => this.start(), this.retryMs);
        this.timer.unref();
      },
    );
  }

  /** Resolves once the first discovery attempt has finished (succeeded or failed). */
  firstAttempt(): Promise<void> {
    return this.ready;
  }

  /** Whether discovery and the key set are in place. */
  get initialized(): boolean {
    return this.keys !== undefined;
  }

  /** Stops background retries (configuration replaced, server closing). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async discover(): Promise<jose.JWTVerifyGetKey> {
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const r = await this.fetcher(this.discoveryUrl);
      if (r.status !== 200) throw new Error(`${r.status} ${await r.text().then((t) => t.slice(0, 200))}`);
      doc = (await r.json()) as typeof doc;
    } catch (e) {
      throw new Error(`oidc: fetching discovery document ${this.discoveryUrl}: ${(e as Error).message}`);
    }
    if (doc.issuer !== this.issuerUrl) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${this.issuerUrl}" got "${String(doc.issuer)}"`);
    if (typeof doc.jwks_uri !== 'string') throw new Error('oidc: discovery document has no jwks_uri');
    // cooldown 0: an unknown kid refetches the key set at once (go-oidc's behaviour); fetches are single-flight
    return jose.createRemoteJWKSet(new URL(doc.jwks_uri), { cooldownDuration: 0, [jose.customFetch]: this.fetcher as typeof fetch });
  }

  /** Verifies a token whose unverified `iss` is this issuer and maps it to a user; throws TokenError. */
  async authenticate(token: string): Promise<UserInfo> {
    // upstream: "oidc: authenticator not initialized" until the background discovery succeeded; no fetch here
    const keys = this.keys;
    if (!keys) throw new TokenError(`oidc: authenticator for issuer "${this.issuerUrl}" is not initialized: ${this.lastError}`);
    let claims: Claims;
    try {
      const verified = await jose.jwtVerify(token, keys, { algorithms: JWT_ALGORITHMS, issuer: this.issuerUrl, clockTolerance: NBF_SKEW_SECONDS });
      claims = verified.payload as Claims;
    } catch (e) {
      throw new TokenError(`oidc: verify token: ${(e as Error).message}`);
    }
    if (typeof claims.exp !== 'number') throw new TokenError('oidc: token has no exp claim');
    if (claims.exp * 1000 < Date.now()) throw new TokenError('oidc: token is expired');
    const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    // audienceMatchPolicy MatchAny (the only policy): one of the token's audiences must be configured
    if (!aud.some((a) => this.audiences.includes(a as string))) throw new TokenError(`oidc: expected audience in ${JSON.stringify(this.audiences)} got ${JSON.stringify(aud)}`);
    return this.userFromClaims(claims);
  }

  /** Claim validation rules, claim mappings and user validation rules over verified claims. */
  userFromClaims(claims: Claims): UserInfo {
    for (const r of this.rules) {
      if (r.kind === 'claim') {
        if (!(r.claim in claims)) throw new TokenError(`oidc: required claim ${r.claim} not present in ID token`);
        if (claims[r.claim] !== r.value) throw new TokenError(`oidc: required claim ${r.claim} value does not match. Got = ${JSON.stringify(claims[r.claim])}, want = ${r.value}`);
      } else if (run(r.c, { claims }, 'claim validation') !== true) {
        throw new TokenError(r.message || `oidc: error evaluating claim validation expression: expression '${r.c.expression}' resulted in error or false`);
      }
    }
    const name = this.mapUsername(claims);
    const groups = this.groups ? this.mapGroups(this.groups, claims) : [];
    let uid = '';
    if (this.uid) {
      if ('claim' in this.uid) {
        const v = claims[this.uid.claim];
        if (typeof v !== 'string') throw new TokenError(`oidc: parse uid claim "${this.uid.claim}": ${v === undefined ? 'claim not present' : 'must be a string'}`);
        uid = v;
      } else {
        const v = run(this.uid.c, { claims }, 'uid');
        if (v !== null && typeof v !== 'string') throw new TokenError('oidc: error evaluating uid expression: must be a string');
        uid = v ?? '';
      }
    }
    const extra: Record<string, string[]> = {};
    for (const e of this.extra) {
      const values = stringList(run(e.c, { claims }, 'extra'), `extra mapping ${e.key}`).filter((v) => v !== '');
      if (values.length) extra[e.key] = values;
    }
    const user: UserInfo = { name, uid, groups, extra };
    for (const r of this.userRules) {
      const ok = run(r.c, { user: { username: name, uid, groups, extra } }, 'user validation');
      if (ok !== true) throw new TokenError(r.message || `oidc: error evaluating user info validation rule: validation expression '${r.c.expression}' failed`);
    }
    return user;
  }

  private mapUsername(claims: Claims): string {
    const m = this.username;
    if ('claim' in m) {
      const v = claims[m.claim];
      if (v === undefined) throw new TokenError(`oidc: parse username claims "${m.claim}": claim not present`);
      if (typeof v !== 'string') throw new TokenError(`oidc: parse username claims "${m.claim}": must be a string`);
      if (m.claim === 'email' && 'email_verified' in claims) {
        // the email claim counts only when the provider verified it (upstream: present email_verified must be true)
        if (typeof claims.email_verified !== 'boolean') throw new TokenError('oidc: parse \'email_verified\' claim: must be a boolean');
        if (!claims.email_verified) throw new TokenError(`oidc: email not verified`);
      }
      if (v === '') throw new TokenError(`oidc: empty username via claim "${m.claim}" is not allowed`);
      return m.prefix + v;
    }
    const v = run(m.c, { claims }, 'username');
    if (typeof v !== 'string') throw new TokenError('oidc: error evaluating username expression: must be a string');
    if (v === '') throw new TokenError('oidc: empty username via CEL expression is not allowed');
    return v;
  }

  private mapGroups(m: Mapping, claims: Claims): string[] {
    if ('claim' in m) {
      if (!(m.claim in claims)) return [];
      return stringList(claims[m.claim], `groups claim "${m.claim}"`).map((g) => m.prefix + g);
    }
    return stringList(run(m.c, { claims }, 'groups'), 'groups expression');
  }
}

/** The unverified `iss` of a compact JWT (selects the authenticator), or undefined for anything else. */
export function unverifiedIssuer(token: string): string | undefined {
  if (token.split('.').length !== 3) return undefined;
  try {
    const iss = jose.decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}
