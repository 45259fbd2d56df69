// Calling an admission webhook: resolve clientConfig (URL, or a Service through its Endpoints), trust the
// caBundle, add kubeConfigFile credentials, post the AdmissionReview with W3C trace context, enforce the timeout.
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { arr, obj, str, type Obj } from '../registry/builtin-helpers.js';
import { objectKey } from '../registry/keys.js';
import { decodeFromStorage } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';
import { outgoingCall } from '../tracing.js';
import { isLoopbackAddress, loopbackTargetFor } from '../sim/port-forward-annotation.js';
import { isSimulatedAddress } from '../sim/simulated-addresses.js';

/** Upstream caps an admission response body at 3 MiB... we read at most this much. */
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

export class WebhookCallError extends Error {}

export interface Target {
  /** The URL upstream names in errors and traces: clientConfig.url, or https://name.ns.svc:port/path for a Service. */
  url: URL;
  /** `url` as upstream prints it (an explicit :443 kept). */
  display: string;
  /** Where the connection goes: the URL's host, or for a Service the loopback target its simulated pod names. */
  dial: { host: string; port: number };
  /** TLS server name to verify (the Service's DNS name for service references). */
  servername: string;
  /** Host name kubeconfig users are looked up by (`name.ns.svc` or the URL host). */
  credentialHost: string;
}

/** Credentials for webhook hosts from a kubeConfigFile (upstream: users named by host, `*` as wildcard). */
export interface Credentials {
  token?: string;
  username?: string;
  password?: string;
  cert?: string;
  key?: string;
}

export class WebhookCredentials {
  private users: { name: string; c: Credentials }[] = [];
  constructor(kubeConfigFile?: string) {
    if (!kubeConfigFile) return;
    const doc = obj(YAML.parse(readFileSync(kubeConfigFile, 'utf8')));
    for (const u of arr(doc.users).map(obj)) {
      const user = obj(u.user);
      const read = (data: unknown, file: unknown) =>
        data ? Buffer.from(str(data), 'base64').toString('utf8') : file ? readFileSync(str(file), 'utf8') : undefined;
      this.users.push({
        name: str(u.name),
        c: {
          token: user.token ? str(user.token) : user.tokenFile ? readFileSync(str(user.tokenFile), 'utf8').trim() : undefined,
          username: user.username ? str(user.username) : undefined,
          password: user.password ? str(user.password) : undefined,
          cert: read(user['client-certificate-data'], user['client-certificate']),
          key: read(user['client-key-data'], user['client-key']),
        },
      });
    }
  }
  /** Most specific match: exact host:port, then host, then `*.`-suffixes, then `*`. */
  for(host: string, port: string): Credentials | undefined {
    const names = [`${host}:${port}`, host];
    const parts = host.split('.');
    for (let i = 1; i < parts.length; i++) names.push(`*.${parts.slice(i).join('.')}`);
    names.push('*');
    for (const n of names) {
      const hit = this.users.find((u) => u.name === n);
      if (hit) return hit.c;
    }
    return undefined;
  }
}

/** Go's rendering of a whole-second duration (client-go adds `?timeout=` to every webhook call). */
function goSeconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
}

/** Upstream's `Post "<url>?timeout=10s"` prefix of call errors. */
export function callDescription(display: string, timeoutMs: number): string {
  return `Post "${display}?timeout=${goSeconds(timeoutMs)}"`;
}

/**
 * The address of a webhook: its URL, or a Service resolved through its Endpoints. Simulated pod and Service IPs
 * exist only inside the simulation, so a Service is reached only at the loopback target its ready pods name
 * (the `sim.periscope.dev/port-forward` annotation, keyed by the endpoint's port) or at an endpoint address that
 * is itself loopback; otherwise the call fails at once, naming the Service URL as upstream does when no endpoint
 * answers. Nothing here dials a simulated address.
 */
export async function resolveTarget(store: RevisionedStore, clientConfig: unknown, timeoutMs = 10_000): Promise<Target> {
  const cc = obj(clientConfig);
  if (cc.url) {
    const url = new URL(str(cc.url));
    // a URL naming a simulated pod or Service IP would leave the machine: refused before any dial
    if (isSimulatedAddress(url.hostname))
      throw new WebhookCallError(`${callDescription(str(cc.url), timeoutMs)}: ${url.hostname} is a simulated address, reachable only inside the simulation`);
    return { url, display: str(cc.url), dial: { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 443) }, servername: url.hostname, credentialHost: url.hostname };
  }
  const ref = obj(cc.service);
  const ns = str(ref.namespace);
  const name = str(ref.name);
  const port = typeof ref.port === 'number' ? ref.port : 443;
  const dns = `${name}.${ns}.svc`;
  const display = `https://${dns}:${port}${str(ref.path) || '/'}`;
  const url = new URL(display);
  const fail = (why: string) => new WebhookCallError(`${callDescription(display, timeoutMs)}: ${why}`);
  const svc = await read(store, 'services', ns, name);
  if (!svc) throw fail(`service "${name}" not found`);
  const sp = arr(obj(svc.spec).ports).map(obj).find((p) => p.port === port);
  if (!sp) throw fail(`service "${name}" has no port ${port}`);
  const eps = await read(store, 'endpoints', ns, name);
  for (const subset of arr(eps?.subsets).map(obj)) {
    const ports = arr(subset.ports).map(obj);
    const ep = ports.find((p) => (sp.name ? p.name === sp.name : true) && (typeof sp.targetPort !== 'number' || p.port === sp.targetPort)) ?? (ports.length === 1 ? ports[0] : undefined);
    if (!ep || typeof ep.port !== 'number') continue;
    for (const addr of arr(subset.addresses).map(obj)) {
      const dial = await loopbackFor(store, ns, addr, ep.port);
      if (dial) return { url, display, dial, servername: dns, credentialHost: dns };
    }
  }
  throw fail(`no endpoints available for service "${name}"`);
}

