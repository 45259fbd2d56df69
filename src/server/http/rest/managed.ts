// Managed fields on every write, and the strategic-merge and apply algorithms plugged into PATCH.
import { errors } from '../../../api/status.js';
import { applyPatch, defaultFieldManager, KUBECTL_APPLY_MANAGER, LAST_APPLIED_ANNOTATION } from '../../registry/patch/apply.js';
import { managedFieldsOptions, managedFieldsStatus } from '../../registry/pipeline/managed.js';
import { builtinSchemas } from '../../registry/schema/registry.js';
import { strategicMergePatch } from '../../registry/patch/strategic.js';
import type { KubeObject } from '../../registry/types.js';
import type { RequestScope } from '../scope.js';
import { patchAlgorithms } from './patch-algorithms.js';

/** The manager a write is recorded under: `fieldManager`, else derived from the User-Agent as upstream. */
export function managerOf(s: RequestScope): string {
  const m = s.query.get('fieldManager');
  if (m) {
    if (m.length > 128) throw errors.invalid('meta.service.io', 'UpdateOptions', '', [{ type: 'FieldValueTooLong', field: 'fieldManager', detail: 'Too long: must have at most 128 bytes' }]);
    return m;
  }
  return defaultFieldManager(s.req.headers['user-agent']);
}

export function installPatchAlgorithms(): void {
  patchAlgorithms.strategic = (s, current, patch) => {
    try {
      return strategicMergePatch(current, patch, s.type.schema, builtinSchemas) as KubeObject;
    } catch (e) {
      throw managedFieldsStatus(e);
    }
  };
  patchAlgorithms.apply = (s, current, applied, { manager, force }) => {
    try {
      const lastApplied = manager === KUBECTL_APPLY_MANAGER ? lastAppliedOf(current) : undefined;
      // the server's defaults, for apply's comparisons on scratch copies (not when they allocate)
      const defaults = s.type.strategy.defaultsAllocate ? undefined : s.type.strategy.defaults;
      const { object } = applyPatch(current, applied, {
        ...managedFieldsOptions(s.type, s.info.subresource),
        manager,
        force,
        lastApplied,
        typedStructs: !s.type.custom,
        ...(defaults && !s.info.subresource ? { defaults: (o: KubeObject, live: KubeObject | undefined) => defaults.call(s.type.strategy, o, live) } : {}),
      });
      s.appliedManagedFields = true;
      return object;
    } catch (e) {
      throw managedFieldsStatus(e);
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
