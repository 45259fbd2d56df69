// Writes the explorer's views send outside the editor (the editor's go through editor/requests.ts, with
// a dry run first): each one function here, so the field manager and preconditions are set in one place.
import type { KubeObject } from '../../client/index.js';
import { api } from '../api.js';

export const VIEW_FIELD_MANAGER = 'periscope-explorer';

/**
 * As `kubectl rollout undo --to-revision`: the ReplicaSet's pod template, without its pod-template-hash
 * label, becomes the Deployment's; refused (409) when the Deployment changed since it was read.
 */
export async function rollbackDeployment(deployment: KubeObject, replicaSet: KubeObject): Promise<void> {
  const template = structuredClone(((replicaSet as { spec?: { template?: { metadata?: { labels?: Record<string, string> } } } }).spec?.template ?? {}) as { metadata?: { labels?: Record<string, string> } });
  if (template.metadata?.labels) delete template.metadata.labels['pod-template-hash'];
  await api.patch(
    { group: 'apps', version: 'v1', resource: 'deployments', namespace: deployment.metadata?.namespace, name: deployment.metadata!.name! },
    [
      { op: 'test', path: '/metadata/resourceVersion', value: deployment.metadata?.resourceVersion },
      { op: 'replace', path: '/spec/template', value: template },
    ],
    'application/json-patch+json',
    { fieldManager: VIEW_FIELD_MANAGER },
  );
}

/** Asks the kubeconfig proxy to use another context (the caller reloads the page: nothing read before stays). */
export async function switchContext(name: string): Promise<void> {
  await api.request('POST', '/periscope/contexts', { body: { context: name } });
}
