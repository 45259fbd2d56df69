// get and list of metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics, computed on each read from the nodes and pods
// the server holds and what the simulated kubelets measure (sim/usage.ts), as metrics-server answers them
// (pkg/api/node.go, pod.go): objects named as their node or pod with its labels, sorted by name, NotFound naming
// `nodemetrics` / `podmetrics` ("namespace/name"), no paging, Table output with cpu, memory and Window columns.
import { errors } from '../../../api/status.js';
import { listObjects } from '../../registry/lister.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import type { KubeObject } from '../../registry/types.js';
import { isSimulatedNode } from '../../sim/nodes.js';
import { METRICS_WINDOW_S, nodeUsage, podUsage, usageQuantities, type ContainerUsage } from '../../sim/usage.js';
import type { WatchCache } from '../../watch/watch-cache.js';
import { writeObject } from '../respond.js';
import type { RequestScope } from '../scope.js';
import { toTable } from '../table.js';
import { parseSelectors, type ListOptions } from './list-options.js';
import { includeObjectOf, negotiateFor, respondObject } from './output.js';

type Obj = Record<string, any>;

export interface MetricsSources {
  nodes: { rs: ResourceStore; cache: WatchCache };
  pods: { rs: ResourceStore; cache: WatchCache };
}

/** The whole collection, or what the request's selectors pick (metadata.name and metadata.namespace fields only). */
function listOptions(s?: RequestScope): ListOptions {
  const sel = parseSelectors(s?.query ?? new URLSearchParams(), s?.type ?? ({ strategy: {} } as never));
  return { resourceVersion: undefined, resourceVersionMatch: undefined, limit: 0, continueToken: undefined, mode: { kind: 'MostRecent' }, ...sel };
}

function timestamp(now: number): string {
  return new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function nodeMetrics(s: RequestScope, node: KubeObject, pods: ContainerUsage[][], now: number): KubeObject {
  const labels = node.metadata?.labels;
  return {
    kind: 'NodeMetrics',
    apiVersion: s.apiVersion,
    metadata: { name: node.metadata!.name, creationTimestamp: timestamp(now), ...(labels ? { labels } : {}) },
    timestamp: timestamp(now),
    window: `${METRICS_WINDOW_S}s`,
    usage: usageQuantities(nodeUsage(node, pods, now)),
  } as KubeObject;
}

function podMetrics(s: RequestScope, pod: KubeObject, containers: ContainerUsage[], now: number): KubeObject {
  const labels = pod.metadata?.labels;
  return {
    kind: 'PodMetrics',
    apiVersion: s.apiVersion,
    metadata: { name: pod.metadata!.name, namespace: pod.metadata!.namespace, creationTimestamp: timestamp(now), ...(labels ? { labels } : {}) },
    timestamp: timestamp(now),
    window: `${METRICS_WINDOW_S}s`,
    containers: containers.map((c) => ({ name: c.name, usage: usageQuantities(c) })),
  } as KubeObject;
}

async function allNodes(src: MetricsSources, opts: ListOptions = listOptions()): Promise<KubeObject[]> {
  return (await listObjects(src.nodes.rs, undefined, opts, src.nodes.cache)).items;
}

async function podsOf(src: MetricsSources, namespace: string | undefined, opts: ListOptions = listOptions()): Promise<KubeObject[]> {
  return (await listObjects(src.pods.rs, namespace, opts, src.pods.cache)).items;
}

export async function handleMetrics(s: RequestScope, src: MetricsSources, now = Date.now()): Promise<void> {
  if (s.info.verb !== 'get' && s.info.verb !== 'list') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
  const n = negotiateFor(s);
  const nodesByName = new Map((await allNodes(src)).map((x) => [x.metadata!.name!, x]));
  const usageOf = (pod: KubeObject) => {
    const node = nodesByName.get(String((pod['spec'] as Obj | undefined)?.nodeName ?? ''));
    return podUsage(pod, node, isSimulatedNode(node), now);
  };
  if (s.type.plural === 'nodes') {
    if (s.info.verb === 'get') {
      const node = nodesByName.get(s.info.name);
      if (!node || !isSimulatedNode(node)) throw errors.notFound({ group: s.info.group, resource: 'nodemetrics', name: s.info.name });
      const pods = (await podsOf(src, undefined)).filter((p) => (p['spec'] as Obj | undefined)?.nodeName === s.info.name);
      respondObject(s, 200, nodeMetrics(s, node, pods.map(usageOf).filter((u) => u !== undefined), now), n);
      return;
    }
    const selected = (await allNodes(src, listOptions(s))).filter(isSimulatedNode);
    const byNode = new Map<string, ContainerUsage[][]>();
    for (const p of await podsOf(src, undefined)) {
      const u = usageOf(p);
      const nodeName = String((p['spec'] as Obj | undefined)?.nodeName ?? '');
      if (u) byNode.set(nodeName, [...(byNode.get(nodeName) ?? []), u]);
    }
    const items = selected.map((node) => nodeMetrics(s, node, byNode.get(node.metadata!.name!) ?? [], now)).sort(byName);
    return respondList(s, n, 'NodeMetricsList', items);
  }
  const ns = s.info.namespace || undefined;
  if (s.info.verb === 'get') {
    const pod = (await src.pods.rs.read(ns, s.info.name, undefined, (key, rev) => src.pods.cache.objectAt(key, rev)))?.obj;
    const u = pod ? usageOf(pod) : undefined;
    if (!pod || !u) throw errors.notFound({ group: s.info.group, resource: 'podmetrics', name: `${ns ?? ''}/${s.info.name}` });
    respondObject(s, 200, podMetrics(s, pod, u, now), n);
    return;
  }
  const items: KubeObject[] = [];
  for (const pod of await podsOf(src, ns, listOptions(s))) {
    const u = usageOf(pod);
    if (u) items.push(podMetrics(s, pod, u, now));
  }
  items.sort((a, b) => (a.metadata!.namespace ?? '').localeCompare(b.metadata!.namespace ?? '') || byName(a, b));
  return respondList(s, n, 'PodMetricsList', items);
}

function byName(a: KubeObject, b: KubeObject): number {
  return (a.metadata!.name ?? '').localeCompare(b.metadata!.name ?? '');
}

function respondList(s: RequestScope, n: ReturnType<typeof negotiateFor>, kind: string, items: KubeObject[]): void {
  const body =
    n.representation === 'Table'
      ? toTable(items, s.type, { includeObject: includeObjectOf(s.query), metaGroup: n.metaGroup }, {})
      : { kind, apiVersion: s.apiVersion, metadata: {}, items };
  writeObject(s.req, s.res, 200, body, n, { pretty: s.pretty, compression: s.gates.APIResponseCompression, warnings: s.warnings });
}
