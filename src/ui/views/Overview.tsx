// The overview on the home page, as cluster health: nodes ready (pressure, cordoned), each workload kind
// ready against desired (rolling out, failed), pod phases, problems (failing workloads first; "checking…"
// until every list it reads has arrived, never a false all-clear), recent Warning events, the pods
// restarting most, usage from metrics.k8s.io when the server serves it, and object counts by task
// (no zero rows; a kind served by two groups counted once). All lists are live informers.
import { useEffect, useMemo } from 'react';
import type { ApiResource, Discovery, KubeObject } from '../../client/index.js';
import { useBrowsableResources } from '../data/discovery.js';
import { servedResource } from '../data/groups.js';
import { useCollection } from '../data/informers.js';
import { useNodeMetrics, useObjectCounts } from '../data/queries.js';
import { clusterUsage, kindHealth, nodeHealth, podSummary, type KindHealth } from '../lib/health.js';
import { TASKS, taskSections } from '../lib/taxonomy.js';
import { Link, href, listPath, objectPath } from '../router.js';
import { FeatureGatesPanel } from './FeatureGates.js';
import { RecentWarnings } from './RecentWarnings.js';

interface Problem {
  key: string;
  what: string;
  why: string;
  link: string;
  severity: 'bad' | 'warn';
}

type Pod = KubeObject & { status?: { phase?: string; conditions?: { type: string; status: string; reason?: string }[] } };

export function podProblem(p: Pod): string | undefined {
  if (p.metadata?.deletionTimestamp && p.metadata.finalizers?.length) return `terminating, waiting for ${p.metadata.finalizers.join(', ')}`;
  const phase = p.status?.phase;
  if (phase === 'Succeeded') return undefined;
  if (phase === 'Failed') return 'failed';
  const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
  if (!ready || ready.status !== 'True') return `not ready${ready?.reason ? ` (${ready.reason})` : phase ? ` (${phase})` : ''}`;
  return undefined;
}

/** The workload kinds the overview weighs, in the order it shows them. */
const WORKLOADS: { group: string; resource: string; kind: string; plural: string }[] = [
  { group: 'apps', resource: 'deployments', kind: 'Deployment', plural: 'Deployments' },
  { group: 'apps', resource: 'statefulsets', kind: 'StatefulSet', plural: 'StatefulSets' },
  { group: 'apps', resource: 'daemonsets', kind: 'DaemonSet', plural: 'DaemonSets' },
  { group: 'apps', resource: 'replicasets', kind: 'ReplicaSet', plural: 'ReplicaSets (not owned)' },
  { group: 'batch', resource: 'jobs', kind: 'Job', plural: 'Jobs' },
];

function useLive<T extends KubeObject>(t: ApiResource | undefined, namespace: string | undefined, representation: 'object' | 'metadata' = 'object') {
  return useCollection<T>(t ? { group: t.group, version: t.version, resource: t.resource, namespace: t.namespaced ? namespace : undefined, representation } : undefined);
}

