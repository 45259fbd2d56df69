// Rules of AuthenticationConfiguration that span fields: issuer URLs, audiences, claim rules and
// mappings with their CEL expressions, the email_verified rule, extra keys, anonymous access.

import { celSelectsField, compileCel, type CelCompiled, type CelPurpose } from './cel.js';
import { containsPemCertificate, domainPrefixedPathErrors } from './formats.js';
import { child, duplicate, forbidden, index, invalid, required, warning, type ConfigProblem } from './problems.js';
import { asList, asObject, asString, given, isSet } from './structural.js';

export interface AuthenticationRuleOptions {
  /** The --anonymous-auth flag was given on the command line. */
  anonymousAuthFlagSet?: boolean;
  /** Issuer URLs no JWT authenticator may use (for example the service account issuer). */
  disallowedIssuers?: readonly string[];
}

/** Extra keys under these domains (and their subdomains) are kept for the server's own use. */
const RESERVED_EXTRA_DOMAINS = ['service.io', 'k8s.io', 'kubernetes.io'];

export const ANONYMOUS_FLAG_CONFLICT = '--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file';
const EMAIL_VERIFIED_REQUIRED =
  'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression';

interface EmailState {
  usesEmail: boolean;
  usesEmailVerified: boolean;
}

export function authenticationRules(doc: Record<string, unknown>, opts: AuthenticationRuleOptions, out: ConfigProblem[]): void {
  const seenIssuers = new Set<string>();
  const seenDiscovery = new Set<string>();
  asList(doc.jwt).forEach((item, i) => {
    const a = asObject(item);
    if (!a) return;
    const path = index('jwt', i);
    const issuer = asObject(a.issuer);
    if (issuer) {
      issuerRules(issuer, child(path, 'issuer'), opts, out);
      const url = asString(issuer.url);
      if (url) {
        if (seenIssuers.has(url)) out.push(duplicate(child(path, 'issuer.url'), url));
        seenIssuers.add(url);
      }
      const discovery = asString(issuer.discoveryURL);
      if (discovery) {
        if (seenDiscovery.has(discovery)) out.push(duplicate(child(path, 'issuer.discoveryURL'), discovery));
        seenDiscovery.add(discovery);
      }
    }
    const email: EmailState = { usesEmail: false, usesEmailVerified: false };
    claimValidationRules(a.claimValidationRules, child(path, 'claimValidationRules'), email, out);
    const mappings = asObject(a.claimMappings);
    if (mappings) claimMappingRules(mappings, child(path, 'claimMappings'), email, out);
    userValidationRules(a.userValidationRules, child(path, 'userValidationRules'), out);
  });

  const anonymous = asObject(doc.anonymous);
  if (anonymous) anonymousRules(anonymous, opts, out);
}

