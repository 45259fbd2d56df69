// The authorization step of the handler chain (http/chain.ts), after authentication and max in flight:
// every request not on the public list, resource requests by their RequestInfo attributes, all others as
// non-resource URLs. Impersonation headers are authorized here too (verb `impersonate`, asked by the
// authentication step). A denial is upstream's 403; a request without a user is never allowed.
import type { IncomingMessage } from 'node:http';
import { nodeIdentity, SYSTEM_MASTERS, type UserInfo } from '../auth/user.js';
import type { ImpersonationCheck } from '../auth/impersonation.js';
import { forbidden, nonResourceAttributes, resourceAttributes, type Attributes, type AuthorizationResult, type Authorizer } from '../authz/attributes.js';
import { reconcileBootstrapPolicy } from '../authz/bootstrap-policy.js';
import { AuthorizationConfigReloader, AuthorizationSetupError, authorizersFromConfig, authorizersFromModes, loadAuthorizationConfig } from '../authz/config-source.js';
import { RbacAuthorizer } from '../authz/rbac.js';
import { NodeAuthorizer } from '../authz/node.js';
import { NODE_RULES } from '../authz/node-rules.js';
import { CachedRbacSource } from '../authz/rbac-source.js';
import { alwaysAllow, UnionAuthorizer } from '../authz/union.js';
import { WebhookAuthorizer } from '../authz/webhook.js';
import { AggregationController } from '../controllers/clusterrole-aggregation.js';
import type { ServerFlags } from '../flags.js';
import { RBAC_GROUP } from '../registry/builtin-cluster.js';
import type { TypeRegistry } from '../registry/registry.js';
import type { RevisionedStore } from '../storage/types.js';
import type { WatchCacheSet } from '../watch/watch-cache.js';
import type { Authentication } from './authentication.js';
import { requestState, requestUser } from '../request/context.js';
import type { RequestInfo } from '../request/info.js';
import { resourceStoreFor } from '../registry/resource-store.js';
import { escalationCheck } from '../authz/escalation.js';
import type { AdmissionChain } from './admission.js';
import type { AdmissionAuthorizer } from '../admission/cel.js';

export { AuthorizationSetupError };

/** The group of impersonation checks, in our canonical spelling (upstream authentication.k8s.io). */
export const IMPERSONATION_GROUP = 'authentication.service.io';

