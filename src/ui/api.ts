// The explorer's API client (same origin: the API server or the kubeconfig proxy serves the page)
// and the Warning headers it has seen, for the UI to show.
import { ApiClient } from '../client/index.js';
import { authFetch, authStore } from './auth.js';

export interface SeenWarning {
  id: number;
  text: string;
  method: string;
  path: string;
  at: number;
}

let nextId = 1;
let warnings: SeenWarning[] = [];
const listeners = new Set<() => void>();

export const warningStore = {
  subscribe(fn: () => void): () => void {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },
  get: (): SeenWarning[] => warnings,
  dismiss(id: number): void {
    warnings = warnings.filter((w) => w.id !== id);
    for (const l of listeners) l();
  },
};

export const api = new ApiClient({
  baseUrl: '',
  token: () => authStore.token(),
  fetch: authFetch,
  // watches over WebSocket: many live views at once (six HTTP/1.1 streams per host otherwise)
  webSocketWatches: typeof WebSocket !== 'undefined',
  onWarning: (text, req) => {
    warnings = [...warnings.slice(-4), { id: nextId++, text, method: req.method, path: req.path, at: Date.now() }];
    for (const l of listeners) l();
  },
});
