// admissionregistration.service.io/v1: webhook configurations and ValidatingAdmissionPolicy{,Binding}, with
// upstream's defaults (k8s.io/api/admissionregistration/v1 defaults.go) and validation (pkg/apis/admissionregistration/validation).
import { type Obj, ageColumn, arr, builtinType, col, ensure, obj, setDefault, str } from './builtin-helpers.js';
import * as fe from './schema/field-errors.js';
import type { FieldError, KubeObject, ResourceType, Strategy } from './types.js';
import { compileAdmissionCel } from '../admission/cel.js';

export const ADMISSION_GROUP = 'admissionregistration.service.io';
const AR = 'io.k8s.api.admissionregistration.v1.';

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const FAILURE = ['Fail', 'Ignore'];
const MATCH_POLICY = ['Equivalent', 'Exact'];
/** v1 accepts only these; Some/Unknown are v1beta1 values (upstream acceptedSideEffects for v1). */
const SIDE_EFFECTS_V1 = ['None', 'NoneOnDryRun'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];
/** upstream: a webhook or policy has at most 64 matchConditions. */
const MAX_MATCH_CONDITIONS = 64;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

// ---- defaults ----

function defaultSelectors(o: Obj): void {
  setDefault(o, 'namespaceSelector', {});
  setDefault(o, 'objectSelector', {});
}

function defaultRules(rules: unknown): void {
  for (const r of arr(rules)) if (r && typeof r === 'object') setDefault(r as Obj, 'scope', '*');
}

function defaultWebhooks(o: KubeObject, mutating: boolean): void {
  for (const w of arr(o.webhooks)) {
    if (!w || typeof w !== 'object') continue;
    const h = w as Obj;
    setDefault(h, 'failurePolicy', 'Fail');
    setDefault(h, 'matchPolicy', 'Equivalent');
    defaultSelectors(h);
    setDefault(h, 'timeoutSeconds', 10);
    if (mutating) setDefault(h, 'reinvocationPolicy', 'Never');
    defaultRules(h.rules);
    const svc = obj(obj(h.clientConfig).service);
    if (obj(h.clientConfig).service) setDefault(svc, 'port', 443);
  }
}

function defaultMatchResources(m: Obj): void {
  setDefault(m, 'matchPolicy', 'Equivalent');
  defaultSelectors(m);
  defaultRules(m.resourceRules);
  defaultRules(m.excludeResourceRules);
}

function defaultPolicy(o: KubeObject): void {
  const spec = ensure(o as Obj, 'spec');
  setDefault(spec, 'failurePolicy', 'Fail');
  if (spec.matchConstraints) defaultMatchResources(obj(spec.matchConstraints));
}

function defaultBinding(o: KubeObject): void {
  const spec = ensure(o as Obj, 'spec');
  if (spec.matchResources) defaultMatchResources(obj(spec.matchResources));
  if (spec.paramRef) setDefault(obj(spec.paramRef), 'parameterNotFoundAction', 'Deny');
}

// ---- validation ----