/** Upstream's privileged group: its members skip every authorizer (authorizerfactory.NewPrivilegedGroups). */
const privilegedGroups: Authorizer = {
  name: 'privileged-groups',
  authorize: (a) => (a.user.groups.includes(SYSTEM_MASTERS) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' }),
};

export interface Authorization {
  /** What the chain is, for the start-up log. */
  readonly description: string;
  readonly rbac: RbacAuthorizer;
  /** RBAC objects are enforced (escalation checks apply). */
  readonly rbacEnabled: boolean;
  authorize(a: Attributes): Promise<AuthorizationResult>;
  /** What a user may do in a namespace, as far as the authorizers can tell (SelfSubjectRulesReview). */
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult>;
  /** 403 unless allowed. */
  require(a: Attributes): Promise<void>;
  /** Authorizes a resource request; remembers its attributes for checks made later in the request. */
  authorizeResource(req: IncomingMessage, info: RequestInfo, query: URLSearchParams): Promise<void>;
  authorizeNonResource(req: IncomingMessage, method: string, path: string): Promise<void>;
  /** Bootstrap policy and the aggregation controller; called once storage is up. */
  start(): Promise<void>;
  reload(): Promise<void>;
  close(): Promise<void>;
}

export interface AuthorizationDeps {
  flags: ServerFlags;
  store: RevisionedStore;
  types: TypeRegistry;
  caches: WatchCacheSet;
  admission: AdmissionChain;
  authentication: Authentication;
  log(line: string): void;
}

export interface RulesResult {
  resourceRules: { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs?: string[] }[];
  incomplete: boolean;
  evaluationError?: string;
}

/** The name a list/watch/deletecollection narrows to with fieldSelector metadata.name= (upstream RequestInfo). */
function selectedName(query: URLSearchParams): string {
  const fs = query.get('fieldSelector');
  if (!fs) return '';
  const parts = fs.split(',');
  if (parts.length !== 1) return '';
  const m = /^metadata\.name==?(.*)$/.exec(parts[0]!.trim());
  const name = m?.[1] ?? '';
  return name && name !== '.' && name !== '..' && !/[/%]/.test(name) ? name : '';
}

/** Which authorizers run when no authorization flag is given (README: Authorization). */
function defaultModes(auth: Authentication): string[] {
  // a loopback server without credentials configured keeps today's local admin posture;
  // once authentication is configured (or the server is reachable) RBAC decides
  // once authentication is configured the kubelets are authorized as upstream's kubeadm sets it: Node,RBAC
  return auth.authenticator.posture === 'local-admin' ? ['AlwaysAllow'] : ['Node', 'RBAC'];
}

export async function createAuthorization(d: AuthorizationDeps): Promise<Authorization> {
  const { flags } = d;
  if (flags.authorizationMode?.length && flags.authorizationConfig)
    throw new AuthorizationSetupError('--authorization-config cannot be used with --authorization-mode');
  const source = new CachedRbacSource(d.caches, d.store);
  const rbac = new RbacAuthorizer(source);
  const node = new NodeAuthorizer(d.caches, d.store);
  const parts = {
    rbac,
    node,
    log: d.log,
    webhook: {
      configFile: flags.authorizationWebhookConfigFile,
      version: flags.authorizationWebhookVersion,
      authorizedTTL: flags.authorizationWebhookCacheAuthorizedTtl,
      unauthorizedTTL: flags.authorizationWebhookCacheUnauthorizedTtl,
    },
  };
  let list: Authorizer[];
  let describe: string;
  if (flags.authorizationConfig) {
    const cfg = await loadAuthorizationConfig(flags.authorizationConfig);
    list = authorizersFromConfig(cfg, parts);
    describe = `AuthorizationConfiguration ${flags.authorizationConfig} (${cfg.authorizers.map((a) => `${a.type}:${a.name}`).join(', ')})`;
  } else {
    const modes = flags.authorizationMode?.length ? flags.authorizationMode : defaultModes(d.authentication);
    list = authorizersFromModes(modes, parts);
    const why = modes.includes('RBAC') ? 'credentials are configured or the server is reachable beyond loopback' : 'local development server, no credentials configured';
    describe = `${modes.join(',')}${flags.authorizationMode?.length ? '' : ` (default: ${why})`}`;
  }
  const union = new UnionAuthorizer([privilegedGroups, ...list]);
  const rbacEnabled = () => union.authorizers.includes(rbac);
  const allowsAll = () => union.authorizers.length === 2 && union.authorizers[1] === alwaysAllow;
  const reloader = flags.authorizationConfig
    ? new AuthorizationConfigReloader(
        flags.authorizationConfig,
        (cfg) => {
          union.authorizers = [privilegedGroups, ...authorizersFromConfig(cfg, parts)];
          describe = `AuthorizationConfiguration ${flags.authorizationConfig} (${cfg.authorizers.map((a) => `${a.type}:${a.name}`).join(', ')})`;
        },
        d.log,
      )
    : undefined;
  await reloader?.start();
  let aggregation: AggregationController | undefined;

  const z: Authorization = {
    get description() {
      return `authorization: ${describe}`;
    },
    rbac,
    get rbacEnabled() {
      return rbacEnabled();
    },
    authorize: (a) => union.authorize(a),
    async rulesFor(user, namespace) {
      // upstream's rule resolvers, one per authorizer (the privileged-group shortcut has none)
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errs: string[] = [];
      for (const a of union.authorizers) {
        if (a === alwaysAllow) {
          out.resourceRules.push({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
          out.nonResourceRules.push({ verbs: ['*'], nonResourceURLs: ['*'] });
        } else if (a === rbac) {
          const r = await rbac.rulesFor(user, namespace);
          for (const x of r.rules) {
            if (x.nonResourceURLs?.length) out.nonResourceRules.push({ verbs: x.verbs, nonResourceURLs: x.nonResourceURLs });
            else out.resourceRules.push(omitEmpty({ verbs: x.verbs, apiGroups: x.apiGroups, resources: x.resources, resourceNames: x.resourceNames }));
          }
          if (r.incomplete) {
            out.incomplete = true;
            errs.push(r.error);
          }
        } else if (a === node) {
          // upstream's Node authorizer resolves its static rules for nodes (the graph-checked ones included)
          if (nodeIdentity(user)) for (const x of NODE_RULES) out.resourceRules.push(omitEmpty({ verbs: [...x.verbs], apiGroups: x.apiGroups, resources: x.resources }));
        } else if (a instanceof WebhookAuthorizer) {
          out.incomplete = true;
          errs.push('webhook authorizer does not support user rule resolution');
        }
      }
      if (errs.length) out.evaluationError = errs.join(', ');
      return out;
    },
    async require(a) {
      const r = await union.authorize(a);
      if (r.decision !== 'Allow') throw forbidden(a, r.reason);
    },
    async authorizeResource(req, info, query) {
      // no user is never "allowed": a request that skipped authentication fails here
      const user = requestUser(req);
      const attrs = resourceAttributes(user, info);
      if (!attrs.name && (attrs.verb === 'list' || attrs.verb === 'watch' || attrs.verb === 'deletecollection')) attrs.name = selectedName(query);
      const state = requestState(req);
      state.attrs = attrs;
      state.authorizeVerb = (verb) => z.require({ ...attrs, verb });
      if (allowsAll()) return;
      await z.require(attrs);
    },
    async authorizeNonResource(req, method, path) {
      const user = requestUser(req);
      if (allowsAll()) return;
      await z.require(nonResourceAttributes(user, method, path));
    },
    async start() {
      const rs = (plural: string) => resourceStoreFor(d.types.lookup(RBAC_GROUP, 'v1', plural)!, d.store);
      await reconcileBootstrapPolicy({ clusterRoles: rs('clusterroles'), clusterRoleBindings: rs('clusterrolebindings'), admission: d.admission }, d.log);
      aggregation = new AggregationController(source, { rs: rs('clusterroles'), admission: d.admission }, d.log, z);
      await aggregation.start();
    },
    reload: () => reloader?.reload() ?? Promise.resolve(),
    async close() {
      reloader?.close();
      await aggregation?.stop();
    },
  };
  // impersonation: each header is one `impersonate` check (upstream filters/impersonation.go)
  d.authentication.authorizeImpersonation = async (user: UserInfo, check: ImpersonationCheck) => {
    const a: Attributes = {
      user,
      verb: 'impersonate',
      resourceRequest: true,
      path: '',
      apiGroup: check.resource === 'serviceaccounts' ? '' : IMPERSONATION_GROUP,
      apiVersion: '',
      resource: check.resource,
      subresource: check.subresource ?? '',
      namespace: check.namespace ?? '',
      name: check.name,
    };
    await z.require(a);
    return true;
  };
  d.admission.add(escalationCheck(z));
  d.admission.add({ name: 'RBACFreshness', validate: (a) => void (a.type.group === RBAC_GROUP && source.markWritten()) });
  return z;
}

function omitEmpty<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (Array.isArray(o[k]) && (o[k] as unknown[]).length === 0) delete o[k];
  return o;
}

/** The authorizer chain as the admission CEL `authorizer` variable sees it (ValidatingAdmissionPolicy). */
export function admissionAuthorizer(z: Pick<Authorization, 'authorize'>): AdmissionAuthorizer {
  return async (a) => {
    const r = await z.authorize({
      user: { name: a.user.username, uid: a.user.uid ?? '', groups: a.user.groups ?? [], extra: a.user.extra ?? {} },
      verb: a.verb,
      resourceRequest: a.path === undefined,
      path: a.path ?? '',
      apiGroup: a.group ?? '',
      apiVersion: a.version ?? '',
      resource: a.resource ?? '',
      subresource: a.subresource ?? '',
      namespace: a.namespace ?? '',
      name: a.name ?? '',
    });
    return { decision: r.decision === 'Allow' ? 'allow' : r.decision === 'Deny' ? 'deny' : 'no-opinion', reason: r.reason, error: r.error };
  };
}