function urlProblems(url: string, path: string, disallowed: readonly string[], out: ConfigProblem[]): void {
  if (disallowed.includes(url)) {
    out.push(invalid(path, url, `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]`));
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    out.push(invalid(path, url, /^https:\/\//i.test(url) ? 'must be a valid URL' : 'URL scheme must be https'));
    return;
  }
  if (u.protocol !== 'https:') out.push(invalid(path, url, 'URL scheme must be https'));
  if (u.username || u.password) out.push(invalid(path, url, 'URL must not contain a username or password'));
  if (u.search) out.push(invalid(path, url, 'URL must not contain a query'));
  if (u.hash) out.push(invalid(path, url, 'URL must not contain a fragment'));
}

function issuerRules(issuer: Record<string, unknown>, path: string, opts: AuthenticationRuleOptions, out: ConfigProblem[]): void {
  const url = asString(issuer.url);
  if (url) urlProblems(url, child(path, 'url'), opts.disallowedIssuers ?? [], out);

  const discovery = asString(issuer.discoveryURL);
  if (discovery) {
    if (url && url.replace(/\/+$/, '') === discovery.replace(/\/+$/, '')) {
      out.push(invalid(child(path, 'discoveryURL'), discovery, 'discoveryURL must be different from URL'));
    }
    urlProblems(discovery, child(path, 'discoveryURL'), [], out);
  }

  const audiences = asList(issuer.audiences);
  const seen = new Set<string>();
  audiences.forEach((aud, i) => {
    if (typeof aud !== 'string') return;
    const p = index(child(path, 'audiences'), i);
    if (aud === '') out.push(required(p));
    else if (seen.has(aud)) out.push(duplicate(p, aud));
    seen.add(aud);
  });
  const policy = issuer.audienceMatchPolicy;
  if (audiences.length > 1 && !given(policy)) {
    out.push(invalid(child(path, 'audienceMatchPolicy'), '', 'audienceMatchPolicy must be MatchAny for multiple audiences'));
  }

  const ca = asString(issuer.certificateAuthority);
  if (ca && !containsPemCertificate(ca)) {
    out.push(invalid(child(path, 'certificateAuthority'), '<omitted>', 'data does not contain any valid RSA or ECDSA certificates'));
  }
}

function compileInto(purpose: CelPurpose, expression: string, path: string, out: ConfigProblem[]): CelCompiled | undefined {
  const result = compileCel(purpose, expression);
  if (result.ok) return result;
  out.push(invalid(path, expression, result.message));
  return undefined;
}

function claimValidationRules(rules: unknown, path: string, email: EmailState, out: ConfigProblem[]): void {
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  asList(rules).forEach((item, i) => {
    const rule = asObject(item);
    if (!rule) return;
    const p = index(path, i);
    const claim = rule.claim;
    const expression = rule.expression;
    if (given(claim) && given(expression)) {
      out.push(invalid(p, undefined, "claim and expression can't both be set"));
    } else if (!given(claim) && !given(expression)) {
      out.push(required(p, 'claim or expression is required'));
    } else if (given(claim)) {
      if (given(rule.message)) out.push(invalid(child(p, 'message'), rule.message, 'may not be specified when claim is set'));
      if (typeof claim === 'string') {
        if (seenClaims.has(claim)) out.push(duplicate(child(p, 'claim'), claim));
        seenClaims.add(claim);
      }
    } else {
      if (given(rule.requiredValue)) {
        out.push(invalid(child(p, 'requiredValue'), rule.requiredValue, 'may not be specified when expression is set'));
      }
      if (typeof expression !== 'string') return;
      if (seenExpressions.has(expression)) {
        out.push(duplicate(child(p, 'expression'), expression));
        return;
      }
      seenExpressions.add(expression);
      const compiled = compileInto('claimValidation', expression, child(p, 'expression'), out);
      if (compiled && celSelectsField(compiled.ast, 'claims', 'email_verified')) email.usesEmailVerified = true;
    }
  });
}

function prefixedClaimOrExpression(
  mapping: Record<string, unknown>,
  path: string,
  mandatory: boolean,
  purpose: CelPurpose,
  out: ConfigProblem[],
): CelCompiled | undefined {
  const claim = mapping.claim;
  const expression = mapping.expression;
  if (given(claim) && given(expression)) {
    out.push(invalid(path, undefined, "claim and expression can't both be set"));
  } else if (!given(claim) && !given(expression)) {
    if (mandatory) out.push(required(path, 'claim or expression is required'));
  } else if (given(expression)) {
    if (isSet(mapping.prefix)) out.push(invalid(child(path, 'prefix'), mapping.prefix, 'may not be specified when expression is set'));
    if (typeof expression === 'string') return compileInto(purpose, expression, child(path, 'expression'), out);
  } else if (!isSet(mapping.prefix)) {
    out.push(required(child(path, 'prefix'), 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'));
  }
  return undefined;
}

function reservedDomain(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  return RESERVED_EXTRA_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`));
}

function claimMappingRules(m: Record<string, unknown>, path: string, email: EmailState, out: ConfigProblem[]): void {
  const username = asObject(m.username);
  if (username) {
    const compiled = prefixedClaimOrExpression(username, child(path, 'username'), true, 'claimMappingString', out);
    if (compiled) {
      email.usesEmail ||= celSelectsField(compiled.ast, 'claims', 'email');
      email.usesEmailVerified ||= celSelectsField(compiled.ast, 'claims', 'email_verified');
    }
  }
  const groups = asObject(m.groups);
  if (groups) prefixedClaimOrExpression(groups, child(path, 'groups'), false, 'claimMappingStringOrList', out);

  const uid = asObject(m.uid);
  if (uid) {
    const uidPath = child(path, 'uid');
    if (given(uid.claim) && given(uid.expression)) out.push(invalid(uidPath, undefined, "claim and expression can't both be set"));
    else if (!given(uid.claim) && !given(uid.expression)) out.push(required(uidPath, 'claim or expression is required'));
    else if (typeof uid.expression === 'string' && uid.expression !== '') {
      compileInto('claimMappingString', uid.expression, child(uidPath, 'expression'), out);
    }
  }

  const seenKeys = new Set<string>();
  asList(m.extra).forEach((item, i) => {
    const extra = asObject(item);
    if (!extra) return;
    const p = index(child(path, 'extra'), i);
    const key = asString(extra.key);
    if (key) {
      for (const [value, detail] of domainPrefixedPathErrors(key)) out.push(invalid(child(p, 'key'), value, detail));
      if (key !== key.toLowerCase()) out.push(invalid(child(p, 'key'), key, 'must be lowercase'));
      if (reservedDomain(key)) {
        out.push(invalid(child(p, 'key'), key, 'service.io, k8s.io, kubernetes.io and their subdomains are reserved for the server\'s own use'));
      }
      if (seenKeys.has(key)) {
        out.push(duplicate(child(p, 'key'), key));
        return;
      }
      seenKeys.add(key);
    }
    const expr = asString(extra.valueExpression);
    if (!expr) return;
    const compiled = compileInto('claimMappingStringOrList', expr, child(p, 'valueExpression'), out);
    if (compiled && celSelectsField(compiled.ast, 'claims', 'email_verified')) email.usesEmailVerified = true;
  });

  if (email.usesEmail && !email.usesEmailVerified) {
    out.push(invalid(child(path, 'username.expression'), username?.expression, EMAIL_VERIFIED_REQUIRED));
  }
}

function userValidationRules(rules: unknown, path: string, out: ConfigProblem[]): void {
  const seen = new Set<string>();
  asList(rules).forEach((item, i) => {
    const rule = asObject(item);
    const expression = asString(rule?.expression);
    if (!expression) return;
    const p = child(index(path, i), 'expression');
    if (seen.has(expression)) {
      out.push(duplicate(p, expression));
      return;
    }
    seen.add(expression);
    compileInto('userValidation', expression, p, out);
  });
}

function anonymousRules(a: Record<string, unknown>, opts: AuthenticationRuleOptions, out: ConfigProblem[]): void {
  if (opts.anonymousAuthFlagSet) out.push(forbidden('anonymous', ANONYMOUS_FLAG_CONFLICT));
  const conditions = asList(a.conditions);
  if (a.enabled === false && conditions.length > 0) {
    out.push(invalid('anonymous.conditions', undefined, 'enabled should be set to true when conditions are defined'));
  }
  const seen = new Set<string>();
  conditions.forEach((item, i) => {
    const path = asString(asObject(item)?.path);
    if (!path) return;
    const p = child(index('anonymous.conditions', i), 'path');
    if (seen.has(path)) out.push(duplicate(p, path));
    seen.add(path);
    if (!path.startsWith('/')) out.push(warning(p, 'should start with "/": request paths always do, so this condition never matches'));
  });
}
