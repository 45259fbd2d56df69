// The scale sub-resource: autoscaling/v1 Scale views of objects with replicas.
import type { KubeObject, ResourceType } from '../../registry/types.js';

function scaleDef(t: ResourceType) {
  return t.subresources.find((x) => x.name === 'scale');
}

function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const seg of path.replace(/^\./, '').split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const segs = path.replace(/^\./, '').split('.');
  let cur = obj;
  for (const seg of segs.slice(0, -1)) {
    if (typeof cur[seg] !== 'object' || cur[seg] === null) cur[seg] = {};
    cur = cur[seg] as Record<string, unknown>;
  }
  cur[segs[segs.length - 1]!] = value;
}

/** matchLabels/matchExpressions → the selector string form Scale.status.selector carries. */
export function selectorString(sel: unknown): string {
  if (typeof sel === 'string') return sel;
  if (typeof sel !== 'object' || sel === null) return '';
  const s = sel as { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  const parts: string[] = [];
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) parts.push(`${k}=${v}`);
  for (const e of s.matchExpressions ?? []) {
    const vals = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${vals})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${vals})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.sort().join(',');
}

export function isScale(o: KubeObject): boolean {
  return o.kind === 'Scale' || o.kind === undefined;
}

export function toScale(t: ResourceType, obj: KubeObject): KubeObject {
  const d = scaleDef(t);
  const specPath = d?.specReplicasPath ?? '.spec.replicas';
  const statusPath = d?.statusReplicasPath ?? '.status.replicas';
  const selPath = d?.labelSelectorPath ?? '.spec.selector';
  const m = obj.metadata ?? {};
  const status: Record<string, unknown> = { replicas: Number(getPath(obj, statusPath) ?? 0) };
  const sel = selectorString(getPath(obj, selPath));
  if (sel) status.selector = sel;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: Number(getPath(obj, specPath) ?? 0) },
    status,
  };
}

/** Applies Scale.spec.replicas to a copy of the object. */
export function fromScale(t: ResourceType, obj: KubeObject, scale: KubeObject): KubeObject {
  const d = scaleDef(t);
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
  setPath(obj as Record<string, unknown>, d?.specReplicasPath ?? '.spec.replicas', typeof replicas === 'number' ? replicas : 0);
  if (scale.metadata?.resourceVersion) obj.metadata!.resourceVersion = scale.metadata.resourceVersion;
  return obj;
}
