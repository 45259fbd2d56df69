// The authentication step of the handler chain (http/chain.ts): every request not on the chain's short
// public list gets its user here (or a 401), with requested impersonation parsed and checked. Later
// steps (authorization, REST handlers) read the result from the request context (request/context.ts).
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { errors } from '../../api/status.js';
import { AuthenticationFailed, Authenticator } from '../auth/authenticator.js';
import { ConfigReloader, loadAuthenticationConfig } from '../auth/config-reload.js';
import { ImpersonationError, impersonatedUser, impersonationChecks, parseImpersonation, type ImpersonationCheck, type ImpersonationRequest } from '../auth/impersonation.js';
import { SYSTEM_MASTERS, type UserInfo } from '../auth/user.js';
import type { ServerFlags } from '../flags.js';
import type { TypeRegistry } from '../registry/registry.js';
import type { RevisionedStore } from '../storage/types.js';
import { setRequestAuth, type RequestAuth } from '../request/context.js';
import { resourceStoreFor } from '../registry/resource-store.js';

/** Decides one impersonated attribute (the authorizer's `impersonate` verb). */
export type ImpersonationAuthorizer = (user: UserInfo, check: ImpersonationCheck) => Promise<boolean> | boolean;

/** Until an authorizer is configured only system:masters may impersonate (their upstream superuser shortcut). */
export const mastersOnly: ImpersonationAuthorizer = (user) => user.groups.includes(SYSTEM_MASTERS);

export interface Authentication {
  readonly authenticator: Authenticator;
  /** Authenticates a request (401 StatusError when it fails) and records the result. */
  authenticate(req: IncomingMessage, path: string): Promise<RequestAuth>;
  /** Replaced by the authorization layer. */
  authorizeImpersonation: ImpersonationAuthorizer;
  /** Reloads the configuration file now (tests; the file watcher calls it on change). */
  reload(): Promise<void>;
  close(): void;
}

export interface AuthenticationDeps {
  flags: ServerFlags;
  store: RevisionedStore;
  types: TypeRegistry;
  adminToken?: string;
  log(line: string): void;
}

/** https.createServer options asking for (but not requiring) a client certificate verified by --client-ca-file. */
export function tlsClientAuthOptions(flags: Pick<ServerFlags, 'clientCaFile'>): { requestCert?: boolean; rejectUnauthorized?: boolean; ca?: Buffer } {
  if (!flags.clientCaFile) return {};
  return { requestCert: true, rejectUnauthorized: false, ca: readFileSync(flags.clientCaFile) };
}

/** Start-up log lines that make the authentication posture visible. */
export function describeAuthentication(auth: Authentication, flags: ServerFlags): string[] {
  const a = auth.authenticator;
  if (a.posture === 'local-admin')
    return [`authentication: none configured; requests without credentials run as system:admin (local development server on ${flags.bindAddress}; pass --authentication-config, --token-auth-file or --client-ca-file, or --anonymous-auth=false, to require credentials)`];
  const on = [flags.clientCaFile && 'client certificates', flags.tokenAuthFile && 'token file', 'service account tokens', flags.authenticationConfig && 'JWT (AuthenticationConfiguration)'].filter(Boolean);
  return [`authentication: ${on.join(', ')}; anonymous requests ${a.anonymousAllowed('/api') ? 'allowed (system:anonymous)' : 'rejected (401) except where the configuration allows them'}`];
}

export async function createAuthentication(d: AuthenticationDeps): Promise<Authentication> {
  const { flags } = d;
  const anonymousAuthFlagSet = flags.anonymousAuth !== undefined;
  const config = flags.authenticationConfig ? await loadAuthenticationConfig(flags.authenticationConfig, anonymousAuthFlagSet) : undefined;
  const authenticator = new Authenticator({
    tokenAuthFile: flags.tokenAuthFile,
    clientCaFile: flags.clientCaFile,
    anonymousAuth: flags.anonymousAuth,
    config,
    bindAddress: flags.bindAddress,
    adminToken: d.adminToken,
    serviceAccounts: {
      issuer: flags.serviceAccountIssuer,
      signingKeyFile: flags.serviceAccountSigningKeyFile,
      keyFiles: flags.serviceAccountKeyFiles,
      apiAudiences: flags.apiAudiences,
      // a memory store forgets its service accounts on restart: its key need not outlive it either
      dataDir: flags.store === 'memory' ? undefined : flags.dataDir,
    },
    lookup: async (kind, namespace, name) => {
      const plural = kind === 'ServiceAccount' ? 'serviceaccounts' : kind === 'Pod' ? 'pods' : 'secrets';
      const type = d.types.lookup('', 'v1', plural);
      return type ? (await resourceStoreFor(type, d.store).readShared(namespace, name))?.obj : undefined; // read only
    },
    log: d.log,
  });
  const reloader = flags.authenticationConfig
    ? new ConfigReloader({ file: flags.authenticationConfig, anonymousAuthFlagSet, apply: (c) => authenticator.reconfigure(c), log: d.log })
    : undefined;
  await reloader?.start();
  const auth: Authentication = {
    authenticator,
    authorizeImpersonation: mastersOnly,
    async authenticate(req, path) {
      let user: UserInfo;
      try {
        user = await authenticator.authenticateRequest(req, path);
      } catch (e) {
        // the reason stays server-side: clients only learn "Unauthorized" (upstream); reasons never hold the credential
        if (e instanceof AuthenticationFailed) {
          if (flags.requestLog && e.message !== 'no credentials') d.log(`unable to authenticate the request: ${e.message}`);
          throw errors.unauthorized();
        }
        throw e;
      }
      // credentials go no further than this step (upstream removes the header once authenticated)
      // (only when present: a delete turns every request's header object into a slow dictionary)
      if (req.headers.authorization !== undefined) delete req.headers.authorization;
      let impersonation: ImpersonationRequest | undefined;
      try {
        // req.headersDistinct builds a fresh object of every header: only when an Impersonate-* one is there
        impersonation = hasImpersonationHeader(req.rawHeaders) ? parseImpersonation(req.headersDistinct) : undefined;
      } catch (e) {
        if (e instanceof ImpersonationError) throw errors.badRequest(e.message);
        throw e;
      }
      let result: RequestAuth = { user };
      if (impersonation) {
        for (const check of impersonationChecks(impersonation)) {
          if (!(await auth.authorizeImpersonation(user, check))) {
            const where = check.namespace ? `in the namespace "${check.namespace}"` : 'at the cluster scope';
            const resource = check.subresource ? `${check.resource}/${check.subresource}` : check.resource;
            const group = check.resource === 'serviceaccounts' ? '' : 'authentication.k8s.io';
            throw errors.forbidden({ group, resource: check.resource, name: check.name }, `User "${user.name}" cannot impersonate resource "${resource}" in API group "${group}" ${where}`);
          }
        }
        result = { user: impersonatedUser(impersonation), impersonator: user, impersonation };
      }
      setRequestAuth(req, result);
      return result;
    },
    reload: () => reloader?.reload() ?? Promise.resolve(),
    close: () => {
      reloader?.close();
      authenticator.close();
    },
  };
  return auth;
}

/** Whether any header name starts with `Impersonate-` (rawHeaders alternates names and values). */
function hasImpersonationHeader(raw: string[]): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    const h = raw[i]!;
    if (h.length >= 12 && (h.charCodeAt(0) | 0x20) === 0x69 && h.slice(0, 12).toLowerCase() === 'impersonate-') return true;
  }
  return false;
}