/** The loopback address one endpoint is reached at: its pod's port-forward target, or the address if it is loopback. */
async function loopbackFor(store: RevisionedStore, ns: string, addr: Obj, podPort: number): Promise<{ host: string; port: number } | undefined> {
  const ip = str(addr.ip);
  const ref = obj(addr.targetRef);
  if (str(ref.kind) === 'Pod' && str(ref.name)) {
    const pod = await read(store, 'pods', str(ref.namespace) || ns, str(ref.name));
    const t = pod ? loopbackTargetFor(pod.metadata?.annotations, podPort) : undefined;
    if (t) return { host: t.host, port: t.port };
  }
  // an Endpoints object written by hand for a process on this machine
  if (isLoopbackAddress(ip)) return { host: ip, port: podPort };
  return undefined;
}

async function read(store: RevisionedStore, plural: string, ns: string, name: string): Promise<KubeObject | undefined> {
  const got = await store.get(objectKey({ group: '', plural, scope: 'Namespaced' }, ns, name));
  return got.kv ? decodeFromStorage(got.kv) : undefined;
}

export interface CallOptions {
  webhook: string;
  /** Span name part: upstream's "Call mutating webhook" / "Call validating webhook". */
  phase: 'mutating' | 'validating';
  caBundle?: string;
  timeoutMs: number;
  credentials?: Credentials;
}

/** POSTs the review and returns the parsed JSON body; throws WebhookCallError on any failure. */
export function postReview(target: Target, review: unknown, opts: CallOptions): Promise<unknown> {
  return outgoingCall(
    `Call ${opts.phase} webhook`,
    { 'webhook.name': opts.webhook, 'url.full': target.url.href, 'server.address': target.url.hostname },
    (trace) => send(target, review, opts, trace),
  );
}

function send(target: Target, review: unknown, opts: CallOptions, traceHeaders: Record<string, string>): Promise<unknown> {
  const body = Buffer.from(JSON.stringify(review));
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(body.length), ...traceHeaders };
  // a Service reached at a loopback target still gets the request upstream would send: Host is the Service
  if (target.dial.host !== target.url.hostname.replace(/^\[|\]$/g, '')) headers.Host = /^https:\/\/([^/]+)/.exec(target.display)?.[1] ?? target.url.host;
  const c = opts.credentials;
  if (c?.token) headers.Authorization = `Bearer ${c.token}`;
  else if (c?.username !== undefined) headers.Authorization = `Basic ${Buffer.from(`${c.username}:${c.password ?? ''}`).toString('base64')}`;
  const ca = opts.caBundle ? Buffer.from(opts.caBundle, 'base64').toString('utf8') : undefined;
  const url = target.url;
  const where = callDescription(target.display, opts.timeoutMs);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: target.dial.host,
        port: target.dial.port,
        path: url.pathname + url.search,
        method: 'POST',
        headers,
        ca,
        cert: c?.cert,
        key: c?.key,
        servername: isIP(target.servername) ? undefined : target.servername,
        timeout: opts.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (d: Buffer) => {
          size += d.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy(new WebhookCallError(`${where}: response body too large`));
            return;
          }
          chunks.push(d);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return reject(new WebhookCallError(`an error on the server (${JSON.stringify(text.slice(0, 200))}) has prevented the request from succeeding`));
          try {
            resolve(JSON.parse(text));
          } catch {
            reject(new WebhookCallError(`received invalid webhook response: ${text.slice(0, 100)}`));
          }
        });
        res.on('error', (e) => reject(new WebhookCallError(`${where}: ${e.message}`)));
      },
    );
    // upstream: the request context expires after timeoutSeconds
    const timer = setTimeout(() => req.destroy(new WebhookCallError(`${where}: context deadline exceeded`)), opts.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new WebhookCallError(`${where}: context deadline exceeded`)));
    req.on('error', (e) => reject(e instanceof WebhookCallError ? e : new WebhookCallError(`${where}: ${e.message}`)));
    req.end(body);
  });
}
