// CustomResourceDefinitions: validation (names, versions, structural schemas, sub-resources,
// printer columns), defaults, the resource types a CRD serves, and its Established status.
import { evaluateRules, hasRules, validateRules } from './crd-cel.js';
import { ageSince } from './age.js';
import { ALL_VERBS, type Obj, arr, obj, str } from './builtin-helpers.js';
import { type CompiledJSONPath, checkJSONPath, compileJSONPath, firstJSONPath } from './jsonpath.js';
import { dns1035LabelErrors as dns1035Errors, dns1123SubdomainErrors } from './meta-validation.js';
import { canonicalGroup } from './names.js';
import { applySchemaDefaults } from './schema/defaults.js';
import * as fe from './schema/field-errors.js';
import { builtinSchemas } from './schema/registry.js';
import type { SchemaNode } from './schema/types.js';
import type { FieldError, KubeObject, ResourceType, Strategy, SubresourceDef, TableColumn } from './types.js';
import { re2Error } from '../../api/re2.js';

const SCHEMA_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: SchemaNode };
  subresources?: { status?: unknown; scale?: { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string } };
  additionalPrinterColumns?: { name?: string; type?: string; format?: string; description?: string; priority?: number; jsonPath?: string }[];
  selectableFields?: { jsonPath?: string }[];
  deprecated?: boolean;
  deprecationWarning?: string;
}

interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
  conversion?: { strategy?: string; webhook?: unknown };
  preserveUnknownFields?: boolean;
}

const specOf = (crd: KubeObject): CrdSpec => obj(crd.spec) as CrdSpec;

// ---- defaults ----

export function defaultCRD(crd: KubeObject): void {
  const spec = obj(crd.spec) as CrdSpec & Obj;
  if (!crd.spec) crd.spec = spec;
  const names = spec.names;
  if (names && typeof names === 'object' && typeof names.kind === 'string' && names.kind) {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind) names.listKind = `${names.kind}List`;
  }
  if (!spec.conversion) spec.conversion = { strategy: 'None' };
  else if (!spec.conversion.strategy) spec.conversion.strategy = 'None';
}

// ---- validation ----

