// Webhook authorizer of an AuthorizationConfiguration (upstream plugin/pkg/authorizer/webhook): POSTs a
// SubjectAccessReview (v1 or v1beta1) to the configured endpoint, caches answers for the configured TTLs,
// applies the failure policy to transport errors, bad statuses and malformed answers, and skips the call
// when a CEL match condition is false.
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { CostBudget, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS, evaluateMetered } from '../cel/cost.js';
import { compileCel, type CelCompiled } from '../../config/cel.js';
import { parseDuration } from '../../config/formats.js';
import type { WebhookConfiguration } from '../../config/types.js';
import { loadKubeconfig, type ClusterCredentials } from '../proxy/kubeconfig.js';
import { upstreamGroup } from '../registry/names.js';
import { allow, deny, noOpinion, type Attributes, type AuthorizationResult, type Authorizer } from './attributes.js';

/** Upstream caps the webhook timeout at 30s (validation) and bounds the answer it reads. */
const MAX_RESPONSE_BYTES = 1 << 20;

export interface SubjectAccessReviewSpec {
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
  resourceAttributes?: { namespace?: string; verb?: string; group?: string; version?: string; resource?: string; subresource?: string; name?: string };
  nonResourceAttributes?: { path?: string; verb?: string };
}

/**
 * The v1 SubjectAccessReview spec describing a request (upstream webhook resourceAttributesFrom). The group is
 * always in upstream's spelling (`rbac.authorization.k8s.io`, what webhook authorizers are written against),
 * whichever spelling the request used: no decision may depend on the spelling (one alias table, registry/names).
 */
export function sarSpec(a: Attributes): SubjectAccessReviewSpec {
  const spec: SubjectAccessReviewSpec = { user: a.user.name, groups: [...a.user.groups], uid: a.user.uid, extra: structuredClone(a.user.extra) };
  if (a.resourceRequest)
    spec.resourceAttributes = { namespace: a.namespace, verb: a.verb, group: upstreamGroup(a.apiGroup), version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name };
  else spec.nonResourceAttributes = { path: a.path, verb: a.verb };
  return spec;
}

/** Where the webhook lives and how to reach it. */
export interface WebhookEndpoint {
  url: URL;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  insecureSkipTlsVerify?: boolean;
}

/** The endpoint of a kubeconfig file (its current context), as upstream's webhook client config. */
export function endpointFromKubeconfig(file: string): WebhookEndpoint {
  const c: ClusterCredentials = loadKubeconfig(file);
  return { url: new URL(c.server), ca: c.ca, cert: c.cert, key: c.key, token: c.token, insecureSkipTlsVerify: c.insecureSkipTlsVerify };
}

