// Small reads the views show (server version, kubeconfig contexts, feature gates, object counts, the
// at-rest hint, a Deployment's ReplicaSets, a kind's OpenAPI schema): each one hook, its key in keys.ts.
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { ApiError, acceptFor, readFeatureGates, resourcePath, type ApiResource, type Discovery, type KubeObject, type ResourceRef } from '../../client/index.js';
import { findDependents } from './dependents.js';
import { api } from '../api.js';
import { openApiPath, type OpenApiDocument } from '../lib/openapi-schema.js';
import { keys } from './keys.js';

export interface VersionInfo {
  gitVersion?: string;
  platform?: string;
}

export function useServerVersion() {
  return useQuery({ queryKey: keys.version(), queryFn: async ({ signal }) => (await api.request<VersionInfo>('GET', '/version', { signal })).body, staleTime: Infinity });
}

export interface Contexts {
  current: string;
  server: string;
  contexts: { name: string; cluster?: string; namespace?: string; server?: string }[];
}

/** Served by the kubeconfig proxy only; the embedded server answers 404 (or the explorer page). */
const CONTEXTS_PATH = '/periscope/contexts';

export function useContexts() {
  return useQuery({
    queryKey: keys.contexts(),
    queryFn: async () => {
      const body = (await api.request<Contexts>('GET', CONTEXTS_PATH)).body;
      // the embedded server answers unknown paths with the explorer page itself: no contexts there
      return body && typeof body === 'object' && Array.isArray(body.contexts) ? body : null;
    },
    retry: false,
    staleTime: Infinity,
  });
}

export function useFeatureGates() {
  return useQuery({
    queryKey: keys.featureGates(),
    queryFn: ({ signal }) => readFeatureGates(api, { signal }),
    // gates are fixed while a server runs
    staleTime: Infinity,
    retry: (n, e) => !(e instanceof ApiError && e.code < 500) && n < 2,
  });
}

export function useOpenApi(group: string, version: string) {
  return useQuery({
    queryKey: keys.openApi(group, version),
    queryFn: async ({ signal }) => (await api.request<OpenApiDocument>('GET', openApiPath(group, version), { signal })).body,
    // a CRD's schema can change; refetched when an editor opens again after a while
    staleTime: 30_000,
    retry: 1,
  });
}

export interface Count {
  resource: ApiResource;
  /** Exact when the server gave remainingItemCount (or the list ended); a lower bound otherwise. */
  count: number;
  exact: boolean;
  error?: boolean;
}

// half the browser's six connections per host: discovery and edits must not queue behind the counts
const COUNT_CONCURRENCY = 3;
const COUNT_REFRESH_MS = 10_000;

async function countOf(r: ApiResource, namespace: string, signal: AbortSignal): Promise<Count> {
  try {
    const res = await api.request<{ items?: unknown[]; metadata?: { remainingItemCount?: number; continue?: string } }>('GET', resourcePath({ group: r.group, version: r.version, resource: r.resource, namespace: r.namespaced ? namespace || undefined : undefined }), {
      accept: acceptFor('metadata', { list: true }),
      query: { limit: 1 },
      signal,
    });
    const items = res.body.items?.length ?? 0;
    const rest = res.body.metadata?.remainingItemCount;
    return { resource: r, count: items + (rest ?? 0), exact: rest !== undefined || !res.body.metadata?.continue };
  } catch {
    return { resource: r, count: 0, exact: false, error: true };
  }
}

/** Object counts per kind (metadata lists of one item; remainingItemCount gives the rest), a few requests at a time. */
export function useObjectCounts(resources: ApiResource[], namespace: string) {
  const qc = useQueryClient();
  const key = keys.counts(namespace, resources.map((r) => `${r.group}/${r.resource}`).join(','));
  const sorted = (out: Count[]) => [...out].sort((a, b) => b.count - a.count || a.resource.kind.localeCompare(b.resource.kind));
  return useQuery({
    queryKey: key,
    enabled: resources.length > 0,
    refetchInterval: COUNT_REFRESH_MS,
    queryFn: async ({ signal }) => {
      const out: Count[] = [];
      const first = qc.getQueryData(key) === undefined;
      let next = 0;
      const worker = async () => {
        while (next < resources.length) {
          const r = resources[next++]!;
          out.push(await countOf(r, namespace, signal));
          // the first time, each count shows as it arrives (the first kinds asked are the ones people look for)
          if (first && !signal.aborted) qc.setQueryData(key, sorted(out));
        }
      };
      await Promise.all(Array.from({ length: COUNT_CONCURRENCY }, worker));
      return sorted(out);
    },
  });
}

