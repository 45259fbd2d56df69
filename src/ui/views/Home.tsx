// The start page: the server, its API groups, and entry points into common types.
import type { Discovery } from '../../client/index.js';
import { useServerVersion } from '../data/queries.js';
import { ErrorState } from '../components/ErrorState.js';
import { isAliasGroup, useBrowsableResources } from '../data/discovery.js';
import { Link, href, listPath } from '../router.js';
import { Overview } from './Overview.js';

export function Home({ discovery, namespace }: { discovery: Discovery | undefined; namespace: string }) {
  const version = useServerVersion();
  const resources = useBrowsableResources(discovery);
  const common = resources.filter((r) => r.categories.includes('all'));
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
      {common.length > 0 && (
        <section className="panel">
          <h2>Workloads and services</h2>
          <ul className="tiles">
            {common.map((r) => (
              <li key={`${r.group}/${r.resource}`}>
                <Link href={href(listPath(r), { ns: r.namespaced ? namespace : undefined })}>
                  <strong>{r.kind}</strong>
                  <span className="muted small"> {r.group || 'core'}</span>
                </Link>
              </li>
            ))}
          </ul>
        </section>
      )}
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
