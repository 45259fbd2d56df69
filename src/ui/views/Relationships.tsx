// How one object relates to others: its owners and dependents (the garbage collector's graph), for a
// Service its EndpointSlices and their Pods, for a Pod what it uses, for a ConfigMap, Secret, PVC or
// ServiceAccount the Pods using it, for a subject or role the bindings. A graph and the same as lists.
import { useRef, useState, type KeyboardEvent } from 'react';
import type { ApiResource, Discovery, KubeObject } from '../../client/index.js';
import { nodeId, useRelationships, type Related } from '../data/relationships.js';
import { Link, href, navigate, objectPath } from '../router.js';

export type { Related };

function linkOf(r: Related, listNamespace: string): string | undefined {
  // a node opens its own map: walking on (Deployment → Pod → Node → the Node's other pods) stays here
  return r.resource && !r.missing ? href(objectPath(r.resource, r.resource.namespaced ? r.namespace : undefined, r.name, 'related'), { ns: listNamespace || undefined }) : undefined;
}

const labelOf = (r: Related) => `${r.kind}/${r.name}`;

/** Columns by hops (owners to the left, the object in view in the middle), an edge from each node to where it was reached from. */
function Graph({ self, selfKind, related, listNamespace }: { self: string; selfKind: string; related: Related[]; listNamespace: string }) {
  const colW = 230;
  const rowH = 26;
  const depths = [...new Set([0, ...related.map((r) => r.depth)])].sort((a, b) => a - b);
  const columns = new Map(depths.map((dp) => [dp, dp === 0 ? [] : related.filter((r) => r.depth === dp).slice(0, 40)]));
  const tallest = Math.max(1, ...[...columns.values()].map((c) => c.length));
  const height = tallest * rowH + 24;
  const pos = new Map<string, { x: number; y: number }>();
  depths.forEach((dp, ci) => {
    const col = columns.get(dp)!;
    const x = 20 + ci * colW;
    if (dp === 0) pos.set('', { x, y: height / 2 });
    col.forEach((r, i) => pos.set(nodeId(r.kind, r.namespace, r.name), { x, y: 12 + (height - 24) / 2 - ((col.length - 1) * rowH) / 2 + i * rowH }));
  });
  const width = 20 + depths.length * colW;
  const selfLabel = `${selfKind}/${self}`;
  return (
    <svg className="relations-graph" role="group" aria-label={`Relationship map of ${selfLabel}`} viewBox={`0 0 ${width} ${height}`} width={width} height={height} data-testid="relations-graph">
      {related.map((r, i) => {
        const a = pos.get(nodeId(r.kind, r.namespace, r.name));
        const b = pos.get(r.from) ?? pos.get('');
        if (!a || !b) return null;
        const [l, rr] = a.x < b.x ? [a, b] : [b, a];
        return <line key={`e${i}`} x1={l.x + colW - 30} y1={l.y} x2={rr.x - 4} y2={rr.y} className="graph-edge" />;
      })}
      {related.map((r, i) => {
        const p = pos.get(nodeId(r.kind, r.namespace, r.name));
        if (!p) return null;
        const label = labelOf(r);
        const short = label.length > 30 ? `${label.slice(0, 29)}…` : label;
        const link = linkOf(r, listNamespace);
        const text = (
          <text x={p.x} y={p.y + 4} className={`graph-label${r.missing ? ' graph-missing' : ''}`}>
            {short}
            {r.missing ? ' (missing)' : ''}
          </text>
        );
        return (
          <g key={`n${i}`} data-testid="graph-node" data-node={label}>
            <title>{`${r.relation}: ${label}${r.namespace ? ` in ${r.namespace}` : ''}${r.via ? ` (${r.via})` : ''}${r.missing ? ' — not found' : ''}`}</title>
            {link ? (
              <a href={link} aria-label={`${r.relation} ${label}`} onClick={(e) => (e.preventDefault(), navigate(link))}>
                {text}
              </a>
            ) : (
              text
            )}
          </g>
        );
      })}
      {(() => {
        const p = pos.get('')!;
        return (
          <g>
            <rect x={p.x - 6} y={p.y - 13} width={colW - 40} height={26} rx={6} className="graph-self" />
            <text x={p.x} y={p.y + 4} className="graph-self-label">
              {selfLabel.length > 28 ? `${selfLabel.slice(0, 27)}…` : selfLabel}
            </text>
          </g>
        );
      })()}
    </svg>
  );
}