export interface AtRestInfo {
  key: string;
  configured: boolean;
  writeProvider: string;
  stored: { encrypted: boolean; provider: string; prefix: string };
}

/** Our read-only GET /debug/encryption-at-rest for one object; null where the endpoint is missing (proxy mode). */
export function useAtRest(objectRef: ResourceRef, resourceVersion: string | undefined) {
  const path = resourcePath(objectRef);
  return useQuery({
    queryKey: keys.atRest(path, resourceVersion),
    queryFn: async () => {
      const r = await api.request<AtRestInfo>('GET', `/debug/encryption-at-rest?path=${encodeURIComponent(path)}`);
      // a proxy (or a real cluster) answers with something else (the explorer page, a Status): no hint
      const b = r.body as Partial<AtRestInfo> | undefined;
      return r.status === 200 && b && typeof b === 'object' && b.stored && typeof b.stored === 'object' ? (b as AtRestInfo) : null;
    },
    staleTime: 30_000,
    retry: false,
  });
}

/**
 * The ReplicaSets matching a Deployment's selector, read again whenever the Deployment changes (its status
 * follows theirs) rather than watched: the page already holds watches (object, events, pods).
 */
export function useReplicaSetsOf(deployment: KubeObject, selector: string, enabled: boolean) {
  const ns = deployment.metadata?.namespace;
  return useQuery({
    queryKey: keys.replicaSetsOf(ns, selector, deployment.metadata?.resourceVersion),
    enabled: enabled && !!selector,
    queryFn: async () =>
      (await api.request<{ items: KubeObject[] }>('GET', resourcePath({ group: 'apps', version: 'v1', resource: 'replicasets', namespace: ns ?? '' }), { query: { labelSelector: selector } })).body.items,
    placeholderData: keepPreviousData,
    staleTime: Infinity,
  });
}

/**
 * NodeMetrics from metrics.k8s.io, when the server serves that group (discovered, either spelling);
 * undefined otherwise. Metrics are not watchable: read again every 15 s, as `kubectl top` would.
 */
export function useNodeMetrics(metricsType: Pick<ApiResource, 'group' | 'version' | 'resource'> | undefined) {
  return useQuery({
    queryKey: keys.metrics(metricsType?.group ?? '', metricsType?.version ?? '', 'nodes'),
    enabled: !!metricsType,
    refetchInterval: 15_000,
    retry: false,
    queryFn: async ({ signal }) => (await api.request<{ items?: KubeObject[] }>('GET', resourcePath({ group: metricsType!.group, version: metricsType!.version, resource: metricsType!.resource }), { signal })).body.items ?? [],
  });
}

/** What garbage collection would remove with `owner` (the delete dialog), scanned once per dialog. */
export function useDependents(discovery: Discovery, owner: KubeObject) {
  return useQuery({
    queryKey: keys.dependents(owner.metadata?.uid),
    queryFn: ({ signal }) => findDependents(api, discovery, owner, signal),
    staleTime: 0,
    gcTime: 0,
    retry: false,
    refetchOnMount: 'always',
  });
}

/** Reads one object now, whatever was read before (the editor's current server version on a conflict). */
export function useObjectReader(): (ref: ResourceRef) => Promise<KubeObject> {
  const qc = useQueryClient();
  return useCallback(
    (ref: ResourceRef) => qc.fetchQuery({ queryKey: keys.objectRead(resourcePath(ref)), queryFn: ({ signal }) => api.get<KubeObject>(ref, { signal }), staleTime: 0, gcTime: 0, retry: false }),
    [qc],
  );
}
