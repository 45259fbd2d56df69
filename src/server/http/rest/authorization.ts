// authorization.service.io/v1 access reviews (upstream pkg/registry/authorization): SelfSubjectAccessReview
// (`kubectl auth can-i`), SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview
// (`kubectl auth can-i --list`). Each asks the server's authorizer chain; nothing is stored.
import { errors } from '../../../api/status.js';
import type { UserInfo } from '../../auth/user.js';
import type { Attributes } from '../../authz/attributes.js';
import { AUTHZ_GROUP } from '../../registry/builtin-authorization.js';
import type { KubeObject } from '../../registry/types.js';
import * as fe from '../../registry/schema/field-errors.js';
import type { FieldError } from '../../registry/types.js';
import { requestUser } from '../../request/context.js';
import type { Authorization } from '../authorization.js';
import type { AdmissionChain } from '../admission.js';
import { admitCreate } from './write.js';
import type { RequestScope } from '../scope.js';
import { checkKind, decodeObjectBody } from './decode.js';
import { negotiateFor, respondObject } from './output.js';

type Obj = Record<string, any>;
type Handler = (s: RequestScope, z: Authorization, admission: AdmissionChain) => Promise<void>;

const HANDLERS: Record<string, Handler> = {
  SelfSubjectAccessReview: selfSubjectAccessReview,
  SubjectAccessReview: subjectAccessReview,
  LocalSubjectAccessReview: localSubjectAccessReview,
  SelfSubjectRulesReview: selfSubjectRulesReview,
};

/** The handler of an access review endpoint, undefined for any other resource. */
export function authorizationHandler(s: RequestScope): Handler | undefined {
  return s.type.group === AUTHZ_GROUP ? HANDLERS[s.type.kind] : undefined;
}

async function body(s: RequestScope): Promise<Obj> {
  const { obj } = await decodeObjectBody(s);
  checkKind(s, obj);
  return obj as Obj;
}

const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function invalid(s: RequestScope, name: string, errs: FieldError[]) {
  return errors.invalid(s.type.group, s.type.kind, name, errs);
}

