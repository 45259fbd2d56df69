// The server's feature gates on the overview, read as upstream publishes them: the
// `kubernetes_feature_enabled{name,stage}` gauge of /metrics (so a real cluster behind the proxy shows
// its own). Reading /metrics needs `get` on that non-resource URL (system:monitoring); without it the
// panel says so.
import { useMemo, useState } from 'react';
import { ApiError } from '../../client/index.js';
import { useFeatureGates } from '../data/queries.js';
import { ErrorState } from '../components/ErrorState.js';

/** Above this many gates (a real kube-apiserver has hundreds) the table gets a filter. */
const FILTER_FROM = 12;

const stageLabel = (stage: string) => (stage === '' ? 'GA' : stage.charAt(0) + stage.slice(1).toLowerCase());

export function FeatureGatesPanel() {
  const gates = useFeatureGates();
  const [filter, setFilter] = useState('');
  const all = gates.data?.gates ?? [];
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return f ? all.filter((g) => g.name.toLowerCase().includes(f) || stageLabel(g.stage).toLowerCase() === f) : all;
  }, [all, filter]);
  const denied = gates.error instanceof ApiError && (gates.error.code === 401 || gates.error.code === 403);
  const enabled = all.filter((g) => g.enabled).length;
  const preRelease = all.filter((g) => g.stage === 'ALPHA' || g.stage === 'BETA');

  return (
    <section className="panel" aria-labelledby="gates-h" data-testid="feature-gates">
      <h2 id="gates-h">Feature gates</h2>
      {gates.isLoading && <p className="muted">Reading /metrics…</p>}
      {denied && (
        <p data-testid="gates-forbidden" role="status">
          Not shown: the feature gates are published on <code>/metrics</code>, which you may not read ({(gates.error as ApiError).message}). Reading it needs
          <code> get</code> on the non-resource URL <code>/metrics</code> (the <code>system:monitoring</code> role).
        </p>
      )}
      {gates.isError && !denied && <ErrorState error={gates.error} compact />}
      {gates.data && all.length === 0 && <p className="muted">The server publishes no feature gates on /metrics (no kubernetes_feature_enabled metric).</p>}
      {all.length > 0 && (
        <>
          <p className="muted small" data-testid="gates-summary">
            {all.length} gates, {enabled} enabled · {preRelease.filter((g) => g.enabled).length} of {preRelease.length} alpha or beta gates on
            {gates.data?.truncated ? ' · /metrics was too large to read whole: some gates may be missing' : ''}
          </p>
          {all.length > FILTER_FROM && (
            <input type="search" className="filter" placeholder="Filter gates…" aria-label="Filter feature gates" data-testid="gates-filter" value={filter} onChange={(e) => setFilter(e.target.value)} />
          )}
          <div className="gates-scroll">
            <table className="counts" data-testid="gate-table">
              <thead>
                <tr>
                  <th scope="col">Gate</th>
                  <th scope="col">Stage</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((g) => (
                  <tr key={g.name} data-testid="feature-gate" data-gate={g.name} data-enabled={String(g.enabled)}>
                    <td>{g.name}</td>
                    <td className="muted" data-testid="gate-stage">
                      {stageLabel(g.stage)}
                    </td>
                    <td data-testid="gate-state" className={g.enabled ? 'gate-on' : 'gate-off'}>
                      {g.enabled ? 'enabled' : 'disabled'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
