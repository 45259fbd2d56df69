// API discovery: the aggregated form (apidiscovery v2, one request per root) when the server offers it,
// the legacy per-group-version documents otherwise.
import type { ApiClient } from './http.js';
import { AGGREGATED_DISCOVERY_ACCEPT } from './media.js';
import { groupVersionPath } from './paths.js';

export interface ApiResource {
  group: string;
  version: string;
  /** Plural name used in URLs. */
  resource: string;
  kind: string;
  singular: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  subresources: string[];
  /** The version is the group's preferred one. */
  preferred: boolean;
}

export interface ApiGroupInfo {
  /** '' for the core group. */
  name: string;
  preferredVersion: string;
  versions: string[];
}

export interface Discovery {
  groups: ApiGroupInfo[];
  resources: ApiResource[];
  /** Answered in the aggregated form. */
  aggregated: boolean;
}

interface AggResource {
  resource: string;
  responseKind?: { group?: string; version?: string; kind?: string };
  scope?: string;
  singularResource?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string }[];
}
interface AggList {
  kind?: string;
  items?: { metadata?: { name?: string }; versions?: { version: string; resources?: AggResource[] }[] }[];
}
interface LegacyResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

function fromAggregated(list: AggList, into: Discovery): void {
  for (const g of list.items ?? []) {
    const name = g.metadata?.name ?? '';
    const versions = (g.versions ?? []).map((v) => v.version);
    if (!versions.length) continue;
    into.groups.push({ name, preferredVersion: versions[0]!, versions });
    for (const v of g.versions ?? [])
      for (const r of v.resources ?? [])
        into.resources.push({
          group: name,
          version: v.version,
          resource: r.resource,
          kind: r.responseKind?.kind ?? '',
          singular: r.singularResource ?? '',
          namespaced: r.scope === 'Namespaced',
          verbs: r.verbs ?? [],
          shortNames: r.shortNames ?? [],
          categories: r.categories ?? [],
          subresources: (r.subresources ?? []).map((s) => s.subresource),
          preferred: v.version === versions[0],
        });
  }
}

async function legacyGroupVersion(client: ApiClient, group: string, version: string, preferred: boolean, signal?: AbortSignal): Promise<ApiResource[]> {
  const body = (await client.request<{ resources?: LegacyResource[] }>('GET', groupVersionPath(group, version), { signal })).body;
  const subs = new Map<string, string[]>();
  const out: ApiResource[] = [];
  for (const r of body.resources ?? []) {
    const slash = r.name.indexOf('/');
    if (slash >= 0) {
      const parent = r.name.slice(0, slash);
      subs.set(parent, [...(subs.get(parent) ?? []), r.name.slice(slash + 1)]);
      continue;
    }
    out.push({
      group,
      version,
      resource: r.name,
      kind: r.kind,
      singular: r.singularName || r.kind.toLowerCase(),
      namespaced: r.namespaced,
      verbs: r.verbs ?? [],
      shortNames: r.shortNames ?? [],
      categories: r.categories ?? [],
      subresources: [],
      preferred,
    });
  }
  for (const r of out) r.subresources = subs.get(r.resource) ?? [];
  return out;
}

async function legacy(client: ApiClient, root: 'api' | 'apis', into: Discovery, signal?: AbortSignal): Promise<void> {
  if (root === 'api') {
    const v = (await client.request<{ versions?: string[] }>('GET', '/api', { signal })).body;
    const versions = v.versions ?? ['v1'];
    into.groups.push({ name: '', preferredVersion: versions[0] ?? 'v1', versions });
    for (const r of await Promise.all(versions.map((ver, i) => legacyGroupVersion(client, '', ver, i === 0, signal)))) into.resources.push(...r);
    return;
  }
  const list = (await client.request<{ groups?: { name: string; versions: { version: string }[]; preferredVersion?: { version: string } }[] }>('GET', '/apis', { signal })).body;
  const jobs: Promise<ApiResource[]>[] = [];
  for (const g of list.groups ?? []) {
    const versions = g.versions.map((v) => v.version);
    const preferred = g.preferredVersion?.version ?? versions[0] ?? '';
    into.groups.push({ name: g.name, preferredVersion: preferred, versions });
    // a group version that fails (an unavailable aggregated API) should not hide the rest
    for (const v of versions) jobs.push(legacyGroupVersion(client, g.name, v, v === preferred, signal).catch(() => []));
  }
  for (const r of await Promise.all(jobs)) into.resources.push(...r);
}