export function Relationships({ info, object, discovery, listNamespace }: { info: ApiResource; object: KubeObject; discovery: Discovery; listNamespace: string }) {
  const q = useRelationships(discovery, info, object);
  const related = q.data ?? [];
  const groups = [...new Set(related.map((r) => r.relation))];
  const [view, setView] = useState<'graph' | 'list'>('graph');
  const listRef = useRef<HTMLDivElement>(null);
  // ↑/↓ move between the list's links (Tab still walks them in order)
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const links = [...(listRef.current?.querySelectorAll<HTMLAnchorElement>('a[data-related-link]') ?? [])];
    const i = links.indexOf(document.activeElement as HTMLAnchorElement);
    const next = links[e.key === 'ArrowDown' ? Math.min(i + 1, links.length - 1) : Math.max(i - 1, 0)];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };
  return (
    <div className="relationships" data-testid="relationships">
      {q.isLoading && <p className="muted">Looking for related objects…</p>}
      {q.isError && <p className="banner banner-error">{(q.error as Error).message}</p>}
      {q.data && related.length === 0 && <p className="muted">No owners, dependents or references found.</p>}
      {related.length > 0 && (
        <div className="related-views" role="radiogroup" aria-label="Show the map as">
          <label className="check">
            <input type="radio" name="related-view" checked={view === 'graph'} onChange={() => setView('graph')} data-testid="related-as-graph" /> graph and list
          </label>
          <label className="check">
            <input type="radio" name="related-view" checked={view === 'list'} onChange={() => setView('list')} data-testid="related-as-list" /> list only
          </label>
          {related.some((r) => r.missing) && (
            <span className="small tone-bad" data-testid="related-missing-count">
              {' '}
              {related.filter((r) => r.missing).length} referenced {related.filter((r) => r.missing).length === 1 ? 'object does' : 'objects do'} not exist
            </span>
          )}
        </div>
      )}
      {related.length > 0 && view === 'graph' && (
        <div className="graph-scroll">
          <Graph self={object.metadata?.name ?? ''} selfKind={info.kind} related={related} listNamespace={listNamespace} />
        </div>
      )}
      <div ref={listRef} onKeyDown={onKey}>
        {groups.map((g) => (
          <section key={g} className="panel" aria-label={g}>
            <h3>{g}</h3>
            <ul className="plain-list" data-testid={`related-${g.replace(/\s+/g, '-').replace(/'/g, '')}`}>
              {related
                .filter((r) => r.relation === g)
                .map((r) => {
                  const link = linkOf(r, listNamespace);
                  const label = `${r.kind}/${r.namespace && r.namespace !== object.metadata?.namespace ? `${r.namespace}/` : ''}${r.name}`;
                  return (
                    <li key={nodeId(r.kind, r.namespace, r.name)} data-testid="related-item" data-missing={r.missing ? 'true' : undefined}>
                      {link ? (
                        <Link href={link} data-related-link>
                          {label}
                        </Link>
                      ) : (
                        <span>{label}</span>
                      )}
                      {r.missing && (
                        <span className="pill pill-missing" data-testid="related-missing">
                          missing
                        </span>
                      )}
                      {r.via && <span className="muted small"> {r.via}</span>}
                      {r.from && <span className="muted small"> · from {r.from.split('/')[0]}/{r.from.split('/').slice(2).join('/')}</span>}
                    </li>
                  );
                })}
            </ul>
          </section>
        ))}
      </div>
    </div>
  );
}
