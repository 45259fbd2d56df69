// Proxy mode: the kubeconfig context in use, always visible, and every other context one choice away
// (the proxy switches without a restart; the page then reloads so nothing read from the old cluster stays).
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api.js';

interface Contexts {
  current: string;
  server: string;
  contexts: { name: string; cluster?: string; namespace?: string; server?: string }[];
}

/** Served by the proxy only; the embedded server answers 404 and the picker stays hidden. */
const CONTEXTS_PATH = '/periscope/contexts';

export function ContextPicker() {
  const q = useQuery({
    queryKey: ['contexts'],
    queryFn: async () => {
      const body = (await api.request<Contexts>('GET', CONTEXTS_PATH)).body;
      // the embedded server answers unknown paths with the explorer page itself: no contexts there
      return body && typeof body === 'object' && Array.isArray(body.contexts) ? body : null;
    },
    retry: false,
    staleTime: Infinity,
  });
  const [switching, setSwitching] = useState<string>();
  const [error, setError] = useState<string>();
  if (!q.data) return null;
  const switchTo = async (name: string) => {
    setSwitching(name);
    setError(undefined);
    try {
      await api.request('POST', CONTEXTS_PATH, { body: { context: name } });
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
      {error && (
        <span className="bad small" role="alert">
          {error}
        </span>
      )}
    </label>
  );
}
