// ClusterIP allocation recorded as IPAddress objects (upstream MultiCIDRServiceAllocator, on by default in 1.33:
// pkg/registry/core/service/ipallocator MetaAllocator + pkg/registry/core/service/storage alloc.go). A Service's
// cluster IPs must lie in a ServiceCIDR that is not being deleted; each is then held by an IPAddress named after
// it, whose parentRef is the Service. The IPAddress is written before the Service and removed when the Service is.
import { StatusError, errors } from '../../../api/status.js';
import { findBuiltinType } from '../builtin.js';
import { arr, obj, str } from '../builtin-helpers.js';
import { clusterIPWasPicked, serviceIPs } from '../builtin-service.js';
import { IPALLOCATOR_CONTROLLER, LABEL_IP_FAMILY, LABEL_MANAGED_BY } from '../builtin-servicecidr.js';
import { cidrContains, formatIP, parseCIDR, parseIP, type ParsedCIDR, type ParsedIP } from '../ip-cidr.js';
import { ResourceStore } from '../resource-store.js';
import { typePrefix } from '../keys.js';
import { readAllStored } from '../stored-objects.js';
import type { KubeObject, ResourceType } from '../types.js';
import type { RevisionedStore } from '../../storage/types.js';
import { APISERVER_USER, componentContext, type WriteContext, type WriteTarget } from './context.js';
import { storeRemove } from './storage.js';

/** The pipeline's create, passed in by its callers (create and update), so this module imports neither. */
export type CreateFn = (t: WriteTarget, ctx: WriteContext, obj: KubeObject, ns: string | undefined) => Promise<KubeObject>;

const MANAGER = 'kube-apiserver';

export const isServices = (t: Pick<ResourceType, 'group' | 'plural'>) => t.group === '' && t.plural === 'services';

function types(): { cidrs: ResourceType; ips: ResourceType } | undefined {
  const cidrs = findBuiltinType('networking.k8s.io', 'v1', 'servicecidrs');
  const ips = findBuiltinType('networking.k8s.io', 'v1', 'ipaddresses');
  return cidrs && ips ? { cidrs, ips } : undefined;
}

/** The cluster IPs a Service holds (none for ExternalName and headless Services). */
export function clusterIPsOf(svc: KubeObject): string[] {
  const spec = obj(svc.spec);
  if (str(spec.type) === 'ExternalName') return [];
  const ips = arr(spec.clusterIPs).map(str);
  const all = ips.length ? ips : [str(spec.clusterIP)];
  return [...new Set(all.filter((ip) => ip !== '' && ip !== 'None'))];
}


/** upstream isReady: a ServiceCIDR without a Ready condition counts as ready (no controller may run). */
function allocatable(cidr: KubeObject): boolean {
  if (cidr.metadata?.deletionTimestamp) return false;
  const ready = arr(obj(cidr.status).conditions).map(obj).find((c) => c.type === 'Ready');
  return !ready || ready.status === 'True';
}

/** servicecidr.PrefixContainsIP: inside the prefix, not its network address and, for IPv4, not its broadcast. */
export function prefixHolds(c: ParsedCIDR, ip: ParsedIP): boolean {
  if (!cidrContains(c, ip)) return false;
  const hostBits = BigInt((c.family === 4 ? 32 : 128) - c.bits);
  const first = (c.addr >> hostBits) << hostBits;
  if (ip.value === first && hostBits > 0n) return false;
  if (c.family === 4 && hostBits > 0n && ip.value === first + (1n << hostBits) - 1n) return false;
  return true;
}

/** The ServiceCIDR prefixes a new cluster IP may come from. */
export async function allocatablePrefixes(store: RevisionedStore): Promise<ParsedCIDR[]> {
  const t = types();
  if (!t) return [];
  const out: ParsedCIDR[] = [];
  for (const c of await readAllStored(store, typePrefix(t.cidrs))) {
    if (!allocatable(c)) continue;
    for (const s of arr(obj(c.spec).cidrs)) {
      const p = parseCIDR(str(s));
      if (p) out.push(p);
    }
  }
  return out;
}

/** The IPAddress holding a Service's cluster IP, as upstream's allocator writes it. */
export function ipAddressFor(ipType: ResourceType, ip: string, family: 4 | 6, svc: KubeObject): KubeObject {
  return {
    apiVersion: `${ipType.group}/v1`,
    kind: 'IPAddress',
    metadata: { name: ip, labels: { [LABEL_IP_FAMILY]: family === 4 ? 'IPv4' : 'IPv6', [LABEL_MANAGED_BY]: IPALLOCATOR_CONTROLLER } },
    spec: { parentRef: { group: '', resource: 'services', namespace: svc.metadata?.namespace ?? '', name: str(svc.metadata?.name) } },
  };
}

/** Go's %#v of a []string, as upstream's field.Invalid prints spec.clusterIPs. */
const goStrings = (v: string[]) => `[]string{${v.map((s) => JSON.stringify(s)).join(', ')}}`;

function allocationError(svc: KubeObject, ip: string, reason: string): StatusError {
  const ips = arr(obj(svc.spec).clusterIPs).map(str);
  return errors.invalid('', 'Service', str(svc.metadata?.name), [
    { type: 'FieldValueInvalid', field: 'spec.clusterIPs', detail: `Invalid value: ${goStrings(ips)}: failed to allocate IP ${ip}: ${reason}` },
  ]);
}

const sameParent = (ipObj: KubeObject, svc: KubeObject) => {
  const ref = obj(obj(ipObj.spec).parentRef);
  return str(ref.group) === '' && ref.resource === 'services' && ref.namespace === svc.metadata?.namespace && ref.name === svc.metadata?.name;
};

