// Managed fields on every write, and the strategic-merge and apply algorithms plugged into PATCH.
import { errors, failure } from '../../../api/status.js';
import { applyPatch, ApplyConflictError, defaultFieldManager, KUBECTL_APPLY_MANAGER, LAST_APPLIED_ANNOTATION, setManagedFields, updateManagedFields } from '../../registry/patch/apply.js';
import { FieldSet } from '../../registry/patch/fieldpath.js';
import { PatchError } from '../../registry/patch/patch-error.js';
import { strategicMergePatch } from '../../registry/patch/strategic.js';
import { builtinSchemas } from '../../registry/schema/registry.js';
import type { KubeObject } from '../../registry/types.js';
import { nowTimestamp } from '../../registry/resource-store.js';
import type { RequestScope } from '../scope.js';
import { gv } from './decode.js';
import { patchAlgorithms } from './patch-algorithms.js';

const STATUS_FIELDS = FieldSet.fields('status');
const NON_STATUS_FIELDS = FieldSet.fields('spec');

/** The manager a write is recorded under: `fieldManager`, else derived from the User-Agent as upstream. */
export function managerOf(s: RequestScope): string {
  const m = s.query.get('fieldManager');
  if (m) {
    if (m.length > 128) throw errors.invalid('meta.service.io', 'UpdateOptions', '', [{ type: 'FieldValueTooLong', field: 'fieldManager', detail: 'Too long: must have at most 128 bytes' }]);
    return m;
  }
  return defaultFieldManager(s.req.headers['user-agent']);
}

function options(s: RequestScope, subresource: string) {
  const hasStatus = s.type.subresources.some((x) => x.name === 'status');
  return {
    apiVersion: gv(s.type.group, s.type.version),
    schema: s.type.schema,
    reg: builtinSchemas,
    now: nowTimestamp(),
    subresource: subresource || undefined,
    zeroStructs: !s.type.custom,
    ignoredFields: subresource === 'status' || subresource === 'approval' ? NON_STATUS_FIELDS : hasStatus ? STATUS_FIELDS : undefined,
  };
}

/** Records the fields a non-apply write (create, update, patch) changed under its manager. */
export function trackUpdate(s: RequestScope, old: KubeObject | undefined, next: KubeObject, subresource: string): void {
  if (s.appliedManagedFields) return;
  try {
    const entries = updateManagedFields(old, next, { ...options(s, subresource), manager: managerOf(s), operation: 'Update' });
    setManagedFields(next, entries);
  } catch (e) {
    throw toStatus(e);
  }
}

function toStatus(e: unknown): unknown {
  if (e instanceof ApplyConflictError)
    return failure(409, 'Conflict', e.message, {
      causes: e.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: c.message, field: c.field })),
    });
  if (e instanceof PatchError) return e.reason === 'Invalid' ? failure(422, 'Invalid', e.message) : errors.badRequest(e.message);
  return e;
}

export function installPatchAlgorithms(): void {
  patchAlgorithms.strategic = (s, current, patch) => {
    try {
      return strategicMergePatch(current, patch, s.type.schema, builtinSchemas) as KubeObject;
    } catch (e) {
      throw toStatus(e);
    }
  };
  patchAlgorithms.apply = (s, current, applied, { manager, force }) => {
    try {
      const lastApplied = manager === KUBECTL_APPLY_MANAGER ? lastAppliedOf(current) : undefined;
      // the server's defaults, for apply's comparisons on scratch copies (not when they allocate)
      const defaults = s.type.strategy.defaultsAllocate ? undefined : s.type.strategy.defaults;
      const { object } = applyPatch(current, applied, {
        ...options(s, s.info.subresource),
        manager,
        force,
        lastApplied,
        typedStructs: !s.type.custom,
        ...(defaults && !s.info.subresource ? { defaults: (o: KubeObject, live: KubeObject | undefined) => defaults.call(s.type.strategy, o, live) } : {}),
      });
      s.appliedManagedFields = true;
      return object;
    } catch (e) {
      throw toStatus(e);
    }
  };
}

/** The parsed client-side last-applied configuration of an object, if it carries a readable one. */
function lastAppliedOf(obj: KubeObject | undefined): unknown {
  const text = obj?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
