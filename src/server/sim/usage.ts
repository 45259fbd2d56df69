// What the simulated kubelets measure: each running container's CPU and memory usage, and each simulated node's
// (its pods plus the system's own). Served as metrics.k8s.io/v1beta1 (NodeMetrics, PodMetrics) and read by the
// HPA controller, so `kubectl top` and autoscaling see one and the same numbers.
//
// A container's usage is, in order:
//   - what the pod annotation `sim.periscope.dev/usage` says, exactly: `cpu=250m,memory=64Mi` for every container,
//     or per container `app:cpu=250m,memory=64Mi;sidecar:cpu=5m` (an entry without a name applies to the
//     containers not named; a resource left out is derived as below);
//   - otherwise derived from the container's requests (limits when no request): 40–60% of the CPU request and
//     50–70% of the memory request; 1–3m CPU and 8–16Mi memory without either. The figure within that range is
//     deterministic noise: a hash of the pod's uid, the container and the current minute, so it is steady for a
//     minute and the same for every reader.
// Nodes add a system share (100–150m CPU, 512–640Mi memory) to their running pods' usage.
import { createHash } from 'node:crypto';
import { quantityNanos } from '../registry/schema/quantity.js';
import type { KubeObject } from '../registry/types.js';

export const USAGE_ANNOTATION = 'sim.periscope.dev/usage';
/** metrics-server's default --metric-resolution: each sample covers this window. */
export const METRICS_WINDOW_S = 15;
/** The noise changes once a minute. */
const NOISE_PERIOD_MS = 60_000;
/** Longest annotation value read (one entry is ~30 bytes). */
const MAX_VALUE = 4096;

export interface Usage {
  /** CPU in nanocores */
  cpu: number;
  /** memory (working set) in bytes */
  memory: number;
}

export interface ContainerUsage extends Usage {
  name: string;
}

export interface ParsedUsage {
  /** for every container not named */
  readonly all: Partial<Usage>;
  readonly byContainer: ReadonlyMap<string, Partial<Usage>>;
  /** entries that were ignored, each with why */
  readonly errors: readonly string[];
}

type Obj = Record<string, any>;

/** Largest amount read: 10^18 (an exabyte, or 10^18 cores), in nano-units. */
const MAX_NANOS = 10n ** 27n;

function amount(resource: 'cpu' | 'memory', q: string): number | undefined {
  const n = q.length > 64 ? undefined : quantityNanos(q);
  if (n === undefined || n < 0n || n > MAX_NANOS) return undefined;
  // CPU: nanos of a core are nanocores; memory: nanos of a byte, in whole bytes
  return resource === 'cpu' ? Number(n) : Math.ceil(Number(n) / 1e9);
}

export function parseUsageAnnotation(value: string | undefined): ParsedUsage {
  const all: Partial<Usage> = {};
  const byContainer = new Map<string, Partial<Usage>>();
  const errors: string[] = [];
  if (value === undefined || value.trim() === '') return { all, byContainer, errors };
  if (value.length > MAX_VALUE) return { all, byContainer, errors: [`value longer than ${MAX_VALUE} characters`] };
  for (const raw of value.split(';')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const colon = entry.indexOf(':');
    const name = colon >= 0 ? entry.slice(0, colon).trim() : undefined;
    if (name !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
      errors.push(`"${entry}": "${name}" is not a container name`);
      continue;
    }
    const target: Partial<Usage> = name === undefined ? all : (byContainer.get(name) ?? {});
    for (const pair of entry.slice(colon + 1).split(',')) {
      const p = pair.trim();
      if (p === '') continue;
      const eq = p.indexOf('=');
      const res = eq > 0 ? p.slice(0, eq).trim() : '';
      if (res !== 'cpu' && res !== 'memory') {
        errors.push(`"${p}": expected cpu=QUANTITY or memory=QUANTITY`);
        continue;
      }
      const v = amount(res, p.slice(eq + 1).trim());
      if (v === undefined) {
        errors.push(`"${p}": not a non-negative quantity`);
        continue;
      }
      target[res] = v;
    }
    if (name !== undefined) byContainer.set(name, target);
  }
  return { all, byContainer, errors };
}

