// Discovery for navigation, refreshed whenever a CustomResourceDefinition changes (CRDs appear live).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import { discover, type ApiResource, type Discovery } from '../../client/index.js';
import { api } from '../api.js';
import { useCollection } from './informers.js';
import { keys } from './keys.js';

export function useDiscovery() {
  return useQuery({ queryKey: keys.discovery(), queryFn: ({ signal }) => discover(api, { signal }), staleTime: Infinity, retry: 1 });
}

/** Upstream-spelled groups that merely alias a neutral one (rbac.authorization.k8s.io beside ...service.io). */
export function isAliasGroup(d: Discovery, group: string): boolean {
  if (!group.endsWith('.k8s.io')) return false;
  const twin = group.slice(0, -'.k8s.io'.length) + '.service.io';
  return d.groups.some((g) => g.name === twin);
}

/** Preferred-version, listable resources of non-alias groups: what navigation and search offer. */
export function useBrowsableResources(d: Discovery | undefined): ApiResource[] {
  return useMemo(() => (d ? d.resources.filter((r) => r.preferred && r.verbs.includes('list') && !isAliasGroup(d, r.group)) : []), [d]);
}

/** Watches CRDs (metadata only) and re-fetches discovery after each change. */
export function useLiveDiscovery(): ReturnType<typeof useDiscovery> {
  const qc = useQueryClient();
  const d = useDiscovery();
  const crdType = useMemo(() => {
    const all = d.data?.resources.filter((r) => r.resource === 'customresourcedefinitions' && r.preferred && r.verbs.includes('watch')) ?? [];
    return all.find((r) => r.group.endsWith('.service.io')) ?? all[0];
  }, [d.data]);
  const crds = useCollection(crdType ? { group: crdType.group, version: crdType.version, resource: crdType.resource, representation: 'metadata' } : undefined);
  const seen = useRef<number | undefined>(undefined);
  const version = crds.data?.version;
  useEffect(() => {
    if (version === undefined || version === seen.current) return;
    // the first sync counts too: a CRD created between the discovery fetch and this list would
    // otherwise be in both the list and nowhere in the navigation
    seen.current = version;
    // a new CRD is served once it is established, a moment after the object appears: refresh twice
    const t1 = setTimeout(() => void qc.invalidateQueries({ queryKey: keys.discovery() }), 150);
    const t2 = setTimeout(() => void qc.invalidateQueries({ queryKey: keys.discovery() }), 1500);
    return () => {
      clearTimeout(t1);
      clearTimeout(t2);
    };
  }, [version, qc]);
  return d;
}
