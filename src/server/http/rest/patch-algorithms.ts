// Where strategic merge patch and server-side apply plug into PATCH (installed by managed.ts at start):
// its own module so that patch.ts → write.ts → managed.ts never leads back to patch.ts.
import type { KubeObject } from '../../registry/types.js';
import type { RequestScope } from '../scope.js';

/** Strategic merge patch and server-side apply plug in here (schema-driven algorithms live in registry/patch). */
export interface PatchAlgorithms {
  strategic?(s: RequestScope, current: KubeObject, patch: unknown): KubeObject;
  /** Apply: returns the object to store (managedFields included); `current` undefined means create. */
  apply?(s: RequestScope, current: KubeObject | undefined, applied: KubeObject, opts: { manager: string; force: boolean }): KubeObject;
}

export const patchAlgorithms: PatchAlgorithms = {};
