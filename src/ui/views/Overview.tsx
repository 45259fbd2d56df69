// The overview on the home page: how many objects of each kind (metadata-only lists of one item, the
// server's remainingItemCount giving the rest), problems first (pods not ready, failed jobs, objects
// and namespaces stuck terminating), recent Warning events. Counts refresh on an interval; problems
// and events are live collections. The server's feature gates come from its /metrics.
import { FeatureGatesPanel } from './FeatureGates.js';
import { RecentWarnings } from './WorkloadPanels.js';
import { useMemo } from 'react';
import type { ApiResource, Discovery, KubeObject } from '../../client/index.js';
import { useObjectCounts } from '../data/queries.js';
import { useBrowsableResources } from '../data/discovery.js';
import { useCollection } from '../data/informers.js';
import { Link, href, listPath, objectPath } from '../router.js';

function find(d: Discovery | undefined, group: string, resource: string): ApiResource | undefined {
  return d?.resources.find((r) => r.group === group && r.resource === resource && r.preferred);
}

interface Problem {
  key: string;
  what: string;
  why: string;
  link: string;
}

type Pod = KubeObject & { status?: { phase?: string; conditions?: { type: string; status: string; reason?: string }[] } };
type Job = KubeObject & { status?: { failed?: number; conditions?: { type: string; status: string; reason?: string; message?: string }[] } };

export function podProblem(p: Pod): string | undefined {
  if (p.metadata?.deletionTimestamp && p.metadata.finalizers?.length) return `terminating, waiting for ${p.metadata.finalizers.join(', ')}`;
  const phase = p.status?.phase;
  if (phase === 'Succeeded') return undefined;
  if (phase === 'Failed') return 'failed';
  const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
  if (!ready || ready.status !== 'True') return `not ready${ready?.reason ? ` (${ready.reason})` : phase ? ` (${phase})` : ''}`;
  return undefined;
}

export function jobProblem(j: Job): string | undefined {
  const failed = j.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failed) return `failed${failed.reason ? `: ${failed.reason}` : ''}`;
  return undefined;
}

export function Overview({ discovery, namespace }: { discovery: Discovery | undefined; namespace: string }) {
  const resources = useBrowsableResources(discovery);
  const counted = useMemo(() => resources.filter((r) => !namespace || r.namespaced), [resources, namespace]);
  const counts = useObjectCounts(counted, namespace);
  const ns = namespace || undefined;
  const podsType = find(discovery, '', 'pods');
  const jobsType = find(discovery, 'batch', 'jobs');
  const nsType = find(discovery, '', 'namespaces');
  const eventsType = find(discovery, '', 'events');
  const pods = useCollection<Pod>(podsType ? { group: '', version: podsType.version, resource: 'pods', namespace: ns, representation: 'object' } : undefined);
  const jobs = useCollection<Job>(jobsType ? { group: 'batch', version: jobsType.version, resource: 'jobs', namespace: ns, representation: 'object' } : undefined);
  const namespaces = useCollection<KubeObject>(nsType && !ns ? { group: '', version: nsType.version, resource: 'namespaces', representation: 'metadata' } : undefined);

  const problems = useMemo(() => {
    const out: Problem[] = [];
    for (const n of namespaces.data?.items ?? [])
      if (n.metadata?.deletionTimestamp && nsType)
        out.push({ key: `ns/${n.metadata.name}`, what: `Namespace ${n.metadata.name}`, why: `terminating since ${n.metadata.deletionTimestamp}${n.metadata.finalizers?.length ? `, finalizers: ${n.metadata.finalizers.join(', ')}` : ''}`, link: objectPath(nsType, undefined, n.metadata.name!) });
    for (const p of pods.data?.items ?? []) {
      const why = podProblem(p);
      if (why && podsType) out.push({ key: `pod/${p.metadata?.namespace}/${p.metadata?.name}`, what: `Pod ${p.metadata?.namespace}/${p.metadata?.name}`, why, link: objectPath(podsType, p.metadata?.namespace, p.metadata!.name!) });
    }
    for (const j of jobs.data?.items ?? []) {
      const why = jobProblem(j) ?? (j.metadata?.deletionTimestamp && j.metadata.finalizers?.length ? `terminating, waiting for ${j.metadata.finalizers.join(', ')}` : undefined);
      if (why && jobsType) out.push({ key: `job/${j.metadata?.namespace}/${j.metadata?.name}`, what: `Job ${j.metadata?.namespace}/${j.metadata?.name}`, why, link: objectPath(jobsType, j.metadata?.namespace, j.metadata!.name!) });
    }
    return out;
  }, [namespaces.data, pods.data, jobs.data, nsType, podsType, jobsType]);

  return (
    <>
      <section className="panel" aria-labelledby="problems-h">
        <h2 id="problems-h">Problems</h2>
        {problems.length === 0 ? (
          <p className="muted" data-testid="no-problems">
            {pods.isLoading || jobs.isLoading ? 'Checking…' : 'No pods not ready, failed jobs or objects stuck terminating.'}
          </p>
        ) : (
          <ul className="plain-list" data-testid="problems">
            {problems.map((p) => (
              <li key={p.key} data-testid="problem-item">
                <Link href={href(p.link, { ns: namespace || undefined })}>{p.what}</Link> <span className="muted">{p.why}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      {eventsType && <RecentWarnings namespace={namespace} />}
      <section className="panel" aria-labelledby="counts-h">
        <h2 id="counts-h">Objects{namespace ? ` in ${namespace}` : ''}</h2>
        {counts.isLoading && <p className="muted">Counting…</p>}
        <table className="counts" data-testid="kind-counts">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Group</th>
              <th scope="col" className="num">
                Count
              </th>
            </tr>
          </thead>
          <tbody>
            {(counts.data ?? []).map((c) => (
              <tr key={`${c.resource.group}/${c.resource.resource}`} data-testid="kind-count" data-kind={c.resource.kind}>
                <td>
                  <Link href={href(listPath(c.resource), { ns: c.resource.namespaced ? namespace || undefined : undefined })}>{c.resource.kind}</Link>
                </td>
                <td className="muted">{c.resource.group || 'core'}</td>
                <td className="num" data-testid="count">
                  {c.error ? '—' : `${c.count.toLocaleString('en-US')}${c.exact ? '' : '+'}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <FeatureGatesPanel />
    </>
  );
}
