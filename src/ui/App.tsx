// The explorer shell: top bar (jump box, namespace, connection, theme), discovery-driven navigation, views.
import { lazy, Suspense, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { warningStore } from './api.js';
import { authStore } from './auth.js';
import { SignInPage, UserBadge } from './components/SignIn.js';
import { useQueryClient } from '@tanstack/react-query';
import { ConnectionBadge, ConnectionBanner } from './components/ConnectionBadge.js';
import { ContextPicker } from './components/ContextPicker.js';
import { ManifestViewerContext, type ManifestViewerProps } from './components/ManifestViewer.js';
import { JumpBox } from './components/JumpBox.js';
import { NamespacePicker } from './components/NamespacePicker.js';
import { Sidebar } from './components/Sidebar.js';
import { EmptyState } from './components/ErrorState.js';
import { ActionToasts } from './components/Toasts.js';
import { useLiveDiscovery } from './data/discovery.js';
import { sameGroup } from '../client/index.js';
import { useTheme } from './lib/theme.js';
import { Link, OBJECT_TABS, href, listPath, navigate, objectPath, setQuery, useLocation } from './router.js';
import { CollectionView } from './views/CollectionView.js';
import { Home } from './views/Home.js';
import { SearchView } from './views/SearchView.js';
import { EventsView } from './views/EventsView.js';

// The config studio (and the configuration model it pulls in) loads on first visit only.
const StudioPage = lazy(() => import('./studio/index.js').then((m) => ({ default: m.StudioPage })));
// So do the object and create views (the editor is most of the bundle): a list (and its first rows)
// evaluates only what it shows; they are fetched when the browser is idle after the first paint.
const loadObjectView = () => import('./views/ObjectView.js');
const loadCreateView = () => import('./editor/CreateView.js');
// Monaco (and yaml) stay off the first paint: the manifest viewer is fetched with the object view.
const loadManifestViewer = () => import('./editor/MonacoManifestViewer.js');
const LazyMonacoViewer = lazy(() => loadManifestViewer().then((m) => ({ default: m.MonacoManifestViewer })));
function MonacoManifestViewer(props: ManifestViewerProps) {
  return (
    <Suspense fallback={<div className="state compact muted">Loading the viewer…</div>}>
      <LazyMonacoViewer {...props} />
    </Suspense>
  );
}
const ObjectView = lazy(() => loadObjectView().then((m) => ({ default: m.ObjectView })));
const CreateView = lazy(() => loadCreateView().then((m) => ({ default: m.CreateView })));

/** Fetches the lazily loaded views once the page is idle, so opening an object does not wait for its code. */
function prefetchViews(): void {
  const run = () => void Promise.all([loadObjectView(), loadCreateView(), loadManifestViewer()]).catch(() => undefined);
  if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 5000 });
  else setTimeout(run, 2000);
}

function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  // Monaco takes keys through an EditContext div (Chromium) that is neither a textarea nor contentEditable
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable || !!el.closest?.('.monaco-editor'));
}

const SHORTCUTS: [string, string][] = [
  [':  or  Ctrl+K', 'jump to a resource type (short names work: po, deploy, ct); type/name opens an object'],
  ['/', 'filter the rows of the current list'],
  ['↑ ↓  j k', 'move through rows; PageUp/PageDown, Home/End'],
  ['Enter', 'open the selected row'],
  ['1 … 9', 'object tabs: summary, YAML, JSON, events, managed fields, edit, access, history, related'],
  ['e  l  x', 'on an object: edit, logs (pods and workloads), terminal (pods)'],
  ['s  d', 'on an object: scale (workloads), delete; elsewhere s searches'],
  ['Esc', 'back from an object to its list'],
  ['s', 'search every kind by name or label selector'],
  ['t', 'light / dark theme'],
  ['?', 'this help'],
];

const SIDEBAR_KEY = 'periscope.sidebar';

