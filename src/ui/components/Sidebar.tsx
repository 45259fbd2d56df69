// Navigation by task (Workloads, Network, Config and storage, Access control, Cluster, Custom resources
// by group), kinds by their kind name with group/version on hover, pinned kinds first, and "All API
// groups" for the full discovery tree. Built from discovery, so CRDs appear live.
import { useMemo, useState, useSyncExternalStore } from 'react';
import type { ApiResource, Discovery } from '../../client/index.js';
import { useBrowsableResources } from '../data/discovery.js';
import { taskSections } from '../lib/taxonomy.js';
import { Link, href, listPath, type Route } from '../router.js';

interface Props {
  discovery: Discovery | undefined;
  route: Route;
  namespace: string;
}

// ---- pins and open sections, kept in localStorage ----

const PINS_KEY = 'periscope.pins';
const CLOSED_KEY = 'periscope.nav-closed';

function readList(key: string, fallback: string[]): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(key) ?? 'null');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : fallback;
  } catch {
    return fallback;
  }
}

function storedList(key: string, fallback: string[]) {
  let value = readList(key, fallback);
  const listeners = new Set<() => void>();
  return {
    subscribe(fn: () => void) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    get: () => value,
    set(next: string[]) {
      value = next;
      try {
        localStorage.setItem(key, JSON.stringify(next));
      } catch {
        /* storage unavailable: kept for this page only */
      }
      for (const l of listeners) l();
    },
  };
}

/** A kind's identity that survives a version change: group (as served) and plural. */
export const pinId = (r: Pick<ApiResource, 'group' | 'resource'>) => `${r.group}/${r.resource}`;

export const pinStore = storedList(PINS_KEY, []);
// "All API groups" is the long tail: closed until asked for
const closedStore = storedList(CLOSED_KEY, ['all-groups']);

function toggleIn(store: ReturnType<typeof storedList>, id: string): void {
  const cur = store.get();
  store.set(cur.includes(id) ? cur.filter((x) => x !== id) : [...cur, id]);
}

function KindLink({ r, namespace, active, testId, pinned }: { r: ApiResource; namespace: string; active: boolean; testId: string; pinned: boolean }) {
  const where = `${r.group || 'core'}/${r.version}`;
  return (
    <li className="nav-item">
      <Link
        className={active ? 'nav-link active' : 'nav-link'}
        aria-current={active ? 'page' : undefined}
        data-testid={testId}
        href={href(listPath(r), { ns: r.namespaced ? namespace : undefined })}
        title={`${r.kind} · ${where} (${r.resource}${r.shortNames.length ? `, ${r.shortNames.join(', ')}` : ''})`}
      >
        {/* long kind names break between their words (HorizontalPod­Autoscaler), never mid-word */}
        {r.kind.split(/(?=[A-Z][a-z])/).map((part, i) => (
          <span key={i}>
            {i > 0 && <wbr />}
            {part}
          </span>
        ))}
      </Link>
      <button
        type="button"
        className={`pin-btn${pinned ? ' pinned' : ''}`}
        aria-pressed={pinned}
        aria-label={`${pinned ? 'Unpin' : 'Pin'} ${r.kind} (${where})`}
        title={pinned ? 'Unpin' : 'Pin to the top'}
        data-testid={`pin-${r.group || 'core'}-${r.resource}`}
        onClick={() => toggleIn(pinStore, pinId(r))}
      >
        {pinned ? '★' : '☆'}
      </button>
    </li>
  );
}

function Section({ id, title, hint, children, testId }: { id: string; title: string; hint?: string; children: React.ReactNode; testId: string }) {
  const closed = useSyncExternalStore(closedStore.subscribe, closedStore.get);
  const open = !closed.includes(id);
  return (
    <section className="nav-group" data-testid={testId}>
      <button className="nav-group-title" aria-expanded={open} onClick={() => toggleIn(closedStore, id)} title={hint ?? title}>
        <span className="caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>{' '}
        {title}
      </button>
      {open && children}
    </section>
  );
}

export function Sidebar({ discovery, route, namespace }: Props) {
  const resources = useBrowsableResources(discovery);
  const pins = useSyncExternalStore(pinStore.subscribe, pinStore.get);
  const [filter, setFilter] = useState('');
  const sections = useMemo(() => taskSections(resources), [resources]);
  const byGroup = useMemo(() => {
    const by = new Map<string, ApiResource[]>();
    for (const r of resources) by.set(r.group, [...(by.get(r.group) ?? []), r]);
    const names = [...by.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)));
    return names.map((g) => ({ group: g, version: by.get(g)![0]!.version, resources: by.get(g)!.sort((a, b) => a.kind.localeCompare(b.kind)) }));
  }, [resources]);
  const pinned = useMemo(() => pins.map((id) => resources.find((r) => pinId(r) === id)).filter((r): r is ApiResource => !!r), [pins, resources]);
  const activeGroup = route.name === 'list' || route.name === 'object' || route.name === 'new' ? route.group : undefined;
  const activeResource = route.name === 'list' || route.name === 'object' || route.name === 'new' ? route.resource : undefined;
  const isActive = (r: ApiResource) => activeGroup === r.group && activeResource === r.resource;
  const f = filter.trim().toLowerCase();
  const shown = (r: ApiResource) => !f || r.kind.toLowerCase().includes(f) || r.resource.includes(f) || r.shortNames.includes(f);
  const list = (rs: ApiResource[], prefix: string) => {
    const visible = rs.filter(shown);
    if (!visible.length) return null;
    return (
      <ul>
        {visible.map((r) => (
          <KindLink key={pinId(r)} r={r} namespace={namespace} active={isActive(r)} pinned={pins.includes(pinId(r))} testId={`${prefix}${r.group || 'core'}-${r.resource}`} />
        ))}
      </ul>
    );
  };
  return (
    <nav className="sidebar" id="sidebar" data-testid="nav" aria-label="Resource types">
      <div className="nav-filter">
        <input type="search" className="filter" aria-label="Filter kinds" placeholder="Filter kinds" value={filter} onChange={(e) => setFilter(e.target.value)} data-testid="nav-filter" />
      </div>
      {pinned.length > 0 && (
        <Section id="pinned" title="Pinned" testId="nav-pinned">
          {list(pinned, 'nav-pinned-')}
        </Section>
      )}
      {sections.map((s) =>
        s.id === 'custom' ? (
          <Section key={s.id} id={s.id} title={s.label} testId={`nav-task-${s.id}`}>
            {s.groups.map((g) =>
              g.resources.some(shown) ? (
                <div key={g.group} className="nav-subgroup" data-testid={`nav-crd-group-${g.group}`}>
                  <div className="nav-subgroup-title muted small" title={g.group}>
                    {g.group}
                  </div>
                  {list(g.resources, 'nav-')}
                </div>
              ) : null,
            )}
          </Section>
        ) : (
          <Section key={s.id} id={s.id} title={s.label} testId={`nav-task-${s.id}`}>
            {list(s.groups[0]!.resources, 'nav-')}
          </Section>
        ),
      )}
      <Section id="all-groups" title="All API groups" hint="Every group and kind the server serves (discovery)" testId="nav-all-groups">
        {byGroup.map(({ group, version, resources: rs }) =>
          rs.some(shown) ? (
            <div key={group} className="nav-subgroup" data-testid={`nav-group-${group || 'core'}`}>
              <div className="nav-subgroup-title muted small" title={`${group || 'core'}/${version}`}>
                {group || 'core'} <span>{version}</span>
              </div>
              {list(rs, 'nav-all-')}
            </div>
          ) : null,
        )}
      </Section>
    </nav>
  );
}
