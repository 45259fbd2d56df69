// A tiny router over the History API: every view has a URL (deep links, back/forward).
//   /                                              home
//   /r/<group|core>/<version>/<resource>           a collection  (?ns= &l= label selector &q= filter &sort= &wide &meta &all)
//   /r/<group|core>/<version>/<resource>/<ns|_>/<name>/<tab>   one object (tab: summary|yaml|json|events|fields|edit|access|history|related|logs|shell)
//   /r/<group|core>/<version>/<resource>/_new      a new object of that type (?ns= its namespace)
//   /studio, /studio/<Kind>                        the config studio (configuration documents of the server)
//   /search                                        global search (?q= a name fragment or a label selector)
// Object routes always end with a tab so a name with a dot never looks like a file to the static server.
import { createElement, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

export type ObjectTab = 'summary' | 'yaml' | 'json' | 'events' | 'fields' | 'edit' | 'access' | 'history' | 'related' | 'logs' | 'shell';
/** Keys 1–9 open the first nine; logs (l) and shell (x) exist on pods and workloads only. */
export const OBJECT_TABS: ObjectTab[] = ['summary', 'yaml', 'json', 'events', 'fields', 'edit', 'access', 'history', 'related', 'logs', 'shell'];

export interface TypeRef {
  group: string;
  version: string;
  resource: string;
}

export type Route =
  | { name: 'home' }
  | ({ name: 'list' } & TypeRef)
  | ({ name: 'object'; namespace?: string; objName: string; tab: ObjectTab } & TypeRef)
  | ({ name: 'new' } & TypeRef)
  | { name: 'studio'; kind?: string }
  | { name: 'search' }
  | { name: 'not-found'; path: string };

const seg = (s: string) => encodeURIComponent(s);
const groupSeg = (g: string) => (g ? seg(g) : 'core');

export function parseRoute(pathname: string): Route {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { name: 'home' };
  if (parts[0] === 'studio' && parts.length <= 2) return { name: 'studio', kind: parts[1] };
  if (parts[0] === 'search' && parts.length === 1) return { name: 'search' };
  if (parts[0] === 'r' && parts.length >= 4) {
    const t: TypeRef = { group: parts[1] === 'core' ? '' : parts[1]!, version: parts[2]!, resource: parts[3]! };
    if (parts.length === 4) return { name: 'list', ...t };
    if (parts.length === 5 && parts[4] === '_new') return { name: 'new', ...t };
    if (parts.length === 6 || parts.length === 7) {
      const tab = (parts[6] ?? 'summary') as ObjectTab;
      return { name: 'object', ...t, namespace: parts[4] === '_' ? undefined : parts[4], objName: parts[5]!, tab: OBJECT_TABS.includes(tab) ? tab : 'summary' };
    }
  }
  return { name: 'not-found', path: pathname };
}

export function listPath(t: TypeRef): string {
  return `/r/${groupSeg(t.group)}/${seg(t.version)}/${seg(t.resource)}`;
}

export function newObjectPath(t: TypeRef): string {
  return `${listPath(t)}/_new`;
}

export function objectPath(t: TypeRef, namespace: string | undefined, name: string, tab: ObjectTab = 'summary'): string {
  return `${listPath(t)}/${namespace ? seg(namespace) : '_'}/${seg(name)}/${tab}`;
}

/** Builds `path?query`, dropping empty values. */
export function href(path: string, query: Record<string, string | undefined | boolean> = {}): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === false || v === '') continue;
    sp.set(k, v === true ? '1' : v);
  }
  const s = sp.toString();
  return s ? `${path}?${s}` : path;
}

// ---- location store ----

const listeners = new Set<() => void>();
let current = typeof window === 'undefined' ? '/' : window.location.pathname + window.location.search;

function emit(): void {
  current = window.location.pathname + window.location.search;
  for (const l of listeners) l();
}

let guard: ((to: string) => boolean) | undefined;

// the browser's back and forward buttons ask the same guard as in-app links; refused, the page stays
// where it was (its URL put back on top of the history)
if (typeof window !== 'undefined')
  window.addEventListener('popstate', () => {
    const to = window.location.pathname + window.location.search;
    if (to !== current && guard && !guard(to)) {
      window.history.pushState(null, '', current);
      return;
    }
    emit();
  });

/** One check before every in-app navigation (unsaved edits ask before they are left behind). */
export function setNavigationGuard(fn: ((to: string) => boolean) | undefined): void {
  guard = fn;
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (guard && !guard(to)) return;
  if (opts.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  emit();
}

/** Replaces some query parameters of the current URL (undefined removes one). */
export function setQuery(changes: Record<string, string | undefined | boolean>, opts: { replace?: boolean } = {}): void {
  const sp = new URLSearchParams(window.location.search);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === false || v === '') sp.delete(k);
    else sp.set(k, v === true ? '1' : v);
  }
  const s = sp.toString();
  navigate(window.location.pathname + (s ? `?${s}` : ''), opts);
}

export interface Location {
  path: string;
  route: Route;
  query: URLSearchParams;
}

let cachedFor = '';
let cached: Location = { path: '/', route: { name: 'home' }, query: new URLSearchParams() };

function snapshot(): Location {
  if (cachedFor !== current) {
    cachedFor = current;
    const u = new URL(current, 'http://x');
    cached = { path: u.pathname, route: parseRoute(u.pathname), query: u.searchParams };
  }
  return cached;
}

export function useLocation(): Location {
  return useSyncExternalStore(
    (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    snapshot,
    snapshot,
  );
}

/** An <a> that navigates in-app on a plain click and behaves as a link otherwise (new tab, copy). */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; children?: ReactNode; replace?: boolean }) {
  const { replace, onClick, ...rest } = props;
  return createElement('a', {
    ...rest,
    onClick: (e: MouseEvent<HTMLAnchorElement>) => {
      onClick?.(e);
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(props.href, { replace });
    },
  });
}
