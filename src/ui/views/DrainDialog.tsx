// Drain a node as `kubectl drain --ignore-daemonsets` does: cordon it, then evict its pods through
// pods/eviction so PodDisruptionBudgets decide; a pod whose eviction a budget refuses (429) is shown as
// blocked with the server's reason, and can be tried again.
import { useMemo, useState } from 'react';
import type { KubeObject, ResourceRef } from '../../client/index.js';
import { toast } from '../components/Toasts.js';
import { useCollection } from '../data/informers.js';
import { cordonAction, drainablePods, evictPod, sendAction } from '../data/writes.js';

type Outcome = { state: 'pending' } | { state: 'evicting' } | { state: 'evicted' } | { state: 'blocked'; message: string } | { state: 'failed'; message: string };

export function DrainDialog({ node, objectRef, onClose }: { node: KubeObject; objectRef: ResourceRef; onClose(): void }) {
  const nodeName = node.metadata?.name ?? '';
  const pods = useCollection<KubeObject>({ group: '', version: 'v1', resource: 'pods', representation: 'object', fieldSelector: `spec.nodeName=${nodeName}` });
  const plan = useMemo(() => drainablePods(pods.data?.items ?? []),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [pods.data?.items, pods.data?.version]);
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const [running, setRunning] = useState(false);
  const [done, setDone] = useState(false);
  const key = (p: KubeObject) => `${p.metadata?.namespace}/${p.metadata?.name}`;
  const targets = done ? Object.keys(outcomes) : plan.evict.map(key);

  const drain = async (only?: KubeObject[]) => {
    setRunning(true);
    try {
      if (!(node as { spec?: { unschedulable?: boolean } }).spec?.unschedulable) await sendAction(cordonAction(objectRef, true), false);
      const list = only ?? plan.evict;
      setOutcomes((o) => ({ ...o, ...Object.fromEntries(list.map((p) => [key(p), { state: 'pending' } as Outcome])) }));
      let evicted = 0;
      let blocked = 0;
      for (const p of list) {
        setOutcomes((o) => ({ ...o, [key(p)]: { state: 'evicting' } }));
        const r = await evictPod(p);
        let out: Outcome;
        if (r.ok) {
          out = { state: 'evicted' };
          evicted++;
        } else if (r.code === 429) {
          out = { state: 'blocked', message: r.message };
          blocked++;
        } else if (r.code === 404) {
          out = { state: 'evicted' };
          evicted++;
        } else {
          out = { state: 'failed', message: r.message };
          blocked++;
        }
        setOutcomes((o) => ({ ...o, [key(p)]: out }));
      }
      setDone(true);
      toast(blocked ? 'bad' : 'ok', `Drain ${nodeName}: ${evicted} evicted${blocked ? `, ${blocked} blocked` : ''}`);
    } catch (e) {
      toast('bad', `Drain ${nodeName} failed: ${(e as Error)?.message ?? e}`);
    } finally {
      setRunning(false);
    }
  };
  const blockedPods = (pods.data?.items ?? []).filter((p) => ['blocked', 'failed'].includes(outcomes[key(p)]?.state ?? ''));
  const evictedCount = Object.values(outcomes).filter((o) => o.state === 'evicted').length;

  return (
    <div className="overlay" role="dialog" aria-modal="true" aria-label="Drain" onClick={() => !running && onClose()}>
      <div className="dialog wide" data-testid="drain-dialog" onClick={(e) => e.stopPropagation()}>
        <h3>Drain node {nodeName}</h3>
        <p className="muted small">
          Cordons the node, then evicts its pods one by one through the Eviction API: PodDisruptionBudgets can refuse. DaemonSet pods and mirror pods stay.
        </p>
        {done && (
          <div className="banner" data-testid="drain-progress">
            {evictedCount} of {targets.length} evicted{blockedPods.length ? `, ${blockedPods.length} blocked` : ''}
          </div>
        )}
        <table className="simple" data-testid="drain-pods">
          <thead>
            <tr>
              <th>Pod</th>
              <th>Outcome</th>
            </tr>
          </thead>
          <tbody>
            {plan.evict.map((p) => {
              const o = outcomes[key(p)];
              return (
                <tr key={key(p)} data-testid="drain-pod" data-state={o?.state ?? 'planned'}>
                  <td>{key(p)}</td>
                  <td className="wrap">{!o ? <span className="muted">to evict</span> : o.state === 'blocked' || o.state === 'failed' ? <span className="bad">{o.state}: {o.message}</span> : o.state}</td>
                </tr>
              );
            })}
            {Object.keys(outcomes)
              .filter((k) => !plan.evict.some((p) => key(p) === k))
              .map((k) => (
                <tr key={k} data-testid="drain-pod" data-state={outcomes[k]!.state}>
                  <td>{k}</td>
                  <td>{outcomes[k]!.state}</td>
                </tr>
              ))}
            {plan.skipped.map(({ pod, why }) => (
              <tr key={key(pod)} className="muted">
                <td>{key(pod)}</td>
                <td>stays ({why})</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="dialog-actions">
          <button className="btn" onClick={onClose} disabled={running}>
            Close
          </button>
          {done && blockedPods.length > 0 && (
            <button className="btn" onClick={() => void drain(blockedPods)} disabled={running} data-testid="drain-retry">
              Try the blocked again
            </button>
          )}
          {!done && (
            <button className="btn primary danger" onClick={() => void drain()} disabled={running || !pods.data} data-testid="drain-confirm">
              {running ? 'Draining…' : `Confirm: cordon and evict ${plan.evict.length} pod${plan.evict.length === 1 ? '' : 's'}`}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
