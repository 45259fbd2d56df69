// The server's /openapi/v3 documents turned into what the editor needs: a JSON Schema for monaco-yaml
// (validation, completion, hover text), the patch strategies of each field (strategic merge patches)
// and a template of a new object with its required fields filled.
import type { PatchSchema } from './patches.js';

export interface OpenApiSchema {
  type?: string | string[];
  format?: string;
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema | boolean;
  items?: OpenApiSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  allOf?: OpenApiSchema[];
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  $ref?: string;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  [k: string]: unknown;
}

export interface OpenApiDocument {
  components?: { schemas?: Record<string, OpenApiSchema> };
}

/** The /openapi/v3 path of a group version: api/v1, apis/apps/v1. */
export function openApiPath(group: string, version: string): string {
  return group ? `/openapi/v3/apis/${group}/${version}` : `/openapi/v3/api/${version}`;
}

const REF_PREFIX = '#/components/schemas/';
const refName = (ref: string): string => (ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : ref);

/** The component schema of a kind (found by its x-kubernetes-group-version-kind). */
export function kindSchemaName(doc: OpenApiDocument, group: string, version: string, kind: string): string | undefined {
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) {
    if (s['x-kubernetes-group-version-kind']?.some((g) => g.group === group && g.version === version && g.kind === kind)) return name;
  }
  return undefined;
}

/** Follows a $ref (or a single-element allOf wrapping one, how OpenAPI v3 decorates a referenced field). */
function deref(doc: OpenApiDocument, s: OpenApiSchema | undefined, seen = 0): OpenApiSchema | undefined {
  if (!s || seen > 32) return s;
  if (s.$ref) return deref(doc, doc.components?.schemas?.[refName(s.$ref)], seen + 1);
  if (s.allOf?.length === 1 && !s.properties && !s.type) return deref(doc, s.allOf[0], seen + 1);
  return s;
}

