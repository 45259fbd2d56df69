// JSON Schema (draft-07) of each configuration kind, generated from model.ts so the editor's
// completion and validation follow the same model as validate.ts.

import { DURATION_PATTERN } from './formats.js';
import {
  acceptedApiVersions,
  CONFIG_API_VERSION,
  CONFIG_KINDS,
  TYPE_MODELS,
  type ConfigKind,
  type FieldModel,
  type FieldType,
  type TypeModel,
  type TypeName,
} from './model.js';

/** The subset of JSON Schema draft-07 the generator produces. */
export interface JsonSchema {
  $schema?: string;
  $ref?: string;
  title?: string;
  description?: string;
  type?: 'object' | 'array' | 'string' | 'boolean' | 'integer';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  minProperties?: number;
  maxProperties?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  enum?: readonly string[];
  const?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  examples?: unknown[];
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  not?: JsonSchema;
  if?: JsonSchema;
  then?: JsonSchema;
  else?: JsonSchema;
  definitions?: Record<string, JsonSchema>;
}

const INT32 = { minimum: -2147483648, maximum: 2147483647 };

function typeSchema(type: FieldType, refs: Set<TypeName>): JsonSchema {
  switch (type.t) {
    case 'string': {
      const s: JsonSchema = { type: 'string' };
      if (type.enum) s.enum = type.enum;
      if (type.format === 'duration') {
        s.pattern = DURATION_PATTERN;
        s.examples = ['30s', '5m', '1m30s'];
      }
      return s;
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'int32':
      return { type: 'integer', minimum: type.minimum ?? INT32.minimum, maximum: type.maximum ?? INT32.maximum };
    case 'object':
      refs.add(type.ref);
      return { $ref: `#/definitions/${type.ref}` };
    case 'list': {
      const s: JsonSchema = { type: 'array', items: typeSchema(type.items, refs) };
      if (type.minItems !== undefined) s.minItems = type.minItems;
      if (type.maxItems !== undefined) s.maxItems = type.maxItems;
      return s;
    }
    case 'unstructured':
      return { type: 'object' };
  }
}

function fieldSchema(field: FieldModel, refs: Set<TypeName>): JsonSchema {
  const inner = typeSchema(field.type, refs);
  // draft-07 ignores keywords next to $ref, so a described reference goes through allOf.
  const s: JsonSchema = inner.$ref ? { allOf: [inner] } : inner;
  s.description = field.description;
  if (field.required && field.type.t === 'string') s.minLength = 1;
  if (field.default !== undefined) s.default = field.default;
  return s;
}

function discriminated(field: string, values: readonly string[]): JsonSchema {
  return { properties: { [field]: { enum: values } }, required: [field] };
}

function objectSchema(model: TypeModel, refs: Set<TypeName>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const allOf: JsonSchema[] = [];
  for (const f of model.fields) {
    properties[f.name] = fieldSchema(f, refs);
    if (f.required) required.push(f.name);
    const aliases = model.fields.filter((a) => a.aliasOf === f.name).map((a) => a.name);
    if (f.requiredWhen) {
      const names = [f.name, ...aliases];
      const then: JsonSchema = names.length === 1 ? { required: [f.name] } : { anyOf: names.map((n) => ({ required: [n] })) };
      allOf.push({ if: discriminated(f.requiredWhen.field, f.requiredWhen.values), then });
    }
    if (f.forbiddenUnless) {
      allOf.push({ if: discriminated(f.forbiddenUnless.field, f.forbiddenUnless.values), else: { not: { required: [f.name] } } });
    }
    if (f.aliasOf) allOf.push({ not: { required: [f.name, f.aliasOf] } });
  }
  const s: JsonSchema = { type: 'object', description: model.description, properties, additionalProperties: false };
  if (required.length > 0) s.required = required;
  if (model.exactlyOne) {
    s.minProperties = 1;
    s.maxProperties = 1;
  }
  if (allOf.length > 0) s.allOf = allOf;
  return s;
}

/** The JSON Schema of one kind, with every nested type under `definitions`. */
export function configJsonSchema(kind: ConfigKind): JsonSchema {
  const refs = new Set<TypeName>();
  const root = objectSchema(TYPE_MODELS[kind], refs);
  root.properties = {
    apiVersion: {
      type: 'string',
      description: `Group/version of the document: ${CONFIG_API_VERSION} (upstream spellings accepted).`,
      enum: acceptedApiVersions(kind),
      default: CONFIG_API_VERSION,
    },
    kind: { type: 'string', description: 'Kind of the document.', const: kind, enum: [kind], default: kind },
    ...root.properties,
  };
  root.required = ['apiVersion', 'kind', ...(root.required ?? [])];

  const definitions: Record<string, JsonSchema> = {};
  const pending = [...refs];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (definitions[name]) continue;
    const before = new Set(refs);
    definitions[name] = objectSchema(TYPE_MODELS[name], refs);
    for (const r of refs) if (!before.has(r)) pending.push(r);
  }
  const ordered = Object.fromEntries(Object.keys(definitions).sort().map((k) => [k, definitions[k]!]));
  return { $schema: 'http://json-schema.org/draft-07/schema#', title: kind, ...root, definitions: ordered };
}

export const CONFIG_JSON_SCHEMAS: Readonly<Record<ConfigKind, JsonSchema>> = Object.fromEntries(
  CONFIG_KINDS.map((k) => [k, configJsonSchema(k)]),
) as Record<ConfigKind, JsonSchema>;
