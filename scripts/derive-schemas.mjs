#!/usr/bin/env node
// Derives the facts-only schema table for our built-in kinds from an upstream OpenAPI v2 document.
//   node scripts/derive-schemas.mjs <path-to-openapi-v2.json> [<older-openapi-v2-with-enums.json>]
// The source is upstream's 1.33 document (kubernetes/kubernetes release-1.33 api/openapi-spec/swagger.json, as the
// Python client v33.1.0 carries it in kubernetes/swagger.json.unprocessed). The fallbacks below (definitions and
// fields an older document lacks) apply only where the source has no such definition or field.
// Enums: upstream's committed 1.33 document is generated without them (OpenAPIEnums off at generation), while a
// live server publishes them; the second argument (the 1.27 document, generated with them) supplies the enum of
// every field that still exists, with the values k8s.io/api 1.33 adds to those types (ENUM_VALUES_1_33).
// Writes src/server/registry/schema/builtin-definitions.json. Descriptions are dropped; only
// structural facts (types, formats, required, enums, x-kubernetes-* markers) are kept.
// Run once by hand when the upstream reference changes; the server never reads the source document.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const OUT = join(root, 'src/server/registry/schema/builtin-definitions.json');

const src = process.argv[2];
const enumSrc = process.argv[3];
if (!src) {
  console.error('usage: node scripts/derive-schemas.mjs <path-to-openapi-v2.json>');
  process.exit(2);
}

// The alias table lives in names.ts (the one source); read its flat literal.
function readGroupAliases() {
  const text = readFileSync(join(root, 'src/server/registry/names.ts'), 'utf8');
  const block = /GROUP_ALIASES[^=]*=\s*\{([^}]*)\}/.exec(text);
  if (!block) throw new Error('GROUP_ALIASES not found in names.ts');
  const out = {};
  for (const m of block[1].matchAll(/'([^']+)'\s*:\s*'([^']+)'/g)) out[m[1]] = m[2];
  return out;
}
const GROUP_ALIASES = readGroupAliases();

const API = 'io.k8s.api.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const CRD = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';

const KINDS = [
  'core.v1.Namespace', 'core.v1.Pod', 'core.v1.Service', 'core.v1.ConfigMap', 'core.v1.Secret', 'core.v1.Node',
  'core.v1.ServiceAccount', 'core.v1.Event', 'core.v1.Endpoints', 'core.v1.PersistentVolumeClaim',
  'core.v1.PersistentVolume', 'apps.v1.Deployment', 'apps.v1.ReplicaSet', 'apps.v1.StatefulSet', 'apps.v1.DaemonSet',
  'batch.v1.Job', 'batch.v1.CronJob', 'coordination.v1.Lease', 'rbac.v1.Role', 'rbac.v1.ClusterRole',
  'rbac.v1.RoleBinding', 'rbac.v1.ClusterRoleBinding', 'policy.v1.PodDisruptionBudget',
  // the kinds real application bundles carry beyond the first set
  'core.v1.ResourceQuota', 'core.v1.LimitRange', 'core.v1.ReplicationController', 'core.v1.PodTemplate',
  'apps.v1.ControllerRevision', 'networking.v1.Ingress', 'networking.v1.IngressClass', 'networking.v1.NetworkPolicy',
  'autoscaling.v2.HorizontalPodAutoscaler', 'autoscaling.v1.HorizontalPodAutoscaler', 'storage.v1.StorageClass',
  'storage.v1.CSIDriver', 'storage.v1.CSINode', 'storage.v1.VolumeAttachment', 'storage.v1.CSIStorageCapacity',
  'scheduling.v1.PriorityClass', 'discovery.v1.EndpointSlice', 'events.v1.Event', 'node.v1.RuntimeClass',
  'networking.v1.ServiceCIDR', 'networking.v1.IPAddress',
  'admissionregistration.v1.ValidatingWebhookConfiguration', 'admissionregistration.v1.MutatingWebhookConfiguration',
  'certificates.v1.CertificateSigningRequest', 'flowcontrol.v1.FlowSchema', 'flowcontrol.v1.PriorityLevelConfiguration',
].map((k) => API + k).concat(['io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService']);

