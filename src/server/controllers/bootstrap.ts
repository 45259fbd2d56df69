// Objects every cluster has, created at each start whether or not demo data is seeded (idempotent):
// the system namespaces, the `kubernetes` Service with Endpoints and EndpointSlice pointing at this server
// (upstream pkg/controlplane: system namespaces controller + the endpoint reconciler), and the controller that
// gives every namespace its `default` ServiceAccount and, when serving TLS, the `kube-root-ca.crt` ConfigMap
// (upstream serviceaccounts-controller and root-ca-cert-publisher).
import { isIP } from 'node:net';
import type { ApiDeps } from '../http/api-handler.js';
import { canonicalGroup } from '../registry/names.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { registerLocalAPIServices } from './apiservices.js';
import { bootstrapFlowControl } from './flowcontrol-bootstrap.js';
import { typeForResource } from './controller-support.js';
import { ensureCreated, ensureUpdated } from './internal-writer.js';
import { controllerContext } from './identities.js';
import { parseKey, type FeedEvent, type FeedItem, type FeedListener } from './object-feed.js';
import { WorkQueue } from './work-queue.js';
import { bootstrapDefaultServiceCIDR, repairServiceIPAddresses } from './service-cidrs.js';
import { DEFAULT_SERVICE_CIDR, serviceIPs } from '../registry/builtin-service.js';

/** Namespaces the control plane keeps (upstream system namespaces controller). */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
/** The `kubernetes` Service's cluster IP with the default range: the first address of 10.96.0.0/12. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
/** Upstream root-ca-cert-publisher's description annotation. */
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

const MANAGER = 'kube-apiserver';

export interface BootstrapOptions {
  /** Address clients reach this server at (the Endpoints address). */
  host: string;
  port: number;
  /** PEM bundle published as kube-root-ca.crt (only when serving TLS). */
  rootCA?: string;
  /** --service-cluster-ip-range: the default ServiceCIDR's CIDRs (default 10.96.0.0/12). */
  serviceCIDRs?: string[];
  signal: AbortSignal;
}

function need(deps: ApiDeps, group: string, plural: string): ResourceType {
  const t = typeForResource(deps.types, group, plural);
  if (!t) throw new Error(`bootstrap: ${plural} is not served`);
  return t;
}

/** An IP for the Endpoints object: the bound address, or loopback for wildcard/hostname binds. */
export function endpointAddress(host: string): string {
  const h = host.replace(/^\[|\]$/g, '');
  if (isIP(h) === 4 && h !== '0.0.0.0') return h;
  return '127.0.0.1';
}

function endpointsSubsets(ip: string, port: number) {
  return [{ addresses: [{ ip }], ports: [{ name: 'https', port, protocol: 'TCP' }] }];
}

function sliceBody(ip: string, port: number) {
  return {
    addressType: 'IPv4',
    endpoints: [{ addresses: [ip], conditions: { ready: true } }],
    ports: [{ name: 'https', port, protocol: 'TCP' }],
  };
}

/** Creates (or repoints) the bootstrap objects. Safe to call at every start. */
export async function bootstrapSystemObjects(deps: ApiDeps, opts: BootstrapOptions): Promise<void> {
  const namespaces = need(deps, '', 'namespaces');
  for (const name of SYSTEM_NAMESPACES)
    await ensureCreated(deps, namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, MANAGER, opts.signal);

  // the default ServiceCIDR first: the `kubernetes` Service's address must lie in a ServiceCIDR
  const serviceCIDRs = opts.serviceCIDRs ?? [DEFAULT_SERVICE_CIDR];
  await bootstrapDefaultServiceCIDR(deps, serviceCIDRs, opts.signal);
  // addresses of Services stored before IPAddress objects were kept get theirs (and orphans go)
  await repairServiceIPAddresses(deps, opts.signal);
  const labels = { component: 'apiserver', provider: 'kubernetes' };
  await ensureCreated(
    deps,
    need(deps, '', 'services'),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kubernetes', namespace: 'default', labels },
      spec: { type: 'ClusterIP', clusterIP: serviceIPs.firstAddress(), sessionAffinity: 'None', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: opts.port }] },
    },
    MANAGER,
    opts.signal,
  );

  const ip = endpointAddress(opts.host);
  const endpoints = need(deps, '', 'endpoints');
  const subsets = endpointsSubsets(ip, opts.port);
  const created = await ensureCreated(
    deps,
    endpoints,
    { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } }, subsets },
    MANAGER,
    opts.signal,
  );
  // the server moved (new port or address): repoint as upstream's endpoint reconciler does
  if (!created)
    await ensureUpdated(deps, endpoints, 'default', 'kubernetes', MANAGER, (o) => {
      if (JSON.stringify(o.subsets) === JSON.stringify(subsets)) return false;
      o.subsets = subsets;
      return true;
    });

  const slices = typeForResource(deps.types, canonicalGroup('discovery.k8s.io'), 'endpointslices');
  if (slices) {
    const body = sliceBody(ip, opts.port);
    const made = await ensureCreated(
      deps,
      slices,
      { apiVersion: `${slices.group}/v1`, kind: 'EndpointSlice', metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } }, ...body },
      MANAGER,
      opts.signal,
    );
    if (!made)
      await ensureUpdated(deps, slices, 'default', 'kubernetes', MANAGER, (o) => {
        const cur = o as unknown as Record<string, unknown>;
        if (JSON.stringify(cur.endpoints) === JSON.stringify(body.endpoints) && JSON.stringify(cur.ports) === JSON.stringify(body.ports)) return false;
        Object.assign(cur, body);
        return true;
      });
  }
  await registerLocalAPIServices(deps, opts.signal);
  await bootstrapFlowControl(deps, opts.signal);
  await bootstrapPriorityClasses(deps, opts.signal);
}

