// GET /metrics in the Prometheus text format (0.0.4), as kube-apiserver serves it: the feature gates
// (`kubernetes_feature_enabled`, component-base), the build (`kubernetes_build_info`), requests counted
// as they finish (`apiserver_request_total`) and the objects each loaded watch cache holds
// (`apiserver_storage_objects`). Authorized like upstream, as the non-resource URL /metrics
// (bootstrap role system:monitoring).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../../api/status.js';
import { FEATURE_DEFAULTS, FEATURE_STAGES, type FeatureGates, type FeatureName } from '../features.js';
import { typePrefix } from '../registry/keys.js';
import { storageDecodes } from '../registry/decode-count.js';
import type { TypeRegistry } from '../registry/registry.js';
import { VERSION_INFO } from '../version.js';
import type { WatchCacheSet } from '../watch/watch-cache.js';
import type { RequestInfo } from '../request/info.js';
import { writeEncoded } from './respond.js';

export const METRICS_PATH = '/metrics';

/** The exposition format's media type (Prometheus text format 0.0.4), as upstream's /metrics answers by default. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Label value escaping of the text format: backslash, double quote and line feed. */
export function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labels(l: Record<string, string>): string {
  // label names in sorted order, as the Prometheus Go client writes them
  return `{${Object.keys(l)
    .sort()
    .map((k) => `${k}="${escapeLabel(l[k]!)}"`)
    .join(',')}}`;
}

/** Upstream's metric verb (endpoints/metrics CleanVerb): the route's verb, APPLY for server-side apply. */
function metricVerb(info: RequestInfo, req: IncomingMessage): string {
  if (info.verb === 'create') return 'POST';
  if (info.verb === 'update') return 'PUT';
  if (info.verb === 'patch') return /^application\/apply-patch\+/.test(String(req.headers['content-type'] ?? '')) ? 'APPLY' : 'PATCH';
  return info.verb.toUpperCase(); // GET LIST WATCH DELETE DELETECOLLECTION
}

/** Upstream's CleanScope. */
function metricScope(info: RequestInfo): string {
  if (info.name || info.verb === 'create') return 'resource';
  return info.namespace ? 'namespace' : 'cluster';
}

export interface MetricsDeps {
  types: TypeRegistry;
  caches: WatchCacheSet;
  gates: FeatureGates;
}

export class ApiMetrics {
  /** Request attributes → the series' rendered label set and count. */
  private readonly requests = new Map<string, { labels: string; n: number }>();

  constructor(private readonly deps: MetricsDeps) {}

  /**
   * Counts one finished request, from the attributes the handler chain already parsed. Only requests for a served resource (and one of its sub-resources)
   * are counted: every label value then comes from a bounded set, whatever paths clients send
   * (upstream instruments its installed routes only).
   */
  observe(req: IncomingMessage, info: RequestInfo, query: URLSearchParams, code: number): void {
    if (!info.isResourceRequest || info.malformed) return;
    const t = this.deps.types.lookup(info.group, info.version, info.resource);
    if (!t) return;
    if (info.subresource && !t.subresources.some((s) => s.name === info.subresource)) return;
    // a plain key per request; the label set is rendered once per series (this runs for every request)
    const dryRun = query.size > 0 && query.getAll('dryRun').includes('All') ? 'All' : '';
    const key = `${code}\u0000${dryRun}\u0000${t.group}\u0000${t.plural}\u0000${metricScope(info)}\u0000${info.subresource}\u0000${metricVerb(info, req)}\u0000${t.version}`;
    const series = this.requests.get(key);
    if (series) series.n++;
    else
      this.requests.set(key, {
        n: 1,
        labels: labels({
          code: String(code),
          component: 'apiserver',
          dry_run: dryRun,
          group: t.group,
          resource: t.plural,
          scope: metricScope(info),
          subresource: info.subresource,
          verb: metricVerb(info, req),
          version: t.version,
        }),
      });
  }

  render(): string {
    const out: string[] = [];
    out.push('# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    out.push('# TYPE apiserver_request_total counter');
    for (const { labels: k, n } of [...this.requests.values()].sort((a, b) => (a.labels < b.labels ? -1 : 1))) out.push(`apiserver_request_total${k} ${n}`);

    // one line per storage (versions of one resource share a prefix), named resource.group as upstream
    const names = new Map<string, string>();
    for (const t of this.deps.types.all()) names.set(typePrefix(t), t.group ? `${t.plural}.${t.group}` : t.plural);
    const stored: [string, number][] = [];
    for (const [prefix, n] of this.deps.caches.objectCounts()) {
      const name = names.get(prefix);
      if (name) stored.push([name, n]);
    }
    out.push('# HELP apiserver_storage_objects [STABLE] Number of stored objects at the time of last check split by kind.');
    out.push('# TYPE apiserver_storage_objects gauge');
    for (const [name, n] of stored.sort((a, b) => (a[0] < b[0] ? -1 : 1))) out.push(`apiserver_storage_objects${labels({ resource: name })} ${n}`);

    // ours: each object version should be decoded once per process (the watch cache's copy, shared)
    out.push('# HELP periscope_storage_decodes_total Number of stored objects this process decoded (each object version should be decoded once per process).');
    out.push('# TYPE periscope_storage_decodes_total counter');
    out.push(`periscope_storage_decodes_total ${storageDecodes()}`);

    out.push('# HELP kubernetes_build_info [ALPHA] A metric with a constant \'1\' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.');
    out.push('# TYPE kubernetes_build_info gauge');
    const v = VERSION_INFO;
    out.push(`kubernetes_build_info${labels({ build_date: v.buildDate, compiler: v.compiler, git_commit: v.gitCommit, git_tree_state: v.gitTreeState, git_version: v.gitVersion, go_version: v.goVersion, major: v.major, minor: v.minor, platform: v.platform })} 1`);

    out.push('# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.');
    out.push('# TYPE kubernetes_feature_enabled gauge');
    for (const name of (Object.keys(FEATURE_DEFAULTS) as FeatureName[]).sort())
      out.push(`kubernetes_feature_enabled${labels({ name, stage: FEATURE_STAGES[name] })} ${this.deps.gates[name] ? 1 : 0}`);
    return out.join('\n') + '\n';
  }

  /** Answers GET/HEAD /metrics (the caller has authenticated and authorized the request). */
  serve(req: IncomingMessage, res: ServerResponse, compression: boolean): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
    writeEncoded(req, res, 200, Buffer.from(this.render()), METRICS_CONTENT_TYPE, { compression });
  }
}
