// What an AuthenticationConfiguration does with one JWT, step by step in the server's order:
// the issuer (`iss`) picks the authenticator, the signature is checked (when JWKS are given), then
// expiry and audience, claim validation rules, claim mappings to a user, user validation rules.
// Works on documents that may still have problems, so every read is defensive.

import { child, index } from '../problems.js';
import { asList, asObject, asString, given, isSet } from '../structural.js';
import { evaluateCel, showValue } from './cel-eval.js';
import { decodeJwt, verifyJwtSignature, type DecodedJwt, type SignatureCheck } from './jwt.js';

export type CheckStatus = 'pass' | 'fail' | 'error' | 'skip';

export interface CheckResult {
  /** Path in the configuration of the rule or field the result is about (for jumping to it). */
  path: string;
  label: string;
  status: CheckStatus;
  detail: string;
}

export interface MappingResult {
  path: string;
  /** `username`, `groups`, `uid` or the extra key. */
  attribute: string;
  source: string;
  status: 'pass' | 'error' | 'skip';
  value?: string | string[];
  detail: string;
}

export interface MappedUser {
  username: string;
  uid: string;
  groups: string[];
  extra: Record<string, string[]>;
}

export interface ClaimsEvaluation {
  lifetime: CheckResult[];
  audience: CheckResult;
  claimValidation: CheckResult[];
  mappings: MappingResult[];
  /** Present when every mapping worked. */
  user?: MappedUser;
  userValidation: CheckResult[];
  /** The first failure in the server's order; undefined when the token authenticates. */
  failure?: string;
}

/** go-oidc allows this much clock skew for `nbf`. */
const NBF_LEEWAY_S = 60;

const firstFailure = (results: readonly { status: string; detail: string }[]) => results.find((r) => r.status === 'fail' || r.status === 'error')?.detail;

function lifetimeChecks(claims: Record<string, unknown>, nowS: number): CheckResult[] {
  const out: CheckResult[] = [];
  const exp = claims.exp;
  if (typeof exp !== 'number') {
    out.push({ path: '', label: 'exp', status: 'fail', detail: exp === undefined ? 'the token has no exp claim, so it counts as expired' : 'exp must be a number (seconds since the epoch)' });
  } else if (exp <= nowS) {
    out.push({ path: '', label: 'exp', status: 'fail', detail: `token is expired (Token Expiry: ${new Date(exp * 1000).toISOString()})` });
  } else {
    out.push({ path: '', label: 'exp', status: 'pass', detail: `valid until ${new Date(exp * 1000).toISOString()}` });
  }
  const nbf = claims.nbf;
  if (nbf !== undefined) {
    if (typeof nbf !== 'number') out.push({ path: '', label: 'nbf', status: 'fail', detail: 'nbf must be a number (seconds since the epoch)' });
    else if (nowS + NBF_LEEWAY_S < nbf) {
      out.push({ path: '', label: 'nbf', status: 'fail', detail: `current time is before the nbf (not before) time ${new Date(nbf * 1000).toISOString()}` });
    } else out.push({ path: '', label: 'nbf', status: 'pass', detail: `valid since ${new Date(nbf * 1000).toISOString()}` });
  }
  return out;
}

function audienceCheck(issuer: Record<string, unknown>, claims: Record<string, unknown>, path: string): CheckResult {
  const p = child(path, 'issuer.audiences');
  const wanted = asList(issuer.audiences).filter((a): a is string => typeof a === 'string' && a !== '');
  const aud = claims.aud;
  const got = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
  const policy = asString(issuer.audienceMatchPolicy) || (wanted.length > 1 ? 'MatchAny' : 'single audience');
  const label = `aud ${showValue(aud)} against ${showValue(wanted)} (${policy})`;
  if (aud === undefined) return { path: p, label, status: 'fail', detail: 'the token has no aud claim' };
  if (got.length === 0) return { path: p, label, status: 'fail', detail: 'aud must be a string or a list of strings' };
  const hit = wanted.find((w) => got.includes(w));
  if (hit) return { path: p, label, status: 'pass', detail: `audience "${hit}" is accepted` };
  return { path: p, label, status: 'fail', detail: `expected audience in ${showValue(wanted)} got ${showValue(got)}` };
}

