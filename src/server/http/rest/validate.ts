// Field validation (unknown/duplicate fields) and object validation (schema, metadata, strategy) for writes.
import { errors } from '../../../api/status.js';
import { builtinSchemas } from '../../registry/schema/registry.js';
import { formatDecodeError, validateObject } from '../../registry/schema/validate.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import type { FieldValidation } from './decode.js';

/**
 * Checks the decoded body against the type's schema: unknown fields are pruned (and reported per
 * fieldValidation), type errors end the request. Returns the warnings to send. `wholeBody`: the object is a
 * create or update body (not a patch result).
 */
export function checkFields(type: ResourceType, obj: KubeObject, level: FieldValidation, duplicates: string[], wholeBody = false): string[] {
  if (!type.schema) return [];
  const { errors: errs, unknownFields, decodeError } = validateObject(obj, type.schema, builtinSchemas, { pruneUnknown: true });
  const typeErrors = errs.filter((e) => e.type === 'FieldValueTypeInvalid');
  // a wrong type is fatal whatever the validation level, and the unknown fields are not reported (spec, Errors)
  if (decodeError !== undefined && !type.custom) throw errors.badRequest(formatDecodeError(type.kind, type.version, decodeError));
  if (typeErrors.length > 0) {
    throw errors.invalid(type.group, type.kind, String(obj.metadata?.name ?? ''), typeErrors);
  }
  // a field both unknown and duplicated is reported once, as unknown (as upstream for typed resources)
  const unknown = new Set(unknownFields);
  const problems = [...duplicates.filter((p) => !unknown.has(p)).map((p) => `duplicate field "${p}"`), ...unknownFields.map((p) => `unknown field "${p}"`)];
  if (problems.length === 0 || level === 'Ignore') return [];
  const strict = `strict decoding error: ${problems.join(', ')}`;
  // a create or update body goes through the decoder, whose errors upstream prefixes (handlers/create.go
  // transformDecodeError, with the body's kind and version); patches report the bare strict error
  if (level === 'Strict') throw errors.badRequest(wholeBody ? formatDecodeError(type.kind, type.version, strict) : strict);
  return problems;
}

