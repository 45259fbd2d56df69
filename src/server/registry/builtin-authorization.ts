// authorization.service.io/v1 (upstream authorization.k8s.io): the access review kinds, virtual and
// create-only (nothing is stored); src/server/http/rest/authorization.ts answers them.
import { builtinSchemas } from './schema/registry.js';
import type { ResourceType, Scope } from './types.js';

export const AUTHZ_GROUP = 'authorization.service.io';

function review(kind: string, plural: string, scope: Scope): ResourceType {
  const schemaRef = `io.k8s.api.authorization.v1.${kind}`;
  return {
    group: AUTHZ_GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    categories: [],
    scope,
    verbs: ['create'],
    subresources: [],
    schema: builtinSchemas.get(schemaRef),
    schemaRef,
    strategy: {},
    custom: false,
    served: true,
  };
}

export const authorizationTypes: ResourceType[] = [
  review('LocalSubjectAccessReview', 'localsubjectaccessreviews', 'Namespaced'),
  review('SelfSubjectAccessReview', 'selfsubjectaccessreviews', 'Cluster'),
  review('SelfSubjectRulesReview', 'selfsubjectrulesreviews', 'Cluster'),
  review('SubjectAccessReview', 'subjectaccessreviews', 'Cluster'),
];