const isIntOrString = (s: OpenApiSchema) => s['x-kubernetes-int-or-string'] === true || s.format === 'int-or-string';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** A short description of a schema's shape, for hover text when the schema carries none. */
function shapeOf(doc: OpenApiDocument, s: OpenApiSchema, refTo?: string): string {
  if (refTo) return refTo.split('.').pop() ?? refTo;
  if (isIntOrString(s)) return 'integer or string';
  const t = Array.isArray(s.type) ? s.type.join(' | ') : s.type;
  if (t === 'array') {
    const item = s.items?.$ref ? refName(s.items.$ref).split('.').pop() : s.items ? shapeOf(doc, s.items) : 'any';
    const lt = s['x-kubernetes-list-type'];
    const keys = s['x-kubernetes-list-map-keys'] ?? (s['x-kubernetes-patch-merge-key'] ? [s['x-kubernetes-patch-merge-key']] : undefined);
    return `list of ${item}${lt === 'map' && keys ? ` (keyed by ${keys.join(', ')})` : lt === 'set' ? ' (set)' : ''}`;
  }
  if (t === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object') return `map of ${shapeOf(doc, s.additionalProperties, s.additionalProperties.$ref ? refName(s.additionalProperties.$ref) : undefined)}`;
  return `${t ?? 'any'}${s.format ? ` (${s.format})` : ''}`;
}

/** Hover text: the field's own description and its type (either alone when the other is missing). */
function withType(description: string | undefined, shape: string): string {
  return description && description !== shape ? `${description}\n\nType: ${shape}` : shape;
}

export interface JsonSchema {
  [k: string]: unknown;
}

export interface JsonSchemaOptions {
  /** Fix apiVersion and kind to these values (the root of an object of one kind). */
  apiVersion?: string;
  kind?: string;
  /** Mark fields the schema does not declare (default true; what fieldValidation=Strict rejects). */
  strict?: boolean;
}

/**
 * A JSON Schema (draft 7) for objects of one component: referenced components go to `definitions`,
 * descriptions are kept (and written from the shape when absent) so hovers explain each field.
 */
export function toJsonSchema(doc: OpenApiDocument, rootName: string, opts: JsonSchemaOptions = {}): JsonSchema {
  const strict = opts.strict ?? true;
  const definitions: Record<string, JsonSchema> = {};
  const defKey = (name: string) => name.replace(/[^\w.-]/g, '_');
  const pending: string[] = [];
  const refTo = (name: string): JsonSchema => {
    const key = defKey(name);
    if (!(key in definitions)) {
      definitions[key] = {};
      pending.push(name);
    }
    return { $ref: `#/definitions/${key}` };
  };

  const convert = (s: OpenApiSchema, description?: string): JsonSchema => {
    if (s.$ref) {
      const name = refName(s.$ref);
      if (name === QUANTITY) return { type: ['string', 'number'], description: description ?? 'quantity, such as 100m, 64Mi or 2' };
      const target = doc.components?.schemas?.[name];
      if (target && isIntOrString(target)) return { type: ['integer', 'string'], description: description ?? 'integer or string' };
      return { ...refTo(name), description: withType(description ?? target?.description, shapeOf(doc, target ?? {}, name)) };
    }
    if (s.allOf?.length === 1 && !s.properties && !s.type) {
      // {allOf:[{$ref}], description, default, x-…}: the field's own words beside the referenced type
      return convert(s.allOf[0]!, s.description ?? description);
    }
    const out: JsonSchema = { description: withType(s.description ?? description, shapeOf(doc, s)) };
    if (isIntOrString(s)) out.type = ['integer', 'string'];
    else if (s.type) out.type = s.nullable && typeof s.type === 'string' ? [s.type, 'null'] : s.type;
    if (s.format && !isIntOrString(s) && s.format !== 'byte' && s.format !== 'int32' && s.format !== 'int64' && s.format !== 'double') out.format = s.format;
    for (const k of ['enum', 'default', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'required'] as const)
      if (s[k] !== undefined) out[k] = s[k];
    if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, convert(v)]));
    if (s.items) out.items = convert(s.items);
    if (s.additionalProperties !== undefined) out.additionalProperties = typeof s.additionalProperties === 'boolean' ? s.additionalProperties : convert(s.additionalProperties);
    else if (s.properties && strict && !s['x-kubernetes-preserve-unknown-fields'] && !s['x-kubernetes-embedded-resource']) out.additionalProperties = false;
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) if (s[k]) out[k] = s[k]!.map((x) => convert(x));
    return out;
  };

  const root = doc.components?.schemas?.[rootName];
  if (!root) return { type: 'object' };
  const top = convert(root);
  while (pending.length) {
    const name = pending.shift()!;
    const s = doc.components?.schemas?.[name];
    // the title names the type in completion lists (DeploymentSpec, not the whole component name)
    definitions[defKey(name)] = s ? { title: name.split('.').pop(), ...convert(s) } : {};
  }
  const props = { ...((top.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  if (opts.apiVersion) props.apiVersion = { ...props.apiVersion, enum: [opts.apiVersion], description: `APIVersion of this kind: ${opts.apiVersion}` };
  if (opts.kind) props.kind = { ...props.kind, enum: [opts.kind], description: `Kind: ${opts.kind}` };
  const required = [...new Set([...((top.required as string[] | undefined) ?? []), ...(opts.kind ? ['apiVersion', 'kind', 'metadata'] : [])])];
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...top, properties: props, required, definitions };
}

/** The patch strategies of one component's fields, walked lazily through $refs. */
export function patchSchemaFor(doc: OpenApiDocument, rootName: string): PatchSchema | undefined {
  const make = (raw: OpenApiSchema | undefined): PatchSchema | undefined => {
    if (!raw) return undefined;
    const r = deref(doc, raw) ?? raw;
    // strategy and merge key sit on the field itself (beside its $ref or allOf), or on the resolved schema
    const strategy = raw['x-kubernetes-patch-strategy'] ?? r['x-kubernetes-patch-strategy'];
    const mergeKey = raw['x-kubernetes-patch-merge-key'] ?? r['x-kubernetes-patch-merge-key'];
    return {
      strategies: strategy ? strategy.split(',').map((x) => x.trim()) : [],
      mergeKey,
      field: (name) => make(r.properties?.[name] ?? (typeof r.additionalProperties === 'object' ? r.additionalProperties : undefined)),
      items: () => make(r.items),
    };
  };
  return make(doc.components?.schemas?.[rootName]);
}

export interface TemplateOptions {
  apiVersion: string;
  kind: string;
  name?: string;
  namespace?: string;
}

const LABEL_SELECTOR = 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector';
const POD_TEMPLATE = 'io.k8s.api.core.v1.PodTemplateSpec';

/**
 * A new object of one kind with its required fields filled (strings empty, numbers 0, one item in
 * required lists of objects); a selector beside a pod template gets matching labels so the workload
 * kinds start valid.
 */
export function templateFor(doc: OpenApiDocument, rootName: string, opts: TemplateOptions): Record<string, unknown> {
  const name = opts.name ?? 'example';
  const fill = (raw: OpenApiSchema | undefined, depth: number): unknown => {
    const s = deref(doc, raw);
    if (!s || depth > 12) return undefined;
    if (s.default !== undefined) return structuredClone(s.default);
    if (s.enum?.length) return s.enum[0];
    if (isIntOrString(s)) return 0;
    const t = Array.isArray(s.type) ? s.type[0] : s.type;
    if (t === 'string') return '';
    if (t === 'integer' || t === 'number') return typeof (s as { minimum?: number }).minimum === 'number' ? (s as { minimum: number }).minimum : 0;
    if (t === 'boolean') return false;
    if (t === 'array') {
      const item = deref(doc, s.items);
      return item?.required?.length ? [fill(s.items, depth + 1)] : [];
    }
    if (t === 'object' || s.properties) {
      const out: Record<string, unknown> = {};
      for (const req of s.required ?? []) {
        const v = fill(s.properties?.[req], depth + 1);
        out[req] = v === undefined ? {} : v;
        if (req === 'name' && typeof out[req] === 'string') out[req] = name;
      }
      const props = s.properties ?? {};
      const selectorRef = props.selector && refOf(props.selector);
      const templateRef = props.template && refOf(props.template);
      if (selectorRef === LABEL_SELECTOR && templateRef === POD_TEMPLATE) {
        out.selector = { matchLabels: { app: name } };
        const tpl = (out.template ?? {}) as Record<string, unknown>;
        out.template = { ...tpl, metadata: { labels: { app: name } }, spec: tpl.spec ?? fill(deref(doc, props.template)?.properties?.spec, depth + 1) ?? {} };
      }
      return out;
    }
    return undefined;
  };
  const root = doc.components?.schemas?.[rootName];
  const body = (fill(root, 0) as Record<string, unknown> | undefined) ?? {};
  delete body.apiVersion;
  delete body.kind;
  delete body.metadata;
  delete body.status;
  const out: Record<string, unknown> = { apiVersion: opts.apiVersion, kind: opts.kind, metadata: { name, ...(opts.namespace ? { namespace: opts.namespace } : {}) } };
  // the spec is where the user starts typing: always there, with its required fields
  if (root?.properties?.spec && !('spec' in body)) body.spec = fill(root.properties.spec, 1) ?? {};
  return { ...out, ...body };
}

function refOf(s: OpenApiSchema): string | undefined {
  if (s.$ref) return refName(s.$ref);
  if (s.allOf?.length === 1 && s.allOf[0]!.$ref) return refName(s.allOf[0]!.$ref);
  return undefined;
}
