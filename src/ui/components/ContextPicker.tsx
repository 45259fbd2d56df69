// Proxy mode: the kubeconfig context in use, always visible, and every other context one choice away
// (the proxy switches without a restart; the page then reloads so nothing read from the old cluster stays).
import { useState } from 'react';
import { useContexts } from '../data/queries.js';
import { switchContext } from '../data/writes.js';

export function ContextPicker() {
  const q = useContexts();
  const [switching, setSwitching] = useState<string>();
  const [error, setError] = useState<string>();
  if (q.isLoading) return null;
  // no kubeconfig contexts: the page talks to the server that served it
  if (!q.data)
    return (
      <span className="context-picker muted small" data-testid="current-server" title="The API server this page talks to (no kubeconfig contexts: not in proxy mode)">
        server {window.location.host}
      </span>
    );
  const switchTo = async (name: string) => {
    setSwitching(name);
    setError(undefined);
    try {
      await switchContext(name);
      window.location.reload();
    } catch (e) {
      setSwitching(undefined);
      setError((e as Error).message);
    }
  };
  return (
    <label className="context-picker" title={`Cluster: ${q.data.server}${error ? ` · ${error}` : ''}`}>
      <span className="muted small">context</span>
      <select data-testid="context-picker" aria-label="Kubeconfig context" value={switching ?? q.data.current} disabled={!!switching} onChange={(e) => void switchTo(e.target.value)}>
        {q.data.contexts.map((c) => (
          <option key={c.name} value={c.name}>
            {c.name}
          </option>
        ))}
      </select>
      <span className="muted small" data-testid="current-server" title={`Cluster server of context ${q.data.current}`}>
        {q.data.server.replace(/^https?:\/\//, '')}
      </span>
      {error && (
        <span className="bad small" role="alert">
          {error}
        </span>
      )}
    </label>
  );
}
