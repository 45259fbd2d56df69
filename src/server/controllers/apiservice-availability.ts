// APIServices that name a Service (an aggregated API such as metrics-server's `v1beta1.metrics.k8s.io`): their
// Available condition, as kube-aggregator's availability controller computes it (pkg/controllers/status/remote),
// and the routing the request path asks of them (requests to an unavailable one are answered 503).
//
// Checks, in upstream's order: the Service exists (ServiceNotFound), listens on spec.service.port
// (ServicePortError), has Endpoints (EndpointsNotFound) with addresses on that port's name (MissingEndpoints), and
// answers a discovery GET of /apis/<group>/<version> with a 2xx (FailedDiscoveryCheck; Passed when it does).
// Simulated pod and Service addresses are never dialed: the discovery check (and the proxy) reach only the loopback
// target an endpoint pod names with `sim.periscope.dev/port-forward` for the endpoint's port; without one the check
// fails and the APIService stays unavailable.
//
// A group-version this server serves itself keeps being served here: the built-in wins as upstream's local
// APIServices do, so applying metrics-server's manifest on a server with simulated nodes leaves `kubectl top`
// working; that APIService reports Available=True (reason Local) and says its spec.service is not used.
import { request as httpsRequest } from 'node:https';
import type { AggregatedRoute, AggregatedRoutes, ExternalGroupVersion } from '../http/aggregated-proxy.js';
import type { ApiDeps } from '../http/api-handler.js';
import { resourceStoreFor } from '../http/api-handler.js';
import { canonicalGroup } from '../registry/names.js';
import type { KubeObject } from '../registry/types.js';
import { loopbackTargetFor, type LoopbackTarget } from '../sim/port-forward-annotation.js';
import { mutateObject, typeForResource } from './controller-support.js';
import { APISERVER_MANAGER, APISERVER_USER, componentContext } from '../registry/pipeline/context.js';
import { parseKey, type FeedEvent, type FeedItem, type FeedListener } from './object-feed.js';
import { WorkQueue } from './work-queue.js';

type Obj = Record<string, any>;

/** How often available and unavailable APIServices are checked again (upstream re-queues every 30s). */
const RECHECK_MS = 30_000;
const DISCOVERY_TIMEOUT_MS = 5_000;
/** Largest discovery answer read. */
const MAX_DISCOVERY_BYTES = 1 << 20;

interface Cond {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export class ApiServiceAvailabilityController implements FeedListener, AggregatedRoutes {
  private apiServices = new Map<string, KubeObject>();
  private services = new Map<string, KubeObject>();
  private endpoints = new Map<string, KubeObject>();
  private pods = new Map<string, KubeObject>();
  private routes = new Map<string, AggregatedRoute & { group: string; version: string; resources: Obj[] }>();
  private queue: WorkQueue;
  private timer: NodeJS.Timeout;

  constructor(
    private deps: ApiDeps,
    private opts: { signal: AbortSignal; log: (l: string) => void },
  ) {
    this.queue = new WorkQueue(
      (name) => this.process(name),
      (name, e) => opts.log(`apiservice availability controller: ${name}: ${(e as Error).message}`),
    );
    this.timer = setInterval(() => {
      for (const name of this.apiServices.keys()) this.queue.add(name);
    }, RECHECK_MS);
    this.timer.unref();
  }

  route(urlGroup: string, version: string): AggregatedRoute | undefined {
    return this.routes.get(`${version}.${urlGroup}`);
  }

  groups(): ExternalGroupVersion[] {
    return [...this.routes.values()].map((r) => ({ group: r.group, version: r.version, available: r.available, resources: r.available ? r.resources : [] }));
  }

  private mapFor(group: string, plural: string): Map<string, KubeObject> | undefined {
    if (group === canonicalGroup('apiregistration.k8s.io') && plural === 'apiservices') return this.apiServices;
    if (group !== '') return undefined;
    if (plural === 'services') return this.services;
    if (plural === 'endpoints') return this.endpoints;
    if (plural === 'pods') return this.pods;
    return undefined;
  }