/** upstream pkg/registry/scheduling/rest (SystemPriorityClasses): created at start, kept if they exist. */
export const SYSTEM_PRIORITY_CLASSES = [
  { name: 'system-node-critical', value: 2_000_001_000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2_000_000_000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

async function bootstrapPriorityClasses(deps: ApiDeps, signal: AbortSignal): Promise<void> {
  const type = typeForResource(deps.types, canonicalGroup('scheduling.k8s.io'), 'priorityclasses');
  if (!type) return;
  for (const pc of SYSTEM_PRIORITY_CLASSES)
    await ensureCreated(deps, type, { apiVersion: `${type.group}/v1`, kind: 'PriorityClass', metadata: { name: pc.name }, value: pc.value, description: pc.description } as KubeObject, MANAGER, signal);
}

const isActive = (ns: KubeObject | undefined): boolean =>
  !!ns && !ns.metadata?.deletionTimestamp && (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating';

/**
 * Gives every active namespace a `default` ServiceAccount and, with a root CA, the `kube-root-ca.crt` ConfigMap;
 * recreates them when deleted and restores the ConfigMap's data when edited.
 */
export class NamespaceDefaultsController implements FeedListener {
  private queue: WorkQueue;
  private active = new Set<string>();

  constructor(
    private deps: ApiDeps,
    private opts: { rootCA?: string; signal: AbortSignal; log: (l: string) => void },
  ) {
    this.queue = new WorkQueue(
      (ns) => this.process(ns),
      (ns, e) => opts.log(`namespace defaults controller: ${ns}: ${(e as Error).message}`),
    );
  }

  onSync(items: FeedItem[]): void {
    this.active.clear();
    for (const it of items) {
      const p = parseKey(it.key);
      if (p && p.group === '' && p.plural === 'namespaces' && isActive(it.obj)) this.active.add(p.name);
    }
    // the work is idempotent: one pass per namespace after each (re-)list
    for (const ns of this.active) this.queue.add(ns);
  }

  onEvent(ev: FeedEvent): void {
    const p = parseKey(ev.key);
    if (!p || p.group !== '') return;
    if (p.plural === 'namespaces') {
      if (ev.type === 'put' && isActive(ev.obj)) {
        const isNew = !this.active.has(p.name);
        this.active.add(p.name);
        if (isNew) this.queue.add(p.name);
      } else this.active.delete(p.name);
      return;
    }
    if (!this.active.has(p.namespace)) return;
    if (p.plural === 'serviceaccounts' && p.name === 'default' && ev.type === 'delete') this.queue.add(p.namespace);
    if (p.plural === 'configmaps' && p.name === ROOT_CA_CONFIGMAP && this.opts.rootCA) {
      const data = (ev.obj as { data?: Record<string, string> } | undefined)?.data;
      if (ev.type === 'delete' || data?.['ca.crt'] !== this.opts.rootCA) this.queue.add(p.namespace);
    }
  }

  private async process(ns: string): Promise<void> {
    if (!this.active.has(ns)) return;
    const sa = typeForResource(this.deps.types, '', 'serviceaccounts');
    // as upstream's serviceaccount and root-ca-cert-publisher controllers, each its own service account
    const deps = { authorizer: this.deps.authorization, signal: this.opts.signal };
    if (sa) await ensureCreated(this.deps, sa, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } }, controllerContext(deps, 'serviceaccount-controller'), this.opts.signal);
    const ca = this.opts.rootCA;
    const cms = typeForResource(this.deps.types, '', 'configmaps');
    if (!ca || !cms) return;
    const made = await ensureCreated(
      this.deps,
      cms,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace: ns, annotations: { 'kubernetes.io/description': ROOT_CA_DESCRIPTION } }, data: { 'ca.crt': ca } },
      controllerContext(deps, 'root-ca-certificate-publisher-controller'),
      this.opts.signal,
    );
    if (!made)
      await ensureUpdated(this.deps, cms, ns, ROOT_CA_CONFIGMAP, controllerContext(deps, 'root-ca-certificate-publisher-controller'), (o) => {
        const data = (o as { data?: Record<string, string> }).data;
        if (data && Object.keys(data).length === 1 && data['ca.crt'] === ca) return false;
        (o as { data?: Record<string, string> }).data = { 'ca.crt': ca };
        return true;
      });
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  stop(): Promise<void> {
    return this.queue.stop();
  }
}

/** The CA to publish from a serving certificate file: its last PEM certificate (the self-signed cert or the chain's root). */
export function rootCAOf(pem: string): string | undefined {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
  return blocks ? blocks[blocks.length - 1]! + '\n' : undefined;
}
