// Field validation (unknown/duplicate fields) and object validation (schema, metadata, strategy) for writes.
import { errors } from '../../../api/status.js';
import { builtinSchemas } from '../../registry/schema/registry.js';
import { formatDecodeError, validateObject } from '../../registry/schema/validate.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import type { FieldValidation } from './decode.js';
import { goQuote } from '../../registry/patch/go-format.js';

/**
 * Checks the decoded body against the type's schema: unknown fields are pruned (and reported per
 * fieldValidation), type errors end the request. Returns the warnings to send. `wholeBody`: the object is a
 * create or update body (not a patch result).
 */
export function checkFields(type: ResourceType, obj: KubeObject, level: FieldValidation, duplicates: string[], wholeBody = false, patchValue?: () => string): string[] {
  // the bad value of a patch's strict error, taken before pruning drops the unknown fields
  const patchText = level === 'Strict' && patchValue ? patchValue() : undefined;
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
  // transformDecodeError, with the body's kind and version); a JSON, merge or strategic merge patch's are a 422 on
  // the field `patch` (handlers/patch.go: jsonPatcher, applyPatchToObject), kind and name empty
  if (level === 'Strict') {
    if (patchText !== undefined)
      throw errors.invalid('', '', '', [{ type: 'FieldValueInvalid', field: 'patch', detail: `Invalid value: ${goQuote(patchText)}: ${strict}` }]);
    throw errors.badRequest(wholeBody ? formatDecodeError(type.kind, type.version, strict) : strict);
  }
  return problems;
}