  onSync(items: FeedItem[]): void {
    for (const m of [this.apiServices, this.services, this.endpoints, this.pods]) m.clear();
    for (const it of items) {
      const p = parseKey(it.key);
      const m = p && this.mapFor(p.group, p.plural);
      if (m && it.obj) m.set(p.namespace ? `${p.namespace}/${p.name}` : p.name, it.obj);
    }
    for (const name of this.apiServices.keys()) this.queue.add(name);
  }

  onEvent(ev: FeedEvent): void {
    const p = parseKey(ev.key);
    const m = p && this.mapFor(p.group, p.plural);
    if (!p || !m) return;
    const key = p.namespace ? `${p.namespace}/${p.name}` : p.name;
    if (ev.type === 'put' && ev.obj) m.set(key, ev.obj);
    else m.delete(key);
    if (m === this.apiServices) {
      if (ev.type !== 'put') this.routes.delete(p.name);
      this.queue.add(p.name);
      return;
    }
    // a Service, its Endpoints or one of their pods changed: recheck the APIServices of that namespace
    for (const [name, svc] of this.apiServices) if ((svc['spec'] as Obj | undefined)?.service?.namespace === p.namespace) this.queue.add(name);
  }

  private servedLocally(group: string, version: string): boolean {
    return this.deps.types.groups().get(canonicalGroup(group))?.has(version) === true;
  }

  private async process(name: string): Promise<void> {
    const svc = this.apiServices.get(name);
    if (!svc) {
      this.routes.delete(name);
      return;
    }
    const spec: Obj = (svc['spec'] as Obj) ?? {};
    const ref: Obj | undefined = spec.service ?? undefined;
    const group = String(spec.group ?? '');
    const version = String(spec.version ?? '');
    let cond: Cond;
    if (!ref || this.servedLocally(group, version)) {
      this.routes.delete(name);
      // the registration of local group-versions writes their status itself; an applied one naming a Service is told why it is not used
      if (!ref) return;
      cond = { status: 'True', reason: 'Local', message: `Local APIServices are always available; this server serves ${group}/${version} itself, so spec.service is not used` };
    } else {
      const r = await this.check(group, version, spec, ref);
      cond = r.cond;
      this.routes.set(name, { name, group, version, resources: r.resources ?? [], available: cond.status === 'True', ...(r.target ? { target: r.target } : {}) });
    }
    const type = typeForResource(this.deps.types, canonicalGroup('apiregistration.k8s.io'), 'apiservices');
    if (!type || this.opts.signal.aborted) return;
    // upstream's availability controller runs in the API server and writes through its loopback client
    const w = { rs: resourceStoreFor(type, this.deps.store), admission: this.deps.admission };
    await mutateObject(w, componentContext(APISERVER_USER, APISERVER_MANAGER, this.opts.signal), undefined, name, svc.metadata?.uid, (o) => {
      const st: Obj = (o['status'] as Obj) ?? {};
      const conds: Obj[] = Array.isArray(st.conditions) ? st.conditions : [];
      const cur = conds.find((c) => c.type === 'Available');
      if (cur && cur.status === cond.status && cur.reason === cond.reason && cur.message === cond.message) return false;
      const next = {
        type: 'Available',
        ...cond,
        lastTransitionTime: cur && cur.status === cond.status ? cur.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      };
      o['status'] = { ...st, conditions: [...conds.filter((c) => c.type !== 'Available'), next] };
      return true;
    }, 'status');
  }

