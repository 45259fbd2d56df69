// The authenticator chain (upstream pkg/kubeapiserver/authenticator, in its order): client
// certificate, bearer token (token file, local admin token, service account tokens, JWT
// authenticators), then anonymous. Presented credentials that fail give 401, never anonymous.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AnonymousAuthConfig, AuthenticationConfiguration } from '../../config/types.js';
import type { KubeObject } from '../registry/types.js';
import { JwtAuthenticator, TokenError, unverifiedIssuer } from './jwt.js';
import { ServiceAccountTokens, serviceAccountUser, type ServiceAccountKeyOptions } from './service-account.js';
import { loadTokenFile, type TokenFile } from './token-file.js';
import { anonymousUser, localAdmin, withAuthenticatedGroup, type UserInfo } from './user.js';
import { authenticateClientCert } from './x509.js';

export class AuthenticationFailed extends Error {}

export interface AuthenticatorOptions {
  tokenAuthFile?: string;
  clientCaFile?: string;
  /** --anonymous-auth as given (undefined: not set). */
  anonymousAuth?: boolean;
  /** Loaded and validated AuthenticationConfiguration (--authentication-config). */
  config?: AuthenticationConfiguration;
  bindAddress: string;
  serviceAccounts: ServiceAccountKeyOptions;
  /** The data directory's admin token (generated kubeconfig); always accepted as the local admin. */
  adminToken?: string;
  /** Reads a ServiceAccount, Pod or Secret (validity of service account tokens). */
  lookup(kind: 'ServiceAccount' | 'Pod' | 'Secret', namespace: string, name: string): Promise<KubeObject | undefined>;
  log?: (line: string) => void;
}

/** How a request without credentials is treated. */
export type Posture = 'local-admin' | 'authenticated';

export { isLoopback } from '../http/request-guard.js';
import { isLoopback } from '../http/request-guard.js';

interface JwtState {
  jwt: JwtAuthenticator[];
  anonymous?: AnonymousAuthConfig;
}

export class Authenticator {
  readonly posture: Posture;
  readonly serviceAccounts: ServiceAccountTokens;
  private readonly tokenFile?: TokenFile;
  private state: JwtState;

  constructor(private readonly opts: AuthenticatorOptions) {
    const log = opts.log ?? (() => {});
    this.tokenFile = opts.tokenAuthFile ? loadTokenFile(opts.tokenAuthFile) : undefined;
    for (const w of this.tokenFile?.warnings ?? []) log(`warning: ${w}`);
    this.serviceAccounts = new ServiceAccountTokens(opts.serviceAccounts);
    this.state = this.build(opts.config);
    const configured = opts.config !== undefined || opts.tokenAuthFile !== undefined || opts.clientCaFile !== undefined;
    // a local development server (no authentication flags, loopback only) serves requests without credentials as its admin
    this.posture = !configured && isLoopback(opts.bindAddress) && opts.anonymousAuth !== false ? 'local-admin' : 'authenticated';
  }

  private build(config: AuthenticationConfiguration | undefined): JwtState {
    const jwt = (config?.jwt ?? []).map((j) => new JwtAuthenticator(j, this.opts.log));
    for (const j of jwt) j.start();
    return { jwt, anonymous: config?.anonymous };
  }

  /**
   * Replaces the AuthenticationConfiguration (reload); compiles before swapping, so a failure keeps the old one.
   * The new JWT authenticators get their first discovery attempt before they take over, so a reload does not
   * turn working tokens away while discovery is under way; the old ones stop retrying.
   */
  async reconfigure(config: AuthenticationConfiguration): Promise<void> {
    const next = this.build(config);
    await Promise.all(next.jwt.map((j) => j.firstAttempt()));
    const old = this.state;
    this.state = next;
    for (const j of old.jwt) j.stop();
  }

  /** Stops the JWT authenticators' background discovery. */
  close(): void {
    for (const j of this.state.jwt) j.stop();
  }

  /** Whether a request without credentials on this path is anonymous (upstream anonymous + conditions). */
  anonymousAllowed(path: string): boolean {
    const a = this.state.anonymous;
    if (a) return a.enabled && (!a.conditions?.length || a.conditions.some((c) => c.path === path));
    return this.opts.anonymousAuth ?? true;
  }

