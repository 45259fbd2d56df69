// Cluster health as the overview shows it, computed from live lists: nodes ready and under pressure,
// each workload kind ready against desired (rolling out, failed), pod phases, the pods restarting most,
// and usage from metrics.k8s.io. Pure functions over objects, so every rule has a unit test.
import type { KubeObject } from '../../client/index.js';

type Obj = Record<string, any>;
const spec = (o: KubeObject): Obj => ((o as Obj).spec as Obj) ?? {};
const status = (o: KubeObject): Obj => ((o as Obj).status as Obj) ?? {};
const cond = (o: KubeObject, type: string): Obj | undefined => ((status(o).conditions ?? []) as Obj[]).find((c) => c.type === type);

export interface NodeHealth {
  total: number;
  ready: number;
  cordoned: string[];
  notReady: string[];
  /** Nodes with a pressure condition True (MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable). */
  pressure: { name: string; conditions: string[] }[];
}

const PRESSURE = ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'NetworkUnavailable'];

export function nodeHealth(nodes: readonly KubeObject[]): NodeHealth {
  const out: NodeHealth = { total: nodes.length, ready: 0, cordoned: [], notReady: [], pressure: [] };
  for (const n of nodes) {
    const name = n.metadata?.name ?? '';
    if (cond(n, 'Ready')?.status === 'True') out.ready++;
    else out.notReady.push(name);
    if (spec(n).unschedulable) out.cordoned.push(name);
    const p = PRESSURE.filter((t) => cond(n, t)?.status === 'True');
    if (p.length) out.pressure.push({ name, conditions: p });
  }
  return out;
}

export type WorkloadState = 'ready' | 'progressing' | 'failed';

export interface WorkloadStatus {
  state: WorkloadState;
  ready: number;
  desired: number;
  /** Why it is not ready, in words; empty when ready. */
  why: string;
}

/** One Deployment, StatefulSet, DaemonSet, ReplicaSet or Job against what it wants. */
export function workloadStatus(o: KubeObject): WorkloadStatus {
  const s = spec(o);
  const st = status(o);
  const behind = st.observedGeneration !== undefined && st.observedGeneration < (o.metadata?.generation ?? 0);
  switch (o.kind) {
    case 'Job': {
      const failed = cond(o, 'Failed');
      const desired = s.completions ?? 1;
      const ready = st.succeeded ?? 0;
      if (failed?.status === 'True') return { state: 'failed', ready, desired, why: `failed${failed.reason ? `: ${failed.reason}` : ''}` };
      if (cond(o, 'Complete')?.status === 'True') return { state: 'ready', ready, desired, why: '' };
      return { state: 'progressing', ready, desired, why: `${st.active ?? 0} running, ${ready}/${desired} complete` };
    }
    case 'DaemonSet': {
      const desired = st.desiredNumberScheduled ?? 0;
      const ready = st.numberReady ?? 0;
      if (ready >= desired && !behind) return { state: 'ready', ready, desired, why: '' };
      return { state: 'progressing', ready, desired, why: `${ready}/${desired} ready` };
    }
    default: {
      const desired = s.replicas ?? 1;
      const ready = st.readyReplicas ?? 0;
      const progressing = cond(o, 'Progressing');
      const replicaFailure = cond(o, 'ReplicaFailure');
      if (progressing?.status === 'False') return { state: 'failed', ready, desired, why: `rollout failed: ${progressing.reason ?? ''}${progressing.message ? ` (${progressing.message})` : ''}` };
      if (replicaFailure?.status === 'True') return { state: 'failed', ready, desired, why: `cannot create pods: ${replicaFailure.reason ?? ''}${replicaFailure.message ? ` (${replicaFailure.message})` : ''}` };
      const updated = st.updatedReplicas ?? ready;
      if (ready >= desired && !behind && (o.kind !== 'Deployment' && o.kind !== 'StatefulSet' ? true : updated >= desired)) return { state: 'ready', ready, desired, why: '' };
      return { state: 'progressing', ready, desired, why: `${ready}/${desired} ready${behind ? ', waiting for the controller' : updated < desired ? `, ${updated}/${desired} updated` : ''}` };
    }
  }
}

