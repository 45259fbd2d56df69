// authentication.service.io/v1 endpoints: SelfSubjectReview (`kubectl auth whoami`), TokenReview
// and serviceaccounts/{name}/token (TokenRequest, `kubectl create token`). Nothing is stored.
import { errors, failure } from '../../../api/status.js';
import { withAuthenticatedGroup, userInfoJson } from '../../auth/user.js';
import type { BoundObject } from '../../auth/service-account.js';
import { nowTimestamp } from '../../registry/resource-store.js';
import type { TypeRegistry } from '../../registry/registry.js';
import { resourceStoreFor } from '../../registry/resource-store.js';
import type { Authentication } from '../authentication.js';
import type { AdmissionChain } from '../admission.js';
import { admitCreate } from './write.js';
import { canonicalGroup } from '../../registry/names.js';
import type { KubeObject } from '../../registry/types.js';
import type { RequestScope } from '../scope.js';
import { checkKind, decodeObjectBody, dryRunOf } from './decode.js';
import { negotiateFor, respondObject } from './output.js';

/** What the review and token handlers use of the server (a part of ApiDeps). */
interface ApiDeps {
  types: TypeRegistry;
  authentication?: Authentication;
  admission: AdmissionChain;
}

type Obj = Record<string, any>;
type Handler = (s: RequestScope, deps: ApiDeps) => Promise<void>;

/** TokenRequest limits (upstream pkg/apis/authentication/validation and defaults). */
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;
const DEFAULT_EXPIRATION_SECONDS = 3600;

const AUTHN = 'authentication.service.io';

/** The handler of an authentication endpoint, undefined for any other resource. */
export function authenticationHandler(s: RequestScope): Handler | undefined {
  const t = s.type;
  if (t.group === AUTHN && t.kind === 'SelfSubjectReview') return selfSubjectReview;
  if (t.group === AUTHN && t.kind === 'TokenReview') return tokenReview;
  if (t.group === '' && t.plural === 'serviceaccounts' && s.info.subresource === 'token') return tokenRequest;
  return undefined;
}

function authOf(deps: ApiDeps) {
  if (!deps.authentication) throw errors.unavailable('authentication is not initialized');
  return deps.authentication;
}

async function body(s: RequestScope, kind: string): Promise<KubeObject> {
  const { obj } = await decodeObjectBody(s);
  checkKind(s, obj, kind, AUTHN, 'v1');
  return obj;
}

const created = (s: RequestScope, o: Obj) => respondObject(s, 201, o as KubeObject, negotiateFor(s, { transforms: false }));

async function selfSubjectReview(s: RequestScope, deps: ApiDeps): Promise<void> {
  await admitCreate(s, deps.admission, await body(s, 'SelfSubjectReview'));
  created(s, { kind: 'SelfSubjectReview', apiVersion: s.apiVersion, metadata: { creationTimestamp: nowTimestamp() }, status: { userInfo: userInfoJson(s.userInfo) } });
}

async function tokenReview(s: RequestScope, deps: ApiDeps): Promise<void> {
  const auth = authOf(deps);
  const review = (await admitCreate(s, deps.admission, await body(s, 'TokenReview'), (r) => {
    const t = ((r.spec ?? {}) as Obj).token;
    if (typeof t !== 'string' || t === '') throw errors.badRequest('token is required for TokenReview in authentication');
  })) as Obj;
  const spec = (review.spec ?? {}) as Obj;
  const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a: unknown): a is string => typeof a === 'string') : [];
  const r = await auth.authenticator.authenticateToken(spec.token, audiences);
  const status: Obj = 'user' in r ? { authenticated: true, user: userInfoJson(withAuthenticatedGroup(r.user)), audiences: r.audiences } : { user: {}, error: r.error };
  created(s, { kind: 'TokenReview', apiVersion: s.apiVersion, metadata: { ...(review.metadata ?? {}), creationTimestamp: nowTimestamp() }, spec, status });
}

function invalidTokenRequest(name: string, field: string, value: unknown, detail: string) {
  return errors.invalid(AUTHN, 'TokenRequest', name, [{ type: 'FieldValueInvalid', field, detail: `Invalid value: ${JSON.stringify(value)}: ${detail}` }]);
}

