// Lazy entry to Monaco: the first call downloads the editor chunk and its workers; later calls share it.
import { useEffect, useState } from 'react';
import type * as Monaco from 'monaco-editor';

export type MonacoApi = typeof Monaco;

let loading: Promise<MonacoApi> | undefined;

export function loadMonaco(): Promise<MonacoApi> {
  loading ??= import('./bootstrap.js').then((m) => m.monaco).catch((err: unknown) => {
    loading = undefined; // let a later mount retry (a network hiccup while fetching the chunk)
    throw err;
  });
  return loading;
}

/** Loads Monaco for a component: the namespace once ready, or why it could not load. */
export function useMonaco(): { api: MonacoApi | undefined; failed: string | undefined } {
  const [api, setApi] = useState<MonacoApi>();
  const [failed, setFailed] = useState<string>();
  useEffect(() => {
    let cancelled = false;
    loadMonaco().then(
      (m) => !cancelled && setApi(m),
      (err: unknown) => !cancelled && setFailed(String((err as Error)?.message ?? err)),
    );
    return () => {
      cancelled = true;
    };
  }, []);
  return { api, failed };
}