/** Sidebar shown or folded away, remembered across visits (folded by default below 1100 px). */
function useSidebarOpen(): [boolean, () => void] {
  const [open, setOpen] = useState(() => {
    try {
      const v = localStorage.getItem(SIDEBAR_KEY);
      if (v === 'open' || v === 'closed') return v === 'open';
    } catch {
      /* no storage */
    }
    return typeof window === 'undefined' || window.innerWidth >= 1100;
  });
  const toggle = () =>
    setOpen((o) => {
      try {
        localStorage.setItem(SIDEBAR_KEY, o ? 'closed' : 'open');
      } catch {
        /* no storage */
      }
      return !o;
    });
  return [open, toggle];
}

export function App() {
  const location = useLocation();
  const { route, query } = location;
  const [theme, toggleTheme] = useTheme();
  const discovery = useLiveDiscovery();
  const jumpRef = useRef<HTMLInputElement>(null);
  const filterRef = useRef<HTMLInputElement>(null);
  const [help, setHelp] = useState(false);
  const [sidebarOpen, toggleSidebar] = useSidebarOpen();
  const namespace = query.get('ns') ?? '';
  const warnings = useSyncExternalStore(warningStore.subscribe, warningStore.get);
  const auth = useSyncExternalStore(authStore.subscribe, authStore.get);
  const queryClient = useQueryClient();
  useEffect(prefetchViews, []);
  // a new identity: everything cached was read as someone else
  useEffect(() => {
    if (auth.generation > 0) void queryClient.resetQueries();
  }, [auth.generation, queryClient]);

  const typeInfo =
    route.name === 'list' || route.name === 'object' || route.name === 'new'
      ? discovery.data?.resources.find((r) => sameGroup(r.group, route.group) && r.version === route.version && r.resource === route.resource)
      : undefined;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.key === 'k' && (e.ctrlKey || e.metaKey)) || (e.key === ':' && !isTyping(e.target))) {
        e.preventDefault();
        jumpRef.current?.focus();
        return;
      }
      if (e.defaultPrevented || isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '/') {
        e.preventDefault();
        (filterRef.current ?? jumpRef.current)?.focus();
      } else if (e.key === 's') {
        e.preventDefault();
        navigate(href('/search', { ns: namespace || undefined }));
      } else if (e.key === '?') setHelp((h) => !h);
      else if (e.key === 't') toggleTheme();
      else if (e.key === 'Escape') {
        if (help) setHelp(false);
        else if (route.name === 'object') navigate(href(listPath(route), { ns: namespace || undefined }));
      } else if (route.name === 'object' && /^[1-9]$/.test(e.key)) {
        navigate(href(objectPath(route, route.namespace, route.objName, OBJECT_TABS[Number(e.key) - 1]), { ns: namespace || undefined }), { replace: true });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [route, namespace, help, toggleTheme]);

  useEffect(() => {
    if (route.name === 'list' || route.name === 'object') {
      document.title = `${route.name === 'object' ? `${route.objName} · ` : ''}${route.resource} · Periscope`;
    } else if (route.name !== 'studio') document.title = 'Periscope';
  }, [route]);

  let main;
  if (auth.signInRequired) main = <SignInPage />;
  else if (route.name === 'home') main = <Home discovery={discovery.data} namespace={namespace} />;
  else if (route.name === 'list' && route.resource === 'events' && (route.group === '' || /^events\./.test(route.group)))
    main = <EventsView key={`${route.group}/${route.version}`} type={route} discovery={discovery.data} location={location} />;
  else if (route.name === 'list')
    main = <CollectionView key={`${route.group}/${route.version}/${route.resource}`} type={route} discovery={discovery.data} discoveryError={discovery.error} location={location} filterRef={filterRef} />;
  else if (route.name === 'new') main = <CreateView key={`${route.group}/${route.version}/${route.resource}`} type={route} discovery={discovery.data} discoveryError={discovery.error} namespace={namespace} />;
  else if (route.name === 'studio')
    main = (
      <Suspense fallback={<div className="state compact muted">Loading the config studio…</div>}>
        <StudioPage kind={route.kind} />
      </Suspense>
    );
  else if (route.name === 'search') main = <SearchView discovery={discovery.data} namespace={namespace} initial={query.get('q') ?? ''} />;
  else if (route.name === 'object')
    main = <ObjectView type={route} namespace={route.namespace} name={route.objName} tab={route.tab} discovery={discovery.data} listNamespace={namespace} />;
  else
    main = (
      <EmptyState title="No such page">
        <Link href="/">Start page</Link>
      </EmptyState>
    );

  return (
    <div className="app">
      <a href="#main" className="skip-link" data-testid="skip-link" onClick={(e) => {
        e.preventDefault();
        const main = document.getElementById('main');
        const target = main?.querySelector<HTMLElement>('[role=grid], [role=tablist] a, input, button, a[href]') ?? main;
        target?.focus();
      }}>
        Skip to content
      </a>
      <header className="topbar">
        <button
          className="icon-btn"
          data-testid="sidebar-toggle"
          aria-controls="sidebar"
          aria-expanded={sidebarOpen}
          aria-label={sidebarOpen ? 'Hide navigation' : 'Show navigation'}
          title={sidebarOpen ? 'Hide navigation' : 'Show navigation'}
          onClick={toggleSidebar}
        >
          ☰
        </button>
        <Link href={href('/', { ns: namespace || undefined })} className="brand">
          <img src="/periscope.svg" alt="" width={20} height={20} /> Periscope
        </Link>
        <JumpBox ref={jumpRef} discovery={discovery.data} namespace={namespace} />
        <NamespacePicker value={namespace} disabled={!!typeInfo && !typeInfo.namespaced} onChange={(ns) => setQuery({ ns: ns || undefined })} />
        <Link href="/studio" className={`topbar-link${route.name === 'studio' ? ' active' : ''}`} data-testid="nav-studio" title="Author the server's configuration documents">
          Config studio
        </Link>
        <Link href={href('/search', { ns: namespace || undefined })} className={`topbar-link${route.name === 'search' ? ' active' : ''}`} data-testid="nav-search" title="Search every kind by name or label (s)">
          Search
        </Link>
        <span className="spacer" />
        <ContextPicker />
        <UserBadge />
        <ConnectionBadge />
        <button className="icon-btn" onClick={() => setHelp((h) => !h)} title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts">
          ?
        </button>
        <button className="icon-btn" data-testid="theme-toggle" onClick={toggleTheme} title={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme (t)`} aria-label="Toggle theme">
          {theme === 'dark' ? '☀' : '☾'}
        </button>
      </header>
      <ConnectionBanner />
      <div className="layout">
        {sidebarOpen && <Sidebar discovery={discovery.data} route={route} namespace={namespace} />}
        <main className="main" id="main" tabIndex={-1}>
          <ManifestViewerContext.Provider value={MonacoManifestViewer} key={auth.generation}>
            <Suspense fallback={<div className="state compact muted">Loading…</div>}>{main}</Suspense>
          </ManifestViewerContext.Provider>
        </main>
      </div>
      {warnings.length > 0 && (
        <div className="toasts" role="status">
          {warnings.map((w) => (
            <div key={w.id} className="toast warn" data-testid="warning-toast">
              <strong>Warning</strong> {w.text}
              <span className="muted small"> ({w.method} {w.path})</span>
              <button className="link" onClick={() => warningStore.dismiss(w.id)} aria-label="Dismiss">
                ×
              </button>
            </div>
          ))}
        </div>
      )}
      <ActionToasts />
      {help && (
        <div className="overlay" role="dialog" aria-label="Keyboard shortcuts" onClick={() => setHelp(false)}>
          <div className="dialog" onClick={(e) => e.stopPropagation()}>
            <h3>Keyboard</h3>
            <table className="simple">
              <tbody>
                {SHORTCUTS.map(([k, d]) => (
                  <tr key={k}>
                    <td>
                      <kbd>{k}</kbd>
                    </td>
                    <td>{d}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </div>
  );
}
