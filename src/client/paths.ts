// URL paths of API resources and query strings.

export interface ResourceRef {
  /** '' for the core group. */
  group: string;
  version: string;
  /** Plural resource name (pods, deployments). */
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

export type QueryValue = string | number | boolean | undefined | null | readonly string[];
export type Query = Record<string, QueryValue>;

const enc = encodeURIComponent;

export function groupVersionPath(group: string, version: string): string {
  return group ? `/apis/${enc(group)}/${enc(version)}` : `/api/${enc(version)}`;
}

/** /api/v1/namespaces/ns/pods/name/status, /apis/apps/v1/deployments ... */
export function resourcePath(ref: ResourceRef): string {
  let p = groupVersionPath(ref.group, ref.version);
  if (ref.namespace) p += `/namespaces/${enc(ref.namespace)}`;
  p += `/${enc(ref.resource)}`;
  if (ref.name !== undefined) {
    p += `/${enc(ref.name)}`;
    if (ref.subresource) p += `/${enc(ref.subresource)}`;
  }
  return p;
}

export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const x of v) sp.append(k, x);
    else sp.append(k, String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

export function withQuery(path: string, query: Query | undefined): string {
  const qs = queryString(query);
  if (!qs) return path;
  return path.includes('?') ? `${path}&${qs.slice(1)}` : path + qs;
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** Cache key of an object in a collection: namespace/name, or name for cluster-scoped objects. */
export function objectKey(meta: { namespace?: string; name?: string } | undefined): string {
  if (!meta) return '';
  return meta.namespace ? `${meta.namespace}/${meta.name ?? ''}` : (meta.name ?? '');
}
