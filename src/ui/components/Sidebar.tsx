// Navigation built from discovery: every served group and its listable resources (CRDs included).
import { useMemo, useState } from 'react';
import type { ApiResource, Discovery } from '../../client/index.js';
import { useBrowsableResources } from '../data/discovery.js';
import { Link, href, listPath, type Route } from '../router.js';

interface Props {
  discovery: Discovery | undefined;
  route: Route;
  namespace: string;
}

export function Sidebar({ discovery, route, namespace }: Props) {
  const resources = useBrowsableResources(discovery);
  const [closed, setClosed] = useState<Set<string>>(new Set());
  const groups = useMemo(() => {
    const by = new Map<string, ApiResource[]>();
    for (const r of resources) by.set(r.group, [...(by.get(r.group) ?? []), r]);
    const names = [...by.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)));
    return names.map((g) => ({ group: g, version: by.get(g)![0]!.version, resources: by.get(g)!.sort((a, b) => a.resource.localeCompare(b.resource)) }));
  }, [resources]);
  const activeGroup = route.name === 'list' || route.name === 'object' ? route.group : undefined;
  const activeResource = route.name === 'list' || route.name === 'object' ? route.resource : undefined;
  const toggle = (g: string) =>
    setClosed((s) => {
      const n = new Set(s);
      if (n.has(g)) n.delete(g);
      else n.add(g);
      return n;
    });
  return (
    <nav className="sidebar" data-testid="nav" aria-label="Resource types">
      {groups.map(({ group, version, resources: rs }) => {
        const open = !closed.has(group);
        const id = group || 'core';
        return (
          <section key={group} className="nav-group" data-testid={`nav-group-${id}`}>
            <button className="nav-group-title" aria-expanded={open} onClick={() => toggle(group)} title={`${group || 'core'}/${version}`}>
              <span className="caret">{open ? '▾' : '▸'}</span> {group || 'core'}
              <span className="muted small"> {version}</span>
            </button>
            {open && (
              <ul>
                {rs.map((r) => {
                  const active = activeGroup === r.group && activeResource === r.resource;
                  return (
                    <li key={r.resource}>
                      <Link
                        className={active ? 'nav-link active' : 'nav-link'}
                        aria-current={active ? 'page' : undefined}
                        data-testid={`nav-${id}-${r.resource}`}
                        href={href(listPath(r), { ns: r.namespaced ? namespace : undefined })}
                        title={`${r.kind}${r.shortNames.length ? ` (${r.shortNames.join(', ')})` : ''}`}
                      >
                        {r.resource}
                      </Link>
                    </li>
                  );
                })}
              </ul>
            )}
          </section>
        );
      })}
    </nav>
  );
}
