// Which Node objects the simulation runs: those --simulated-nodes created carry an annotation. Shared by the
// kubelets (controllers) and what the kubelets serve (metrics), so neither layer imports the other.
import type { KubeObject } from '../registry/types.js';

/** Nodes created by --simulated-nodes carry this annotation; the simulated kubelet runs only their pods. */
export const SIMULATED_ANNOTATION = 'node.periscope.dev/simulated';

export function isSimulatedNode(n: KubeObject | undefined): boolean {
  return n?.metadata?.annotations?.[SIMULATED_ANNOTATION] === 'true';
}