function validateRule(r: Obj, p: string, named: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(r.operations).map(str);
  if (ops.length === 0) errs.push(fe.required(`${p}.operations`));
  if (ops.length > 1 && ops.includes('*')) errs.push(fe.invalid(`${p}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(fe.notSupported(`${p}.operations[${i}]`, op, OPERATIONS));
  });
  if (arr(r.apiGroups).length === 0) errs.push(fe.required(`${p}.apiGroups`));
  if (arr(r.apiVersions).length === 0) errs.push(fe.required(`${p}.apiVersions`));
  const resources = arr(r.resources).map(str);
  if (resources.length === 0) errs.push(fe.required(`${p}.resources`));
  // upstream validateResources: wildcards may stand beside sub-resources ('*' with 'pods/ephemeralcontainers')
  const wildcardSub = new Set<string>(); // x/*
  const wildcardRes = new Set<string>(); // */x
  let singleWildcard = false;
  // as upstream, the last entry without a sub-resource decides (a later '*' resets it)
  let withoutSub = false;
  for (const [i, res] of resources.entries()) {
    if (res === '') {
      errs.push(fe.required(`${p}.resources[${i}]`));
      continue;
    }
    if (res.split('/').length > 2) errs.push(fe.invalid(`${p}.resources[${i}]`, res, 'must be in the form of <resource> or <resource>/<subresource>'));
    if (res === '*') singleWildcard = true;
    const slash = res.indexOf('/');
    if (slash < 0) {
      withoutSub = res !== '*';
      continue;
    }
    const [name, sub] = [res.slice(0, slash), res.slice(slash + 1)];
    if (wildcardSub.has(name)) errs.push(fe.invalid(`${p}.resources[${i}]`, res, `if '${name}/*' is present, must not specify ${res}`));
    if (wildcardRes.has(sub)) errs.push(fe.invalid(`${p}.resources[${i}]`, res, `if '*/${sub}' is present, must not specify ${res}`));
    if (sub === '*') wildcardSub.add(name);
    if (name === '*') wildcardRes.add(sub);
  }
  if (resources.length > 1 && resources.includes('*/*')) errs.push(fe.invalid(`${p}.resources`, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(fe.invalid(`${p}.resources`, resources, "if '*' is present, must not specify other resources without subresources"));
  if (r.scope !== undefined && !SCOPES.includes(str(r.scope))) errs.push(fe.notSupported(`${p}.scope`, r.scope, SCOPES));
  if (!named && r.resourceNames !== undefined) errs.push(fe.forbidden(`${p}.resourceNames`));
  return errs;
}

function validateMatchConditions(list: unknown, p: string, variables: 'webhook' | 'policy'): FieldError[] {
  const errs: FieldError[] = [];
  const items = arr(list).map(obj);
  if (items.length > MAX_MATCH_CONDITIONS) errs.push(fe.tooMany(p, items.length, MAX_MATCH_CONDITIONS));
  const seen = new Set<string>();
  items.forEach((c, i) => {
    const name = str(c.name);
    if (!name) errs.push(fe.required(`${p}[${i}].name`));
    else if (!QUALIFIED_NAME.test(name) || name.length > 63) errs.push(fe.invalid(`${p}[${i}].name`, name, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"));
    else if (seen.has(name)) errs.push(fe.duplicate(`${p}[${i}].name`, name));
    seen.add(name);
    const expr = str(c.expression);
    if (!expr) errs.push(fe.required(`${p}[${i}].expression`));
    else {
      const r = compileAdmissionCel(expr, { params: variables === 'policy', authorizer: true });
      if (!r.ok) errs.push(fe.invalid(`${p}[${i}].expression`, expr, r.message));
    }
  });
  return errs;
}

function validateClientConfig(cc: Obj, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const hasUrl = cc.url !== undefined && cc.url !== null;
  const hasSvc = cc.service !== undefined && cc.service !== null;
  if (hasUrl === hasSvc) return [fe.required(p, 'exactly one of url or service is required')];
  if (hasUrl) {
    const raw = str(cc.url);
    let u: URL | undefined;
    try {
      u = new URL(raw);
    } catch {
      errs.push(fe.invalid(`${p}.url`, raw, 'host must be specified'));
    }
    if (u) {
      if (u.protocol !== 'https:') errs.push(fe.invalid(`${p}.url`, raw, "'https' is the only allowed URL scheme"));
      if (!u.hostname) errs.push(fe.invalid(`${p}.url`, raw, 'host must be specified'));
      if (u.username || u.password) errs.push(fe.invalid(`${p}.url`, raw, 'user information is not permitted in the URL'));
      if (u.hash || raw.includes('#')) errs.push(fe.invalid(`${p}.url`, raw, 'fragments are not permitted in the URL'));
      if (u.search) errs.push(fe.invalid(`${p}.url`, raw, 'query parameters are not permitted in the URL'));
    }
  } else {
    const s = obj(cc.service);
    if (!str(s.name)) errs.push(fe.required(`${p}.service.name`, 'service name is required'));
    if (!str(s.namespace)) errs.push(fe.required(`${p}.service.namespace`, 'service namespace is required'));
    const path = s.path === undefined ? undefined : str(s.path);
    if (path !== undefined && !path.startsWith('/')) errs.push(fe.invalid(`${p}.service.path`, path, "must start with a '/'"));
    const port = s.port;
    if (port !== undefined && (typeof port !== 'number' || port < 1 || port > 65535))
      errs.push(fe.invalid(`${p}.service.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  if (cc.caBundle !== undefined && typeof cc.caBundle === 'string' && !/^[A-Za-z0-9+/]*={0,2}$/.test(cc.caBundle))
    errs.push(fe.invalid(`${p}.caBundle`, '<redacted>', 'must be base64-encoded'));
  return errs;
}

function validateWebhooks(o: KubeObject, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(o.webhooks).forEach((w, i) => {
    const h = obj(w);
    const p = `webhooks[${i}]`;
    const name = str(h.name);
    if (!name) errs.push(fe.required(`${p}.name`));
    else if (!DNS1123_SUBDOMAIN.test(name) || name.length > 253) errs.push(fe.invalid(`${p}.name`, name, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"));
    else if (name.split('.').length < 3) errs.push(fe.invalid(`${p}.name`, name, 'should be a domain with at least three segments separated by dots'));
    else if (seen.has(name)) errs.push(fe.duplicate(`${p}.name`, name));
    seen.add(name);
    arr(h.rules).forEach((r, j) => errs.push(...validateRule(obj(r), `${p}.rules[${j}]`, false)));
    if (h.failurePolicy !== undefined && !FAILURE.includes(str(h.failurePolicy))) errs.push(fe.notSupported(`${p}.failurePolicy`, h.failurePolicy, FAILURE));
    if (h.matchPolicy !== undefined && !MATCH_POLICY.includes(str(h.matchPolicy))) errs.push(fe.notSupported(`${p}.matchPolicy`, h.matchPolicy, MATCH_POLICY));
    if (h.sideEffects === undefined || h.sideEffects === null || h.sideEffects === '') errs.push(fe.required(`${p}.sideEffects`));
    else if (!SIDE_EFFECTS_V1.includes(str(h.sideEffects))) errs.push(fe.notSupported(`${p}.sideEffects`, h.sideEffects, SIDE_EFFECTS_V1));
    const t = h.timeoutSeconds;
    if (t !== undefined && (typeof t !== 'number' || t < 1 || t > 30)) errs.push(fe.invalid(`${p}.timeoutSeconds`, t, 'the timeout value must be between 1 and 30 seconds'));
    if (mutating && h.reinvocationPolicy !== undefined && !['IfNeeded', 'Never'].includes(str(h.reinvocationPolicy)))
      errs.push(fe.notSupported(`${p}.reinvocationPolicy`, h.reinvocationPolicy, ['IfNeeded', 'Never']));
    const versions = arr(h.admissionReviewVersions).map(str);
    if (versions.length === 0) errs.push(fe.required(`${p}.admissionReviewVersions`, `must specify one of ${REVIEW_VERSIONS.join(', ')}`));
    else if (!versions.some((v) => REVIEW_VERSIONS.includes(v)))
      errs.push(fe.invalid(`${p}.admissionReviewVersions`, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
    errs.push(...validateClientConfig(obj(h.clientConfig), `${p}.clientConfig`));
    errs.push(...validateMatchConditions(h.matchConditions, `${p}.matchConditions`, 'webhook'));
  });
  return errs;
}

function validateMatchResources(m: Obj, p: string, required: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (required && arr(m.resourceRules).length === 0) errs.push(fe.required(`${p}.resourceRules`));
  arr(m.resourceRules).forEach((r, i) => errs.push(...validateRule(obj(r), `${p}.resourceRules[${i}]`, true)));
  arr(m.excludeResourceRules).forEach((r, i) => errs.push(...validateRule(obj(r), `${p}.excludeResourceRules[${i}]`, true)));
  if (m.matchPolicy !== undefined && !MATCH_POLICY.includes(str(m.matchPolicy))) errs.push(fe.notSupported(`${p}.matchPolicy`, m.matchPolicy, MATCH_POLICY));
  return errs;
}

function validatePolicy(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o.spec);
  const withParams = !!spec.paramKind;
  if (spec.paramKind) {
    const pk = obj(spec.paramKind);
    if (!str(pk.kind)) errs.push(fe.required('spec.paramKind.kind'));
    if (!str(pk.apiVersion)) errs.push(fe.required('spec.paramKind.apiVersion'));
  }
  if (!spec.matchConstraints) errs.push(fe.required('spec.matchConstraints'));
  else errs.push(...validateMatchResources(obj(spec.matchConstraints), 'spec.matchConstraints', true));
  if (spec.failurePolicy !== undefined && !FAILURE.includes(str(spec.failurePolicy))) errs.push(fe.notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE));
  const validations = arr(spec.validations).map(obj);
  const audits = arr(spec.auditAnnotations).map(obj);
  if (validations.length === 0 && audits.length === 0) errs.push(fe.required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
  const check = (expr: string, field: string) => {
    const r = compileAdmissionCel(expr, { params: withParams, authorizer: true, variables: true });
    if (!r.ok) errs.push(fe.invalid(field, expr, r.message));
  };
  validations.forEach((v, i) => {
    const p = `spec.validations[${i}]`;
    if (!str(v.expression)) errs.push(fe.required(`${p}.expression`));
    else check(str(v.expression), `${p}.expression`);
    if (v.messageExpression !== undefined && str(v.messageExpression).trim() !== '') check(str(v.messageExpression), `${p}.messageExpression`);
    const msg = str(v.message);
    if (msg.includes('\n')) errs.push(fe.invalid(`${p}.message`, msg, 'message must not contain line breaks'));
    if (v.reason !== undefined && !['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'].includes(str(v.reason)))
      errs.push(fe.notSupported(`${p}.reason`, v.reason, ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge']));
  });
  audits.forEach((a, i) => {
    const p = `spec.auditAnnotations[${i}]`;
    if (!str(a.key)) errs.push(fe.required(`${p}.key`));
    if (!str(a.valueExpression)) errs.push(fe.required(`${p}.valueExpression`));
    else check(str(a.valueExpression), `${p}.valueExpression`);
  });
  arr(spec.variables).forEach((v, i) => {
    const x = obj(v);
    if (!str(x.name)) errs.push(fe.required(`spec.variables[${i}].name`));
    if (!str(x.expression)) errs.push(fe.required(`spec.variables[${i}].expression`));
    else check(str(x.expression), `spec.variables[${i}].expression`);
  });
  errs.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions', 'policy'));
  return errs;
}

function validateBinding(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o.spec);
  if (!str(spec.policyName)) errs.push(fe.required('spec.policyName'));
  const actions = arr(spec.validationActions).map(str);
  if (actions.length === 0) errs.push(fe.required('spec.validationActions'));
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!ACTIONS.includes(a)) errs.push(fe.notSupported(`spec.validationActions[${i}]`, a, ACTIONS));
    else if (seen.has(a)) errs.push(fe.duplicate(`spec.validationActions[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn'))
    errs.push(fe.invalid('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  if (spec.paramRef) {
    const pr = obj(spec.paramRef);
    if (pr.name !== undefined && pr.selector !== undefined) errs.push(fe.forbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
    if (pr.name === undefined && pr.selector === undefined) errs.push(fe.required('spec.paramRef', 'one of name or selector must be specified'));
    if (pr.parameterNotFoundAction !== undefined && !['Allow', 'Deny'].includes(str(pr.parameterNotFoundAction)))
      errs.push(fe.notSupported('spec.paramRef.parameterNotFoundAction', pr.parameterNotFoundAction, ['Allow', 'Deny']));
  }
  if (spec.matchResources) errs.push(...validateMatchResources(obj(spec.matchResources), 'spec.matchResources', false));
  return errs;
}

const webhookStrategy = (mutating: boolean): Strategy => ({
  allowCreateOnUpdate: false,
  defaults: (o) => defaultWebhooks(o, mutating),
  validate: (o) => validateWebhooks(o, mutating),
});

const webhooksColumn = col('Webhooks', (o) => arr(o.webhooks).length, { type: 'integer' });

export const admissionTypes: ResourceType[] = [
  builtinType({
    group: ADMISSION_GROUP, version: 'v1', kind: 'MutatingWebhookConfiguration', plural: 'mutatingwebhookconfigurations',
    schemaRef: AR + 'MutatingWebhookConfiguration', scope: 'Cluster', categories: ['api-extensions'], columns: [webhooksColumn, ageColumn],
    strategy: webhookStrategy(true),
  }),
  builtinType({
    group: ADMISSION_GROUP, version: 'v1', kind: 'ValidatingWebhookConfiguration', plural: 'validatingwebhookconfigurations',
    schemaRef: AR + 'ValidatingWebhookConfiguration', scope: 'Cluster', categories: ['api-extensions'], columns: [webhooksColumn, ageColumn],
    strategy: webhookStrategy(false),
  }),
  builtinType({
    group: ADMISSION_GROUP, version: 'v1', kind: 'ValidatingAdmissionPolicy', plural: 'validatingadmissionpolicies',
    schemaRef: AR + 'ValidatingAdmissionPolicy', scope: 'Cluster', categories: ['api-extensions'], status: true,
    columns: [col('Validations', (o) => arr(obj(o.spec).validations).length, { type: 'integer' }), col('ParamKind', (o) => (obj(o.spec).paramKind ? `${str(obj(obj(o.spec).paramKind).apiVersion)}/${str(obj(obj(o.spec).paramKind).kind)}` : '<unset>')), ageColumn],
    strategy: { defaults: defaultPolicy, validate: validatePolicy },
  }),
  builtinType({
    group: ADMISSION_GROUP, version: 'v1', kind: 'ValidatingAdmissionPolicyBinding', plural: 'validatingadmissionpolicybindings',
    schemaRef: AR + 'ValidatingAdmissionPolicyBinding', scope: 'Cluster', categories: ['api-extensions'],
    columns: [col('PolicyName', (o) => str(obj(o.spec).policyName)), col('ParamRef', (o) => (obj(o.spec).paramRef ? str(obj(obj(o.spec).paramRef).name) || '*' : '<unset>')), ageColumn],
    strategy: { defaults: defaultBinding, validate: validateBinding },
  }),
];