// admissionregistration kinds the 1.27 v2 document lacks (ValidatingAdmissionPolicy{,Binding} went GA in 1.30,
// webhook matchConditions too): written here from the upstream v1 Go types' wire shapes.
const AR = API + 'admissionregistration.v1.';
const ref = (n) => ({ $ref: n });
const strList = { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' };
const mapList = (item, key) => ({ type: 'array', items: ref(item), 'x-kubernetes-list-map-keys': [key], 'x-kubernetes-list-type': 'map' });
const kindDef = (kind, specRef, statusRef) => ({
  type: 'object',
  properties: {
    apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: ref(META + 'ObjectMeta'), spec: ref(specRef),
    ...(statusRef ? { status: ref(statusRef) } : {}),
  },
  'x-kubernetes-group-version-kind': [{ group: 'admissionregistration.k8s.io', kind, version: 'v1' }],
});
const listDef = (kind, item) => ({
  type: 'object', required: ['items'],
  properties: { apiVersion: { type: 'string' }, items: { type: 'array', items: ref(item) }, kind: { type: 'string' }, metadata: ref(META + 'ListMeta') },
  'x-kubernetes-group-version-kind': [{ group: 'admissionregistration.k8s.io', kind, version: 'v1' }],
});
const ADMISSION_SYNTHESIZED = {
  [AR + 'MatchCondition']: { type: 'object', required: ['name', 'expression'], properties: { expression: { type: 'string' }, name: { type: 'string' } } },
  [AR + 'ValidatingAdmissionPolicy']: kindDef('ValidatingAdmissionPolicy', AR + 'ValidatingAdmissionPolicySpec', AR + 'ValidatingAdmissionPolicyStatus'),
  [AR + 'ValidatingAdmissionPolicyList']: listDef('ValidatingAdmissionPolicyList', AR + 'ValidatingAdmissionPolicy'),
  [AR + 'ValidatingAdmissionPolicyBinding']: kindDef('ValidatingAdmissionPolicyBinding', AR + 'ValidatingAdmissionPolicyBindingSpec'),
  [AR + 'ValidatingAdmissionPolicyBindingList']: listDef('ValidatingAdmissionPolicyBindingList', AR + 'ValidatingAdmissionPolicyBinding'),
  [AR + 'ValidatingAdmissionPolicySpec']: {
    type: 'object',
    properties: {
      auditAnnotations: { type: 'array', items: ref(AR + 'AuditAnnotation'), 'x-kubernetes-list-type': 'atomic' },
      failurePolicy: { type: 'string' },
      matchConditions: mapList(AR + 'MatchCondition', 'name'),
      matchConstraints: ref(AR + 'MatchResources'),
      paramKind: ref(AR + 'ParamKind'),
      validations: { type: 'array', items: ref(AR + 'Validation'), 'x-kubernetes-list-type': 'atomic' },
      variables: mapList(AR + 'Variable', 'name'),
    },
  },
  [AR + 'ValidatingAdmissionPolicyStatus']: {
    type: 'object',
    properties: {
      conditions: mapList(META + 'Condition', 'type'),
      observedGeneration: { type: 'integer', format: 'int64' },
      typeChecking: ref(AR + 'TypeChecking'),
    },
  },
  [AR + 'TypeChecking']: { type: 'object', properties: { expressionWarnings: { type: 'array', items: ref(AR + 'ExpressionWarning'), 'x-kubernetes-list-type': 'atomic' } } },
  [AR + 'ExpressionWarning']: { type: 'object', required: ['fieldRef', 'warning'], properties: { fieldRef: { type: 'string' }, warning: { type: 'string' } } },
  [AR + 'ParamKind']: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' } }, 'x-kubernetes-map-type': 'atomic' },
  [AR + 'MatchResources']: {
    type: 'object',
    properties: {
      excludeResourceRules: { type: 'array', items: ref(AR + 'NamedRuleWithOperations'), 'x-kubernetes-list-type': 'atomic' },
      matchPolicy: { type: 'string' },
      namespaceSelector: ref(META + 'LabelSelector'),
      objectSelector: ref(META + 'LabelSelector'),
      resourceRules: { type: 'array', items: ref(AR + 'NamedRuleWithOperations'), 'x-kubernetes-list-type': 'atomic' },
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [AR + 'NamedRuleWithOperations']: {
    type: 'object',
    properties: { apiGroups: strList, apiVersions: strList, operations: strList, resourceNames: strList, resources: strList, scope: { type: 'string' } },
    'x-kubernetes-map-type': 'atomic',
  },
  [AR + 'Validation']: {
    type: 'object', required: ['expression'],
    properties: { expression: { type: 'string' }, message: { type: 'string' }, messageExpression: { type: 'string' }, reason: { type: 'string' } },
  },
  [AR + 'AuditAnnotation']: { type: 'object', required: ['key', 'valueExpression'], properties: { key: { type: 'string' }, valueExpression: { type: 'string' } } },
  [AR + 'Variable']: { type: 'object', required: ['name', 'expression'], properties: { expression: { type: 'string' }, name: { type: 'string' } } },
  [AR + 'ValidatingAdmissionPolicyBindingSpec']: {
    type: 'object',
    properties: {
      matchResources: ref(AR + 'MatchResources'),
      paramRef: ref(AR + 'ParamRef'),
      policyName: { type: 'string' },
      validationActions: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    },
  },
  [AR + 'ParamRef']: {
    type: 'object',
    properties: { name: { type: 'string' }, namespace: { type: 'string' }, parameterNotFoundAction: { type: 'string' }, selector: ref(META + 'LabelSelector') },
    'x-kubernetes-map-type': 'atomic',
  },
};
// Fields added to 1.27 definitions (GA later): webhook matchConditions (1.30).
const ADDED_PROPERTIES = {
  [AR + 'MutatingWebhook']: { matchConditions: mapList(AR + 'MatchCondition', 'name') },
  [AR + 'ValidatingWebhook']: { matchConditions: mapList(AR + 'MatchCondition', 'name') },
};

const ROOTS = [
  ...KINDS,
  AR + 'ValidatingAdmissionPolicy', AR + 'ValidatingAdmissionPolicyList',
  AR + 'ValidatingAdmissionPolicyBinding', AR + 'ValidatingAdmissionPolicyBindingList',
  ...KINDS.map((k) => k + 'List'),
  CRD + 'CustomResourceDefinition',
  CRD + 'CustomResourceDefinitionList',
  API + 'autoscaling.v1.Scale',
  API + 'policy.v1.Eviction',
  API + 'core.v1.Binding',
  API + 'authentication.v1.TokenRequest',
  API + 'authentication.v1.TokenReview',
  ...['SubjectAccessReview', 'SelfSubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview'].map((k) => API + 'authorization.v1.' + k),
  ...[
    'ObjectMeta', 'ListMeta', 'Status', 'StatusDetails', 'StatusCause', 'DeleteOptions', 'Preconditions', 'WatchEvent',
    'Patch', 'APIResourceList', 'APIResource', 'APIGroupList', 'APIGroup', 'APIVersions', 'Time', 'MicroTime',
    'Condition', 'LabelSelector', 'OwnerReference', 'ManagedFieldsEntry',
  ].map((n) => META + n),
  'io.k8s.apimachinery.pkg.version.Info',
];

// Group-versions we serve: x-kubernetes-group-version-kind entries for others are dropped.
const SERVED_GV = new Set(['/v1', 'apps/v1', 'batch/v1', 'coordination.k8s.io/v1', 'rbac.authorization.k8s.io/v1',
  'apiextensions.k8s.io/v1', 'policy/v1', 'autoscaling/v1', 'autoscaling/v2', 'networking.k8s.io/v1', 'storage.k8s.io/v1',
  'scheduling.k8s.io/v1', 'discovery.k8s.io/v1', 'events.k8s.io/v1', 'node.k8s.io/v1', 'authentication.k8s.io/v1', 'authorization.k8s.io/v1', 'admissionregistration.k8s.io/v1',
  'certificates.k8s.io/v1', 'apiregistration.k8s.io/v1', 'flowcontrol.apiserver.k8s.io/v1']);

// Meta types the upstream v2 document lacks; written here from the wire shapes (canonical groups).
const MT = 'meta.service.io';
const SYNTHESIZED = {
  // SelfSubjectReview is GA (authentication/v1) only from 1.28; its v1 shape as the 1.28+ API has it.
  [API + 'authentication.v1.SelfSubjectReview']: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: META + 'ObjectMeta' },
      status: { $ref: API + 'authentication.v1.SelfSubjectReviewStatus' },
    },
    'x-kubernetes-group-version-kind': [{ group: 'authentication.service.io', kind: 'SelfSubjectReview', version: 'v1' }],
  },
  [API + 'authentication.v1.SelfSubjectReviewStatus']: {
    type: 'object',
    properties: { userInfo: { $ref: API + 'authentication.v1.UserInfo' } },
  },
  [META + 'Table']: {
    type: 'object', required: ['columnDefinitions', 'rows'],
    properties: {
      apiVersion: { type: 'string' },
      columnDefinitions: { type: 'array', items: { $ref: META + 'TableColumnDefinition' }, 'x-kubernetes-list-type': 'atomic' },
      kind: { type: 'string' },
      metadata: { $ref: META + 'ListMeta' },
      rows: { type: 'array', items: { $ref: META + 'TableRow' }, 'x-kubernetes-list-type': 'atomic' },
    },
    'x-kubernetes-group-version-kind': [{ group: MT, kind: 'Table', version: 'v1' }],
  },
  [META + 'TableColumnDefinition']: {
    type: 'object', required: ['name', 'type', 'format', 'description', 'priority'],
    properties: {
      description: { type: 'string' }, format: { type: 'string' }, name: { type: 'string' },
      priority: { type: 'integer', format: 'int32' }, type: { type: 'string' },
    },
  },
  [META + 'TableRow']: {
    type: 'object', required: ['cells'],
    properties: {
      cells: { type: 'array', items: { 'x-kubernetes-preserve-unknown-fields': true }, 'x-kubernetes-list-type': 'atomic' },
      conditions: { type: 'array', items: { $ref: META + 'TableRowCondition' }, 'x-kubernetes-list-type': 'atomic' },
      object: { $ref: 'io.k8s.apimachinery.pkg.runtime.RawExtension' },
    },
  },
  [META + 'TableRowCondition']: {
    type: 'object', required: ['type', 'status'],
    properties: { message: { type: 'string' }, reason: { type: 'string' }, status: { type: 'string' }, type: { type: 'string' } },
  },
  [META + 'PartialObjectMetadata']: {
    type: 'object',
    properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { $ref: META + 'ObjectMeta' } },
    'x-kubernetes-group-version-kind': [{ group: MT, kind: 'PartialObjectMetadata', version: 'v1' }],
  },
  [META + 'PartialObjectMetadataList']: {
    type: 'object', required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      items: { type: 'array', items: { $ref: META + 'PartialObjectMetadata' } },
      kind: { type: 'string' },
      metadata: { $ref: META + 'ListMeta' },
    },
    'x-kubernetes-group-version-kind': [{ group: MT, kind: 'PartialObjectMetadataList', version: 'v1' }],
  },
};

