// Search results in the order a person wants them: exact name matches, then names starting with the
// text, then names with it at a word start (after - or .), then anywhere; grouped by kind, the kinds by
// their best match and then by weight (workloads and services before configuration, cluster objects
// after); Events always last. An object listed by two groups (Event in core and events.k8s.io) once.
import type { ApiResource } from '../../client/index.js';
import { kindWeight, neutralGroup } from './taxonomy.js';

export interface Hit {
  resource: ApiResource;
  namespace?: string;
  name: string;
  uid?: string;
}

/** 0 exact, 1 prefix, 2 at a word start, 3 anywhere (and every label-selector hit). */
export function matchTier(name: string, q: string): number {
  const n = name.toLowerCase();
  const s = q.trim().toLowerCase();
  if (!s) return 3;
  if (n === s) return 0;
  if (n.startsWith(s)) return 1;
  const i = n.indexOf(s);
  if (i > 0 && (n[i - 1] === '-' || n[i - 1] === '.' || n[i - 1] === '_')) return 2;
  return 3;
}

const isEvent = (r: ApiResource) => r.resource === 'events' && (r.group === '' || neutralGroup(r.group) === 'events.service.io');

/** The kinds a search lists: core Events only when events.k8s.io serves the same objects too. */
export function searchableKinds(resources: readonly ApiResource[]): ApiResource[] {
  const coreEvents = resources.some((r) => r.group === '' && r.resource === 'events');
  return resources.filter((r) => !(coreEvents && isEvent(r) && r.group !== '')).sort((a, b) => kindWeight(b) - kindWeight(a));
}

export interface HitGroup {
  resource: ApiResource;
  hits: (Hit & { tier: number })[];
}

/** Hits grouped by kind and ordered; duplicates (same uid, or same kind/namespace/name) dropped. */
export function rankHits(hits: readonly Hit[], q: string, selector: boolean): HitGroup[] {
  const seen = new Set<string>();
  const groups = new Map<string, HitGroup>();
  for (const h of hits) {
    const id = h.uid ?? `${h.resource.kind}/${h.namespace ?? ''}/${h.name}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const key = `${h.resource.group}/${h.resource.resource}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { resource: h.resource, hits: [] }));
    g.hits.push({ ...h, tier: selector ? 3 : matchTier(h.name, q) });
  }
  const out = [...groups.values()];
  for (const g of out) g.hits.sort((a, b) => a.tier - b.tier || a.name.length - b.name.length || a.name.localeCompare(b.name) || (a.namespace ?? '').localeCompare(b.namespace ?? ''));
  const best = (g: HitGroup) => g.hits[0]!.tier;
  out.sort((a, b) => Number(isEvent(a.resource)) - Number(isEvent(b.resource)) || best(a) - best(b) || kindWeight(b.resource) - kindWeight(a.resource) || a.resource.kind.localeCompare(b.resource.kind));
  return out;
}
