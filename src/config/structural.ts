// Checks a document against the model alone: JSON types, required fields, enumerations, list
// bounds, duration syntax, conditional fields, one-of unions and unknown fields (warnings).
// Rules that need more than one field's value live in the per-kind validators.

import { parseDuration } from './formats.js';
import { TYPE_MODELS, type FieldCondition, type FieldModel, type FieldType, type TypeModel, type TypeName } from './model.js';
import {
  child,
  forbidden,
  index,
  invalid,
  notSupported,
  required,
  tooMany,
  warning,
  type ConfigProblem,
} from './problems.js';

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go treats null like an absent field. */
export function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** `topLevel` marks a whole document, whose apiVersion and kind are checked by the caller. */
export function checkObject(value: unknown, type: TypeName, path: string, out: ConfigProblem[], topLevel = false): void {
  if (!isPlainObject(value)) {
    out.push(invalid(path, value, 'must be an object'));
    return;
  }
  const model = TYPE_MODELS[type];
  const known = new Set<string>();
  for (const field of model.fields) {
    known.add(field.name);
    checkField(value, model, field, child(path, field.name), out);
  }
  if (topLevel) {
    known.add('apiVersion');
    known.add('kind');
  }
  for (const key of Object.keys(value)) {
    if (!known.has(key)) out.push(warning(child(path, key), `unknown field "${key}"`));
  }
  if (model.exactlyOne) {
    const set = model.fields.filter((f) => isSet(value[f.name]));
    if (set.length === 0) out.push(invalid(path, undefined, model.exactlyOne.none));
    else if (set.length > 1) out.push(invalid(path, undefined, model.exactlyOne.many));
  }
}

function conditionHolds(owner: Record<string, unknown>, cond: FieldCondition): boolean | undefined {
  const v = owner[cond.field];
  if (typeof v !== 'string' || v === '') return undefined;
  return cond.values.includes(v);
}

/** Whether the discriminator holds a value its enumeration knows; conditions are not judged otherwise. */
function discriminatorKnown(owner: Record<string, unknown>, model: TypeModel, cond: FieldCondition): boolean {
  const disc = model.fields.find((f) => f.name === cond.field);
  if (!disc || disc.type.t !== 'string' || !disc.type.enum) return true;
  return disc.type.enum.includes(owner[cond.field] as string);
}

function describeCondition(cond: FieldCondition): string {
  return `${cond.field}=${cond.values[0]}`;
}

function checkField(owner: Record<string, unknown>, model: TypeModel, field: FieldModel, path: string, out: ConfigProblem[]): void {
  const value = owner[field.name];
  const aliasSet = () => model.fields.some((f) => f.aliasOf === field.name && isSet(owner[f.name]));
  const detail = field.requiredDetail?.replace('{path}', path);

  if (!isSet(value)) {
    if (field.required) {
      out.push(required(path, detail));
      return;
    }
    const cond = field.requiredWhen;
    if (cond && discriminatorKnown(owner, model, cond) && conditionHolds(owner, cond)) {
      if (!aliasSet()) out.push(required(path, `required when ${describeCondition(cond)}`));
    }
    return;
  }

  const cond = field.forbiddenUnless;
  if (cond && discriminatorKnown(owner, model, cond) && conditionHolds(owner, cond) === false) {
    out.push(forbidden(path, `may only be specified when ${describeCondition(cond)}`));
    return;
  }
  if (field.aliasOf && isSet(owner[field.aliasOf])) {
    out.push(forbidden(path, `may not be set together with ${field.aliasOf}, of which it is another spelling`));
    return;
  }
  checkValue(value, field.type, path, out, field, detail);
}

function checkValue(value: unknown, type: FieldType, path: string, out: ConfigProblem[], field?: FieldModel, detail?: string): void {
  switch (type.t) {
    case 'string': {
      if (typeof value !== 'string') {
        out.push(invalid(path, value, 'must be a string'));
        return;
      }
      if (value === '') {
        if (field?.required) out.push(required(path, detail));
        return;
      }
      if (type.enum && !type.enum.includes(value)) {
        out.push(notSupported(path, value, type.enum));
        return;
      }
      if (type.format === 'duration' && parseDuration(value) === undefined) {
        out.push(invalid(path, value, 'must be a duration such as "30s", "5m" or "1m30s"'));
      }
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean') out.push(invalid(path, value, 'must be a boolean'));
      return;
    case 'int32': {
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        out.push(invalid(path, value, 'must be an integer'));
        return;
      }
      const min = type.minimum ?? INT32_MIN;
      const max = type.maximum ?? INT32_MAX;
      if (value < min || value > max) out.push(invalid(path, value, `must be between ${min} and ${max}, inclusive`));
      return;
    }
    case 'object':
      checkObject(value, type.ref, path, out);
      return;
    case 'unstructured':
      if (!isPlainObject(value)) out.push(invalid(path, value, 'must be an object'));
      return;
    case 'list': {
      if (!Array.isArray(value)) {
        out.push(invalid(path, value, 'must be a list'));
        return;
      }
      if (type.minItems !== undefined && value.length < type.minItems) out.push(required(path, detail));
      if (type.maxItems !== undefined && value.length > type.maxItems) out.push(tooMany(path, value.length, type.maxItems));
      value.forEach((item, i) => {
        const itemPath = index(path, i);
        if (item === null || item === undefined) {
          out.push(invalid(itemPath, null, type.items.t === 'object' ? 'must be an object' : `must be a ${type.items.t}`));
          return;
        }
        checkValue(item, type.items, itemPath, out);
      });
      return;
    }
  }
}

// Readers for the rule code, which runs after the structural pass and must tolerate values the
// structural pass already reported (wrong types, nulls).

export function asObject(v: unknown): Record<string, unknown> | undefined {
  return isPlainObject(v) ? v : undefined;
}

export function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Set in the upstream sense: a non-empty string, or any other non-null value (already reported if mistyped). */
export function given(v: unknown): boolean {
  return typeof v === 'string' ? v.length > 0 : isSet(v);
}
