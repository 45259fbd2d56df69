// Every write the explorer sends goes out from here: the editor's saves (`sendWrite`, requests built by
// editor/requests.ts), the delete dialog's DELETE, finalizer removal, and the actions (scale, restart,
// pause/resume, rollback, cordon, drain, delete), under one field manager name. Each write is first sent
// with dryRun=All, so the user sees what the server would store before confirming. Views and editor
// components never hold the API client themselves (data/layering.test.ts).
import { ApiClient, isStatus, resourcePath, type KubeObject, type Query, type ResourceRef } from '../../client/index.js';
import { api } from '../api.js';
import { escapePointer } from '../lib/patches.js';

/** The field manager of every explorer write (editor saves, finalizer removal, actions). */
export const FIELD_MANAGER = 'periscope';

/** `kubectl rollout restart` stamps this pod-template annotation with the time (RFC 3339). */
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

export interface ActionRequest {
  /** What the confirm button says ("Scale to 0"). */
  title: string;
  method: 'PATCH' | 'POST' | 'DELETE';
  path: string;
  contentType?: string;
  body?: unknown;
  query: Query;
}

const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

function patch(ref: ResourceRef, title: string, body: unknown, contentType = MERGE): ActionRequest {
  return { title, method: 'PATCH', path: resourcePath(ref), contentType, body: JSON.stringify(body), query: { fieldManager: FIELD_MANAGER } };
}

export function scaleAction(ref: ResourceRef, replicas: number): ActionRequest {
  return patch(ref, `Scale to ${replicas}`, { spec: { replicas } });
}

export function restartAction(ref: ResourceRef, now = new Date()): ActionRequest {
  const at = now.toISOString().replace(/\.\d+Z$/, 'Z');
  return patch(ref, 'Restart rollout', { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: at } } } } });
}

export function pauseAction(ref: ResourceRef, paused: boolean): ActionRequest {
  // as `kubectl rollout pause|resume`
  return patch(ref, paused ? 'Pause rollout' : 'Resume rollout', { spec: { paused } });
}

export function cordonAction(ref: ResourceRef, cordon: boolean): ActionRequest {
  // as `kubectl cordon|uncordon`: unschedulable true, or dropped (its default, false)
  return patch(ref, cordon ? 'Cordon' : 'Uncordon', { spec: { unschedulable: cordon ? true : null } });
}

/** As `kubectl rollout undo`: the ReplicaSet's pod template, without its pod-template-hash label, becomes the Deployment's. */
export function rollbackAction(ref: ResourceRef, deployment: KubeObject, replicaSet: KubeObject): ActionRequest {
  const template = structuredClone(((replicaSet as { spec?: { template?: Record<string, any> } }).spec?.template ?? {}) as Record<string, any>);
  if (template.metadata?.labels) delete template.metadata.labels['pod-template-hash'];
  const rev = replicaSet.metadata?.annotations?.['deployment.kubernetes.io/revision'];
  return patch(
    ref,
    `Roll back to revision ${rev ?? replicaSet.metadata?.name}`,
    [
      { op: 'test', path: '/metadata/resourceVersion', value: deployment.metadata?.resourceVersion },
      { op: 'replace', path: '/spec/template', value: template },
    ],
    JSON_PATCH,
  );
}

export function deleteAction(ref: ResourceRef): ActionRequest {
  return { title: 'Delete', method: 'DELETE', path: resourcePath(ref), query: {} };
}

// the editor and the actions read their Warning headers themselves (shown in the dialog and the toast)
const quiet = new ApiClient({ ...api.options, onWarning: undefined });

/** One write, exactly as sent (the editor's review shows these bytes). */
export interface WriteRequest {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  contentType?: string;
  body?: string;
  query: Query;
}

export interface WriteResult {
  object: KubeObject | undefined;
  warnings: string[];
  status: number;
}

export async function sendWrite(req: WriteRequest, dryRun: boolean, signal?: AbortSignal): Promise<WriteResult> {
  const res = await quiet.request<KubeObject>(req.method, req.path, {
    body: req.body,
    contentType: req.contentType,
    query: { ...req.query, dryRun: dryRun ? 'All' : undefined },
    signal,
  });
  const body = res.body as unknown;
  return { object: body && typeof body === 'object' && !Array.isArray(body) ? (body as KubeObject) : undefined, warnings: res.warnings, status: res.status };
}

