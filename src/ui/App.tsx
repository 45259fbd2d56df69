// The explorer shell: top bar (jump box, namespace, connection, theme), discovery-driven navigation, views.
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { warningStore } from './api.js';
import { ConnectionBadge, ConnectionBanner } from './components/ConnectionBadge.js';
import { JumpBox } from './components/JumpBox.js';
import { NamespacePicker } from './components/NamespacePicker.js';
import { Sidebar } from './components/Sidebar.js';
import { EmptyState } from './components/ErrorState.js';
import { useLiveDiscovery } from './data/discovery.js';
import { useTheme } from './lib/theme.js';
import { Link, OBJECT_TABS, href, listPath, navigate, objectPath, setQuery, useLocation } from './router.js';
import { CollectionView } from './views/CollectionView.js';
import { Home } from './views/Home.js';
import { ObjectView } from './views/ObjectView.js';
import { StaticBench } from './views/StaticBench.js';

function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable);
}

const SHORTCUTS: [string, string][] = [
  [':  or  Ctrl+K', 'jump to a resource type (short names work: po, deploy, ct); type/name opens an object'],
  ['/', 'filter the rows of the current list'],
  ['↑ ↓  j k', 'move through rows; PageUp/PageDown, Home/End'],
  ['Enter', 'open the selected row'],
  ['1 … 5', 'object tabs: summary, YAML, JSON, events, managed fields'],
  ['Esc', 'back from an object to its list'],
  ['t', 'light / dark theme'],
  ['?', 'this help'],
];

export function App() {
  const location = useLocation();
  const { route, query } = location;
  const [theme, toggleTheme] = useTheme();
  const discovery = useLiveDiscovery();
  const jumpRef = useRef<HTMLInputElement>(null);
  const filterRef = useRef<HTMLInputElement>(null);
  const [help, setHelp] = useState(false);
  const namespace = query.get('ns') ?? '';
  const warnings = useSyncExternalStore(warningStore.subscribe, warningStore.get);

  const typeInfo =
    route.name === 'list' || route.name === 'object'
      ? discovery.data?.resources.find((r) => r.group === route.group && r.version === route.version && r.resource === route.resource)
      : undefined;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.key === 'k' && (e.ctrlKey || e.metaKey)) || (e.key === ':' && !isTyping(e.target))) {
        e.preventDefault();
        jumpRef.current?.focus();
        return;
      }
      if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '/') {
        e.preventDefault();
        (filterRef.current ?? jumpRef.current)?.focus();
      } else if (e.key === '?') setHelp((h) => !h);
      else if (e.key === 't') toggleTheme();
      else if (e.key === 'Escape') {
        if (help) setHelp(false);
        else if (route.name === 'object') navigate(href(listPath(route), { ns: namespace || undefined }));
      } else if (route.name === 'object' && /^[1-5]$/.test(e.key)) {
        navigate(href(objectPath(route, route.namespace, route.objName, OBJECT_TABS[Number(e.key) - 1]), { ns: namespace || undefined }), { replace: true });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [route, namespace, help, toggleTheme]);

  useEffect(() => {
    if (route.name === 'list' || route.name === 'object') {
      document.title = `${route.name === 'object' ? `${route.objName} · ` : ''}${route.resource} · Periscope`;
    } else document.title = 'Periscope';
  }, [route]);

  let main;
  if (route.name === 'bench-static') return <StaticBench location={location} />;
  if (route.name === 'home') main = <Home discovery={discovery.data} namespace={namespace} />;
  else if (route.name === 'list')
    main = <CollectionView key={`${route.group}/${route.version}/${route.resource}`} type={route} discovery={discovery.data} discoveryError={discovery.error} location={location} filterRef={filterRef} />;
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
      <header className="topbar">
        <Link href={href('/', { ns: namespace || undefined })} className="brand">
          <img src="/periscope.svg" alt="" width={20} height={20} /> Periscope
        </Link>
        <JumpBox ref={jumpRef} discovery={discovery.data} namespace={namespace} />
        <NamespacePicker value={namespace} disabled={!!typeInfo && !typeInfo.namespaced} onChange={(ns) => setQuery({ ns: ns || undefined })} />
        <span className="spacer" />
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
        <Sidebar discovery={discovery.data} route={route} namespace={namespace} />
        <main className="main">{main}</main>
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
