// Paged list reads for views that look across kinds (search, relationships): chunk by chunk, so a large
// collection is never one response, and cancellable between chunks.
import { listPages as clientPages, type ApiResource, type KubeObject } from '../../client/index.js';
import { api } from '../api.js';

export interface ScanOptions {
  namespace?: string;
  representation?: 'metadata' | 'object';
  labelSelector?: string;
  fieldSelector?: string;
  pageSize?: number;
  signal?: AbortSignal;
}

/**
 * The pages of one collection (all namespaces when `namespace` is unset or the kind is cluster-scoped),
 * each asked for as soon as the one before shows its continue token. Ends quietly when cancelled; a
 * continue token that expired (410) is an error here, as a scan cannot take back pages it gave out.
 */
export async function* listPages(r: Pick<ApiResource, 'group' | 'version' | 'resource' | 'namespaced'>, o: ScanOptions = {}): AsyncGenerator<KubeObject[]> {
  const ref = { group: r.group, version: r.version, resource: r.resource, namespace: r.namespaced ? o.namespace || undefined : undefined };
  const pages = clientPages(api, ref, {
    representation: o.representation ?? 'metadata',
    limit: o.pageSize ?? 500,
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    signal: o.signal,
    maxRestarts: 0,
    prefetch: () => !o.signal?.aborted,
  });
  try {
    for await (const c of pages) {
      yield c.items;
      if (o.signal?.aborted) return;
    }
  } catch (e) {
    if (o.signal?.aborted) return;
    throw e;
  }
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