export function validateCRD(crd: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(crd);
  const group = str(spec.group);
  const names = (spec.names ?? {}) as CrdNames;
  const plural = str(names.plural);

  if (!group) errs.push(fe.required('spec.group'));
  else {
    for (const e of dns1123SubdomainErrors(group)) errs.push(fe.invalid('spec.group', group, e));
    if (!group.includes('.')) errs.push(fe.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  const name = crd.metadata?.name ?? '';
  if (name && plural && group && name !== `${plural}.${group}`) errs.push(fe.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));

  validateNames(names, 'spec.names', errs);

  if (!spec.scope) errs.push(fe.required('spec.scope'));
  else if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') errs.push(fe.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));

  const versions = arr(spec.versions) as CrdVersion[];
  if (versions.length === 0) errs.push(fe.required('spec.versions', 'must have at least one version'));
  else {
    const storage = versions.filter((v) => v && v.storage === true).length;
    const versionNames = versions.map((v) => str(v?.name));
    if (storage !== 1) errs.push(fe.invalid('spec.versions', versionNames, 'must have exactly one version marked as storage version'));
    if (new Set(versionNames).size !== versionNames.length) errs.push(fe.invalid('spec.versions', versionNames, 'must contain unique version names'));
    versions.forEach((v, i) => validateVersion(v ?? {}, `spec.versions[${i}]`, errs));
  }

  const conv = spec.conversion;
  if (conv) {
    if (conv.strategy !== undefined && conv.strategy !== 'None' && conv.strategy !== 'Webhook')
      errs.push(fe.notSupported('spec.conversion.strategy', conv.strategy, ['None', 'Webhook']));
    if (conv.strategy === 'Webhook' && !conv.webhook) errs.push(fe.required('spec.conversion.webhook', 'required when strategy is set to Webhook'));
  }
  if (spec.preserveUnknownFields === true) errs.push(fe.invalid('spec.preserveUnknownFields', true, 'must be false'));

  if (old) {
    const prev = specOf(old);
    if (prev.scope && spec.scope !== prev.scope) errs.push(fe.invalid('spec.scope', spec.scope ?? '', 'field is immutable'));
    if (prev.group && group !== prev.group) errs.push(fe.invalid('spec.group', group, 'field is immutable'));
    const served = new Set(versions.map((v) => str(v?.name)));
    arr(obj(crd.status).storedVersions).forEach((sv, i) => {
      if (!served.has(str(sv))) errs.push(fe.invalid(`status.storedVersions[${i}]`, sv, 'must appear in spec.versions'));
    });
  }
  return errs;
}

function validateNames(names: CrdNames, path: string, errs: FieldError[]): void {
  const plural = str(names.plural);
  if (!plural) errs.push(fe.required(`${path}.plural`));
  else for (const e of dns1035Errors(plural)) errs.push(fe.invalid(`${path}.plural`, plural, e));
  if (names.singular) for (const e of dns1035Errors(names.singular)) errs.push(fe.invalid(`${path}.singular`, names.singular, e));
  const kind = str(names.kind);
  if (!kind) errs.push(fe.required(`${path}.kind`));
  else for (const e of dns1035Errors(kind.toLowerCase())) errs.push(fe.invalid(`${path}.kind`, kind, e));
  if (names.listKind) {
    for (const e of dns1035Errors(names.listKind.toLowerCase())) errs.push(fe.invalid(`${path}.listKind`, names.listKind, e));
    if (names.listKind === kind) errs.push(fe.invalid(`${path}.listKind`, names.listKind, 'kind and listKind cannot be the same'));
  }
  arr(names.shortNames).forEach((s, i) => {
    for (const e of dns1035Errors(str(s))) errs.push(fe.invalid(`${path}.shortNames[${i}]`, s, e));
  });
  arr(names.categories).forEach((s, i) => {
    for (const e of dns1035Errors(str(s))) errs.push(fe.invalid(`${path}.categories[${i}]`, s, e));
  });
}

function validateVersion(v: CrdVersion, path: string, errs: FieldError[]): void {
  const name = str(v.name);
  if (!name) errs.push(fe.required(`${path}.name`));
  else for (const e of dns1035Errors(name)) errs.push(fe.invalid(`${path}.name`, name, e));
  const schema = v.schema?.openAPIV3Schema;
  if (!schema || typeof schema !== 'object') errs.push(fe.required(`${path}.schema.openAPIV3Schema`, 'schemas are required'));
  else {
    validateStructural(schema, `${path}.schema.openAPIV3Schema`, true, errs);
    validateRules(schema, `${path}.schema.openAPIV3Schema`, errs);
  }

  const scale = v.subresources?.scale;
  if (scale) {
    const sp = `${path}.subresources.scale`;
    const under = (p: unknown, prefixes: string[]) => typeof p === 'string' && prefixes.some((x) => p.startsWith(x)) && !checkJSONPath(p);
    if (!scale.specReplicasPath) errs.push(fe.required(`${sp}.specReplicasPath`));
    else if (!under(scale.specReplicasPath, ['.spec.'])) errs.push(fe.invalid(`${sp}.specReplicasPath`, scale.specReplicasPath, 'should be a json path under .spec'));
    if (!scale.statusReplicasPath) errs.push(fe.required(`${sp}.statusReplicasPath`));
    else if (!under(scale.statusReplicasPath, ['.status.'])) errs.push(fe.invalid(`${sp}.statusReplicasPath`, scale.statusReplicasPath, 'should be a json path under .status'));
    if (scale.labelSelectorPath && !under(scale.labelSelectorPath, ['.spec.', '.status.']))
      errs.push(fe.invalid(`${sp}.labelSelectorPath`, scale.labelSelectorPath, 'should be a json path under either .spec or .status'));
  }

  arr(v.additionalPrinterColumns).forEach((c, i) => {
    const cp = `${path}.additionalPrinterColumns[${i}]`;
    const col = obj(c);
    if (!str(col.name)) errs.push(fe.required(`${cp}.name`));
    if (!str(col.type)) errs.push(fe.required(`${cp}.type`));
    else if (!COLUMN_TYPES.includes(str(col.type))) errs.push(fe.notSupported(`${cp}.type`, col.type, COLUMN_TYPES));
    if (col.format !== undefined && col.format !== '' && !COLUMN_FORMATS.includes(str(col.format))) errs.push(fe.notSupported(`${cp}.format`, col.format, COLUMN_FORMATS));
    const jp = str(col.jsonPath);
    if (!jp) errs.push(fe.required(`${cp}.jsonPath`));
    else if (!jp.startsWith('.') || checkJSONPath(jp)) errs.push(fe.invalid(`${cp}.jsonPath`, jp, 'must be a simple json path starting with .'));
  });

  arr(v.selectableFields).forEach((f, i) => {
    const jp = str(obj(f).jsonPath);
    if (!jp) errs.push(fe.required(`${path}.selectableFields[${i}].jsonPath`));
    else if (!jp.startsWith('.') || checkJSONPath(jp)) errs.push(fe.invalid(`${path}.selectableFields[${i}].jsonPath`, jp, 'must be a simple json path starting with .'));
  });
}

const FORBIDDEN_KEYWORDS: Record<string, string> = {
  $ref: '$ref is not supported',
  additionalItems: 'additionalItems is not supported',
  patternProperties: 'patternProperties is not supported',
  dependencies: 'dependencies is not supported',
  definitions: 'definitions are not supported',
  id: 'id is not supported',
};

/** Structural-schema rules: every specified field has a type (or int-or-string / preserve-unknown-fields), etc. */
function validateStructural(s: SchemaNode, path: string, isRoot: boolean, errs: FieldError[], itemOf?: SchemaNode): void {
  if (!s || typeof s !== 'object') return;
  const node = s as SchemaNode & Obj;
  for (const k of Object.keys(FORBIDDEN_KEYWORDS)) {
    if (node[k] !== undefined) errs.push(fe.forbidden(`${path}.${k}`, FORBIDDEN_KEYWORDS[k]));
  }
  if (node.uniqueItems === true) errs.push(fe.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));

  const type = node.type as unknown;
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  const preserve = node['x-kubernetes-preserve-unknown-fields'];
  const embedded = node['x-kubernetes-embedded-resource'] === true;
  if (preserve === false) errs.push(fe.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));

  if (type !== undefined && (typeof type !== 'string' || !SCHEMA_TYPES.includes(type))) {
    errs.push(fe.notSupported(`${path}.type`, type, SCHEMA_TYPES));
  }
  if (isRoot) {
    if (type === undefined) errs.push(fe.required(`${path}.type`, 'must not be empty at the root'));
    else if (type !== 'object') errs.push(fe.invalid(`${path}.type`, type, 'must be object at the root'));
    const meta = node.properties?.metadata as (SchemaNode & Obj) | undefined;
    if (meta) {
      const extra = Object.keys(meta).filter((k) => !['type', 'properties', 'description'].includes(k));
      const props = Object.keys(meta.properties ?? {}).filter((k) => k !== 'name' && k !== 'generateName');
      if (extra.length || props.length || (meta.type !== undefined && meta.type !== 'object'))
        errs.push(fe.forbidden(`${path}.properties[metadata]`, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  } else if (type === undefined && !intOrString && preserve !== true) {
    errs.push(fe.required(`${path}.type`, itemOf ? 'must not be empty for specified array items' : 'must not be empty for specified object fields'));
  }
  if (intOrString && type !== undefined) errs.push(fe.invalid(`${path}.type`, type, 'must be empty if x-kubernetes-int-or-string is true'));
  if (embedded) {
    if (type !== 'object') errs.push(fe.invalid(`${path}.type`, type ?? '', 'must be object if x-kubernetes-embedded-resource is true'));
    if (preserve !== true && !node.properties) errs.push(fe.required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  if (node.properties && node.additionalProperties !== undefined && node.additionalProperties !== false)
    errs.push(fe.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  if (node.additionalProperties === false) errs.push(fe.forbidden(`${path}.additionalProperties`, 'must not be false'));
  if (type === 'array' && !node.items) errs.push(fe.required(`${path}.items`, 'must be specified'));
  if (typeof node.pattern === 'string') {
    // upstream compiles with Go's regexp (RE2): its syntax and its error text
    const err = re2Error(node.pattern);
    if (err !== null) errs.push(fe.invalid(`${path}.pattern`, node.pattern, `must be a valid regular expression, but isn't: ${err}`));
  }

  const listType = node['x-kubernetes-list-type'] as unknown;
  const mapKeys = node['x-kubernetes-list-map-keys'] as unknown;
  if (listType !== undefined) {
    if (!['atomic', 'set', 'map'].includes(str(listType))) errs.push(fe.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
    else if (type !== 'array') errs.push(fe.invalid(`${path}.x-kubernetes-list-type`, listType, 'must only be used on type=array'));
    if (listType === 'map') {
      const keys = arr(mapKeys).map(str);
      const items = node.items;
      if (keys.length === 0) errs.push(fe.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
      if (items && items.type !== 'object') errs.push(fe.invalid(`${path}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
      else if (items) {
        for (const k of keys) {
          const p = items.properties?.[k];
          if (!p) errs.push(fe.required(`${path}.items.properties[${k}]`, 'entries for x-kubernetes-list-map-keys must be present'));
          else if (p.type === 'object' || p.type === 'array') errs.push(fe.invalid(`${path}.items.properties[${k}].type`, p.type, 'must be a scalar type if parent array\'s x-kubernetes-list-type is map'));
        }
      }
    }
  }
  if (mapKeys !== undefined && listType !== 'map') errs.push(fe.forbidden(`${path}.x-kubernetes-list-map-keys`, 'must not be set if x-kubernetes-list-type is not map'));
  const mapType = node['x-kubernetes-map-type'] as unknown;
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular')
    errs.push(fe.notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));

  if (node.properties && typeof node.properties === 'object') {
    for (const [k, p] of Object.entries(node.properties)) {
      if (isRoot && k === 'metadata') continue;
      validateStructural(p, `${path}.properties[${k}]`, false, errs);
    }
  }
  if (node.items && typeof node.items === 'object') validateStructural(node.items, `${path}.items`, false, errs, node);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') validateStructural(node.additionalProperties, `${path}.additionalProperties`, false, errs);
}

// ---- resource types ----

/** OpenAPI definition name of a custom kind: reversed group, version, kind (com.example.stable.v1.CronTab). */
export function crdDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

function crdColumn(c: NonNullable<CrdVersion['additionalPrinterColumns']>[number]): TableColumn {
  const jsonPath = str(c.jsonPath);
  let compiled: CompiledJSONPath | undefined;
  try {
    compiled = compileJSONPath(jsonPath);
  } catch {
    compiled = undefined;
  }
  const type = (COLUMN_TYPES.includes(str(c.type)) ? c.type : 'string') as TableColumn['type'];
  const col: TableColumn = {
    name: str(c.name),
    type,
    description: c.description ?? `Custom resource definition column (in JSONPath format): ${jsonPath}`,
    cell: (o) => (compiled ? cellValue(type, firstJSONPath(compiled, o)) : null),
  };
  if (c.format) col.format = c.format;
  if (c.priority) col.priority = c.priority;
  return col;
}

/** Typed cell value as upstream's CRD table convertor produces it (null when absent or mistyped). */
export function cellValue(type: TableColumn['type'], v: unknown): unknown {
  if (v === undefined || v === null) return null;
  switch (type) {
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? ageSince(v) : null;
    default:
      return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
}

const AGE_COLUMN: TableColumn = {
  name: 'Age',
  type: 'date',
  description: 'CreationTimestamp is when the object was created.',
  cell: (o) => cellValue('date', o.metadata?.creationTimestamp),
};

function customStrategy(schema: SchemaNode | undefined, selectable: string[]): Strategy {
  const fieldSelectors: Record<string, (o: KubeObject) => string | undefined> = {};
  for (const jp of selectable) {
    let compiled: CompiledJSONPath;
    try {
      compiled = compileJSONPath(jp);
    } catch {
      continue;
    }
    fieldSelectors[jp.replace(/^\./, '')] = (o) => {
      const v = firstJSONPath(compiled, o);
      return v === undefined || v === null ? '' : typeof v === 'string' ? v : String(v);
    };
  }
  const strategy: Strategy = { nameValidation: 'subdomain', requireResourceVersionOnUpdate: true };
  if (schema) strategy.defaults = (o) => void applySchemaDefaults(o, schema, builtinSchemas);
  // x-kubernetes-validations: evaluated on create and update (transition rules see the stored object as oldSelf)
  if (schema && hasRules(schema)) strategy.validateAsync = (o, old) => evaluateRules(schema, o, old);
  if (selectable.length) strategy.fieldSelectors = fieldSelectors;
  return strategy;
}

/** One resource type per served version of the CRD. */
export function resourceTypesFromCRD(crd: KubeObject): ResourceType[] {
  const spec = specOf(crd);
  const names = (spec.names ?? {}) as CrdNames;
  const group = canonicalGroup(str(spec.group));
  const kind = str(names.kind);
  const plural = str(names.plural);
  if (!group || !kind || !plural) throw new Error('CRD is missing spec.group, spec.names.kind or spec.names.plural');
  const versions = (arr(spec.versions) as CrdVersion[]).filter((v) => v && v.name);
  const storageVersion = versions.find((v) => v.storage === true)?.name;
  const out: ResourceType[] = [];
  for (const v of versions) {
    if (v.served !== true) continue;
    const version = str(v.name);
    const schema = v.schema?.openAPIV3Schema;
    const subresources: SubresourceDef[] = [];
    if (v.subresources?.status !== undefined && v.subresources.status !== null) {
      subresources.push({ name: 'status', kind, verbs: ['get', 'patch', 'update'] });
    }
    const scale = v.subresources?.scale;
    if (scale) {
      const sub: SubresourceDef = { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] };
      if (scale.specReplicasPath) sub.specReplicasPath = scale.specReplicasPath;
      if (scale.statusReplicasPath) sub.statusReplicasPath = scale.statusReplicasPath;
      if (scale.labelSelectorPath) sub.labelSelectorPath = scale.labelSelectorPath;
      subresources.push(sub);
    }
    const printer = arr(v.additionalPrinterColumns) as NonNullable<CrdVersion['additionalPrinterColumns']>;
    const columns = printer.length ? printer.map(crdColumn) : [AGE_COLUMN];
    const selectable = arr(v.selectableFields).map((f) => str(obj(f).jsonPath)).filter(Boolean);
    const rt: ResourceType = {
      group,
      version,
      kind,
      listKind: names.listKind || `${kind}List`,
      plural,
      singular: names.singular || kind.toLowerCase(),
      shortNames: arr(names.shortNames).map(str),
      categories: arr(names.categories).map(str),
      scope: spec.scope === 'Cluster' ? 'Cluster' : 'Namespaced',
      verbs: ALL_VERBS,
      subresources,
      schemaRef: crdDefinitionName(group, version, kind),
      columns,
      strategy: customStrategy(schema, selectable),
      custom: true,
      served: true,
    };
    if (schema) rt.schema = schema;
    if (storageVersion) rt.storageVersion = storageVersion;
    out.push(rt);
  }
  return out;
}

// ---- status ----

/** Status with NamesAccepted and Established True, acceptedNames and storedVersions. Idempotent. */
export function crdEstablishedStatus(crd: KubeObject, now: string = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')): Obj {
  const spec = specOf(crd);
  const prev = obj(crd.status);
  const prevConds = arr(prev.conditions).map(obj);
  const cond = (type: string, reason: string, message: string): Obj => {
    const p = prevConds.find((c) => c.type === type);
    const since = p && p.status === 'True' && typeof p.lastTransitionTime === 'string' ? p.lastTransitionTime : now;
    return { type, status: 'True', lastTransitionTime: since, reason, message };
  };
  const names = (spec.names ?? {}) as CrdNames;
  const accepted: Obj = { plural: str(names.plural), singular: names.singular || str(names.kind).toLowerCase() };
  if (names.shortNames?.length) accepted.shortNames = [...names.shortNames];
  accepted.kind = str(names.kind);
  accepted.listKind = names.listKind || `${str(names.kind)}List`;
  if (names.categories?.length) accepted.categories = [...names.categories];
  const stored = arr(prev.storedVersions).map(str);
  const storage = (arr(spec.versions) as CrdVersion[]).find((v) => v?.storage === true)?.name;
  if (storage && !stored.includes(storage)) stored.push(storage);
  const others = prevConds.filter((c) => c.type !== 'NamesAccepted' && c.type !== 'Established');
  return {
    conditions: [
      cond('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
      ...others,
    ],
    acceptedNames: accepted,
    storedVersions: stored,
  };
}

/** Held by every CRD until its custom objects are gone (added at create, so no deletion can skip the cleanup). */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.service.io';

export const crdStrategy: Strategy = {
  tracksGeneration: true,
  defaults(crd, old) {
    defaultCRD(crd);
    if (old) return;
    const finalizers = crd.metadata?.finalizers ?? [];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) crd.metadata!.finalizers = [...finalizers, CRD_CLEANUP_FINALIZER];
  },
  validate: validateCRD,
  requireResourceVersionOnUpdate: true,
};