function pct(used: number, of: number): string {
  return of > 0 ? `${Math.round((used / of) * 100)}%` : '—';
}

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(n >= 10 || i === 0 ? 0 : 1)} ${units[i]}`;
}

function WorkloadCard({ t, h, loading, namespace }: { t: ApiResource; h: KindHealth | undefined; loading: boolean; namespace: string }) {
  const meta = WORKLOADS.find((w) => w.resource === t.resource)!;
  return (
    <li className="health-card" data-testid="workload-health" data-kind={meta.kind}>
      <Link href={href(listPath(t), { ns: namespace || undefined })} className="health-title">
        {meta.plural}
      </Link>
      {loading || !h ? (
        <span className="muted">checking…</span>
      ) : (
        <>
          <span className="health-figure" data-testid="workload-ready">
            {h.ready}/{h.total} ready
          </span>
          <span className="small muted">
            {h.readyReplicas}/{h.desiredReplicas} {meta.kind === 'Job' ? 'completions' : 'replicas'}
          </span>
          <span className="small">
            {h.progressing > 0 && <span className="tone-progress">{h.progressing} progressing</span>}
            {h.progressing > 0 && h.failed > 0 && ' · '}
            {h.failed > 0 && <span className="tone-bad">{h.failed} failed</span>}
          </span>
        </>
      )}
    </li>
  );
}

export function Overview({ discovery, namespace }: { discovery: Discovery | undefined; namespace: string }) {
  const resources = useBrowsableResources(discovery);
  const ns = namespace || undefined;
  const t = (group: string, resource: string) => servedResource(discovery, group, resource);
  const podsType = t('', 'pods');
  const nodesType = t('', 'nodes');
  const nsType = t('', 'namespaces');
  const metricsType = t('metrics.k8s.io', 'nodes');
  const workloadTypes = WORKLOADS.map((w) => t(w.group, w.resource));

  const pods = useLive<Pod>(podsType, ns);
  const nodes = useLive(nodesType, undefined);
  const namespaces = useLive(nsType && !ns ? nsType : undefined, undefined, 'metadata');
  // one hook per workload kind, in a fixed order
  const w0 = useLive(workloadTypes[0], ns);
  const w1 = useLive(workloadTypes[1], ns);
  const w2 = useLive(workloadTypes[2], ns);
  const w3 = useLive(workloadTypes[3], ns);
  const w4 = useLive(workloadTypes[4], ns);
  const workloads = [w0, w1, w2, w3, w4];
  const metrics = useNodeMetrics(metricsType);

  // a kind served twice (Event in core and events.k8s.io) is one kind; alias spellings are already out
  const sections = useMemo(() => taskSections(resources.filter((r) => !namespace || r.namespaced)), [resources, namespace]);
  const counted = useMemo(() => sections.flatMap((s) => s.groups.flatMap((g) => g.resources)), [sections]);
  const counts = useObjectCounts(counted, namespace);

  const nodeH = useMemo(() => nodeHealth(nodes.data?.items ?? []), [nodes.data]);
  const podH = useMemo(() => podSummary(pods.data?.items ?? []), [pods.data]);
  const kindH = useMemo(() => [w0.data, w1.data, w2.data, w3.data, w4.data].map((d, i) => (d ? kindHealth(d.items, WORKLOADS[i]!.kind) : undefined)), [w0.data, w1.data, w2.data, w3.data, w4.data]);
  const usage = useMemo(() => (metrics.data ? clusterUsage(metrics.data, nodes.data?.items ?? []) : undefined), [metrics.data, nodes.data]);

  // every list the problems come from has arrived (or failed: then the panel says it could not check)
  const sources = [pods, nodes, namespaces, ...workloads].filter((_, i) => [podsType, nodesType, nsType && !ns ? nsType : undefined, ...workloadTypes][i]);
  const checking = !discovery || sources.some((s) => s.isLoading || (s.isFetching && !s.data));
  const failedSources = sources.filter((s) => s.isError).length;

  const problems = useMemo(() => {
    const out: Problem[] = [];
    kindH.forEach((h, i) => {
      const type = workloadTypes[i];
      if (!type || !h) return;
      for (const { object, status } of h.notReady)
        out.push({
          key: `${type.resource}/${object.metadata?.namespace}/${object.metadata?.name}`,
          what: `${WORKLOADS[i]!.kind} ${object.metadata?.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata?.name}`,
          why: status.why,
          link: objectPath(type, object.metadata?.namespace, object.metadata!.name!),
          severity: status.state === 'failed' ? 'bad' : 'warn',
        });
    });
    if (nodesType) {
      for (const n of nodeH.notReady) out.push({ key: `node/${n}`, what: `Node ${n}`, why: 'not ready', link: objectPath(nodesType, undefined, n), severity: 'bad' });
      for (const p of nodeH.pressure) out.push({ key: `node-p/${p.name}`, what: `Node ${p.name}`, why: p.conditions.join(', '), link: objectPath(nodesType, undefined, p.name), severity: 'warn' });
    }
    if (nsType)
      for (const n of namespaces.data?.items ?? [])
        if (n.metadata?.deletionTimestamp)
          out.push({
            key: `ns/${n.metadata.name}`,
            what: `Namespace ${n.metadata.name}`,
            why: `terminating since ${n.metadata.deletionTimestamp}${n.metadata.finalizers?.length ? `, finalizers: ${n.metadata.finalizers.join(', ')}` : ''}`,
            link: objectPath(nsType, undefined, n.metadata.name!),
            severity: 'warn',
          });
    if (podsType)
      for (const p of pods.data?.items ?? []) {
        const why = podProblem(p);
        if (why) out.push({ key: `pod/${p.metadata?.namespace}/${p.metadata?.name}`, what: `Pod ${p.metadata?.namespace}/${p.metadata?.name}`, why, link: objectPath(podsType, p.metadata?.namespace, p.metadata!.name!), severity: p.status?.phase === 'Failed' ? 'bad' : 'warn' });
      }
    return out;
  }, [kindH, nodeH, namespaces.data, pods.data, podsType, nodesType, nsType]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    if (!performance.getEntriesByName('periscope:overview-shell').length) performance.mark('periscope:overview-shell');
  }, []);

  const countByKey = new Map((counts.data ?? []).map((c) => [`${c.resource.group}/${c.resource.resource}`, c]));

  return (
    <>
      <section className="panel" aria-labelledby="health-h" data-testid="health">
        {/* elementtiming: the browser records when this heading is first painted (`npm run bench -- ui` reads it) */}
        <h2 id="health-h" {...{ elementtiming: 'overview-health' }}>
          Health{namespace ? ` of ${namespace}` : ''}
        </h2>
        <ul className="health-cards">
          {nodesType && (
            <li className="health-card" data-testid="node-health">
              <Link href={listPath(nodesType)} className="health-title">
                Nodes
              </Link>
              {nodes.data ? (
                <>
                  <span className={`health-figure${nodeH.ready < nodeH.total ? ' tone-bad' : ''}`} data-testid="nodes-ready">
                    {nodeH.ready}/{nodeH.total} ready
                  </span>
                  <span className="small muted">{nodeH.cordoned.length ? `${nodeH.cordoned.length} cordoned (${nodeH.cordoned.join(', ')})` : 'none cordoned'}</span>
                  <span className={`small${nodeH.pressure.length ? ' tone-progress' : ' muted'}`}>{nodeH.pressure.length ? nodeH.pressure.map((p) => `${p.name}: ${p.conditions.join(', ')}`).join('; ') : 'no pressure'}</span>
                </>
              ) : (
                <span className="muted">{nodes.isError ? 'cannot list nodes' : 'checking…'}</span>
              )}
            </li>
          )}
          {podsType && (
            <li className="health-card" data-testid="pod-health">
              <Link href={href(listPath(podsType), { ns })} className="health-title">
                Pods
              </Link>
              {pods.data ? (
                <>
                  <span className={`health-figure${podH.notReady ? ' tone-progress' : ''}`}>
                    {podH.total - podH.notReady}/{podH.total} ready
                  </span>
                  <span className="small muted" data-testid="pod-phases">
                    {Object.entries(podH.phases)
                      .sort((a, b) => b[1] - a[1])
                      .map(([p, n]) => `${n} ${p}`)
                      .join(' · ') || 'no pods'}
                  </span>
                </>
              ) : (
                <span className="muted">{pods.isError ? 'cannot list pods' : 'checking…'}</span>
              )}
            </li>
          )}
          {workloadTypes.map((wt, i) => (wt && (i === 0 || !kindH[i] || kindH[i]!.total > 0) && (i !== 3 || (kindH[3]?.total ?? 0) > 0) ? <WorkloadCard key={wt.resource} t={wt} h={kindH[i]} loading={!workloads[i]!.data} namespace={namespace} /> : null))}
          {metricsType && (
            <li className="health-card" data-testid="usage">
              <span className="health-title">Usage</span>
              {usage ? (
                <>
                  <span className="health-figure">
                    CPU {pct(usage.cpu.used, usage.cpu.allocatable)} · memory {pct(usage.memory.used, usage.memory.allocatable)}
                  </span>
                  <span className="small muted">
                    {usage.cpu.used.toFixed(2)} of {usage.cpu.allocatable.toFixed(1)} cores · {bytes(usage.memory.used)} of {bytes(usage.memory.allocatable)} on {usage.nodes} nodes (metrics.k8s.io)
                  </span>
                </>
              ) : (
                <span className="muted">{metrics.isError ? 'metrics not available' : 'reading metrics…'}</span>
              )}
            </li>
          )}
        </ul>
      </section>
      <section className="panel" aria-labelledby="problems-h">
        <h2 id="problems-h">Problems</h2>
        {problems.length > 0 && (
          <ul className="plain-list problems" data-testid="problems">
            {problems.map((p) => (
              <li key={p.key} data-testid="problem-item" data-severity={p.severity}>
                <span className={`dot ${p.severity}`} aria-hidden="true" /> <Link href={href(p.link, { ns })}>{p.what}</Link> <span className="muted">{p.why}</span>
              </li>
            ))}
          </ul>
        )}
        {checking ? (
          <p className="muted" data-testid="problems-checking" role="status">
            Checking…
          </p>
        ) : problems.length === 0 ? (
          <p className="muted" data-testid="no-problems">
            {failedSources ? `Could not check everything: ${failedSources} lists could not be read.` : 'No failing workloads, unready nodes or pods, failed jobs or objects stuck terminating.'}
          </p>
        ) : null}
      </section>
      {podH.topRestarts.length > 0 && podsType && (
        <section className="panel" aria-labelledby="restarts-h" data-testid="top-restarts">
          <h2 id="restarts-h">Restarting most</h2>
          <table className="simple">
            <thead>
              <tr>
                <th scope="col">Pod</th>
                <th scope="col" className="num">
                  Restarts
                </th>
                <th scope="col">Last reason</th>
              </tr>
            </thead>
            <tbody>
              {podH.topRestarts.map((r) => (
                <tr key={`${r.pod.metadata?.namespace}/${r.pod.metadata?.name}`}>
                  <td>
                    <Link href={href(objectPath(podsType, r.pod.metadata?.namespace, r.pod.metadata!.name!), { ns })}>
                      {r.pod.metadata?.namespace}/{r.pod.metadata?.name}
                    </Link>
                  </td>
                  <td className="num">{r.restarts}</td>
                  <td>{r.reason ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {t('', 'events') && <RecentWarnings namespace={namespace} />}
      <section className="panel" aria-labelledby="counts-h">
        <h2 id="counts-h">Objects{namespace ? ` in ${namespace}` : ''}</h2>
        {counts.isLoading && <p className="muted">Counting…</p>}
        <div className="count-groups" data-testid="kind-counts">
          {sections.map((s) => {
            const rows = s.groups.flatMap((g) => g.resources).flatMap((r) => {
              const c = countByKey.get(`${r.group}/${r.resource}`);
              return c && (c.count > 0 || c.error) ? [c] : [];
            });
            if (!rows.length) return null;
            return (
              <section key={s.id} className="count-group" data-testid={`count-group-${s.id}`} aria-label={TASKS.find((x) => x.id === s.id)!.label}>
                <h3>{s.label}</h3>
                <table className="counts">
                  <tbody>
                    {rows.map((c) => (
                      <tr key={`${c.resource.group}/${c.resource.resource}`} data-testid="kind-count" data-kind={c.resource.kind}>
                        <td>
                          <Link href={href(listPath(c.resource), { ns: c.resource.namespaced ? ns : undefined })} title={`${c.resource.kind} · ${c.resource.group || 'core'}/${c.resource.version}`}>
                            {c.resource.kind}
                          </Link>
                        </td>
                        <td className="num" data-testid="count">
                          {c.error ? '—' : `${c.count.toLocaleString('en-US')}${c.exact ? '' : '+'}`}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </section>
            );
          })}
        </div>
      </section>
      <FeatureGatesPanel />
    </>
  );
}