  /** upstream's remote availability checks, with the loopback rule for the discovery request. */
  private async check(group: string, version: string, spec: Obj, ref: Obj): Promise<{ cond: Cond; target?: AggregatedRoute['target']; resources?: Obj[] }> {
    const ns = String(ref.namespace ?? '');
    const svcName = String(ref.name ?? '');
    const port = typeof ref.port === 'number' ? ref.port : 443;
    const fail = (reason: string, message: string) => ({ cond: { status: 'False' as const, reason, message } });
    const service = this.services.get(`${ns}/${svcName}`);
    if (!service) return fail('ServiceNotFound', `service/${svcName} in "${ns}" is not present`);
    const sspec: Obj = (service['spec'] as Obj) ?? {};
    const sport = ((sspec.ports as Obj[] | undefined) ?? []).find((p) => p?.port === port);
    if (!sport) return fail('ServicePortError', `service/${svcName} in "${ns}" is not listening on port ${port}`);
    const portName = String(sport.name ?? '');
    const eps = this.endpoints.get(`${ns}/${svcName}`);
    if (!eps) return fail('EndpointsNotFound', `cannot find endpoints for service/${svcName} in "${ns}"`);
    // the first ready address on that port whose pod names a loopback target for it
    let hasActive = false;
    let target: LoopbackTarget | undefined;
    let firstAddress: string | undefined;
    for (const subset of ((eps['subsets'] as Obj[] | undefined) ?? [])) {
      const addresses: Obj[] = subset?.addresses ?? [];
      const p = ((subset?.ports as Obj[] | undefined) ?? []).find((x) => String(x?.name ?? '') === portName);
      if (addresses.length === 0 || !p) continue;
      hasActive = true;
      for (const a of addresses) {
        firstAddress ??= `https://${a.ip}:${p.port}`;
        const podRef: Obj | undefined = a.targetRef;
        const pod = podRef?.kind === 'Pod' ? this.pods.get(`${podRef.namespace ?? ns}/${podRef.name}`) : undefined;
        target ??= pod ? loopbackTargetFor(pod.metadata?.annotations, Number(p.port)) : undefined;
      }
    }
    if (!hasActive) return fail('MissingEndpoints', `endpoints for service/${svcName} in "${ns}" have no addresses with port name "${portName}"`);
    if (!target) {
      const url = `${firstAddress ?? `https://${svcName}.${ns}.svc:${port}`}/apis/${group}/${version}`;
      return fail('FailedDiscoveryCheck', `failing or missing response from ${url}: no endpoint pod names a loopback target for this port (annotation sim.periscope.dev/port-forward); simulated addresses are never dialed`);
    }
    const full = {
      ...target,
      ...(spec.caBundle ? { caBundle: Buffer.from(String(spec.caBundle), 'base64') } : {}),
      insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
      serverName: `${svcName}.${ns}.svc`,
    };
    const host = target.host.includes(':') ? `[${target.host}]` : target.host;
    const url = `https://${host}:${target.port}/apis/${group}/${version}`;
    const answer = await discoveryCheck(url, full, this.opts.signal);
    if (answer.error) return { cond: { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}: ${answer.error}` }, target: full };
    return { cond: { status: 'True', reason: 'Passed', message: 'all checks passed' }, target: full, resources: answer.resources };
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  stop(): Promise<void> {
    clearInterval(this.timer);
    return this.queue.stop();
  }
}

/** GET the group-version's discovery document from a loopback target: an error unless it answers 2xx; its resources. */
function discoveryCheck(url: string, t: NonNullable<AggregatedRoute['target']>, signal: AbortSignal): Promise<{ error?: string; resources?: Obj[] }> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      url,
      {
        method: 'GET',
        headers: { Accept: 'application/json' },
        rejectUnauthorized: !t.insecureSkipTLSVerify,
        ...(t.caBundle ? { ca: t.caBundle } : {}),
        servername: t.serverName,
        timeout: DISCOVERY_TIMEOUT_MS,
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let n = 0;
        res.on('data', (d: Buffer) => {
          n += d.length;
          if (n > MAX_DISCOVERY_BYTES) res.destroy(new Error(`discovery answer larger than ${MAX_DISCOVERY_BYTES} bytes`));
          else chunks.push(d);
        });
        res.on('end', () => {
          if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) return resolve({ error: `bad status from ${url}: ${res.statusCode}` });
          resolve({ resources: resourcesOf(Buffer.concat(chunks)) });
        });
        res.on('error', (e) => resolve({ error: e.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`Get "${url}": context deadline exceeded`)));
    req.on('error', (e) => resolve({ error: e.message }));
    req.end();
  });
}

/** The resources of an APIResourceList answer (nothing when it is not one). */
function resourcesOf(body: Buffer): Obj[] {
  try {
    const doc = JSON.parse(body.toString('utf8')) as Obj;
    return Array.isArray(doc?.resources) ? (doc.resources as unknown[]).filter((r): r is Obj => !!r && typeof r === 'object' && typeof (r as Obj).name === 'string') : [];
  } catch {
    return [];
  }
}