export interface KindHealth {
  total: number;
  ready: number;
  progressing: number;
  failed: number;
  readyReplicas: number;
  desiredReplicas: number;
  /** Objects not ready (failed first), for the problem list. */
  notReady: { object: KubeObject; status: WorkloadStatus }[];
}

export function kindHealth(objects: readonly KubeObject[], kind: string): KindHealth {
  const out: KindHealth = { total: 0, ready: 0, progressing: 0, failed: 0, readyReplicas: 0, desiredReplicas: 0, notReady: [] };
  for (const o of objects) {
    // a ReplicaSet a Deployment owns is the Deployment's business; an old one scaled to 0 is history
    if (kind === 'ReplicaSet' && o.metadata?.ownerReferences?.some((r) => r.controller)) continue;
    const s = workloadStatus({ ...o, kind });
    out.total++;
    out[s.state]++;
    out.readyReplicas += s.ready;
    out.desiredReplicas += s.desired;
    if (s.state !== 'ready') out.notReady.push({ object: o, status: s });
  }
  out.notReady.sort((a, b) => (a.status.state === b.status.state ? 0 : a.status.state === 'failed' ? -1 : 1));
  return out;
}

export interface PodSummary {
  total: number;
  phases: Record<string, number>;
  notReady: number;
  topRestarts: { pod: KubeObject; restarts: number; reason?: string }[];
}

export function podSummary(pods: readonly KubeObject[], top = 5): PodSummary {
  const phases: Record<string, number> = {};
  let notReady = 0;
  const restarting: PodSummary['topRestarts'] = [];
  for (const p of pods) {
    const st = status(p);
    const phase = (st.phase as string | undefined) ?? 'Pending';
    phases[phase] = (phases[phase] ?? 0) + 1;
    if (phase !== 'Succeeded' && cond(p, 'Ready')?.status !== 'True') notReady++;
    const cs = (st.containerStatuses ?? []) as Obj[];
    const restarts = cs.reduce((n, c) => n + (c.restartCount ?? 0), 0);
    if (restarts > 0) restarting.push({ pod: p, restarts, reason: cs.map((c) => c.state?.waiting?.reason ?? c.lastState?.terminated?.reason).find(Boolean) });
  }
  restarting.sort((a, b) => b.restarts - a.restarts || (a.pod.metadata?.name ?? '').localeCompare(b.pod.metadata?.name ?? ''));
  return { total: pods.length, phases, notReady, topRestarts: restarting.slice(0, top) };
}

/** A resource.Quantity as a number (cores for CPU, bytes for memory). */
export function parseQuantity(q: string | number | undefined): number {
  if (q === undefined) return 0;
  if (typeof q === 'number') return q;
  const m = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$/.exec(q.trim());
  if (!m) return 0;
  const n = Number(m[1]);
  const suffix: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
  const f = suffix[m[2]!];
  return f === undefined ? 0 : n * f;
}

export interface Usage {
  cpu: { used: number; allocatable: number };
  memory: { used: number; allocatable: number };
  nodes: number;
}

/** Summed NodeMetrics usage against the nodes' allocatable (only nodes that have metrics count). */
export function clusterUsage(nodeMetrics: readonly KubeObject[], nodes: readonly KubeObject[]): Usage {
  const alloc = new Map(nodes.map((n) => [n.metadata?.name, status(n).allocatable ?? status(n).capacity ?? {}]));
  const u: Usage = { cpu: { used: 0, allocatable: 0 }, memory: { used: 0, allocatable: 0 }, nodes: 0 };
  for (const m of nodeMetrics) {
    const usage = (m as Obj).usage ?? {};
    u.cpu.used += parseQuantity(usage.cpu);
    u.memory.used += parseQuantity(usage.memory);
    const a = alloc.get(m.metadata?.name);
    if (a) {
      u.cpu.allocatable += parseQuantity(a.cpu);
      u.memory.allocatable += parseQuantity(a.memory);
    }
    u.nodes++;
  }
  return u;
}
