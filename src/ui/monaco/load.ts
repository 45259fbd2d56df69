// Lazy entry to Monaco: the first call downloads the editor chunk and its workers; later calls share it.
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