/** In-cluster config (upstream rest.InClusterConfig): service host/port env and the mounted token and CA. */
export function inClusterEndpoint(readFile: (p: string) => Buffer): WebhookEndpoint {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
  return { url: new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`), token: readFile(`${dir}/token`).toString('utf8').trim(), ca: readFile(`${dir}/ca.crt`) };
}

class WebhookError extends Error {}

/** POSTs a JSON body and returns the parsed JSON answer; WebhookError on any failure. */
function post(ep: WebhookEndpoint, body: unknown, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(data.length) };
    if (ep.token) headers.Authorization = `Bearer ${ep.token}`;
    const opts = { method: 'POST', headers, timeout: timeoutMs, ca: ep.ca, cert: ep.cert, key: ep.key, rejectUnauthorized: !ep.insecureSkipTlsVerify };
    const send = ep.url.protocol === 'http:' ? httpRequest : httpsRequest;
    const timer = setTimeout(() => req.destroy(new WebhookError(`the webhook did not answer within ${timeoutMs}ms`)), timeoutMs);
    const req = send(ep.url, opts, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES) req.destroy(new WebhookError(`the webhook answer is larger than ${MAX_RESPONSE_BYTES} bytes`));
        else chunks.push(c);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 500) < 200 || (res.statusCode ?? 500) >= 300) {
          reject(new WebhookError(`the webhook answered HTTP ${res.statusCode}`));
          return;
        }
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(new WebhookError('the webhook answer is not JSON'));
        }
      });
      res.on('error', (e) => (clearTimeout(timer), reject(new WebhookError(e.message))));
    });
    req.on('error', (e) => (clearTimeout(timer), reject(e instanceof WebhookError ? e : new WebhookError(e.message))));
    req.end(data);
  });
}

interface CacheEntry {
  result: AuthorizationResult;
  expires: number;
}

/** Bounded TTL cache (upstream uses an LRU of 1024 entries per decision). */
class TtlCache {
  private entries = new Map<string, CacheEntry>();
  constructor(private readonly max = 1024) {}
  get(k: string, now: number): AuthorizationResult | undefined {
    const e = this.entries.get(k);
    if (!e) return undefined;
    if (e.expires <= now) {
      this.entries.delete(k);
      return undefined;
    }
    return e.result;
  }
  set(k: string, result: AuthorizationResult, expires: number): void {
    this.entries.delete(k);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(k, { result, expires });
  }
}

export interface WebhookOptions {
  name: string;
  config: WebhookConfiguration;
  endpoint: WebhookEndpoint;
  log?: (l: string) => void;
  /** Clock for the caches (tests move it instead of sleeping). */
  now?: () => number;
}

export class WebhookAuthorizer implements Authorizer {
  readonly name: string;
  private readonly conditions: CelCompiled[];
  private readonly authorizedTTL: number;
  private readonly unauthorizedTTL: number;
  private readonly timeoutMs: number;
  private readonly authorizedCache = new TtlCache();
  private readonly unauthorizedCache = new TtlCache();
  private readonly now: () => number;
  /** Webhook calls made (tests and metrics). */
  calls = 0;

  constructor(private readonly o: WebhookOptions) {
    this.name = o.name;
    const c = o.config;
    this.conditions = (c.matchConditions ?? []).map((m) => {
      const r = compileCel('matchCondition', m.expression);
      if (!r.ok) throw new Error(`authorizer ${o.name}: match condition ${JSON.stringify(m.expression)}: ${r.message}`);
      return r;
    });
    const dur = (v: string, f: string) => {
      const ms = parseDuration(v);
      if (ms === undefined || ms < 0) throw new Error(`authorizer ${o.name}: invalid ${f} ${JSON.stringify(v)}`);
      return ms;
    };
    this.authorizedTTL = c.cacheAuthorizedRequests === false ? 0 : dur(c.authorizedTTL, 'authorizedTTL');
    this.unauthorizedTTL = c.cacheUnauthorizedRequests === false ? 0 : dur(c.unauthorizedTTL, 'unauthorizedTTL');
    this.timeoutMs = Math.min(dur(c.timeout, 'timeout'), 30_000);
    this.now = o.now ?? Date.now;
  }

  /** The failure policy's answer; the cause is logged and reported as the evaluation error, not told to the client. */
  private onError(err: string): AuthorizationResult {
    this.o.log?.(`authorizer ${this.name}: ${err}`);
    const r = this.o.config.failurePolicy === 'Deny' ? deny(`authorizer "${this.name}" failed and its failure policy denies`) : noOpinion();
    return { ...r, error: `authorizer "${this.name}": ${err}` };
  }

  /** All conditions true → match; any false → no match (errors of others ignored); otherwise the errors. */
  private match(spec: SubjectAccessReviewSpec): { matches: boolean; error?: string } {
    if (this.conditions.length === 0) return { matches: true };
    const request = { user: '', groups: [], uid: '', extra: {}, ...spec };
    const errs: string[] = [];
    // each condition runs under the per-call limit, all of them from one budget per request (as admission's matchConditions)
    const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS);
    for (const c of this.conditions) {
      try {
        const v = evaluateMetered(c.program, { request }, { budget }).value;
        if (v === false) return { matches: false };
        if (v !== true) errs.push(`expression ${JSON.stringify(c.expression)} did not evaluate to bool`);
      } catch (e) {
        errs.push(`expression ${JSON.stringify(c.expression)} resulted in error: ${(e as Error).message}`);
      }
    }
    return errs.length ? { matches: false, error: errs.join('; ') } : { matches: true };
  }

  async authorize(a: Attributes): Promise<AuthorizationResult> {
    const spec = sarSpec(a);
    const m = this.match(spec);
    if (m.error) return this.onError(`match conditions: ${m.error}`);
    if (!m.matches) return noOpinion();
    const key = JSON.stringify(spec);
    const now = this.now();
    const cached = this.authorizedCache.get(key, now) ?? this.unauthorizedCache.get(key, now);
    if (cached) return cached;
    const version = this.o.config.subjectAccessReviewVersion;
    const wire = omitEmpty(spec);
    const body = { apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', spec: version === 'v1beta1' ? toV1beta1(wire) : wire };
    let answer: unknown;
    this.calls++;
    try {
      answer = await post(this.o.endpoint, body, this.timeoutMs);
    } catch (e) {
      return this.onError(`calling the webhook: ${(e as Error).message}`);
    }
    const status = parseAnswer(answer, version);
    if (typeof status === 'string') return this.onError(status);
    const result: AuthorizationResult = status.allowed ? allow(status.reason) : status.denied ? deny(status.reason) : noOpinion(status.reason);
    if (status.evaluationError) result.error = status.evaluationError;
    // upstream caches allowed answers for authorizedTTL and every other answer for unauthorizedTTL
    if (result.decision === 'Allow') {
      if (this.authorizedTTL > 0) this.authorizedCache.set(key, result, now + this.authorizedTTL);
    } else if (this.unauthorizedTTL > 0) this.unauthorizedCache.set(key, result, now + this.unauthorizedTTL);
    return result;
  }
}

/** The spec as upstream serializes it: empty strings, lists and maps left out (omitempty). */
function omitEmpty(spec: SubjectAccessReviewSpec): SubjectAccessReviewSpec {
  const prune = (o: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) {
      if (v === '' || v === undefined || (Array.isArray(v) && v.length === 0)) continue;
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const inner = k === 'extra' ? (v as Record<string, unknown>) : prune(v as Record<string, unknown>);
        if (Object.keys(inner).length === 0 && k === 'extra') continue;
        out[k] = inner;
      } else out[k] = v;
    }
    return out;
  };
  return prune(spec as Record<string, unknown>) as SubjectAccessReviewSpec;
}

function toV1beta1(spec: SubjectAccessReviewSpec): Record<string, unknown> {
  const { groups, ...rest } = spec;
  return { ...rest, group: groups };
}

/** The status of a webhook answer, or why it is malformed. */
function parseAnswer(answer: unknown, version: string): { allowed: boolean; denied: boolean; reason: string; evaluationError?: string } | string {
  if (!answer || typeof answer !== 'object') return 'malformed answer: not an object';
  const o = answer as Record<string, unknown>;
  if (o.kind !== 'SubjectAccessReview') return `malformed answer: kind ${JSON.stringify(o.kind)}, want "SubjectAccessReview"`;
  const want = [`authorization.k8s.io/${version}`, `authorization.service.io/${version}`];
  if (!want.includes(o.apiVersion as string)) return `malformed answer: apiVersion ${JSON.stringify(o.apiVersion)}, want ${JSON.stringify(want[0])}`;
  const s = o.status;
  if (!s || typeof s !== 'object') return 'malformed answer: no status';
  const st = s as Record<string, unknown>;
  if (typeof st.allowed !== 'boolean') return 'malformed answer: status.allowed is not a bool';
  if (st.denied !== undefined && typeof st.denied !== 'boolean') return 'malformed answer: status.denied is not a bool';
  if (st.allowed && st.denied) return 'malformed answer: both allowed and denied';
  return {
    allowed: st.allowed,
    denied: st.denied === true,
    reason: typeof st.reason === 'string' ? st.reason : '',
    evaluationError: typeof st.evaluationError === 'string' && st.evaluationError ? st.evaluationError : undefined,
  };
}
