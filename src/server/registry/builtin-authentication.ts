// authentication.service.io/v1 (upstream authentication.k8s.io): virtual, create-only review
// resources (nothing is stored) and the serviceaccounts/token sub-resource (TokenRequest).
import { reviewType } from './builtin-helpers.js';
import type { ResourceType } from './types.js';

const AUTHN = 'authentication.service.io';

export const authenticationTypes: ResourceType[] = [
  reviewType(AUTHN, 'authentication.v1', 'SelfSubjectReview', 'selfsubjectreviews'),
  reviewType(AUTHN, 'authentication.v1', 'TokenReview', 'tokenreviews'),
];

/** Kinds of this group answered without storage (the REST layer routes them to their handlers). */
export const VIRTUAL_KINDS = new Set(['SelfSubjectReview', 'TokenReview']);

/** serviceaccounts/token: POST a TokenRequest, get a signed service account token back. */
export function withTokenRequest(t: ResourceType): ResourceType {
  t.subresources.push({ name: 'token', kind: 'TokenRequest', group: AUTHN, version: 'v1', verbs: ['create'] });
  return t;
}
