// Endpoints controller, as upstream's pkg/controller/endpoint: for every Service with a selector, an Endpoints
// object of the same name whose subsets list the selected pods' IPs (ready ones under addresses, the others under
// notReadyAddresses) with the Service's ports resolved against the pods' named container ports.
// (EndpointSlices are the same data cut per address family; they follow once discovery.k8s.io is served.)
import type { KubeObject } from '../registry/types.js';
import { isAlreadyExists } from './api-writer.js';
import { isPodReady, spec, stableJson, status } from './pod-util.js';
import { Reconciler, splitKey, type ClusterContext } from './reconciler.js';

type Obj = Record<string, any>;

function targetPort(port: Obj, pod: KubeObject): number | undefined {
  const tp = port.targetPort ?? port.port;
  if (typeof tp === 'number') return tp;
  for (const c of (spec(pod).containers as Obj[] | undefined) ?? []) for (const p of c.ports ?? []) if (p.name === tp) return p.containerPort;
  return undefined;
}

export function endpointsSubsets(svc: KubeObject, pods: KubeObject[]): Obj[] {
  const groups = new Map<string, { ports: Obj[]; addresses: Obj[]; notReadyAddresses: Obj[] }>();
  const publish = spec(svc).publishNotReadyAddresses === true;
  for (const pod of pods) {
    const ip = status(pod).podIP;
    if (!ip || pod.metadata?.deletionTimestamp) continue;
    if (status(pod).phase === 'Succeeded' || status(pod).phase === 'Failed') continue;
    const ports = ((spec(svc).ports as Obj[] | undefined) ?? []).flatMap((p) => {
      const port = targetPort(p, pod);
      return port === undefined ? [] : [{ ...(p.name ? { name: p.name } : {}), port, protocol: p.protocol ?? 'TCP', ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}) }];
    });
    const key = stableJson(ports);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ports, addresses: [], notReadyAddresses: [] }));
    const addr = { ip, ...(spec(pod).nodeName ? { nodeName: spec(pod).nodeName } : {}), targetRef: { kind: 'Pod', namespace: pod.metadata!.namespace, name: pod.metadata!.name, uid: pod.metadata!.uid } };
    (isPodReady(pod) || publish ? g.addresses : g.notReadyAddresses).push(addr);
  }
  const byIp = (a: Obj, b: Obj) => String(a.ip).localeCompare(String(b.ip));
  return [...groups.values()].map((g) => ({
    ...(g.addresses.length ? { addresses: g.addresses.sort(byIp) } : {}),
    ...(g.notReadyAddresses.length ? { notReadyAddresses: g.notReadyAddresses.sort(byIp) } : {}),
    ...(g.ports.length ? { ports: g.ports } : {}),
  }));
}