async function root(client: ApiClient, which: 'api' | 'apis', into: Discovery, signal?: AbortSignal): Promise<boolean> {
  const res = await client.request<AggList>('GET', `/${which}`, { accept: AGGREGATED_DISCOVERY_ACCEPT, signal });
  if (res.body && typeof res.body === 'object' && res.body.kind === 'APIGroupDiscoveryList') {
    fromAggregated(res.body, into);
    return true;
  }
  await legacy(client, which, into, signal);
  return false;
}

export async function discover(client: ApiClient, opts: { signal?: AbortSignal } = {}): Promise<Discovery> {
  const core: Discovery = { groups: [], resources: [], aggregated: true };
  const groups: Discovery = { groups: [], resources: [], aggregated: true };
  const [a, b] = await Promise.all([root(client, 'api', core, opts.signal), root(client, 'apis', groups, opts.signal)]);
  return { groups: [...core.groups, ...groups.groups], resources: [...core.resources, ...groups.resources], aggregated: a && b };
}

/** Resources whose type matches a user's word: plural, singular, short name, kind, or `plural.group` (any case). */
export function findResources(d: Discovery, query: string): ApiResource[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const exact: ApiResource[] = [];
  for (const r of d.resources) {
    if (!r.preferred) continue;
    const names = [r.resource, r.singular, r.kind.toLowerCase(), ...r.shortNames.map((s) => s.toLowerCase())];
    const qualified = names.flatMap((n) => (r.group ? [`${n}.${r.group}`, `${n}.${r.version}.${r.group}`] : [n]));
    if (names.includes(q) || qualified.includes(q)) exact.push(r);
  }
  return exact;
}

/** Ranked suggestions for a jump box: exact names first, then prefixes, then substrings. */
export function suggestResources(d: Discovery, query: string, max = 12): ApiResource[] {
  const q = query.trim().toLowerCase();
  const pool = d.resources.filter((r) => r.preferred && r.verbs.includes('list'));
  if (!q) return pool.slice(0, max);
  const scored: { r: ApiResource; s: number }[] = [];
  for (const r of pool) {
    const names = [r.resource, r.singular, r.kind.toLowerCase(), ...r.shortNames.map((s) => s.toLowerCase())];
    const full = r.group ? `${r.resource}.${r.group}` : r.resource;
    let s = 0;
    if (names.includes(q) || full === q) s = 100;
    else if (names.some((n) => n.startsWith(q))) s = 60;
    else if (full.includes(q)) s = 30;
    else if (r.group.toLowerCase().startsWith(q)) s = 20;
    if (s) scored.push({ r, s: s - r.resource.length / 100 });
  }
  scored.sort((a, b) => b.s - a.s);
  return scored.slice(0, max).map((x) => x.r);
}

/** The resource serving a kind in an apiVersion (for owner references and links). */
export function resourceForKind(d: Discovery, apiVersion: string, kind: string): ApiResource | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  return d.resources.find((r) => sameGroup(r.group, group) && r.version === version && r.kind === kind);
}

/**
 * Whether two group names are one group in either spelling (rbac.authorization.k8s.io and
 * rbac.authorization.service.io): a Periscope server lists the spelling negotiated, a real cluster only k8s.io,
 * while objects and URLs may name either.
 */
export function sameGroup(a: string, b: string): boolean {
  const neutral = (g: string) => (g.endsWith('.k8s.io') ? g.slice(0, -'.k8s.io'.length) + '.service.io' : g);
  return a === b || neutral(a) === neutral(b);
}
