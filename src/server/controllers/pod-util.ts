// Pod facts the workload controllers share (upstream's podutil): readiness, availability after minReadySeconds,
// activeness, and pods stamped from a template with a controller owner reference.
import type { KubeObject, OwnerReference } from '../registry/types.js';

type Obj = Record<string, any>;

export const spec = (o: KubeObject | undefined): Obj => (o?.['spec'] as Obj) ?? {};
export const status = (o: KubeObject | undefined): Obj => (o?.['status'] as Obj) ?? {};

export function condition(o: KubeObject | undefined, type: string): Obj | undefined {
  return ((status(o).conditions as Obj[] | undefined) ?? []).find((c) => c.type === type);
}

export function isPodReady(p: KubeObject): boolean {
  return condition(p, 'Ready')?.status === 'True';
}

/** Ready for at least minReadySeconds (by the Ready condition's lastTransitionTime). */
export function isPodAvailable(p: KubeObject, minReadySeconds: number, now: number): boolean {
  const c = condition(p, 'Ready');
  if (c?.status !== 'True') return false;
  if (!minReadySeconds) return true;
  const since = Date.parse(c.lastTransitionTime ?? '');
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now;
}

/** Not terminated and not being deleted (upstream's IsPodActive). */
export function isPodActive(p: KubeObject): boolean {
  const phase = status(p).phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !p.metadata?.deletionTimestamp;
}

export function ownerRefTo(owner: KubeObject): OwnerReference {
  return { apiVersion: owner.apiVersion!, kind: owner.kind!, name: owner.metadata!.name!, uid: owner.metadata!.uid!, controller: true, blockOwnerDeletion: true };
}

/** A pod from a template, named by generateName (or name), owned by owner (upstream's GetPodFromTemplate). */
export function podFromTemplate(template: Obj, owner: KubeObject, opts: { name?: string; generateName?: string; labels?: Record<string, string>; nodeName?: string } = {}): KubeObject {
  const tm: Obj = template.metadata ?? {};
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(opts.name ? { name: opts.name } : { generateName: opts.generateName ?? `${owner.metadata!.name}-` }),
      namespace: owner.metadata!.namespace,
      labels: { ...(tm.labels ?? {}), ...(opts.labels ?? {}) },
      ...(tm.annotations ? { annotations: { ...tm.annotations } } : {}),
      ...(tm.finalizers ? { finalizers: [...tm.finalizers] } : {}),
      ownerReferences: [ownerRefTo(owner)],
    },
    spec: structuredClone(template.spec ?? {}),
  };
  if (opts.nodeName) (pod['spec'] as Obj).nodeName = opts.nodeName;
  return pod;
}

/** upstream's ComputeHash: a short, stable hash of the pod template (plus a collision count), in safe characters. */
export function templateHash(template: unknown, collisionCount?: number): string {
  // FNV-1a 32 as upstream, over a canonical JSON form of the template
  let n = 0x811c9dc5;
  for (const b of Buffer.from(stableJson(template) + (collisionCount ? String(collisionCount) : ''))) n = Math.imul(n ^ b, 0x01000193) >>> 0;
  return safeEncode(n.toString());
}

/** rand.SafeEncodeString: digits and vowels mapped away so hashes never spell words. */
function safeEncode(s: string): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  for (const ch of s) out += alphabet[ch.charCodeAt(0) % alphabet.length];
  return out;
}

export function stableJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  const o = v as Obj;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(',')}}`;
}

/** Sets or replaces a status condition, keeping lastTransitionTime when the status does not change. */
export function setCondition(conditions: Obj[] | undefined, c: { type: string; status: string; reason?: string; message?: string }, now: string, opts: { probe?: boolean; update?: boolean } = {}): Obj[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  const old = i >= 0 ? list[i] : undefined;
  const same = old && old.status === c.status;
  const next: Obj = { type: c.type, status: c.status };
  if (opts.probe) next.lastProbeTime = null;
  if (opts.update) next.lastUpdateTime = same && old.reason === c.reason && old.message === c.message ? old.lastUpdateTime ?? now : now;
  next.lastTransitionTime = same ? old.lastTransitionTime ?? now : now;
  if (c.reason) next.reason = c.reason;
  if (c.message) next.message = c.message;
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

export const intOr = (v: unknown, d: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);

/** An int-or-percent (maxSurge, maxUnavailable) resolved against total, rounding up or down as upstream. */
export function scaledValue(v: unknown, total: number, roundUp: boolean, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(String(v));
  if (!m) return dflt;
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}