/** Upstream ValidateSelfSubjectAccessReviewSpec / ValidateSubjectAccessReviewSpec: exactly one attribute set. */
function specErrors(spec: Obj): FieldError[] {
  const out: FieldError[] = [];
  const r = spec.resourceAttributes;
  const n = spec.nonResourceAttributes;
  if (r !== undefined && r !== null && !isObj(r)) out.push(fe.invalid('spec.resourceAttributes', r, 'must be an object'));
  if (n !== undefined && n !== null && !isObj(n)) out.push(fe.invalid('spec.nonResourceAttributes', n, 'must be an object'));
  if (isObj(r) && isObj(n)) out.push(fe.invalid('spec.nonResourceAttributes', n, 'cannot be specified in combination with resourceAttributes'));
  if (!isObj(r) && !isObj(n)) out.push(fe.required('spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  return out;
}

/** The attributes a review asks about (upstream authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom). */
function attributesOf(user: UserInfo, spec: Obj): Attributes {
  const r = spec.resourceAttributes;
  if (isObj(r))
    return {
      user,
      verb: str(r.verb),
      resourceRequest: true,
      path: '',
      apiGroup: str(r.group),
      apiVersion: str(r.version),
      resource: str(r.resource),
      subresource: str(r.subresource),
      namespace: str(r.namespace),
      name: str(r.name),
    };
  const n = spec.nonResourceAttributes as Obj;
  return { user, verb: str(n.verb), resourceRequest: false, path: str(n.path), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

async function answer(s: RequestScope, z: Authorization, review: Obj, user: UserInfo): Promise<void> {
  const r = await z.authorize(attributesOf(user, review.spec));
  const status: Obj = { allowed: r.decision === 'Allow' };
  if (r.decision === 'Deny') status.denied = true;
  if (r.reason) status.reason = r.reason;
  if (r.error) status.evaluationError = r.error;
  respond(s, review, status);
}

function respond(s: RequestScope, review: Obj, status: Obj): void {
  const out: Obj = { kind: s.type.kind, apiVersion: s.apiVersion, metadata: isObj(review.metadata) ? review.metadata : {}, spec: review.spec, status };
  respondObject(s, 201, out as KubeObject, negotiateFor(s, { transforms: false }));
}

const requester = (s: RequestScope) => requestUser(s.req);

/**
 * The review's admission, as upstream's create handler (mutating) and REST Create (its validation, then
 * createValidation): `check` validates the admitted review.
 */
async function admitted(s: RequestScope, admission: AdmissionChain, review: Obj, check: (r: Obj) => void): Promise<Obj> {
  return (await admitCreate(s, admission, review as KubeObject, (o) => {
    const r = o as Obj;
    r.spec = isObj(r.spec) ? r.spec : {};
    check(r);
  })) as Obj;
}

async function selfSubjectAccessReview(s: RequestScope, z: Authorization, admission: AdmissionChain): Promise<void> {
  const review = await admitted(s, admission, await body(s), (r) => {
    const errs = specErrors(r.spec);
    if (errs.length) throw invalid(s, str(r.metadata?.name), errs);
  });
  await answer(s, z, review, requester(s));
}

/** The user a SubjectAccessReview asks about (upstream: user, groups, uid and extra as given). */
function subjectOf(spec: Obj): UserInfo {
  const extra: Record<string, string[]> = {};
  if (isObj(spec.extra)) for (const [k, v] of Object.entries(spec.extra)) extra[k] = strs(v);
  return { name: str(spec.user), uid: str(spec.uid), groups: strs(spec.groups), extra };
}

function subjectErrors(spec: Obj): FieldError[] {
  const errs = specErrors(spec);
  if (!str(spec.user) && strs(spec.groups).length === 0) errs.push(fe.invalid('spec.user', str(spec.user), 'at least one of user or group must be specified'));
  return errs;
}

async function subjectAccessReview(s: RequestScope, z: Authorization, admission: AdmissionChain): Promise<void> {
  const review = await admitted(s, admission, await body(s), (r) => {
    const errs = subjectErrors(r.spec);
    if (errs.length) throw invalid(s, str(r.metadata?.name), errs);
  });
  await answer(s, z, review, subjectOf(review.spec));
}

async function localSubjectAccessReview(s: RequestScope, z: Authorization, admission: AdmissionChain): Promise<void> {
  const ns = s.info.namespace;
  const review = await admitted(s, admission, await body(s), (r) => {
    const spec = r.spec as Obj;
    const errs = subjectErrors(spec);
    if (isObj(spec.nonResourceAttributes)) errs.push(fe.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
    if (errs.length) throw invalid(s, str(r.metadata?.name), errs);
    // upstream: an empty namespace is defaulted; another one is refused
    if (!str(spec.resourceAttributes.namespace)) spec.resourceAttributes.namespace = ns;
    if (spec.resourceAttributes.namespace !== ns) throw errors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${ns}`);
    if (isObj(r.metadata) && r.metadata.namespace && r.metadata.namespace !== ns)
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  });
  await answer(s, z, review, subjectOf(review.spec));
}

async function selfSubjectRulesReview(s: RequestScope, z: Authorization, admission: AdmissionChain): Promise<void> {
  const review = await admitted(s, admission, await body(s), (r) => {
    if (r.spec.namespace !== undefined && typeof r.spec.namespace !== 'string') throw invalid(s, '', [fe.invalid('spec.namespace', r.spec.namespace, 'must be a string')]);
  });
  const spec = review.spec as Obj;
  const rules = await z.rulesFor(requester(s), str(spec.namespace));
  const status: Obj = { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete };
  if (rules.evaluationError) status.evaluationError = rules.evaluationError;
  respond(s, review, status);
}
