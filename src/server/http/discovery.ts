// Discovery documents: /api, /apis, /api/v1, /apis/{g}/{v}, and aggregated discovery (apidiscovery v2, v2beta1).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { canonicalGroup, groupSpelledLike, groupSpellings } from '../registry/names.js';
import { compareVersions, type TypeRegistry } from '../registry/registry.js';
import type { ResourceType } from '../registry/types.js';
import { writeEncoded } from './respond.js';
import type { ExternalGroupVersion } from './aggregated-proxy.js';

function resourceVerbs(t: ResourceType): string[] {
  return [...t.verbs].sort();
}

/**
 * Whether a group name is the alias (upstream) spelling of a canonical group. In the legacy documents, which list
 * both spellings, alias spellings list the same resources without short names or categories, so a short name
 * resolves once (no kubectl "could also match lower priority resource" warning) and `kubectl get all` lists each
 * object once.
 */
function isAliasSpelling(group: string): boolean {
  return group !== '' && canonicalGroup(group) !== group;
}

function apiResources(types: ResourceType[], group: string) {
  const out: Record<string, unknown>[] = [];
  const alias = isAliasSpelling(group);
  for (const t of types) {
    const r: Record<string, unknown> = {
      name: t.plural,
      singularName: t.singular,
      namespaced: t.scope === 'Namespaced',
      kind: t.kind,
      verbs: resourceVerbs(t),
    };
    if (t.shortNames.length && !alias) r.shortNames = t.shortNames;
    if (t.categories.length && !alias) r.categories = t.categories;
    r.storageVersionHash = createHash('sha256').update(`${group}/${t.version}/${t.kind}`).digest('base64').slice(0, 12);
    out.push(r);
    for (const sr of t.subresources) {
      const sub: Record<string, unknown> = { name: `${t.plural}/${sr.name}`, singularName: '', namespaced: t.scope === 'Namespaced', kind: sr.kind, verbs: sr.verbs };
      if (sr.group !== undefined) sub.group = sr.group;
      if (sr.version !== undefined) sub.version = sr.version;
      out.push(sub);
    }
  }
  return out;
}

export function apiVersions(): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '' }] };
}

function sortedGroups(reg: TypeRegistry): [string, Map<string, ResourceType[]>][] {
  const groups = [...reg.groups()].filter(([g]) => g !== '');
  // built-in groups first in registration order, CRD groups after, as upstream orders by priority
  return groups.sort((a, b) => {
    const ca = [...a[1].values()][0]![0]!.custom;
    const cb = [...b[1].values()][0]![0]!.custom;
    return Number(ca) - Number(cb) || (ca ? a[0].localeCompare(b[0]) : 0);
  });
}

/**
 * The legacy APIGroupList lists aliased groups in both spellings: it says nothing of the client's spelling, and
 * older clients (and those with aggregated discovery off) resolve a manifest's apiVersion, either spelling, from it.
 */
export function apiGroupList(reg: TypeRegistry, external: ExternalGroupVersion[] = []): Record<string, unknown> {
  const groups: Record<string, unknown>[] = [];
  for (const [group, versions] of sortedGroups(reg)) {
    const vs = [...versions.keys()].sort(compareVersions);
    for (const name of groupSpellings(group)) {
      groups.push({
        name,
        versions: vs.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
        preferredVersion: { groupVersion: `${name}/${vs[0]}`, version: vs[0] },
      });
    }
  }
  for (const [name, vs] of externalGroups(reg, external))
    groups.push({
      name,
      versions: vs.map((v) => ({ groupVersion: `${name}/${v.version}`, version: v.version })),
      preferredVersion: { groupVersion: `${name}/${vs[0]!.version}`, version: vs[0]!.version },
    });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/**
 * Groups only APIServices naming a Service serve (kube-aggregator lists them whether or not they are available),
 * by name, versions sorted; a group this server serves itself is not listed again.
 */
function externalGroups(reg: TypeRegistry, external: ExternalGroupVersion[]): Map<string, ExternalGroupVersion[]> {
  const local = reg.groups();
  const out = new Map<string, ExternalGroupVersion[]>();
  for (const e of [...external].sort((a, b) => a.group.localeCompare(b.group) || compareVersions(a.version, b.version))) {
    if (!e.group || local.has(canonicalGroup(e.group))) continue;
    out.set(e.group, [...(out.get(e.group) ?? []), e]);
  }
  return out;
}

/** An aggregated API's APIResourceList entries in apidiscovery's form (sub-resources under their resource). */
function externalResources(list: Record<string, unknown>[]): Record<string, unknown>[] {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const verbs = (v: unknown) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);
  const top = new Map<string, Record<string, unknown>>();
  for (const r of list) {
    const name = str(r.name);
    if (!name || name.includes('/')) continue;
    const d: Record<string, unknown> = {
      resource: name,
      responseKind: { group: str(r.group), version: str(r.version), kind: str(r.kind) },
      scope: r.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: str(r.singularName),
      verbs: verbs(r.verbs),
    };
    if (Array.isArray(r.shortNames) && r.shortNames.length) d.shortNames = verbs(r.shortNames);
    if (Array.isArray(r.categories) && r.categories.length) d.categories = verbs(r.categories);
    top.set(name, d);
  }
  for (const r of list) {
    const [parent, sub] = str(r.name).split('/');
    const p = sub ? top.get(parent!) : undefined;
    if (!p) continue;
    p.subresources = [...((p.subresources as unknown[]) ?? []), { subresource: sub, responseKind: { group: str(r.group), version: str(r.version), kind: str(r.kind) }, verbs: verbs(r.verbs) }];
  }
  return [...top.values()];
}

