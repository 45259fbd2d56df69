// authentication.service.io/v1 (upstream authentication.k8s.io): virtual, create-only review
// resources (nothing is stored) and the serviceaccounts/token sub-resource (TokenRequest).
import { builtinSchemas } from './schema/registry.js';
import type { ResourceType } from './types.js';

const AUTHN = 'authentication.service.io';

function review(kind: string, plural: string): ResourceType {
  const schemaRef = `io.k8s.api.authentication.v1.${kind}`;
  return {
    group: AUTHN,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    categories: [],
    scope: 'Cluster',
    verbs: ['create'],
    subresources: [],
    schema: builtinSchemas.get(schemaRef),
    schemaRef,
    strategy: {},
    custom: false,
    served: true,
  };
}

export const authenticationTypes: ResourceType[] = [review('SelfSubjectReview', 'selfsubjectreviews'), review('TokenReview', 'tokenreviews')];

/** Kinds of this group answered without storage (the REST layer routes them to their handlers). */
export const VIRTUAL_KINDS = new Set(['SelfSubjectReview', 'TokenReview']);

/** serviceaccounts/token: POST a TokenRequest, get a signed service account token back. */
export function withTokenRequest(t: ResourceType): ResourceType {
  t.subresources.push({ name: 'token', kind: 'TokenRequest', group: AUTHN, version: 'v1', verbs: ['create'] });
  return t;
}