function claimValidation(rules: unknown, claims: Record<string, unknown>, path: string): CheckResult[] {
  return asList(rules).map((item, i) => {
    const rule = asObject(item) ?? {};
    const p = index(path, i);
    const claim = asString(rule.claim);
    if (given(rule.claim) && claim !== undefined) {
      const required = asString(rule.requiredValue) ?? '';
      const label = `claim ${claim} = ${JSON.stringify(required)}`;
      if (!(claim in claims)) return { path: p, label, status: 'fail', detail: `required claim ${claim} not present in ID token` };
      const value = claims[claim];
      if (typeof value !== 'string') return { path: p, label, status: 'error', detail: `parse claim ${claim}: the value ${showValue(value)} is not a string` };
      if (value !== required) {
        return { path: p, label, status: 'fail', detail: `required claim ${claim} value does not match. Got = ${value}, want = ${required}` };
      }
      return { path: p, label, status: 'pass', detail: `${claim} is ${JSON.stringify(value)}` };
    }
    const expression = asString(rule.expression);
    if (!expression) return { path: p, label: '(empty rule)', status: 'skip', detail: 'the rule sets neither claim nor expression' };
    const r = evaluateCel('claimValidation', expression, { claims });
    if (!r.ok) return { path: child(p, 'expression'), label: expression, status: 'error', detail: r.error };
    if (r.value !== true && r.value !== false) {
      return { path: child(p, 'expression'), label: expression, status: 'error', detail: `the expression produced ${showValue(r.value)}, not a bool` };
    }
    if (r.value) return { path: child(p, 'expression'), label: expression, status: 'pass', detail: 'true' };
    const message = asString(rule.message);
    return { path: child(p, 'expression'), label: expression, status: 'fail', detail: message || `expression '${expression}' evaluated to false` };
  });
}

type Mapped = { ok: true; value: string | string[] | undefined; detail: string } | { ok: false; detail: string };

function claimValue(claims: Record<string, unknown>, claim: string, wants: 'string' | 'stringOrList', optional: boolean): Mapped {
  if (!(claim in claims) || claims[claim] === null) {
    return optional ? { ok: true, value: undefined, detail: `claim ${claim} is absent` } : { ok: false, detail: `claim ${claim} not present` };
  }
  const v = claims[claim];
  if (typeof v === 'string') return { ok: true, value: v, detail: `from claim ${claim}` };
  if (wants === 'stringOrList' && Array.isArray(v) && v.every((x) => typeof x === 'string')) return { ok: true, value: v, detail: `from claim ${claim}` };
  return { ok: false, detail: `claim ${claim} is ${showValue(v)}, expected ${wants === 'string' ? 'a string' : 'a string or a list of strings'}` };
}

function expressionValue(expression: string, claims: Record<string, unknown>, wants: 'string' | 'stringOrList'): Mapped {
  const r = evaluateCel(wants === 'string' ? 'claimMappingString' : 'claimMappingStringOrList', expression, { claims });
  if (!r.ok) return { ok: false, detail: r.error };
  const v = r.value;
  if (typeof v === 'string') return { ok: true, value: v, detail: 'from the expression' };
  if (v === null) return { ok: true, value: undefined, detail: 'the expression produced null' };
  if (wants === 'stringOrList' && Array.isArray(v) && v.every((x) => typeof x === 'string')) return { ok: true, value: v, detail: 'from the expression' };
  return { ok: false, detail: `the expression produced ${showValue(v)}, expected ${wants === 'string' ? 'a string' : 'a string or a list of strings'}` };
}

const asStrings = (v: string | string[] | undefined): string[] => (v === undefined ? [] : typeof v === 'string' ? (v === '' ? [] : [v]) : v);

function describeSource(m: Record<string, unknown>): string {
  if (given(m.expression)) return `expression ${asString(m.expression)}`;
  if (given(m.claim)) return `claim ${asString(m.claim)}${isSet(m.prefix) ? ` with prefix ${JSON.stringify(m.prefix)}` : ''}`;
  return '(not set)';
}

