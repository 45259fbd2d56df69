// Constructors for FieldError in upstream's field.Error shape: detail is the error body
// ("<Type>: <value>: <detail>") and field is the dotted path with [i] indices.
import type { FieldError } from '../types.js';

/** Prints a bad value the way upstream error bodies do: strings quoted, scalars bare, the rest as JSON. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return String(v);
  }
}

const withDetail = (head: string, detail?: string) => (detail ? `${head}: ${detail}` : head);

export function required(field: string, detail?: string): FieldError {
  return { type: 'FieldValueRequired', field, detail: withDetail('Required value', detail) };
}

export function invalid(field: string, value: unknown, detail?: string): FieldError {
  return { type: 'FieldValueInvalid', field, badValue: value, detail: withDetail(`Invalid value: ${formatValue(value)}`, detail) };
}

export function typeInvalid(field: string, value: unknown, detail?: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field, badValue: value, detail: withDetail(`Invalid value: ${formatValue(value)}`, detail) };
}

export function notSupported(field: string, value: unknown, supported: readonly unknown[]): FieldError {
  const list = supported.map((s) => JSON.stringify(typeof s === 'string' ? s : JSON.stringify(s))).join(', ');
  return {
    type: 'FieldValueNotSupported',
    field,
    badValue: value,
    detail: withDetail(`Unsupported value: ${formatValue(value)}`, supported.length ? `supported values: ${list}` : undefined),
  };
}

export function forbidden(field: string, detail?: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail: withDetail('Forbidden', detail) };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, badValue: value, detail: `Duplicate value: ${formatValue(value)}` };
}

export function tooLong(field: string, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, detail: `Too long: may not be more than ${max} bytes` };
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, badValue: actual, detail: `Too many: ${actual}: must have at most ${max} items` };
}

/** Renders errors the way upstream's Invalid status message lists them: "<field>: <detail>". */
export function errorString(e: FieldError): string {
  return e.field ? `${e.field}: ${e.detail}` : e.detail;
}