  /** The request's user; throws AuthenticationFailed (401). */
  async authenticateRequest(req: IncomingMessage, path: string): Promise<UserInfo> {
    const cert = this.opts.clientCaFile ? authenticateClientCert(req) : undefined;
    if (cert && 'user' in cert) return withAuthenticatedGroup(cert.user);
    const token = bearerToken(req.headers.authorization);
    if (token !== undefined) {
      const r = await this.authenticateToken(token);
      if ('user' in r) return withAuthenticatedGroup(r.user);
      throw new AuthenticationFailed(r.error);
    }
    if (cert) throw new AuthenticationFailed(cert.error);
    if (this.posture === 'local-admin') return localAdmin();
    if (this.anonymousAllowed(path)) return anonymousUser();
    throw new AuthenticationFailed('no credentials');
  }

  /**
   * A bearer token's user (also TokenReview) and the audiences it is good for. `audiences` are the requested ones
   * (TokenReview spec.audiences); none means the API audiences. Audience-agnostic authenticators (token file, the
   * local admin token, JWT authenticators) are wrapped as upstream's WrapAudienceAgnosticToken(APIAudiences, …):
   * they authenticate only when the requested audiences intersect the API audiences, and report that intersection.
   * Service account tokens check their own `aud` against the requested audiences.
   */
  async authenticateToken(token: string, audiences?: string[]): Promise<{ user: UserInfo; audiences: string[] } | { error: string }> {
    if (token === '') return { error: 'invalid bearer token' };
    const apiAudiences = this.serviceAccounts.apiAudiences;
    const requested = audiences?.length ? audiences : apiAudiences;
    // upstream audagnostic.go: no intersection -> not authenticated (checked before the delegate runs)
    const implicit = intersect(requested, apiAudiences);
    const fromFile = this.tokenFile?.lookup(token);
    if (fromFile) return implicit.length ? { user: fromFile, audiences: implicit } : { error: 'invalid bearer token' };
    if (this.opts.adminToken && sameSecret(token, this.opts.adminToken)) return implicit.length ? { user: localAdmin(), audiences: implicit } : { error: 'invalid bearer token' };
    const iss = unverifiedIssuer(token);
    if (iss === undefined) return { error: 'invalid bearer token' };
    try {
      if (iss === this.serviceAccounts.issuer) {
        const claims = await this.serviceAccounts.verify(token, requested);
        await this.checkServiceAccountObjects(claims.serviceAccount, claims.bound);
        return { user: serviceAccountUser(claims), audiences: claims.audiences };
      }
      const jwt = this.state.jwt.find((j) => j.issuerUrl === iss);
      if (!jwt || !implicit.length) return { error: 'invalid bearer token' };
      return { user: await jwt.authenticate(token), audiences: implicit };
    } catch (e) {
      if (e instanceof TokenError) return { error: e.message };
      throw e;
    }
  }

  /** A service account token is valid only while its service account (and bound object) exists unchanged. */
  private async checkServiceAccountObjects(sa: { namespace: string; name: string; uid: string }, bound?: { kind: 'Pod' | 'Secret'; name: string; uid: string }): Promise<void> {
    const live = await this.opts.lookup('ServiceAccount', sa.namespace, sa.name);
    if (!live || live.metadata?.deletionTimestamp) throw new TokenError(`service account ${sa.namespace}/${sa.name} has been deleted`);
    if (live.metadata?.uid !== sa.uid) throw new TokenError(`service account UID (${sa.uid}) does not match claim (${live.metadata?.uid})`);
    if (!bound) return;
    const obj = await this.opts.lookup(bound.kind, sa.namespace, bound.name);
    if (!obj || obj.metadata?.deletionTimestamp) throw new TokenError(`${bound.kind.toLowerCase()} ${sa.namespace}/${bound.name} the token is bound to has been deleted`);
    if (bound.uid && obj.metadata?.uid !== bound.uid) throw new TokenError(`${bound.kind.toLowerCase()} UID (${obj.metadata?.uid}) does not match claim (${bound.uid})`);
  }
}

/** `Authorization: Bearer <token>` (scheme case-insensitive); undefined when there is no bearer header (upstream bearertoken). */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // upstream: SplitN(header, " ", 3); the second part is the token, an empty one is an invalid token
  const parts = header.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1]!;
}

/** Members of `a` also in `b`, in `a`'s order (upstream implicit.Intersect(target) keeps the target's order). */
function intersect(a: string[], b: string[]): string[] {
  return a.filter((x) => b.includes(x));
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
