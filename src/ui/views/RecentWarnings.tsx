// The overview's recent Warning events, in a module of its own: the overview (the first page most people
// see) must not pull the workload panels' action dialogs, and through them Monaco and yaml, into its
// first paint.
import { useMemo } from 'react';
import type { KubeObject } from '../../client/index.js';
import { ErrorState } from '../components/ErrorState.js';
import { useCollection } from '../data/informers.js';
import { ageOf, useNow } from '../lib/age.js';
import { Link, href, objectPath } from '../router.js';

interface EventObj extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string;
  eventTime?: string;
  involvedObject?: { kind?: string; name?: string; namespace?: string; apiVersion?: string };
}

const KIND_RESOURCE: Record<string, { group: string; version: string; resource: string }> = {
  Pod: { group: '', version: 'v1', resource: 'pods' },
  Node: { group: '', version: 'v1', resource: 'nodes' },
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments' },
  ReplicaSet: { group: 'apps', version: 'v1', resource: 'replicasets' },
  StatefulSet: { group: 'apps', version: 'v1', resource: 'statefulsets' },
  DaemonSet: { group: 'apps', version: 'v1', resource: 'daemonsets' },
  Job: { group: 'batch', version: 'v1', resource: 'jobs' },
  CronJob: { group: 'batch', version: 'v1', resource: 'cronjobs' },
};

/** The most recent Warning events (live), newest first, each linking to its object. */
export function RecentWarnings({ namespace }: { namespace: string }) {
  const now = useNow();
  const events = useCollection<EventObj>({ group: '', version: 'v1', resource: 'events', namespace: namespace || undefined, representation: 'object', fieldSelector: 'type=Warning' });
  const items = useMemo(() => {
    const t = (e: EventObj) => Date.parse(e.lastTimestamp || e.eventTime || e.metadata?.creationTimestamp || '') || 0;
    return [...(events.data?.items ?? [])].sort((a, b) => t(b) - t(a)).slice(0, 15);
  }, [events.data?.items, events.data?.version]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <section className="panel" data-testid="recent-warnings">
      <h2>Recent warnings</h2>
      {events.error ? (
        <ErrorState error={events.error} compact />
      ) : !events.data ? (
        <p className="muted" data-testid="warnings-checking">
          Checking…
        </p>
      ) : items.length === 0 ? (
        <p className="muted">No warnings{namespace ? ` in ${namespace}` : ''}.</p>
      ) : (
        <table className="simple">
          <thead>
            <tr>
              <th>Age</th>
              <th>Object</th>
              <th>Reason</th>
              <th>Count</th>
              <th>Message</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => {
              const io = e.involvedObject ?? {};
              const r = io.kind ? KIND_RESOURCE[io.kind] : undefined;
              const label = `${io.kind}/${io.name}`;
              return (
                <tr key={e.metadata?.uid} className="warn" data-testid="warning-row">
                  <td>{ageOf(e.lastTimestamp || e.eventTime || e.metadata?.creationTimestamp, now)}</td>
                  <td>{r && io.name ? <Link href={href(objectPath(r, io.namespace, io.name, 'events'))}>{label}</Link> : label}</td>
                  <td>{e.reason}</td>
                  <td className="num">{e.count ?? 1}</td>
                  <td className="wrap">{e.message}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