function mapUser(mappings: Record<string, unknown>, claims: Record<string, unknown>, path: string): { results: MappingResult[]; user?: MappedUser } {
  const results: MappingResult[] = [];
  const user: MappedUser = { username: '', uid: '', groups: [], extra: {} };
  let ok = true;
  const record = (r: MappingResult) => {
    results.push(r);
    if (r.status === 'error') ok = false;
  };

  // username
  const un = asObject(mappings.username) ?? {};
  const unPath = child(path, 'username');
  const unExpr = asString(un.expression);
  const unClaim = asString(un.claim);
  let unResult: Mapped;
  if (given(unExpr)) {
    unResult = expressionValue(unExpr!, claims, 'string');
    if (unResult.ok && !unResult.value) unResult = { ok: false, detail: 'empty username via CEL expression is not allowed' };
  } else if (given(unClaim)) {
    unResult = claimValue(claims, unClaim!, 'string', false);
    if (unResult.ok && unClaim === 'email' && 'email_verified' in claims) {
      const verified = claims.email_verified;
      if (typeof verified !== 'boolean') unResult = { ok: false, detail: `email_verified is ${showValue(verified)}, not a boolean` };
      else if (!verified) unResult = { ok: false, detail: 'email not verified' };
      else unResult = { ...unResult, detail: 'from claim email (email_verified is true)' };
    }
    if (unResult.ok) unResult = { ...unResult, value: `${asString(un.prefix) ?? ''}${unResult.value as string}` };
  } else unResult = { ok: false, detail: 'username sets neither claim nor expression' };
  if (unResult.ok) user.username = unResult.value as string;
  record({ path: unPath, attribute: 'username', source: describeSource(un), status: unResult.ok ? 'pass' : 'error', value: unResult.ok ? user.username : undefined, detail: unResult.detail });

  // groups
  const g = asObject(mappings.groups);
  if (g && (given(g.claim) || given(g.expression))) {
    const gPath = child(path, 'groups');
    let r = given(g.expression) ? expressionValue(asString(g.expression)!, claims, 'stringOrList') : claimValue(claims, asString(g.claim)!, 'stringOrList', true);
    if (r.ok && !given(g.expression)) r = { ...r, value: asStrings(r.value).map((x) => `${asString(g.prefix) ?? ''}${x}`) };
    if (r.ok) user.groups = asStrings(r.value);
    record({ path: gPath, attribute: 'groups', source: describeSource(g), status: r.ok ? 'pass' : 'error', value: r.ok ? user.groups : undefined, detail: r.detail });
  } else {
    record({ path: child(path, 'groups'), attribute: 'groups', source: '(not set)', status: 'skip', detail: 'no groups mapping' });
  }

  // uid
  const uid = asObject(mappings.uid);
  if (uid && (given(uid.claim) || given(uid.expression))) {
    const r = given(uid.expression) ? expressionValue(asString(uid.expression)!, claims, 'string') : claimValue(claims, asString(uid.claim)!, 'string', false);
    if (r.ok) user.uid = typeof r.value === 'string' ? r.value : '';
    record({ path: child(path, 'uid'), attribute: 'uid', source: describeSource(uid), status: r.ok ? 'pass' : 'error', value: r.ok ? user.uid : undefined, detail: r.detail });
  } else {
    record({ path: child(path, 'uid'), attribute: 'uid', source: '(not set)', status: 'skip', detail: 'no uid mapping' });
  }

  // extra: "", [] and null leave the attribute out; empty strings inside a list are dropped.
  asList(mappings.extra).forEach((item, i) => {
    const e = asObject(item) ?? {};
    const key = asString(e.key) ?? '';
    const expr = asString(e.valueExpression);
    const p = index(child(path, 'extra'), i);
    if (!expr) {
      record({ path: p, attribute: key, source: '(not set)', status: 'skip', detail: 'no valueExpression' });
      return;
    }
    const r = expressionValue(expr, claims, 'stringOrList');
    if (r.ok) {
      const values = asStrings(r.value).filter((v) => v !== '');
      if (values.length > 0) user.extra[key] = values;
      record({ path: child(p, 'valueExpression'), attribute: key, source: `expression ${expr}`, status: 'pass', value: values, detail: values.length > 0 ? r.detail : 'empty result: the attribute is left out' });
    } else record({ path: child(p, 'valueExpression'), attribute: key, source: `expression ${expr}`, status: 'error', detail: r.detail });
  });

  return { results, user: ok ? user : undefined };
}

function userValidation(rules: unknown, user: MappedUser, path: string): CheckResult[] {
  return asList(rules).map((item, i) => {
    const rule = asObject(item) ?? {};
    const p = child(index(path, i), 'expression');
    const expression = asString(rule.expression);
    if (!expression) return { path: p, label: '(empty rule)', status: 'skip', detail: 'no expression' };
    const r = evaluateCel('userValidation', expression, { user });
    if (!r.ok) return { path: p, label: expression, status: 'error', detail: r.error };
    if (r.value === true) return { path: p, label: expression, status: 'pass', detail: 'true' };
    if (r.value !== false) return { path: p, label: expression, status: 'error', detail: `the expression produced ${showValue(r.value)}, not a bool` };
    return { path: p, label: expression, status: 'fail', detail: asString(rule.message) || `expression '${expression}' evaluated to false` };
  });
}

/**
 * Runs one JWT authenticator over already-verified claims. `path` is the authenticator's path in
 * the document (`jwt[0]`); `nowS` the current time in seconds.
 */
