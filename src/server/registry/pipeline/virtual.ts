// Creates of virtual sub-resources and kinds that store nothing of their own (pods/binding, pods/eviction,
// serviceaccounts/token, TokenReview, SubjectAccessReview, ...): upstream's create handler runs mutating admission
// on them and their REST Create runs the validating admission (createValidation) before acting.
import type { AdmissionAttributes, AdmissionChain } from '../../http/admission.js';
import type { KubeObject, ResourceType } from '../types.js';
import { wireUser, type WriteContext } from './context.js';

export interface VirtualCreate {
  type: ResourceType;
  namespace: string;
  name: string;
  subresource: string;
  object: KubeObject;
  /** The object's kind when it is not the resource's own. */
  kind?: { group: string; version: string; kind: string };
}

/**
 * Admits a create that stores nothing itself: mutating admission, then `check` (the kind's own validation, on the
 * admitted object), then validating admission. Returns the admitted object (mutating webhooks may have changed it).
 */
export async function admitVirtualCreate(admission: AdmissionChain, ctx: WriteContext, v: VirtualCreate, check?: (obj: KubeObject) => void): Promise<KubeObject> {
  const attrs: AdmissionAttributes = {
    operation: 'CREATE',
    type: v.type,
    namespace: v.namespace,
    name: v.name,
    subresource: v.subresource,
    object: v.object,
    dryRun: ctx.dryRun,
    user: ctx.user.name,
    userInfo: wireUser(ctx),
    warnings: ctx.warnings,
  };
  if (v.kind) attrs.kind = v.kind;
  if (ctx.options) attrs.options = ctx.options;
  await admission.admit(attrs);
  check?.(attrs.object!);
  await admission.validate(attrs);
  return attrs.object!;
}
