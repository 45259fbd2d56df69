// Upstream's NodeRules (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go at 1.33): what a kubelet may do,
// the static part of the Node authorizer and the rules of the system:node ClusterRole (bound to nobody since
// 1.8). Groups in our canonical spelling; only what this server serves.
import type { PolicyRule } from './rbac.js';

const r = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });
const READ = ['get', 'list', 'watch'];

export const NODE_RULES: PolicyRule[] = [
  // API access checks (non-mutating creates)
  r(['create'], ['authentication.service.io'], ['tokenreviews']),
  r(['create'], ['authorization.service.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  // the service lister for the pods' environment variables
  r(READ, [''], ['services']),
  // nodes register themselves and report status (NodeRestriction: only their own Node)
  r(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  r(['update', 'patch'], [''], ['nodes/status']),
  r(['update', 'patch'], [''], ['nodes']),
  r(['create', 'update', 'patch'], [''], ['events']),
  r(READ, [''], ['pods']),
  // mirror pods (NodeRestriction: bound to the node itself)
  r(['create', 'delete'], [''], ['pods']),
  // status of the pods it runs (NodeRestriction: bound to it)
  r(['update', 'patch'], [''], ['pods/status']),
  r(['create'], [''], ['pods/eviction']),
  // secrets, configmaps, claims and volumes: the Node authorizer limits these to what its pods reference
  r(['get', 'list', 'watch'], [''], ['secrets', 'configmaps']),
  r(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  r(['get'], [''], ['endpoints']),
  r(['create', 'get', 'list', 'watch'], ['certificates.service.io'], ['certificatesigningrequests']),
  r(['get', 'create', 'update', 'patch', 'delete'], ['coordination.service.io'], ['leases']),
  r(['get'], ['storage.service.io'], ['volumeattachments']),
  r(['create'], [''], ['serviceaccounts/token']),
  r(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
  r(['get', 'watch', 'list'], ['storage.service.io'], ['csidrivers']),
  r(['get', 'create', 'update', 'patch', 'delete'], ['storage.service.io'], ['csinodes']),
  r(['get', 'list', 'watch'], ['node.service.io'], ['runtimeclasses']),
];