export type ActionResult = Pick<WriteResult, 'object' | 'warnings'>;

export async function sendAction(req: ActionRequest, dryRun: boolean, signal?: AbortSignal): Promise<ActionResult> {
  const { object, warnings } = await sendWrite({ ...req, body: req.body as string | undefined }, dryRun, signal);
  return { object, warnings };
}

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOutcome {
  /** Deleted at once (Status or the object gone), or only marked (deletionTimestamp set). */
  gone: boolean;
  object?: KubeObject;
  warnings: string[];
}

/** The delete dialog's DELETE: DeleteOptions in the body (uid precondition, policy, grace), dry run or real. */
export async function deleteWithOptions(ref: ResourceRef, uid: string | undefined, policy: PropagationPolicy, grace: number | undefined, dryRun: boolean): Promise<DeleteOutcome> {
  const body = {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    propagationPolicy: policy,
    ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
    ...(uid ? { preconditions: { uid } } : {}),
    // with a DeleteOptions body the server reads the options from it alone (query parameters are ignored)
    ...(dryRun ? { dryRun: ['All'] } : {}),
  };
  const res = await api.request<unknown>('DELETE', resourcePath(ref), { body });
  if (isStatus(res.body) || typeof res.body !== 'object' || res.body === null) return { gone: true, warnings: res.warnings };
  const o = res.body as KubeObject;
  return { gone: !o.metadata?.deletionTimestamp, object: o, warnings: res.warnings };
}

/** Removes one finalizer: a JSON patch that tests it is still at its index, so a concurrent change never removes another. */
export async function removeFinalizer(ref: ResourceRef, object: KubeObject, finalizer: string): Promise<void> {
  const index = object.metadata?.finalizers?.indexOf(finalizer) ?? -1;
  if (index < 0) return;
  const path = `/metadata/finalizers/${escapePointer(index)}`;
  await api.patch(ref, [{ op: 'test', path, value: finalizer }, { op: 'remove', path }], 'application/json-patch+json', { fieldManager: FIELD_MANAGER });
}

/** One pod evicted through pods/eviction (PodDisruptionBudgets decide): evicted, or blocked and why. */
export async function evictPod(pod: KubeObject): Promise<{ ok: true } | { ok: false; code: number; message: string }> {
  const ref: ResourceRef = { group: '', version: 'v1', resource: 'pods', namespace: pod.metadata?.namespace, name: pod.metadata?.name, subresource: 'eviction' };
  try {
    await quiet.request('POST', resourcePath(ref), {
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod.metadata?.name, namespace: pod.metadata?.namespace } },
    });
    return { ok: true };
  } catch (e) {
    const err = e as { code?: number; message?: string };
    return { ok: false, code: err.code ?? 0, message: err.message ?? String(e) };
  }
}

/** Pods a drain evicts, as `kubectl drain --ignore-daemonsets`: not DaemonSet-owned, not mirror pods, not finished. */
export function drainablePods(pods: readonly KubeObject[]): { evict: KubeObject[]; skipped: { pod: KubeObject; why: string }[] } {
  const evict: KubeObject[] = [];
  const skipped: { pod: KubeObject; why: string }[] = [];
  for (const p of pods) {
    const phase = (p as { status?: { phase?: string } }).status?.phase;
    if (p.metadata?.ownerReferences?.some((o) => o.controller && o.kind === 'DaemonSet')) skipped.push({ pod: p, why: 'DaemonSet-managed' });
    else if (p.metadata?.annotations?.['kubernetes.io/config.mirror']) skipped.push({ pod: p, why: 'mirror pod' });
    else if (phase === 'Succeeded' || phase === 'Failed') skipped.push({ pod: p, why: `already ${phase}` });
    else if (p.metadata?.deletionTimestamp) skipped.push({ pod: p, why: 'already terminating' });
    else evict.push(p);
  }
  return { evict, skipped };
}

/** Asks the kubeconfig proxy to use another context (the caller reloads the page: nothing read before stays). */
export async function switchContext(name: string): Promise<void> {
  await api.request('POST', '/periscope/contexts', { body: { context: name } });
}