/** A number in [0, 1) from a string: the same string always gives the same number. */
function noise(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) / 2 ** 32;
}

function resourceAmount(c: Obj, resource: 'cpu' | 'memory'): number | undefined {
  const q = c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource];
  return q === undefined ? undefined : amount(resource, String(q));
}

const MI = 1024 * 1024;

function derived(c: Obj, key: string): Usage {
  const hc = noise(`${key}/cpu`);
  const hm = noise(`${key}/memory`);
  const cpuReq = resourceAmount(c, 'cpu');
  const memReq = resourceAmount(c, 'memory');
  return {
    cpu: Math.round(cpuReq !== undefined ? cpuReq * (0.4 + 0.2 * hc) : 1e6 + 2e6 * hc),
    memory: memReq !== undefined ? memReq * (0.5 + 0.2 * hm) : 8 * MI + 8 * MI * hm,
  };
}

/** The containers a pod runs: its regular containers and its sidecars (restartable init containers). */
function runningContainers(pod: KubeObject): Obj[] {
  const s: Obj = (pod['spec'] as Obj) ?? {};
  const statuses: Obj[] = ((pod['status'] as Obj)?.containerStatuses as Obj[] | undefined) ?? [];
  const initStatuses: Obj[] = ((pod['status'] as Obj)?.initContainerStatuses as Obj[] | undefined) ?? [];
  const running = (list: Obj[], name: string) => {
    const st = list.find((x) => x.name === name);
    return st === undefined || st.state?.running !== undefined;
  };
  const out: Obj[] = [];
  for (const c of (s.initContainers as Obj[] | undefined) ?? []) if (c?.restartPolicy === 'Always' && running(initStatuses, c.name)) out.push(c);
  for (const c of (s.containers as Obj[] | undefined) ?? []) if (c && running(statuses, c.name)) out.push(c);
  return out;
}

/**
 * The usage of each running container of a pod, or undefined when the pod has no metrics: not Running, or not on a
 * simulated node (no kubelet of ours measures it).
 */
export function podUsage(pod: KubeObject, node: KubeObject | undefined, simulated: boolean, now: number): ContainerUsage[] | undefined {
  if (!node || !simulated || (pod['status'] as Obj | undefined)?.phase !== 'Running') return undefined;
  const containers = runningContainers(pod);
  if (containers.length === 0) return undefined;
  const ann = pod.metadata?.annotations?.[USAGE_ANNOTATION];
  const parsed = typeof ann === 'string' ? parseUsageAnnotation(ann) : undefined;
  const minute = Math.floor(now / NOISE_PERIOD_MS);
  return containers.map((c) => {
    const given = parsed?.byContainer.get(c.name) ?? parsed?.all ?? {};
    const needDerived = given.cpu === undefined || given.memory === undefined;
    const d = needDerived ? derived(c, `${pod.metadata?.uid ?? ''}/${c.name}/${minute}`) : undefined;
    return { name: String(c.name), cpu: given.cpu ?? d!.cpu, memory: roundKi(given.memory ?? d!.memory) };
  });
}

/** A node's usage: the system's share plus its running pods'. */
export function nodeUsage(node: KubeObject, pods: readonly (readonly ContainerUsage[])[], now: number): Usage {
  const key = `${node.metadata?.uid ?? node.metadata?.name ?? ''}/${Math.floor(now / NOISE_PERIOD_MS)}`;
  let cpu = Math.round(100e6 + 50e6 * noise(`${key}/cpu`));
  let memory = 512 * MI + 128 * MI * noise(`${key}/memory`);
  for (const p of pods)
    for (const c of p) {
      cpu += c.cpu;
      memory += c.memory;
    }
  return { cpu, memory: roundKi(memory) };
}

function roundKi(bytes: number): number {
  return Math.round(bytes / 1024) * 1024;
}

/** metrics-server's spellings: CPU in nanocores, memory in KiB. */
export function usageQuantities(u: Usage): { cpu: string; memory: string } {
  return { cpu: `${Math.round(u.cpu)}n`, memory: `${Math.round(u.memory / 1024)}Ki` };
}
