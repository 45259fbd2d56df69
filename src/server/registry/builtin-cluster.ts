// coordination Lease, RBAC kinds, CustomResourceDefinition and policy PodDisruptionBudget.
import { type Obj, ageColumn, arr, builtinType, col, num, obj, str } from './builtin-helpers.js';
import { crdStrategy } from './crd.js';
import { groupSpellings } from './names.js';
import * as fe from './schema/field-errors.js';
import type { FieldError, KubeObject, ResourceType, Strategy } from './types.js';

export const RBAC_GROUP = 'rbac.authorization.service.io';
const RBAC_GROUPS = groupSpellings(RBAC_GROUP);

// ---- RBAC ----

function validateRules(o: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  arr(o.rules).forEach((r, i) => {
    const p = `rules[${i}]`;
    const rule = obj(r);
    if (arr(rule.verbs).length === 0) errs.push(fe.required(`${p}.verbs`, 'verbs must contain at least one value'));
    const urls = arr(rule.nonResourceURLs);
    if (urls.length) {
      if (namespaced) errs.push(fe.invalid(`${p}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
      if (arr(rule.apiGroups).length || arr(rule.resources).length || arr(rule.resourceNames).length)
        errs.push(fe.invalid(`${p}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      return;
    }
    if (arr(rule.apiGroups).length === 0) errs.push(fe.required(`${p}.apiGroups`, 'resource rules must supply at least one api group'));
    if (arr(rule.resources).length === 0) errs.push(fe.required(`${p}.resources`, 'resource rules must supply at least one resource'));
  });
  return errs;
}

/** Upstream SetDefaults_RoleBinding / SetDefaults_ClusterRoleBinding: roleRef.apiGroup, then the subjects'. */
function defaultBinding(o: KubeObject): void {
  const ref = o.roleRef;
  if (ref && typeof ref === 'object' && !Array.isArray(ref) && !(ref as Obj).apiGroup) (ref as Obj).apiGroup = RBAC_GROUP;
  defaultSubjects(o);
}

function defaultSubjects(o: KubeObject): void {
  for (const s of arr(o.subjects)) {
    if (!s || typeof s !== 'object') continue;
    const subj = s as Obj;
    if (subj.kind === 'User' || subj.kind === 'Group') {
      if (!subj.apiGroup) subj.apiGroup = RBAC_GROUP;
    } else if (subj.kind === 'ServiceAccount' && subj.apiGroup === '') {
      // upstream defaults "" and omits it (omitempty): a stored "" would differ from every manifest
      delete subj.apiGroup;
    }
  }
}

function validateBinding(o: KubeObject, old: KubeObject | undefined, clusterScoped: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = obj(o.roleRef);
  const kinds = clusterScoped ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  if (!RBAC_GROUPS.includes(str(ref.apiGroup))) errs.push(fe.notSupported('roleRef.apiGroup', str(ref.apiGroup), RBAC_GROUPS));
  if (!kinds.includes(str(ref.kind))) errs.push(fe.notSupported('roleRef.kind', str(ref.kind), kinds));
  if (!str(ref.name)) errs.push(fe.required('roleRef.name'));
  arr(o.subjects).forEach((s, i) => {
    const p = `subjects[${i}]`;
    const subj = obj(s);
    if (!str(subj.name)) errs.push(fe.required(`${p}.name`));
    switch (subj.kind) {
      case 'ServiceAccount':
        if (str(subj.apiGroup) !== '') errs.push(fe.notSupported(`${p}.apiGroup`, subj.apiGroup, ['']));
        if (clusterScoped && !str(subj.namespace)) errs.push(fe.required(`${p}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (!RBAC_GROUPS.includes(str(subj.apiGroup))) errs.push(fe.notSupported(`${p}.apiGroup`, str(subj.apiGroup), RBAC_GROUPS));
        break;
      default:
        errs.push(fe.notSupported(`${p}.kind`, str(subj.kind), ['ServiceAccount', 'User', 'Group']));
    }
  });
  if (old && JSON.stringify(normalizeRef(old.roleRef)) !== JSON.stringify(normalizeRef(o.roleRef)))
    errs.push(fe.invalid('roleRef', o.roleRef ?? null, 'cannot change roleRef'));
  return errs;
}

function normalizeRef(r: unknown): unknown {
  const ref = obj(r);
  return { apiGroup: RBAC_GROUPS.includes(str(ref.apiGroup)) ? RBAC_GROUP : str(ref.apiGroup), kind: str(ref.kind), name: str(ref.name) };
}

const subjectsOf = (o: KubeObject, kind: string) =>
  arr(o.subjects)
    .map(obj)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${str(s.namespace)}/${str(s.name)}` : str(s.name)))
    .join(', ');

const bindingColumns = [
  col('Role', (o: KubeObject) => `${str(obj(o.roleRef).kind)}/${str(obj(o.roleRef).name)}`),
  ageColumn,
  col('Users', (o: KubeObject) => subjectsOf(o, 'User'), { priority: 1 }),
  col('Groups', (o: KubeObject) => subjectsOf(o, 'Group'), { priority: 1 }),
  col('ServiceAccounts', (o: KubeObject) => subjectsOf(o, 'ServiceAccount'), { priority: 1 }),
];

const createdAtColumn = col('Created At', (o) => o.metadata?.creationTimestamp ?? null, { type: 'date' });

const roleStrategy = (namespaced: boolean): Strategy => ({
  nameValidation: 'path',
  allowCreateOnUpdate: true,
  validate: (o) => validateRules(o, namespaced),
});

const bindingStrategy = (clusterScoped: boolean): Strategy => ({
  nameValidation: 'path',
  allowCreateOnUpdate: true,
  defaults: defaultBinding,
  validate: (o, old) => validateBinding(o, old, clusterScoped),
});

// ---- PodDisruptionBudget ----

const PERCENT = /^[0-9]+%$/;

function validatePDB(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o.spec);
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined)
    errs.push(fe.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  for (const f of ['minAvailable', 'maxUnavailable']) {
    const v = spec[f];
    if (typeof v === 'string' && !PERCENT.test(v))
      errs.push(fe.invalid(`spec.${f}`, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"));
    else if (typeof v === 'number' && v < 0) errs.push(fe.invalid(`spec.${f}`, v, 'must be greater than or equal to 0'));
    else if (typeof v === 'string' && Number(v.slice(0, -1)) > 100) errs.push(fe.invalid(`spec.${f}`, v, 'must not be greater than 100%'));
  }
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && policy !== 'IfHealthyBudget' && policy !== 'AlwaysAllow')
    errs.push(fe.notSupported('spec.unhealthyPodEvictionPolicy', policy, ['AlwaysAllow', 'IfHealthyBudget']));
  return errs;
}

const orNA = (v: unknown) => (v === undefined || v === null ? 'N/A' : String(v));

export const clusterTypes: ResourceType[] = [
  builtinType({
    group: 'coordination.service.io', version: 'v1', kind: 'Lease', plural: 'leases', schemaRef: 'io.k8s.api.coordination.v1.Lease',
    scope: 'Namespaced', columns: [col('Holder', (o) => str(obj(o.spec).holderIdentity)), ageColumn], strategy: { allowCreateOnUpdate: true },
  }),
  builtinType({
    group: RBAC_GROUP, version: 'v1', kind: 'Role', plural: 'roles', schemaRef: 'io.k8s.api.rbac.v1.Role',
    scope: 'Namespaced', columns: [createdAtColumn], strategy: roleStrategy(true),
  }),
  builtinType({
    group: RBAC_GROUP, version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', schemaRef: 'io.k8s.api.rbac.v1.ClusterRole',
    scope: 'Cluster', columns: [createdAtColumn], strategy: roleStrategy(false),
  }),
  builtinType({
    group: RBAC_GROUP, version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', schemaRef: 'io.k8s.api.rbac.v1.RoleBinding',
    scope: 'Namespaced', columns: bindingColumns, strategy: bindingStrategy(false),
  }),
  builtinType({
    group: RBAC_GROUP, version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', schemaRef: 'io.k8s.api.rbac.v1.ClusterRoleBinding',
    scope: 'Cluster', columns: bindingColumns, strategy: bindingStrategy(true),
  }),
  builtinType({
    group: 'apiextensions.service.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions',
    schemaRef: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition', scope: 'Cluster',
    shortNames: ['crd', 'crds'], categories: ['api-extensions'], status: true, strategy: crdStrategy,
  }),
  builtinType({
    group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', schemaRef: 'io.k8s.api.policy.v1.PodDisruptionBudget',
    scope: 'Namespaced', shortNames: ['pdb'], status: true, strategy: { validate: validatePDB, tracksGeneration: true },
    columns: [
      col('Min Available', (o) => orNA(obj(o.spec).minAvailable)),
      col('Max Unavailable', (o) => orNA(obj(o.spec).maxUnavailable)),
      col('Allowed Disruptions', (o) => num(obj(o.status).disruptionsAllowed), { type: 'integer' }),
      ageColumn,
    ],
  }),
];
