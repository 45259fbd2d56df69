// Live views of a cluster that moves: rollout progress of workloads (desired / updated / ready / available), a
// Deployment's ReplicaSets as its revision history with one-click rollback, the workload's pods coloured by
// phase and readiness (the home page's recent Warning events are in RecentWarnings.tsx).
import { useMemo, useState } from 'react';
import type { KubeObject } from '../../client/index.js';
import { useReplicaSetsOf } from '../data/queries.js';
import { ErrorState } from '../components/ErrorState.js';
import { useCollection } from '../data/informers.js';
import { rollbackAction } from '../data/writes.js';
import { ActionDialog } from './ActionDialog.js';
import { ageOf, useNow } from '../lib/age.js';
import { isWorkload, podState, rolloutBars, selectorString } from '../lib/workloads.js';
import { Link, href, objectPath } from '../router.js';

type Obj = Record<string, any>;

const spec = (o: KubeObject | undefined): Obj => ((o as Obj | undefined)?.spec as Obj) ?? {};
const status = (o: KubeObject | undefined): Obj => ((o as Obj | undefined)?.status as Obj) ?? {};

export { isWorkload, podState };

const REVISION = 'deployment.kubernetes.io/revision';

function Bars({ object }: { object: KubeObject }) {
  const bars = rolloutBars(object);
  if (!bars) return null;
  const max = Math.max(1, ...bars.map((b) => b.value));
  return (
    <div className="rollout-bars" data-testid="rollout-bars">
      {bars.map((b) => (
        <div key={b.label} className="rollout-bar" data-testid={`bar-${b.label}`}>
          <span className="bar-label">{b.label}</span>
          <span className="bar-track">
            <span className={`bar-fill bar-${b.label}`} style={{ width: `${(100 * b.value) / max}%` }} />
          </span>
          <span className="bar-value num">{b.value}</span>
        </div>
      ))}
    </div>
  );
}