export function apiGroup(reg: TypeRegistry, urlGroup: string): Record<string, unknown> | undefined {
  const versions = reg.groups().get(canonicalGroup(urlGroup));
  if (!versions) return undefined;
  const vs = [...versions.keys()].sort(compareVersions);
  return {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: urlGroup,
    versions: vs.map((v) => ({ groupVersion: `${urlGroup}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${urlGroup}/${vs[0]}`, version: vs[0] },
  };
}

export function apiResourceList(reg: TypeRegistry, urlGroup: string, version: string): Record<string, unknown> | undefined {
  const types = reg.groups().get(canonicalGroup(urlGroup))?.get(version);
  if (!types) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: urlGroup ? `${urlGroup}/${version}` : version,
    resources: apiResources(types, urlGroup),
  };
}

function discoveryResources(types: ResourceType[]) {
  return types.map((t) => {
    const r: Record<string, unknown> = {
      resource: t.plural,
      responseKind: { group: '', version: '', kind: t.kind },
      scope: t.scope,
      singularResource: t.singular,
      verbs: resourceVerbs(t),
    };
    if (t.shortNames.length) r.shortNames = t.shortNames;
    if (t.categories.length) r.categories = t.categories;
    if (t.subresources.length)
      r.subresources = t.subresources.map((sr) => ({
        subresource: sr.name,
        responseKind: { group: sr.group ?? '', version: sr.version ?? '', kind: sr.kind },
        verbs: sr.verbs,
      }));
    return r;
  });
}

/**
 * apidiscovery v2 (or v2beta1) APIGroupDiscoveryList for /api (core) or /apis (all groups). Each aliased group is
 * listed once, in the spelling family of the negotiated apidiscovery group (g=apidiscovery.k8s.io: every kubectl,
 * `rbac.authorization.k8s.io`; g=apidiscovery.service.io: `rbac.authorization.service.io`), with its short names
 * and categories, so `kubectl api-resources` shows it once and kubectl resolves a resource to one group. The legacy
 * APIGroupList (apiGroupList) carries no spelling hint and keeps listing both.
 */
export function aggregatedDiscovery(reg: TypeRegistry, legacy: boolean, discoveryGroup: string, discoveryVersion = 'v2', external: ExternalGroupVersion[] = []): Record<string, unknown> {
  const items: Record<string, unknown>[] = [];
  if (legacy) {
    const core = reg.groups().get('');
    if (core)
      items.push({
        metadata: { name: '' },
        versions: [...core].sort((a, b) => compareVersions(a[0], b[0])).map(([v, ts]) => ({ version: v, resources: discoveryResources(ts), freshness: 'Current' })),
      });
  } else {
    for (const [group, versions] of sortedGroups(reg)) {
      const vs = [...versions].sort((a, b) => compareVersions(a[0], b[0]));
      items.push({
        metadata: { name: groupSpelledLike(group, discoveryGroup) },
        versions: vs.map(([v, ts]) => ({ version: v, resources: discoveryResources(ts), freshness: 'Current' })),
      });
    }
    // aggregated APIs: their backend's resources while available, Stale (and none) while not
    for (const [name, vs] of externalGroups(reg, external))
      items.push({
        metadata: { name },
        versions: vs.map((v) => ({ version: v.version, resources: v.available ? externalResources(v.resources) : [], freshness: v.available ? 'Current' : 'Stale' })),
      });
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: `${discoveryGroup}/${discoveryVersion}`, metadata: {}, items };
}

/**
 * Aggregated discovery with an ETag of its bytes, answering 304 to a matching If-None-Match, as upstream's
 * aggregated handler does; `Vary: Accept` because the document differs per negotiated spelling and version
 * (so caches keep one entry per form, and each form's ETag is its own).
 */
export function serveWithETag(req: IncomingMessage, res: ServerResponse, body: Buffer, contentType: string): void {
  const etag = `"${createHash('sha256').update(contentType).update(body).digest('hex').slice(0, 32).toUpperCase()}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Vary', 'Accept');
  const inm = req.headers['if-none-match'];
  if (inm !== undefined && inm.split(',').some((t) => t.trim() === etag)) {
    res.writeHead(304);
    res.end();
    return;
  }
  writeEncoded(req, res, 200, body, contentType);
}
