// Every react-query key the explorer uses, in one place: a view never spells a key itself, so one
// invalidation (a sign-in, a context switch, a write) reaches every reader of the same data.
import type { QueryKey } from '@tanstack/react-query';

export const keys = {
  discovery: (): QueryKey => ['discovery'],
  version: (): QueryKey => ['version'],
  contexts: (): QueryKey => ['contexts'],
  featureGates: (): QueryKey => ['feature-gates'],
  openApi: (group: string, version: string): QueryKey => ['openapi-v3', group, version],
  counts: (namespace: string, kinds: string): QueryKey => ['overview-counts', namespace, kinds],
  atRest: (path: string, resourceVersion: string | undefined): QueryKey => ['at-rest', path, resourceVersion],
  replicaSetsOf: (namespace: string | undefined, selector: string, resourceVersion: string | undefined): QueryKey => ['deployment-replicasets', namespace, selector, resourceVersion],
  namespaceChanges: (namespace: string, minutes: number, kinds: number): QueryKey => ['namespace-changes', namespace, minutes, kinds],
  namespaceDeletions: (namespace: string, minutes: number, kinds: number): QueryKey => ['namespace-deletions', namespace, minutes, kinds],
  relationships: (group: string, resource: string, namespace: string | undefined, name: string | undefined, resourceVersion: string | undefined): QueryKey => [
    'relationships',
    group,
    resource,
    namespace,
    name,
    resourceVersion,
  ],
  accessRules: (namespace: string): QueryKey => ['access-rules', namespace],
  accessVerbs: (group: string | undefined, resource: string | undefined, namespace: string): QueryKey => ['access-verbs', group, resource, namespace],
  accessRoleBindings: (kind: string | undefined, namespace: string, name: string | undefined): QueryKey => ['access-role-bindings', kind, namespace, name],
  accessBindingRole: (kind: string | undefined, namespace: string, name: string | undefined): QueryKey => ['access-binding-role', kind, namespace, name],
  accessWho: (group: string, resource: string, namespace: string, name: string): QueryKey => ['access-who', group, resource, namespace, name],
  authorizationMode: (): QueryKey => ['authorization-mode'],
  metrics: (group: string, version: string, resource: string): QueryKey => ['metrics', group, version, resource],
  /** One object read once (the editor's "theirs" on a conflict); the views watch objects through informers. */
  objectRead: (path: string): QueryKey => ['object-read', path],
  dependents: (uid: string | undefined): QueryKey => ['delete-dependents', uid],
};