async function tokenRequest(s: RequestScope, deps: ApiDeps): Promise<void> {
  const auth = authOf(deps);
  const { obj } = await decodeObjectBody(s);
  const spelled = typeof obj.apiVersion === 'string' && obj.apiVersion.includes('/') ? obj.apiVersion.slice(0, obj.apiVersion.indexOf('/')) : '';
  checkKind(s, obj, 'TokenRequest', AUTHN, 'v1');
  const ns = s.info.namespace;
  const name = s.info.name;
  // a create of serviceaccounts/token (kind authentication/v1 TokenRequest): mutating admission, the checks of
  // upstream's TokenREST.Create, then validating admission
  const req = (await admitCreate(
    s,
    deps.admission,
    obj,
    (o) => {
      const r = o as Obj;
      const meta = (r.metadata ??= {}) as Obj;
      if (meta.name && meta.name !== name) throw invalidTokenRequest(name, 'metadata.name', meta.name, 'must match the service account name if specified');
      if (meta.namespace && meta.namespace !== ns) throw invalidTokenRequest(name, 'metadata.namespace', meta.namespace, 'must match the service account namespace if specified');
      const spec = (r.spec ??= {}) as Obj;
      const exp = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
      if (typeof exp !== 'number' || !Number.isInteger(exp)) throw invalidTokenRequest(name, 'spec.expirationSeconds', exp, 'must be an integer');
      if (exp < MIN_EXPIRATION_SECONDS) throw invalidTokenRequest(name, 'spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes');
      if (exp > MAX_EXPIRATION_SECONDS) throw invalidTokenRequest(name, 'spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds');
      spec.expirationSeconds = exp;
    },
    { group: AUTHN, version: 'v1', kind: 'TokenRequest' },
  )) as Obj;
  const meta = req.metadata as Obj;
  const spec = req.spec as Obj;
  const exp = spec.expirationSeconds as number;
  const sa = (await s.rs.readShared(ns, name))?.obj; // read only
  if (!sa) throw errors.notFound(s.rs.target(name));
  const audiences: string[] = Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences.map(String) : auth.authenticator.serviceAccounts.apiAudiences;
  spec.audiences = audiences;
  const bound = await boundObject(s, deps.types, ns, spec.boundObjectRef);
  const apiVersion = `${canonicalGroup(spelled) === AUTHN ? spelled : AUTHN}/v1`;
  const meta2 = { ...meta, name, namespace: ns, creationTimestamp: nowTimestamp() };
  // a dry run validates everything but issues no token (upstream returns the request with an empty status)
  if (dryRunOf(s.query)) return created(s, { kind: 'TokenRequest', apiVersion, metadata: meta2, spec, status: { token: '', expirationTimestamp: null } });
  const tokens = auth.authenticator.serviceAccounts;
  const { token, expires } = await tokens.issue({ namespace: ns, name, uid: sa.metadata!.uid! }, audiences, exp, bound);
  created(s, {
    kind: 'TokenRequest',
    apiVersion,
    metadata: meta2,
    spec,
    status: { token, expirationTimestamp: expires.toISOString().replace(/\.\d{3}Z$/, 'Z') },
  });
}

/** spec.boundObjectRef: a Pod or Secret in the namespace, matching its uid when given. */
async function boundObject(s: RequestScope, types: TypeRegistry, ns: string, ref: unknown): Promise<BoundObject | undefined> {
  if (ref === undefined || ref === null) return undefined;
  const r = ref as Obj;
  const kind = r.kind;
  if ((kind !== 'Pod' && kind !== 'Secret') || (r.apiVersion ?? 'v1') !== 'v1')
    throw errors.badRequest(`cannot bind token for serviceaccount "${s.info.name}" to object of type ${String(r.apiVersion ?? '')}, Kind=${String(kind ?? '')}`);
  if (typeof r.name !== 'string' || r.name === '') throw errors.badRequest('boundObjectRef.name is required');
  const plural = kind === 'Pod' ? 'pods' : 'secrets';
  const type = types.lookup('', 'v1', plural);
  const live = type ? await resourceStoreFor(type, s.rs.store).readShared(ns, r.name) : undefined; // read only
  if (!live) throw errors.notFound({ group: '', resource: plural, name: r.name });
  const uid = live.obj.metadata!.uid!;
  if (r.uid && r.uid !== uid)
    throw failure(409, 'Conflict', `Operation cannot be fulfilled on ${plural} "${r.name}": the UID in the bound object reference (${r.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  r.uid = uid;
  r.apiVersion = 'v1';
  return { kind, name: r.name, uid };
}
