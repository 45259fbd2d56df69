// How a status condition reads: most condition types are healthy when True, but some name a problem
// (a node's MemoryPressure, a Deployment's ReplicaFailure) and are healthy when False.

/** Condition types whose True means trouble (upstream node and workload conditions). */
const NEGATIVE = new Set(['MemoryPressure', 'DiskPressure', 'PIDPressure', 'NetworkUnavailable', 'ReplicaFailure', 'Failed', 'Stalled', 'DisruptionTarget', 'FailureTarget', 'Suspended']);

export type ConditionTone = 'ok' | 'bad' | 'unknown';

export function conditionTone(type: string | undefined, status: string | undefined): ConditionTone {
  if (status !== 'True' && status !== 'False') return 'unknown';
  const healthyWhenTrue = !NEGATIVE.has(type ?? '');
  return (status === 'True') === healthyWhenTrue ? 'ok' : 'bad';
}