/** The Deployment's ReplicaSets by revision, the active one marked, each older one a rollback away. */
function RevisionHistory({ deployment, replicaSets }: { deployment: KubeObject; replicaSets: KubeObject[] }) {
  const now = useNow();
  // a rollback is reviewed as a dry-run diff and confirmed, like every other action
  const [rollingBack, setRollingBack] = useState<KubeObject>();
  const rev = (rs: KubeObject) => Number(rs.metadata?.annotations?.[REVISION] ?? 0);
  const sorted = [...replicaSets].sort((a, b) => rev(b) - rev(a));
  const current = deployment.metadata?.annotations?.[REVISION];
  const rollbackRequest = useMemo(
    () =>
      rollingBack &&
      rollbackAction({ group: 'apps', version: 'v1', resource: 'deployments', namespace: deployment.metadata?.namespace, name: deployment.metadata!.name! }, deployment, rollingBack),
    // the request is fixed when the dialog opens: its resourceVersion guard is the version the user reviewed
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [rollingBack],
  );
  return (
    <section className="panel">
      <h3>Revision history</h3>
      {rollbackRequest && rollingBack && <ActionDialog request={rollbackRequest} current={deployment} onClose={() => setRollingBack(undefined)} />}
      <table className="simple" data-testid="revisions">
        <thead>
          <tr>
            <th>Revision</th>
            <th>ReplicaSet</th>
            <th>Images</th>
            <th>Replicas</th>
            <th>Age</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {sorted.map((rs) => {
            const active = String(rev(rs)) === current;
            return (
              <tr key={rs.metadata?.uid} className={active ? 'active-revision' : ''} data-testid={`revision-${rev(rs)}`}>
                <td className="num">{rev(rs)}</td>
                <td>
                  <Link href={href(objectPath({ group: 'apps', version: 'v1', resource: 'replicasets' }, rs.metadata?.namespace, rs.metadata!.name!))}>{rs.metadata?.name}</Link>
                  {active && <span className="pill cond-true">active</span>}
                </td>
                <td className="mono small">{(spec(rs).template?.spec?.containers ?? []).map((c: Obj) => c.image).join(', ')}</td>
                <td className="num">
                  {status(rs).readyReplicas ?? 0}/{spec(rs).replicas ?? 0}
                </td>
                <td>{ageOf(rs.metadata?.creationTimestamp, now)}</td>
                <td>
                  {!active && (
                    <button className="btn small" onClick={() => setRollingBack(rs)} data-testid={`rollback-${rev(rs)}`}>
                      Roll back to this…
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function PodsTable({ pods }: { pods: KubeObject[] }) {
  const now = useNow();
  if (!pods.length) return <p className="muted">No pods.</p>;
  return (
    <table className="simple" data-testid="workload-pods">
      <thead>
        <tr>
          <th>Pod</th>
          <th>Status</th>
          <th>Ready</th>
          <th>Restarts</th>
          <th>Node</th>
          <th>Age</th>
        </tr>
      </thead>
      <tbody>
        {pods.map((p) => {
          const s = podState(p);
          return (
            <tr key={p.metadata?.uid} className={`pod-${s.tone}`} data-testid="workload-pod">
              <td>
                <Link href={href(objectPath({ group: '', version: 'v1', resource: 'pods' }, p.metadata?.namespace, p.metadata!.name!))}>{p.metadata?.name}</Link>
              </td>
              <td>
                <span className={`pill pod-${s.tone}`} data-testid="pod-phase">
                  {s.phase}
                </span>
              </td>
              <td className="num">{s.ready}</td>
              <td className={s.restarts > 0 ? 'num restarts' : 'num'}>{s.restarts}</td>
              <td>{spec(p).nodeName ?? <span className="muted">unscheduled</span>}</td>
              <td>{ageOf(p.metadata?.creationTimestamp, now)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Rollout progress, ReplicaSets (Deployments) and pods of a workload, all live. */
export function WorkloadPanel({ object }: { object: KubeObject }) {
  const ns = object.metadata?.namespace;
  const plainMap = object.kind === 'ReplicationController';
  const selector = selectorString(spec(object).selector, plainMap);
  const isDeployment = object.kind === 'Deployment';
  const rsList = useReplicaSetsOf(object, selector, isDeployment);
  const podList = useCollection<KubeObject>(selector ? { group: '', version: 'v1', resource: 'pods', namespace: ns, representation: 'object', labelSelector: selector } : undefined);
  const uid = object.metadata?.uid;
  const replicaSets = useMemo(
    () => (rsList.data ?? []).filter((rs) => rs.metadata?.ownerReferences?.some((r) => r.uid === uid && r.controller)),
    [rsList.data, uid],
  );
  const pods = useMemo(() => {
    const owners = new Set([uid, ...replicaSets.map((r) => r.metadata?.uid)]);
    return (podList.data?.items ?? []).filter((p) => p.metadata?.ownerReferences?.some((r) => r.controller && owners.has(r.uid)));
  }, [podList.data?.items, podList.data?.version, replicaSets, uid]); // eslint-disable-line react-hooks/exhaustive-deps
  const progressing = ((status(object).conditions ?? []) as Obj[]).find((c) => c.type === 'Progressing');
  return (
    <>
      <section className="panel" data-testid="rollout">
        <h3>Rollout</h3>
        <Bars object={object} />
        {progressing && (
          <p className={progressing.status === 'False' ? 'bad small' : 'muted small'} data-testid="rollout-message">
            {progressing.reason}: {progressing.message}
          </p>
        )}
        {status(object).observedGeneration !== undefined && status(object).observedGeneration < (object.metadata?.generation ?? 0) && <p className="muted small">waiting for the controller to observe generation {object.metadata?.generation}</p>}
      </section>
      {isDeployment && replicaSets.length > 0 && <RevisionHistory deployment={object} replicaSets={replicaSets} />}
      <section className="panel">
        <h3>Pods</h3>
        {podList.error ? <ErrorState error={podList.error} compact /> : <PodsTable pods={pods} />}
      </section>
    </>
  );
}
