// ServiceCIDRs: the default one the API server keeps for --service-cluster-ip-range (upstream pkg/controlplane
// controller defaultservicecidr), and the controller that guards their deletion (kube-controller-manager's
// service-cidr-controller, pkg/controller/servicecidrs): every ServiceCIDR gets the finalizer
// networking.k8s.io/service-cidr-finalizer and a Ready condition; a deleted one keeps its finalizer, with
// Ready=False/Terminating, while an IPAddress inside it is covered by no other ServiceCIDR.
import type { ApiDeps } from '../http/api-handler.js';
import { arr, obj, str } from '../registry/builtin-helpers.js';
import { DEFAULT_SERVICE_CIDR_NAME, IPALLOCATOR_CONTROLLER, LABEL_MANAGED_BY, SERVICE_CIDR_FINALIZER } from '../registry/builtin-servicecidr.js';
import { allocatablePrefixes, clusterIPsOf, ipAddressFor, prefixHolds, removeOrphanIPAddress } from '../registry/pipeline/service-ips.js';
import { typePrefix } from '../registry/keys.js';
import { readAllStored } from '../registry/stored-objects.js';
import { cidrContains, parseCIDR, parseIP, type ParsedCIDR } from '../registry/ip-cidr.js';
import { canonicalGroup } from '../registry/names.js';
import { nowTimestamp } from '../registry/resource-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { typeForResource } from './controller-support.js';
import { ensureCreated, ensureUpdated } from './internal-writer.js';
import { controllerContext } from './identities.js';
import { parseKey, type FeedEvent, type FeedItem, type FeedListener } from './object-feed.js';
import { WorkQueue } from './work-queue.js';

const NETWORKING = canonicalGroup('networking.k8s.io');
const READY = 'Ready';
const TERMINATING_MESSAGE = 'There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR';

/** Creates the `kubernetes` ServiceCIDR from the service cluster IP range(s), Ready as upstream's API server writes it. */
export async function bootstrapDefaultServiceCIDR(deps: ApiDeps, cidrs: string[], signal: AbortSignal): Promise<void> {
  const type = typeForResource(deps.types, NETWORKING, 'servicecidrs');
  if (!type) return;
  await ensureCreated(
    deps,
    type,
    {
      apiVersion: `${type.group}/v1`,
      kind: 'ServiceCIDR',
      metadata: { name: DEFAULT_SERVICE_CIDR_NAME },
      spec: { cidrs },
      status: { conditions: [{ type: READY, status: 'True', lastTransitionTime: nowTimestamp(), reason: '', message: 'Kubernetes default Service CIDR is ready' }] },
    } as KubeObject,
    'kube-apiserver',
    signal,
  );
}

function setReady(o: KubeObject, status: 'True' | 'False', reason: string, message: string): boolean {
  const st = (o.status ??= {}) as { conditions?: Record<string, unknown>[] };
  const conds = (st.conditions ??= []);
  const cur = conds.find((c) => c.type === READY);
  if (cur && cur.status === status && cur.reason === reason && cur.message === message) return false;
  const next = { type: READY, status, lastTransitionTime: cur && cur.status === status ? cur.lastTransitionTime : nowTimestamp(), reason, message };
  if (cur) Object.assign(cur, next);
  else conds.push(next);
  return true;
}

/**
 * At start (upstream's repairip controller, once): a stored Service's cluster IP inside a ServiceCIDR but held by
 * no IPAddress (a store written before IPAddress objects existed) gets one; an allocator-managed IPAddress whose
 * Service is gone is removed.
 */
export async function repairServiceIPAddresses(deps: ApiDeps, signal: AbortSignal): Promise<void> {
  const services = typeForResource(deps.types, '', 'services');
  const ips = typeForResource(deps.types, NETWORKING, 'ipaddresses');
  if (!services || !ips) return;
  const held = new Map<string, KubeObject>();
  for (const ip of await readAllStored(deps.store, typePrefix(ips))) held.set(str(ip.metadata?.name), ip);
  const prefixes = await allocatablePrefixes(deps.store);
  const wanted = new Set<string>();
  for (const svc of await readAllStored(deps.store, typePrefix(services))) {
    for (const ip of clusterIPsOf(svc)) {
      wanted.add(ip);
      const parsed = parseIP(ip);
      if (held.has(ip) || !parsed || !prefixes.some((p) => prefixHolds(p, parsed))) continue;
      await ensureCreated(deps, ips, ipAddressFor(ips, ip, parsed.family, svc), 'kube-apiserver', signal);
    }
  }
  for (const [name, ip] of held) {
    if (wanted.has(name) || obj(ip.metadata?.labels)[LABEL_MANAGED_BY] !== IPALLOCATOR_CONTROLLER) continue;
    if (obj(obj(ip.spec).parentRef).resource !== 'services') continue;
    await removeOrphanIPAddress(deps.store, name).catch(() => undefined);
  }
}