/**
 * Holds each of the Service's cluster IPs with an IPAddress (nothing is written on a dry run). Refuses an IP outside
 * every allocatable ServiceCIDR or held for another object (422, upstream's messages). Returns the addresses it
 * created, for release if the Service is not stored after all.
 */
export async function allocateServiceIPs(w: WriteTarget, ctx: WriteContext, create: CreateFn, svc: KubeObject, old?: KubeObject): Promise<string[]> {
  const dryRun = ctx.dryRun;
  const t = types();
  // on update only the addresses the Service did not hold before (upstream allocates on a change of cluster IPs)
  const before = new Set(old ? clusterIPsOf(old) : []);
  const ips = clusterIPsOf(svc).filter((ip) => !before.has(ip));
  if (!t || ips.length === 0) return [];
  const prefixes = await allocatablePrefixes(w.rs.store);
  const ipStore = new ResourceStore(t.ips, w.rs.store);
  const created: string[] = [];
  try {
    for (let ip of ips) {
      let parsed = parseIP(ip);
      const spec = obj(svc.spec);
      // an address the defaults picked (from this process's view of the range) is picked again when another
      // replica holds it or it lies outside the ServiceCIDRs (upstream AllocateNextService over the ServiceCIDRs)
      if (clusterIPWasPicked(spec) && ip === spec.clusterIP && !(await usable(ipStore, prefixes, parsed))) {
        const next = await pickFree(ipStore, prefixes);
        if (!next) throw errors.internal('failed to allocate a serviceIP: range is full');
        spec.clusterIP = next;
        spec.clusterIPs = [next, ...arr(spec.clusterIPs).slice(1)];
        ip = next;
        parsed = parseIP(next);
      }
      if (!parsed || !prefixes.some((p) => prefixHolds(p, parsed!))) throw allocationError(svc, ip, 'the provided network does not match the current range');
      const existing = await ipStore.read(undefined, ip);
      if (existing) {
        if (sameParent(existing.obj, svc)) continue;
        throw allocationError(svc, ip, 'provided IP is already allocated');
      }
      if (dryRun) continue;
      const ipObj = ipAddressFor(t.ips, ip, parsed.family, svc);
      try {
        // as upstream's allocator, through the API's own create path (admission included) as the API server
        await create({ rs: ipStore, admission: w.admission }, componentContext(APISERVER_USER, MANAGER, ctx.signal), ipObj, undefined);
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 409)) throw e;
        // written meanwhile: by a create of this same Service on another replica (both then race for the Service), or not
        const now = await ipStore.read(undefined, ip);
        if (now && sameParent(now.obj, svc)) continue;
        throw allocationError(svc, ip, 'provided IP is already allocated');
      }
      created.push(ip);
    }
  } catch (e) {
    await removeIPAddresses(w.rs.store, created);
    throw e;
  }
  return created;
}

async function usable(ipStore: ResourceStore, prefixes: ParsedCIDR[], ip: ParsedIP | undefined): Promise<boolean> {
  return !!ip && prefixes.some((p) => prefixHolds(p, ip)) && !(await ipStore.read(undefined, formatIP(ip)));
}

/** A free IPv4 address from the allocatable ServiceCIDRs (random tries, as upstream's allocator scans from a random offset). */
async function pickFree(ipStore: ResourceStore, prefixes: ParsedCIDR[]): Promise<string | undefined> {
  const v4 = prefixes.filter((p) => p.family === 4 && p.bits <= 30);
  for (let i = 0; i < 64 && v4.length; i++) {
    const p = v4[Math.floor(Math.random() * v4.length)]!;
    const size = 2 ** (32 - p.bits);
    const base = Number(p.addr >> BigInt(32 - p.bits)) * size;
    const candidate: ParsedIP = { family: 4, value: BigInt(base + 1 + Math.floor(Math.random() * (size - 2))) };
    const text = formatIP(candidate);
    if (serviceIPs.isUsed(text) || !(await usable(ipStore, prefixes, candidate))) continue;
    serviceIPs.markUsed(text);
    return text;
  }
  return undefined;
}

async function removeIPAddresses(store: RevisionedStore, names: string[], owner?: KubeObject): Promise<void> {
  const t = types();
  if (!t) return;
  const rs = new ResourceStore(t.ips, store);
  for (const name of names) {
    const cur = await rs.read(undefined, name);
    if (!cur || (owner && !sameParent(cur.obj, owner))) continue;
    try {
      await storeRemove(rs, cur, {});
    } catch (e) {
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
    }
  }
}

/** Removes the IPAddresses that held a deleted Service's cluster IPs (only those naming the Service as parent). */
export async function releaseServiceIPs(store: RevisionedStore, svc: KubeObject): Promise<void> {
  const ips = clusterIPsOf(svc);
  await removeIPAddresses(store, ips, svc);
  for (const ip of ips) serviceIPs.release(ip);
}

/** Releases addresses allocated for a Service that was not stored (a failed create). */
export async function releaseAllocated(store: RevisionedStore, names: string[]): Promise<void> {
  await removeIPAddresses(store, names);
}

/** After an update: the addresses the old Service held that the new one does not (type changed to ExternalName ...). */
export async function releaseDroppedServiceIPs(store: RevisionedStore, old: KubeObject, next: KubeObject): Promise<void> {
  const kept = new Set(clusterIPsOf(next));
  const dropped = clusterIPsOf(old).filter((ip) => !kept.has(ip));
  if (!dropped.length) return;
  await removeIPAddresses(store, dropped, old);
  for (const ip of dropped) serviceIPs.release(ip);
}

/** Removes an allocator-managed IPAddress whose Service is gone (the repair at start, upstream's repairip). */
export async function removeOrphanIPAddress(store: RevisionedStore, name: string): Promise<void> {
  await removeIPAddresses(store, [name]);
}
