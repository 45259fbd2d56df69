// Calling an admission webhook: resolve clientConfig (URL, or a Service through its Endpoints), trust the
// caBundle, add kubeConfigFile credentials, post the AdmissionReview with W3C trace context, enforce the timeout.
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { arr, obj, str } from '../registry/builtin-helpers.js';
import { objectKey } from '../registry/keys.js';
import { decodeFromStorage } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';
import { outgoingCall } from '../tracing.js';

/** Upstream caps an admission response body at 3 MiB... we read at most this much. */
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

export class WebhookCallError extends Error {}

export interface Target {
  url: URL;
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

/** The address of a webhook: its URL, or the Service resolved through the Endpoints of the embedded server. */
export async function resolveTarget(store: RevisionedStore, clientConfig: unknown): Promise<Target> {
  const cc = obj(clientConfig);
  if (cc.url) {
    const url = new URL(str(cc.url));
    return { url, servername: url.hostname, credentialHost: url.hostname };
  }
  const ref = obj(cc.service);
  const ns = str(ref.namespace);
  const name = str(ref.name);
  const port = typeof ref.port === 'number' ? ref.port : 443;
  const dns = `${name}.${ns}.svc`;
  const svc = await read(store, 'services', ns, name);
  if (!svc) throw new WebhookCallError(`service "${name}" not found`);
  const sp = arr(obj(svc.spec).ports).map(obj).find((p) => p.port === port);
  if (!sp) throw new WebhookCallError(`service ${ns}/${name} has no port ${port}`);
  const eps = await read(store, 'endpoints', ns, name);
  for (const subset of arr(eps?.subsets).map(obj)) {
    const addrs = arr(subset.addresses).map(obj);
    const ports = arr(subset.ports).map(obj);
    const ep = ports.find((p) => (sp.name ? p.name === sp.name : true) && (typeof sp.targetPort !== 'number' || p.port === sp.targetPort)) ?? (ports.length === 1 ? ports[0] : undefined);
    if (addrs.length > 0 && ep) {
      const ip = str(addrs[0]!.ip);
      const host = isIP(ip) === 6 ? `[${ip}]` : ip;
      const path = str(ref.path) || '/';
      return { url: new URL(`https://${host}:${Number(ep.port)}${path}`), servername: dns, credentialHost: dns };
    }
  }
  throw new WebhookCallError(`service ${ns}/${name} has no ready endpoints`);
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
  const c = opts.credentials;
  if (c?.token) headers.Authorization = `Bearer ${c.token}`;
  else if (c?.username !== undefined) headers.Authorization = `Basic ${Buffer.from(`${c.username}:${c.password ?? ''}`).toString('base64')}`;
  const ca = opts.caBundle ? Buffer.from(opts.caBundle, 'base64').toString('utf8') : undefined;
  const url = target.url;
  const where = `Post "${url.href}"`;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || 443,
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