const KEY_ORDER = ['$ref', 'type', 'format', 'enum', 'default', 'nullable', 'required', 'properties',
  'additionalProperties', 'items', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern'];
const DROP = new Set(['description', 'readOnly', 'title', 'example', 'externalDocs']);

const stripRef = (r) => r.replace(/^#\/definitions\//, '');
const isScalarItems = (items, defs) => {
  const t = items.$ref ? defs[stripRef(items.$ref)] : items;
  return !!t && (t.type === 'string' || t.type === 'integer' || t.type === 'number' || t.type === 'boolean');
};

function convertGVK(list) {
  const out = [];
  for (const e of list) {
    const gv = `${e.group}/${e.version}`;
    if (!SERVED_GV.has(gv)) continue;
    out.push({ group: GROUP_ALIASES[e.group] ?? e.group, kind: e.kind, version: e.version });
  }
  return out;
}

function convert(node, defs, refs) {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const out = {};
  const keys = Object.keys(node).filter((k) => !DROP.has(k));
  const ordered = [
    ...KEY_ORDER.filter((k) => keys.includes(k)),
    ...keys.filter((k) => !KEY_ORDER.includes(k)).sort(),
  ];
  for (const k of ordered) {
    const v = node[k];
    if (k === '$ref') {
      const name = stripRef(v);
      refs.add(name);
      out.$ref = name;
    } else if (k === 'properties') {
      const props = {};
      for (const p of Object.keys(v).sort()) props[p] = convert(v[p], defs, refs);
      out.properties = props;
    } else if (k === 'items' || k === 'additionalProperties') {
      out[k] = typeof v === 'object' ? convert(v, defs, refs) : v;
    } else if (k === 'x-kubernetes-group-version-kind') {
      const gvk = convertGVK(v);
      if (gvk.length) out[k] = gvk;
    } else {
      out[k] = v;
    }
  }
  // Lists with a merge patch strategy and no explicit list type are associative for
  // server-side apply (as upstream's OpenAPI -> structured-merge-diff conversion treats them).
  if (out.type === 'array' && !out['x-kubernetes-list-type']) {
    const strategies = String(out['x-kubernetes-patch-strategy'] ?? '').split(',');
    if (strategies.includes('merge')) {
      const key = out['x-kubernetes-patch-merge-key'];
      if (key) {
        out['x-kubernetes-list-map-keys'] = [key];
        out['x-kubernetes-list-type'] = 'map';
      } else if (out.items && isScalarItems(out.items, defs)) {
        out['x-kubernetes-list-type'] = 'set';
      }
      return sortMarkers(out);
    }
  }
  return out;
}

// Keep x-kubernetes-* keys in sorted order after inference added some.
function sortMarkers(node) {
  const out = {};
  const keys = Object.keys(node);
  for (const k of keys) if (!k.startsWith('x-')) out[k] = node[k];
  for (const k of keys.filter((k) => k.startsWith('x-')).sort()) out[k] = node[k];
  return out;
}

const doc = JSON.parse(readFileSync(src, 'utf8'));
const defs = doc.definitions;
// values k8s.io/api 1.33 adds to enum types the 1.27 document lists (PodFailurePolicyAction FailIndex 1.28,
// ResourceQuotaScope VolumeAttributesClass 1.30)
const ENUM_VALUES_1_33 = {
  [API + 'batch.v1.PodFailurePolicyRule']: { action: ['Count', 'FailIndex', 'FailJob', 'Ignore'] },
  [API + 'core.v1.ScopedResourceSelectorRequirement']: {
    scopeName: ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating', 'VolumeAttributesClass'],
  },
};
if (enumSrc) {
  const older = JSON.parse(readFileSync(enumSrc, 'utf8')).definitions;
  for (const [name, def] of Object.entries(older)) {
    for (const [field, prop] of Object.entries(def.properties ?? {})) {
      const now = defs[name]?.properties?.[field];
      if (!prop.enum || !now || now.enum) continue;
      now.enum = ENUM_VALUES_1_33[name]?.[field] ?? prop.enum;
    }
  }
}
for (const [name, def] of Object.entries(ADMISSION_SYNTHESIZED)) defs[name] ??= def;
for (const [name, props] of Object.entries(ADDED_PROPERTIES)) if (defs[name]) defs[name].properties = { ...props, ...defs[name].properties };
// flowcontrol.apiserver.k8s.io/v1 (GA in 1.29) has v1beta3's shape plus the exempt priority-level settings (1.28);
// the 1.27 document has v1beta3 only: its definitions are copied under the v1 names.
const FC3 = API + 'flowcontrol.v1beta3.';
const FC1 = API + 'flowcontrol.v1.';
const toV1 = (node) => JSON.parse(JSON.stringify(node).replaceAll('flowcontrol.v1beta3.', 'flowcontrol.v1.').replaceAll('"version":"v1beta3"', '"version":"v1"'));
for (const name of Object.keys(defs)) if (name.startsWith(FC3)) defs[FC1 + name.slice(FC3.length)] ??= toV1(defs[name]);
defs[FC1 + 'ExemptPriorityLevelConfiguration'] ??= {
  type: 'object',
  properties: { lendablePercent: { type: 'integer', format: 'int32' }, nominalConcurrencyShares: { type: 'integer', format: 'int32' } },
};
defs[FC1 + 'PriorityLevelConfigurationSpec'].properties.exempt ??= { $ref: '#/definitions/' + FC1 + 'ExemptPriorityLevelConfiguration' };
defs[FC1 + 'PriorityLevelConfigurationSpec']['x-kubernetes-unions'] = [{ discriminator: 'type', 'fields-to-discriminateBy': { exempt: 'Exempt', limited: 'Limited' } }];
const result = {};
const queue = [...ROOTS];
const seen = new Set();
while (queue.length) {
  const name = queue.shift();
  if (seen.has(name)) continue;
  seen.add(name);
  if (SYNTHESIZED[name]) continue;
  const def = defs[name];
  if (!def) {
    console.error(`warning: ${name} not in source document`);
    continue;
  }
  const refs = new Set();
  result[name] = convert(def, defs, refs);
  for (const r of refs) if (!seen.has(r)) queue.push(r);
}
for (const [name, def] of Object.entries(SYNTHESIZED)) {
  result[name] = def;
  const refs = new Set();
  convert(def, defs, refs);
  for (const r of refs) {
    if (!result[r] && defs[r]) result[r] = convert(defs[r], defs, new Set());
  }
}

// Defaults that upstream publishes (OpenAPI v3) but v2 lacks, needed where they key associative lists:
// server-side apply fills a missing list-map key from its default.
const KNOWN_DEFAULTS = {
  'io.k8s.api.core.v1.ContainerPort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.ServicePort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.EndpointPort': { protocol: 'TCP' },
};
for (const [name, fields] of Object.entries(KNOWN_DEFAULTS)) {
  for (const [field, value] of Object.entries(fields)) {
    const prop = result[name]?.properties?.[field];
    if (prop) result[name].properties[field] = { ...prop, default: value };
  }
}

// Fields newer than the source document (1.27) that clients send and upstream 1.33 keeps.
const KNOWN_FIELDS = {
  // ValidationRule.messageExpression, reason, fieldPath (1.28) and optionalOldSelf (1.29)
  // webhooks' matchConditions (v1 since 1.28)
  ...Object.fromEntries(['ValidatingWebhook', 'MutatingWebhook'].map((k) => [API + 'admissionregistration.v1.' + k, {
    matchConditions: {
      type: 'array',
      items: { type: 'object', required: ['name', 'expression'], properties: { expression: { type: 'string' }, name: { type: 'string' } } },
      'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge',
    },
  }])),
  // JobSpec.podReplacementPolicy (1.28; defaulted by upstream 1.33)
  [API + 'batch.v1.JobSpec']: { podReplacementPolicy: { type: 'string', enum: ['Failed', 'TerminatingOrFailed'] } },
  [CRD + 'ValidationRule']: {
    fieldPath: { type: 'string' }, messageExpression: { type: 'string' }, optionalOldSelf: { type: 'boolean' }, reason: { type: 'string' },
  },
};
for (const [name, fields] of Object.entries(KNOWN_FIELDS)) {
  const def = result[name];
  if (!def) continue;
  const props = { ...fields, ...def.properties };
  def.properties = Object.fromEntries(Object.keys(props).sort().map((k) => [k, props[k]]));
}

// events.k8s.io/v1 Event.eventTime is required on create only (ValidateEventCreate, in the strategy): updates of
// events stored through the core API carry none.
delete result[API + 'events.v1.Event']?.required;

// One definition per line: diff-friendly and compact.
const names = Object.keys(result).sort();
const lines = names.map((n, i) => `  ${JSON.stringify(n)}: ${JSON.stringify(result[n])}${i < names.length - 1 ? ',' : ''}`);
const text = `{\n"definitions": {\n${lines.join('\n')}\n}\n}\n`;
writeFileSync(OUT, text);
console.log(`wrote ${names.length} definitions (${text.length} bytes) to ${OUT}`);
