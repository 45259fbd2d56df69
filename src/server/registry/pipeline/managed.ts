// managedFields of a non-apply write, recorded under the write's field manager (upstream's fieldmanager runs in
// the handler, before mutating admission). The algorithms live in registry/patch.
import { errors, failure } from '../../../api/status.js';
import { ApplyConflictError, setManagedFields, updateManagedFields } from '../patch/apply.js';
import { FieldSet } from '../patch/fieldpath.js';
import { PatchError } from '../patch/patch-error.js';
import { nowTimestamp } from '../resource-store.js';
import { builtinSchemas } from '../schema/registry.js';
import type { KubeObject, ResourceType } from '../types.js';
import type { WriteContext } from './context.js';

const STATUS_FIELDS = FieldSet.fields('status');
const NON_STATUS_FIELDS = FieldSet.fields('spec');

const gv = (t: ResourceType) => (t.group ? `${t.group}/${t.version}` : t.version);

/** The options the managedFields algorithms take for a write to `type` (and its sub-resource). */
export function managedFieldsOptions(type: ResourceType, subresource: string) {
  const hasStatus = type.subresources.some((x) => x.name === 'status');
  return {
    apiVersion: gv(type),
    schema: type.schema,
    reg: builtinSchemas,
    now: nowTimestamp(),
    subresource: subresource || undefined,
    zeroStructs: !type.custom,
    ignoredFields: subresource === 'status' || subresource === 'approval' ? NON_STATUS_FIELDS : hasStatus ? STATUS_FIELDS : undefined,
  };
}

/** Records the fields a create, update or patch changed under the context's manager. */
export function recordUpdate(type: ResourceType, ctx: WriteContext, old: KubeObject | undefined, next: KubeObject, subresource: string): void {
  if (ctx.appliedManagedFields || !ctx.fieldManager) return;
  try {
    const entries = updateManagedFields(old, next, { ...managedFieldsOptions(type, subresource), manager: ctx.fieldManager, operation: 'Update' });
    setManagedFields(next, entries);
  } catch (e) {
    throw managedFieldsStatus(e);
  }
}

/** An apply conflict (409 with FieldManagerConflict causes) or a patch error as a Status. */
export function managedFieldsStatus(e: unknown): unknown {
  if (e instanceof ApplyConflictError)
    return failure(409, 'Conflict', e.message, {
      causes: e.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: c.message, field: c.field })),
    });
  if (e instanceof PatchError) return e.reason === 'Invalid' ? failure(422, 'Invalid', e.message) : errors.badRequest(e.message);
  return e;
}
