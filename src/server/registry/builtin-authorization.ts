// authorization.service.io/v1 (upstream authorization.k8s.io): the access review kinds, virtual and
// create-only (nothing is stored); src/server/http/rest/authorization.ts answers them.
import { reviewType } from './builtin-helpers.js';
import type { ResourceType } from './types.js';

export const AUTHZ_GROUP = 'authorization.service.io';

export const authorizationTypes: ResourceType[] = [
  reviewType(AUTHZ_GROUP, 'authorization.v1', 'LocalSubjectAccessReview', 'localsubjectaccessreviews', 'Namespaced'),
  reviewType(AUTHZ_GROUP, 'authorization.v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', 'Cluster'),
  reviewType(AUTHZ_GROUP, 'authorization.v1', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', 'Cluster'),
  reviewType(AUTHZ_GROUP, 'authorization.v1', 'SubjectAccessReview', 'subjectaccessreviews', 'Cluster'),
];
