// Global search: a name fragment or a label selector, matched across every listable kind and
// namespace with metadata-only lists (paged, a few kinds at a time, cancelled when the query changes).
// Keyboard: type, ↓/↑ through the results, Enter opens one.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { isAbort, type ApiResource, type Discovery } from '../../client/index.js';
import { useBrowsableResources } from '../data/discovery.js';
import { listPages } from '../data/scan.js';
import { rankHits, searchableKinds, type Hit } from '../lib/search-rank.js';
import { href, navigate, objectPath, setQuery } from '../router.js';

export type SearchHit = Hit;

const PAGE = 500;
const CONCURRENCY = 4;
/** Results shown at most; the search stops once it has this many. */
const MAX_HITS = 500;

/** A label selector (`app=web`, `tier in (a,b)`, `!canary`, `env`) rather than a name fragment? */
export function isLabelSelector(q: string): boolean {
  return /[=!]|\s(in|notin)\s*\(/.test(q);
}

async function searchKind(r: ApiResource, q: string, namespace: string, signal: AbortSignal, onHits: (h: SearchHit[]) => void): Promise<void> {
  const selector = isLabelSelector(q);
  const needle = q.toLowerCase();
  // a label selector is the server's to match; a name fragment is matched here (the API has no substring match)
  for await (const page of listPages(r, { namespace, labelSelector: selector ? q : undefined, pageSize: PAGE, signal })) {
    const hits = page
      .filter((o) => selector || (o.metadata?.name ?? '').toLowerCase().includes(needle))
      .map((o) => ({ resource: r, namespace: o.metadata?.namespace, name: o.metadata?.name ?? '', uid: o.metadata?.uid }));
    if (hits.length) onHits(hits);
  }
}

export function SearchView({ discovery, namespace, initial }: { discovery: Discovery | undefined; namespace: string; initial: string }) {
  const resources = useBrowsableResources(discovery);
  const [q, setQ] = useState(initial);
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [state, setState] = useState<{ running: boolean; done: number; total: number; errors: number }>({ running: false, done: 0, total: 0, errors: 0 });
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);

  useEffect(() => input.current?.focus(), []);

  // heaviest kinds first: a search that stops at MAX_HITS has seen the workloads before the Events
  const kinds = useMemo(() => searchableKinds(resources.filter((r) => !namespace || r.namespaced)), [resources, namespace]);
  const groups = useMemo(() => rankHits(hits, q, isLabelSelector(q.trim())), [hits, q]);
  const ordered = useMemo(() => groups.flatMap((g) => g.hits), [groups]);
  useEffect(() => {
    const query = q.trim();
    setHits([]);
    setActive(0);
    if (!query || kinds.length === 0) {
      setState({ running: false, done: 0, total: 0, errors: 0 });
      return;
    }
    const ac = new AbortController();
    // a short pause: each key typed would otherwise start (and cancel) a scan of every kind
    const timer = setTimeout(() => {
      let found = 0;
      let next = 0;
      let done = 0;
      let errors = 0;
      setState({ running: true, done: 0, total: kinds.length, errors: 0 });
      const add = (h: SearchHit[]) => {
        if (ac.signal.aborted) return;
        found += h.length;
        setHits((prev) => (prev.length >= MAX_HITS ? prev : [...prev, ...h].slice(0, MAX_HITS)));
        if (found >= MAX_HITS) ac.abort();
      };
      const worker = async () => {
        while (next < kinds.length && !ac.signal.aborted) {
          const r = kinds[next++]!;
          try {
            await searchKind(r, query, namespace, ac.signal, add);
          } catch (e) {
            if (!isAbort(e)) errors++;
          }
          done++;
          if (!ac.signal.aborted) setState({ running: true, done, total: kinds.length, errors });
        }
      };
      void Promise.all(Array.from({ length: CONCURRENCY }, worker)).then(() => setState((s) => ({ ...s, running: false, done: kinds.length, errors })));
    }, 150);
    return () => {
      clearTimeout(timer);
      ac.abort();
    };
  }, [q, kinds, namespace]);

  const open = (h: SearchHit) => navigate(href(objectPath(h.resource, h.namespace, h.name), { ns: namespace || undefined }));
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setActive((a) => Math.min(a + 1, ordered.length - 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => Math.max(a - 1, 0));
    } else if (e.key === 'Home' && ordered.length) {
      e.preventDefault();
      setActive(0);
    } else if (e.key === 'End' && ordered.length) {
      e.preventDefault();
      setActive(ordered.length - 1);
    } else if (e.key === 'Enter' && ordered[active]) {
      e.preventDefault();
      open(ordered[active]);
    } else if (e.key === 'Escape' && state.running) {
      setState((s) => ({ ...s, running: false }));
    }
  };
  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  return (
    <div className="search-view" data-testid="search-view">
      <h2>Search</h2>
      <div className="search-box">
        <label htmlFor="global-search" className="muted small">
          A name fragment, or a label selector such as <code>app=web</code> — across every kind{namespace ? ` in ${namespace}` : ' and namespace'}
        </label>
        <input
          id="global-search"
          ref={input}
          className="filter"
          type="search"
          role="combobox"
          aria-expanded={hits.length > 0}
          aria-controls="search-results"
          aria-activedescendant={ordered[active] ? `search-hit-${active}` : undefined}
          data-testid="search-input"
          value={q}
          onChange={(e) => {
            setQ(e.target.value);
            setQuery({ q: e.target.value || undefined }, { replace: true });
          }}
          onKeyDown={onKey}
          placeholder="name or label selector"
          autoComplete="off"
          spellCheck={false}
        />
      </div>
      <p className="muted small" data-testid="search-status" aria-live="polite" data-running={state.running}>
        {q.trim() === ''
          ? 'Type to search.'
          : `${ordered.length.toLocaleString('en-US')}${hits.length >= MAX_HITS ? '+' : ''} found · ${state.done} of ${state.total} kinds searched${state.running ? '…' : ''}${state.errors ? ` · ${state.errors} kinds could not be listed` : ''}`}
      </p>
      <ul id="search-results" ref={listRef} role="listbox" aria-label="Search results" className="search-results" data-testid="search-results">
        {(() => {
          let i = -1;
          return groups.map((g) => (
            <li key={`${g.resource.group}/${g.resource.resource}`} role="group" aria-labelledby={`search-group-${g.resource.group || 'core'}-${g.resource.resource}`} className="search-group" data-testid="search-group" data-kind={g.resource.kind}>
              <div className="search-group-title muted small" id={`search-group-${g.resource.group || 'core'}-${g.resource.resource}`} aria-hidden="true">
                {g.resource.kind} <span>({g.hits.length})</span>
              </div>
              <ul role="none">
                {g.hits.map((h) => {
                  i++;
                  const idx = i;
                  return (
                    // options hold no links (nothing interactive nested): a click or Enter opens the object
                    <li
                      key={`${h.namespace}/${h.name}`}
                      id={`search-hit-${idx}`}
                      role="option"
                      aria-selected={idx === active}
                      data-index={idx}
                      className={idx === active ? 'active' : ''}
                      data-testid="search-hit"
                      data-kind={h.resource.kind}
                      data-exact={h.tier === 0}
                      onClick={() => open(h)}
                    >
                      <span className="muted small">{h.resource.kind}</span> {h.namespace ? <span className="muted">{h.namespace}/</span> : null}
                      <strong>{h.name}</strong>
                    </li>
                  );
                })}
              </ul>
            </li>
          ));
        })()}
      </ul>
    </div>
  );
}
