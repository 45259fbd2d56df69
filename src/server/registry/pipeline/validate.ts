// Semantic validation of an object about to be stored (upstream rest.BeforeCreate/BeforeUpdate's Validate):
// metadata, schema constraints, strategy rules. Throws 422.
import { errors } from '../../../api/status.js';
import { validateObjectMeta } from '../meta-validation.js';
import { builtinSchemas } from '../schema/registry.js';
import { validateObject } from '../schema/validate.js';
import type { FieldError, KubeObject, ResourceType } from '../types.js';

/** Semantic validation after defaulting: metadata, schema constraints, strategy rules. Throws 422. */
export async function validateForStore(type: ResourceType, obj: KubeObject, old: KubeObject | undefined): Promise<void> {
  const errs: FieldError[] = validateObjectMeta(obj.metadata ?? {}, type.scope === 'Namespaced', type.strategy.nameValidation ?? 'subdomain');
  if (type.schema) {
    const r = validateObject(obj, type.schema, builtinSchemas, { pruneUnknown: false });
    for (const e of r.errors) if (!e.field.startsWith('metadata.') || e.type !== 'FieldValueRequired') errs.push(e);
  }
  if (type.strategy.validate) errs.push(...type.strategy.validate(obj, old));
  if (type.strategy.validateAsync) errs.push(...(await type.strategy.validateAsync(obj, old)));
  if (errs.length > 0) throw errors.invalid(type.group, type.kind, String(obj.metadata?.name ?? obj.metadata?.generateName ?? ''), dedupe(errs));
}

/** Types a field reports once: the schema and the strategy may both find them, the strategy's (later) words win. */
const ONCE_PER_FIELD = new Set<FieldError['type']>(['FieldValueRequired', 'FieldValueNotSupported']);

function dedupe(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  const last = new Map<string, FieldError>();
  for (const e of errs) if (ONCE_PER_FIELD.has(e.type)) last.set(`${e.field}\u0000${e.type}`, e);
  return errs.filter((e) => {
    if (ONCE_PER_FIELD.has(e.type) && last.get(`${e.field}\u0000${e.type}`) !== e) return false;
    const k = `${e.field}\u0000${e.detail}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
