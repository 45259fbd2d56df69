// The start page: the server, its API groups, and entry points into common types.
import type { Discovery } from '../../client/index.js';
import { useServerVersion } from '../data/queries.js';
import { ErrorState } from '../components/ErrorState.js';
import { isAliasGroup } from '../data/discovery.js';
import { Overview } from './Overview.js';

export function Home({ discovery, namespace }: { discovery: Discovery | undefined; namespace: string }) {
  const version = useServerVersion();
  return (
    <div className="home" data-testid="home">
      <section className="panel">
        <h2>Cluster</h2>
        <p data-testid="server-version">
          {version.data ? `server ${version.data.gitVersion ?? ''} ${version.data.platform ?? ''}` : version.isError ? 'server unreachable' : 'connecting…'}
        </p>
        {version.isError && <ErrorState error={version.error} compact />}
      </section>
      <Overview discovery={discovery} namespace={namespace} />
      <section className="panel">
        <h2>API groups</h2>
        <ul data-testid="group-list" className="group-list">
          {discovery?.groups.map((g) => (
            <li key={g.name || 'core'} className={isAliasGroup(discovery, g.name) ? 'muted' : ''}>
              {g.name ? `${g.name}/${g.preferredVersion}` : `core (${g.preferredVersion})`}
              {g.versions.length > 1 && <span className="muted small"> also {g.versions.filter((v) => v !== g.preferredVersion).join(', ')}</span>}
              {isAliasGroup(discovery, g.name) && <span className="muted small"> (upstream alias)</span>}
            </li>
          ))}
        </ul>
        {discovery && (
          <p className="muted small">
            {discovery.resources.length} resources · {discovery.aggregated ? 'aggregated discovery' : 'legacy discovery'}
          </p>
        )}
      </section>
    </div>
  );
}