export class EndpointsController extends Reconciler {
  constructor(ctx: ClusterContext) {
    super('endpoints-controller', ctx);
    ctx.cache.on('core/services', ({ obj }) => this.enqueue(obj.metadata?.namespace, obj.metadata?.name));
    ctx.cache.on('core/endpoints');
    ctx.cache.on('core/pods', ({ obj, prev }) => {
      // every service selecting the pod, before or after the change
      const ns = obj.metadata?.namespace;
      for (const svc of ctx.cache.list('core/services', ns)) {
        const sel: Record<string, string> | undefined = spec(svc).selector;
        if (!sel || Object.keys(sel).length === 0) continue;
        const hit = (p: KubeObject | undefined) => !!p && Object.entries(sel).every(([k, v]) => p.metadata?.labels?.[k] === v);
        if (hit(obj) || hit(prev)) this.enqueue(ns, svc.metadata?.name);
      }
    });
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const svc = this.ctx.cache.get('core/services', ns, name);
    const sel: Record<string, string> | undefined = svc ? spec(svc).selector : undefined;
    // without a selector the Endpoints are the user's (or, when the service is gone, the garbage collector's)
    if (!svc || !sel || Object.keys(sel).length === 0 || svc.metadata?.deletionTimestamp) return;
    const pods = this.ctx.cache.list('core/pods', ns).filter((p) => Object.entries(sel).every(([k, v]) => p.metadata?.labels?.[k] === v));
    const subsets = endpointsSubsets(svc, pods);
    const labels = { ...(svc.metadata?.labels ?? {}) };
    const existing = this.ctx.cache.get('core/endpoints', ns, name);
    if (!existing) {
      try {
        await this.ctx.writer.create('', 'endpoints', ns, { metadata: { name, namespace: ns, labels }, ...(subsets.length ? { subsets } : {}) } as KubeObject);
        return;
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
    await this.ctx.writer.mutate('', 'endpoints', ns, name, (o) => {
      if (stableJson(o['subsets'] ?? []) === stableJson(subsets) && stableJson(o.metadata?.labels ?? {}) === stableJson(labels)) return false;
      if (subsets.length) o['subsets'] = subsets;
      else delete o['subsets'];
      o.metadata!.labels = labels;
      return true;
    });
  }
}

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const MANAGED_BY = 'endpointslice-controller.k8s.io';
export const ENDPOINTSLICE_KIND = 'discovery.service.io/endpointslices';

/**
 * EndpointSlice controller, as upstream's: one IPv4 slice per selecting Service (generateName `<service>-`,
 * labelled kubernetes.io/service-name and managed-by endpointslice-controller.k8s.io, owned by the Service) with
 * each pod's address, ready/serving/terminating conditions, node and zone. Runs once discovery.k8s.io is served.
 */
export class EndpointSliceController extends Reconciler {
  constructor(ctx: ClusterContext) {
    super('endpointslice-controller', ctx);
    ctx.cache.on('core/services', ({ obj }) => this.enqueue(obj.metadata?.namespace, obj.metadata?.name));
    ctx.cache.on(ENDPOINTSLICE_KIND);
    ctx.cache.on('core/nodes');
    ctx.cache.on('core/pods', ({ obj, prev }) => {
      const ns = obj.metadata?.namespace;
      for (const svc of ctx.cache.list('core/services', ns)) {
        const sel: Record<string, string> | undefined = spec(svc).selector;
        if (!sel || Object.keys(sel).length === 0) continue;
        const hit = (p: KubeObject | undefined) => !!p && Object.entries(sel).every(([k, v]) => p.metadata?.labels?.[k] === v);
        if (hit(obj) || hit(prev)) this.enqueue(ns, svc.metadata?.name);
      }
    });
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    if (!this.ctx.writer.has('discovery.service.io', 'endpointslices')) return;
    const svc = this.ctx.cache.get('core/services', ns, name);
    const sel: Record<string, string> | undefined = svc ? spec(svc).selector : undefined;
    if (!svc || !sel || Object.keys(sel).length === 0 || svc.metadata?.deletionTimestamp) return;
    const pods = this.ctx.cache.list('core/pods', ns).filter((p) => Object.entries(sel).every(([k, v]) => p.metadata?.labels?.[k] === v) && status(p).podIP && status(p).phase !== 'Succeeded' && status(p).phase !== 'Failed');
    const ports = ((spec(svc).ports as Obj[] | undefined) ?? []).map((p) => ({ name: p.name ?? '', port: pods[0] ? targetPort(p, pods[0]) : typeof p.targetPort === 'number' ? p.targetPort : p.port, protocol: p.protocol ?? 'TCP' }));
    const endpoints = pods
      .map((p) => {
        const terminating = !!p.metadata?.deletionTimestamp;
        const ready = isPodReady(p);
        const zone = this.ctx.cache.get('core/nodes', undefined, spec(p).nodeName ?? '')?.metadata?.labels?.['topology.kubernetes.io/zone'];
        return {
          addresses: [status(p).podIP],
          conditions: { ready: ready && !terminating, serving: ready, terminating },
          ...(spec(p).nodeName ? { nodeName: spec(p).nodeName } : {}),
          ...(zone ? { zone } : {}),
          targetRef: { kind: 'Pod', namespace: ns, name: p.metadata!.name, uid: p.metadata!.uid },
        };
      })
      .sort((a, b) => String(a.addresses[0]).localeCompare(String(b.addresses[0])));
    const labels = { ...(svc.metadata?.labels ?? {}), [SERVICE_NAME_LABEL]: name, [MANAGED_BY_LABEL]: MANAGED_BY };
    const mine = this.ctx.cache.list(ENDPOINTSLICE_KIND, ns).filter((s) => s.metadata?.labels?.[SERVICE_NAME_LABEL] === name && s.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY);
    const [first, ...extra] = mine;
    for (const s of extra) await this.ctx.writer.delete('discovery.service.io', 'endpointslices', ns, s.metadata!.name!);
    if (!first) {
      await this.ctx.writer.create('discovery.service.io', 'endpointslices', ns, {
        metadata: { generateName: `${name}-`, namespace: ns, labels, ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name, uid: svc.metadata!.uid!, controller: true, blockOwnerDeletion: true }] },
        addressType: 'IPv4',
        endpoints,
        ports,
      } as KubeObject);
      return;
    }
    await this.ctx.writer.mutate('discovery.service.io', 'endpointslices', ns, first.metadata!.name!, (o) => {
      if (stableJson(o['endpoints'] ?? []) === stableJson(endpoints) && stableJson(o['ports'] ?? []) === stableJson(ports) && stableJson(o.metadata?.labels ?? {}) === stableJson(labels)) return false;
      o['endpoints'] = endpoints;
      o['ports'] = ports;
      o.metadata!.labels = labels;
      return true;
    });
  }
}
