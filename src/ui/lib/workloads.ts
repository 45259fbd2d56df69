// Workload facts the explorer shows: rollout bars, a pod's phase/readiness/restarts as kubectl prints them, and
// label selectors as watch parameters.
import type { KubeObject } from '../../client/index.js';

type Obj = Record<string, any>;

const WORKLOAD_KINDS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'ReplicationController']);

export const isWorkload = (o: KubeObject | undefined): boolean => !!o?.kind && WORKLOAD_KINDS.has(o.kind) && (o.apiVersion === 'v1' ? o.kind === 'ReplicationController' : true);

const spec = (o: KubeObject | undefined): Obj => ((o as Obj | undefined)?.spec as Obj) ?? {};
const status = (o: KubeObject | undefined): Obj => ((o as Obj | undefined)?.status as Obj) ?? {};

/** matchLabels (and In/Exists expressions) as a label selector string for the watch. */
export function selectorString(sel: Obj | undefined, plainMap = false): string {
  if (!sel) return '';
  const labels: Record<string, string> = plainMap ? sel : (sel.matchLabels ?? {});
  const parts = Object.entries(labels).map(([k, v]) => `${k}=${v}`);
  for (const e of plainMap ? [] : (sel.matchExpressions ?? [])) {
    if (e.operator === 'In') parts.push(`${e.key} in (${(e.values ?? []).join(',')})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${(e.values ?? []).join(',')})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

/** The bars of a workload: what it wants and how far the cluster got. */
export function rolloutBars(o: KubeObject): { label: string; value: number }[] | undefined {
  const s = spec(o);
  const st = status(o);
  switch (o.kind) {
    case 'Deployment':
      return [
        { label: 'desired', value: s.replicas ?? 1 },
        { label: 'updated', value: st.updatedReplicas ?? 0 },
        { label: 'ready', value: st.readyReplicas ?? 0 },
        { label: 'available', value: st.availableReplicas ?? 0 },
      ];
    case 'StatefulSet':
      return [
        { label: 'desired', value: s.replicas ?? 1 },
        { label: 'updated', value: st.updatedReplicas ?? 0 },
        { label: 'ready', value: st.readyReplicas ?? 0 },
        { label: 'available', value: st.availableReplicas ?? 0 },
      ];
    case 'ReplicaSet':
    case 'ReplicationController':
      return [
        { label: 'desired', value: s.replicas ?? 1 },
        { label: 'current', value: st.replicas ?? 0 },
        { label: 'ready', value: st.readyReplicas ?? 0 },
        { label: 'available', value: st.availableReplicas ?? 0 },
      ];
    case 'DaemonSet':
      return [
        { label: 'desired', value: st.desiredNumberScheduled ?? 0 },
        { label: 'updated', value: st.updatedNumberScheduled ?? 0 },
        { label: 'ready', value: st.numberReady ?? 0 },
        { label: 'available', value: st.numberAvailable ?? 0 },
      ];
    case 'Job':
      return [
        { label: 'completions', value: s.completions ?? 1 },
        { label: 'succeeded', value: st.succeeded ?? 0 },
        { label: 'active', value: st.active ?? 0 },
        { label: 'failed', value: st.failed ?? 0 },
      ];
    default:
      return undefined;
  }
}

/** A pod's colour class and the cells kubectl shows: phase (or the waiting reason), ready count, restarts. */
export function podState(p: KubeObject): { phase: string; tone: 'ok' | 'progress' | 'bad' | 'done'; ready: string; restarts: number } {
  const st = status(p);
  const cs: Obj[] = st.containerStatuses ?? [];
  const total = (spec(p).containers ?? []).length;
  const ready = cs.filter((c) => c.ready).length;
  const restarts = cs.reduce((n, c) => n + (c.restartCount ?? 0), 0);
  const waiting = cs.map((c) => c.state?.waiting?.reason).find((r) => r && r !== 'ContainerCreating');
  const terminated = cs.map((c) => c.state?.terminated?.reason).find(Boolean);
  let phase: string = st.phase ?? 'Pending';
  if ((p.metadata as Obj | undefined)?.deletionTimestamp) phase = 'Terminating';
  else if (waiting) phase = waiting;
  else if (phase === 'Succeeded' || phase === 'Failed') phase = terminated ?? phase;
  const tone = phase === 'Terminating' ? 'progress' : waiting || st.phase === 'Failed' ? 'bad' : st.phase === 'Succeeded' ? 'done' : st.phase === 'Running' && ready === total ? 'ok' : 'progress';
  return { phase, tone, ready: `${ready}/${total}`, restarts };
}

