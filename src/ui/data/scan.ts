// Paged list reads for views that look across kinds (search, relationships): one chunk at a time, so a
// large collection is never one response, and cancellable between chunks.
import { acceptFor, resourcePath, type ApiResource, type KubeObject } from '../../client/index.js';
import { api } from '../api.js';

export interface ScanOptions {
  namespace?: string;
  representation?: 'metadata' | 'object';
  labelSelector?: string;
  fieldSelector?: string;
  pageSize?: number;
  signal?: AbortSignal;
}

/** The pages of one collection (all namespaces when `namespace` is unset or the kind is cluster-scoped). */
export async function* listPages(r: Pick<ApiResource, 'group' | 'version' | 'resource' | 'namespaced'>, o: ScanOptions = {}): AsyncGenerator<KubeObject[]> {
  let cont: string | undefined;
  do {
    const res = await api.request<{ items?: KubeObject[]; metadata?: { continue?: string } }>('GET', resourcePath({ group: r.group, version: r.version, resource: r.resource, namespace: r.namespaced ? o.namespace || undefined : undefined }), {
      accept: o.representation === 'object' ? 'application/json' : acceptFor('metadata', { list: true }),
      query: { limit: o.pageSize ?? 500, continue: cont, labelSelector: o.labelSelector, fieldSelector: o.fieldSelector },
      signal: o.signal,
    });
    yield res.body.items ?? [];
    cont = res.body.metadata?.continue || undefined;
  } while (cont && !o.signal?.aborted);
}

export async function listAll(r: Pick<ApiResource, 'group' | 'version' | 'resource' | 'namespaced'>, o: ScanOptions = {}): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for await (const page of listPages(r, o)) out.push(...page);
  return out;
}

/** Runs `fn` over items with at most `n` at a time. */
export async function eachLimited<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}