export function evaluateJwtAuthenticator(authenticator: unknown, claims: Record<string, unknown>, path: string, nowS: number): ClaimsEvaluation {
  const a = asObject(authenticator) ?? {};
  const issuer = asObject(a.issuer) ?? {};
  const lifetime = lifetimeChecks(claims, nowS);
  const audience = audienceCheck(issuer, claims, path);
  const claimRules = claimValidation(a.claimValidationRules, claims, child(path, 'claimValidationRules'));
  const mapped = mapUser(asObject(a.claimMappings) ?? {}, claims, child(path, 'claimMappings'));
  const userRules = mapped.user ? userValidation(a.userValidationRules, mapped.user, child(path, 'userValidationRules')) : [];
  const failure =
    firstFailure(lifetime) ??
    firstFailure([audience]) ??
    firstFailure(claimRules) ??
    firstFailure(mapped.results) ??
    firstFailure(userRules);
  return { lifetime, audience, claimValidation: claimRules, mappings: mapped.results, user: mapped.user, userValidation: userRules, failure };
}

export interface IssuerMatch {
  index: number;
  path: string;
  url: string;
  matches: boolean;
}

export interface AuthenticationEvaluation {
  token?: { header: Record<string, unknown>; claims: Record<string, unknown> };
  tokenError?: string;
  signature: SignatureCheck;
  issuers: IssuerMatch[];
  /** Index in `jwt` of the authenticator whose issuer URL equals `iss`. */
  authenticator?: number;
  result?: ClaimsEvaluation;
  authenticated: boolean;
  /** Why the token was not authenticated, or who it authenticated as. */
  summary: string;
}

export interface AuthenticationEvaluationOptions {
  /** JWKS text or object; when absent the signature check is reported as skipped. */
  jwks?: unknown;
  /** Milliseconds since the epoch; defaults to now. */
  now?: number;
}

/** Evaluates a token (compact JWT, or a claims object for a token built in the form) against a configuration. */
export async function evaluateAuthentication(
  config: unknown,
  token: string | Record<string, unknown>,
  opts: AuthenticationEvaluationOptions = {},
): Promise<AuthenticationEvaluation> {
  const jwt = asList(asObject(config)?.jwt);
  const noSig: SignatureCheck = { status: 'skipped', detail: 'no token' };
  let decoded: DecodedJwt | undefined;
  let claims: Record<string, unknown>;
  if (typeof token === 'string') {
    try {
      decoded = decodeJwt(token);
    } catch (err) {
      return { tokenError: (err as Error).message, signature: noSig, issuers: [], authenticated: false, summary: `not a JWT: ${(err as Error).message}` };
    }
    claims = decoded.claims;
  } else claims = token;

  const iss = claims.iss;
  const issuers: IssuerMatch[] = jwt.map((item, i) => {
    const url = asString(asObject(asObject(item)?.issuer)?.url) ?? '';
    return { index: i, path: `${index('jwt', i)}.issuer.url`, url, matches: typeof iss === 'string' && url === iss };
  });
  const signature = decoded
    ? await verifyJwtSignature(decoded, opts.jwks)
    : ({ status: 'skipped', detail: 'claims given without a token: no signature to check' } as SignatureCheck);
  const base = { token: { header: decoded?.header ?? {}, claims }, signature, issuers };
  const hit = issuers.find((m) => m.matches);
  if (typeof iss !== 'string') return { ...base, authenticated: false, summary: 'the token has no iss claim, so no JWT authenticator handles it' };
  if (!hit) return { ...base, authenticated: false, summary: `no JWT authenticator has issuer url ${JSON.stringify(iss)}; the token is left to other authenticators` };

  const nowS = Math.floor((opts.now ?? Date.now()) / 1000);
  const result = evaluateJwtAuthenticator(jwt[hit.index], claims, index('jwt', hit.index), nowS);
  const failure = signature.status === 'invalid' ? `signature: ${signature.detail}` : result.failure;
  const authenticated = failure === undefined;
  const summary = authenticated ? `authenticated as ${JSON.stringify(result.user!.username)} by jwt[${hit.index}]` : failure;
  return { ...base, authenticator: hit.index, result, authenticated, summary };
}

/** Sample claims for the token builder, fitted to an authenticator: its issuer and first audience. */
export function sampleClaimsFor(authenticator: unknown, nowMs = Date.now()): Record<string, unknown> {
  const issuer = asObject(asObject(authenticator)?.issuer) ?? {};
  const aud = asList(issuer.audiences).find((a): a is string => typeof a === 'string' && a !== '');
  const now = Math.floor(nowMs / 1000);
  return {
    iss: asString(issuer.url) || 'https://issuer.example.com',
    aud: [aud ?? 'kubernetes'],
    sub: '1234567890',
    email: 'jane@example.com',
    email_verified: true,
    groups: ['developers', 'oncall'],
    iat: now,
    nbf: now,
    exp: now + 3600,
  };
}
