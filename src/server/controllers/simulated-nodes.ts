// Simulated nodes (the idea of KWOK, built in): Node objects with capacity, conditions and addresses, kept
// alive by the kubelet's Lease heartbeats in kube-node-lease (renewed every 10s, 40s lease as upstream).
import { nowTimestamp } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import { isAlreadyExists } from './api-writer.js';
import type { ControllerClient } from './client.js';

import { SIMULATED_ANNOTATION } from '../sim/nodes.js';

export { SIMULATED_ANNOTATION, isSimulatedNode } from '../sim/nodes.js';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const LEASE_DURATION_S = 40;
const RENEW_MS = 10_000;

export function simulatedNodeName(i: number): string {
  return `periscope-worker-${i}`;
}

function nodeObject(i: number): KubeObject {
  const name = simulatedNodeName(i);
  const now = nowTimestamp();
  const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message });
  return {
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'node.kubernetes.io/instance-type': 'simulated', 'topology.kubernetes.io/zone': `zone-${String.fromCharCode(97 + ((i - 1) % 3))}` },
      annotations: { [SIMULATED_ANNOTATION]: 'true', 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { podCIDR: `10.244.${i}.0/24`, podCIDRs: [`10.244.${i}.0/24`] },
    status: {
      capacity: { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' },
      allocatable: { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' },
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: `10.0.${Math.floor(i / 250)}.${(i % 250) + 2}` },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: `periscope-${i}`, systemUUID: `periscope-${i}`, bootID: `periscope-${i}`,
        kernelVersion: '6.1.0-simulated', osImage: 'Periscope simulated node', containerRuntimeVersion: 'containerd://1.7.0-simulated',
        kubeletVersion: 'v1.33.0', kubeProxyVersion: 'v1.33.0', operatingSystem: 'linux', architecture: 'amd64',
      },
    },
  };
}

export class SimulatedNodes {
  private timer?: NodeJS.Timeout;

  constructor(
    /** Node `node`'s kubelet client (system:node:<node>): each node registers itself and renews its own Lease. */
    private kubelet: (node: string) => ControllerClient,
    private count: number,
    private log: (l: string) => void,
  ) {}

  private registered = new Set<number>();

  async start(): Promise<void> {
    if (this.count <= 0) return;
    // a kubelet refused (e.g. no Node authorizer and no binding for system:nodes) logs and tries again at its next
    // heartbeat, as a kubelet does; the rest of the cluster runs on
    await this.heartbeat();
    this.timer = setInterval(() => void this.heartbeat(), RENEW_MS);
    this.timer.unref();
  }

  private async heartbeat(): Promise<void> {
    for (let i = 1; i <= this.count; i++) {
      if (this.registered.has(i)) continue;
      await this.register(i).then(
        () => this.registered.add(i),
        (e) => this.log(`kubelet ${simulatedNodeName(i)}: unable to register node: ${(e as Error).message}`),
      );
    }
    await this.renew().catch((e) => this.log(`node leases: ${(e as Error).message}`));
  }

  private async register(i: number): Promise<void> {
    const node = nodeObject(i);
    const status = node['status'];
    const kubelet = this.kubelet(node.metadata!.name!);
    try {
      await kubelet.create('', 'nodes', undefined, node);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    // the status sub-resource holds capacity and conditions (a create drops status on kinds that have one)
    await kubelet.mutate('', 'nodes', undefined, node.metadata!.name!, (o) => {
      const cur = o['status'] as Record<string, unknown> | undefined;
      if (cur?.['allocatable']) return false;
      o['status'] = status;
      return true;
    }, { subresource: 'status', patch: true });
  }

  private async renew(): Promise<void> {
    const now = nowTimestamp().replace('Z', '.000000Z');
    for (const i of this.registered) {
      const name = simulatedNodeName(i);
      const kubelet = this.kubelet(name);
      const updated = await kubelet.mutate('coordination.service.io', 'leases', NODE_LEASE_NAMESPACE, name, (o) => {
        (o['spec'] as Record<string, unknown>)['renewTime'] = now;
        return true;
      });
      if (updated) continue;
      await kubelet
        .create('coordination.service.io', 'leases', NODE_LEASE_NAMESPACE, {
          metadata: { name, namespace: NODE_LEASE_NAMESPACE },
          spec: { holderIdentity: name, leaseDurationSeconds: LEASE_DURATION_S, renewTime: now },
        })
        .catch((e) => {
          if (!isAlreadyExists(e)) throw e;
        });
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