const prefixesOf = (o: KubeObject): ParsedCIDR[] => arr(obj(o.spec).cidrs).map((c) => parseCIDR(str(c))).filter((c): c is ParsedCIDR => !!c);

export class ServiceCIDRController implements FeedListener {
  private queue: WorkQueue;
  private cidrs = new Map<string, KubeObject>();
  private ips = new Set<string>();
  private signal: AbortSignal;

  constructor(
    private deps: ApiDeps,
    opts: { signal: AbortSignal; log: (l: string) => void },
  ) {
    this.signal = opts.signal;
    this.queue = new WorkQueue(
      (name) => this.sync(name),
      (name, e) => opts.log(`service-cidr-controller: ${name}: ${(e as Error).message}`),
    );
  }

  private type(): ResourceType | undefined {
    return typeForResource(this.deps.types, NETWORKING, 'servicecidrs');
  }

  onSync(items: FeedItem[]): void {
    this.cidrs.clear();
    this.ips.clear();
    for (const it of items) this.note(it.key, it.obj, 'put');
    for (const name of this.cidrs.keys()) this.queue.add(name);
  }

  onEvent(ev: FeedEvent): void {
    const p = this.note(ev.key, ev.obj, ev.type);
    if (!p) return;
    if (p.plural === 'servicecidrs') this.queue.add(p.name);
    // an address going away may free a ServiceCIDR being deleted; a new one may hold it
    else for (const [name, c] of this.cidrs) if (c.metadata?.deletionTimestamp) this.queue.add(name);
  }

  private note(key: string, o: KubeObject | undefined, type: 'put' | 'delete') {
    const p = parseKey(key);
    if (!p || p.group !== NETWORKING || (p.plural !== 'servicecidrs' && p.plural !== 'ipaddresses')) return undefined;
    if (p.plural === 'servicecidrs') {
      if (type === 'put' && o) this.cidrs.set(p.name, o);
      else this.cidrs.delete(p.name);
    } else if (type === 'put') this.ips.add(p.name);
    else this.ips.delete(p.name);
    return p;
  }

  /** upstream canDeleteCIDR: every address inside this ServiceCIDR is also inside another one not being deleted. */
  private canDelete(cidr: KubeObject): boolean {
    const mine = prefixesOf(cidr);
    const others = [...this.cidrs.values()].filter((c) => c !== cidr && !c.metadata?.deletionTimestamp).flatMap(prefixesOf);
    for (const name of this.ips) {
      const ip = parseIP(name);
      if (!ip || !mine.some((m) => cidrContains(m, ip))) continue;
      if (!others.some((o) => cidrContains(o, ip))) return false;
    }
    return true;
  }

  private async sync(name: string): Promise<void> {
    const type = this.type();
    const cidr = this.cidrs.get(name);
    if (!type || !cidr) return;
    const uid = cidr.metadata?.uid;
    // through the write pipeline as upstream's service-cidr controller (in kube-controller-manager): the finalizer
    // on the main resource, the Ready condition on the status sub-resource
    const write = (fn: (o: KubeObject) => boolean, subresource?: string) =>
      ensureUpdated(this.deps, type, undefined, name, controllerContext({ authorizer: this.deps.authorization, signal: this.signal }, 'service-cidr-controller'), fn, { uid, subresource, signal: this.signal });
    if (cidr.metadata?.deletionTimestamp) {
      if (!(cidr.metadata.finalizers ?? []).includes(SERVICE_CIDR_FINALIZER)) return;
      if (!this.canDelete(cidr)) {
        await write((o) => setReady(o, 'False', 'Terminating', TERMINATING_MESSAGE), 'status');
        return;
      }
      await write((o) => {
        const fins = o.metadata?.finalizers ?? [];
        if (!fins.includes(SERVICE_CIDR_FINALIZER)) return false;
        o.metadata!.finalizers = fins.filter((f) => f !== SERVICE_CIDR_FINALIZER);
        return true;
      });
      return;
    }
    await write((o) => {
      const meta = o.metadata!;
      if ((meta.finalizers ?? []).includes(SERVICE_CIDR_FINALIZER)) return false;
      meta.finalizers = [...(meta.finalizers ?? []), SERVICE_CIDR_FINALIZER];
      return true;
    });
    // the default ServiceCIDR's condition is the API server's; others get the controller's words
    await write((o) => {
      const ready = arr(obj(o.status).conditions).map(obj).find((c) => c.type === READY);
      return !ready || ready.status !== 'True' ? setReady(o, 'True', '', 'Kubernetes Service CIDR is ready') : false;
    }, 'status');
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  stop(): Promise<void> {
    return this.queue.stop();
  }
}
