// One-click actions of an object's header, each through a dry-run diff and a confirm (ActionDialog):
// scale (HPA-aware), rollout restart, pause/resume on workloads; cordon/uncordon and drain on nodes.
// Disabled, with the reason, when the user may not patch the object.
import { useMemo, useState } from 'react';
import type { KubeObject, ResourceRef } from '../../client/index.js';
import { useCollection } from '../data/informers.js';
import type { Access } from '../data/permissions.js';
import { cordonAction, pauseAction, restartAction, scaleAction, type ActionRequest } from '../data/writes.js';
import { ActionDialog } from './ActionDialog.js';
import { DrainDialog } from './DrainDialog.js';

type Obj = Record<string, any>;

const SCALABLE = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController']);
const RESTARTABLE = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

export const hasActions = (kind: string | undefined) => !!kind && (SCALABLE.has(kind) || RESTARTABLE.has(kind) || kind === 'Node');
export const isScalable = (kind: string | undefined) => !!kind && SCALABLE.has(kind);

interface Hpa extends KubeObject {
  spec?: { scaleTargetRef?: { kind?: string; name?: string }; minReplicas?: number; maxReplicas?: number };
}

/** HorizontalPodAutoscalers whose target is this workload: they set its replicas. */
function useTargetingHpas(object: KubeObject): Hpa[] {
  const ns = object.metadata?.namespace;
  const hpas = useCollection<Hpa>(ns && isScalable(object.kind) ? { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', namespace: ns, representation: 'object' } : undefined);
  return useMemo(
    () => (hpas.data?.items ?? []).filter((h) => h.spec?.scaleTargetRef?.kind === object.kind && h.spec?.scaleTargetRef?.name === object.metadata?.name),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [hpas.data?.items, hpas.data?.version, object.kind, object.metadata?.name],
  );
}

export function ScalePrompt({ object, objectRef, onClose }: { object: KubeObject; objectRef: ResourceRef; onClose(): void }) {
  const currentReplicas = ((object as Obj).spec?.replicas ?? 1) as number;
  const [value, setValue] = useState(String(currentReplicas));
  const [request, setRequest] = useState<ActionRequest>();
  const hpas = useTargetingHpas(object);
  const hpaNote =
    hpas.length > 0 ? (
      <div className="banner banner-warn" data-testid="scale-hpa-warning">
        {hpas.map((h) => `HorizontalPodAutoscaler ${h.metadata?.name} (min ${h.spec?.minReplicas ?? 1}, max ${h.spec?.maxReplicas})`).join(', ')} sets the replicas of this {object.kind}: it will change them back
        to its own target.
      </div>
    ) : null;
  if (request)
    return (
      <ActionDialog request={request} current={object} onClose={onClose}>
        {hpaNote}
      </ActionDialog>
    );
  const n = Number(value);
  const valid = value.trim() !== '' && Number.isInteger(n) && n >= 0;
  return (
    <div className="overlay" role="dialog" aria-modal="true" aria-label="Scale" onClick={onClose} onKeyDown={(e) => e.key === 'Escape' && onClose()}>
      <form
        className="dialog"
        data-testid="scale-dialog"
        onClick={(e) => e.stopPropagation()}
        onSubmit={(e) => {
          e.preventDefault();
          if (valid) setRequest(scaleAction(objectRef, n));
        }}
      >
        <h3>
          Scale {object.kind} {object.metadata?.name}
        </h3>
        <p className="muted small">
          Now {currentReplicas} desired, {(object as Obj).status?.readyReplicas ?? 0} ready.
        </p>
        {hpaNote}
        <label>
          Replicas{' '}
          <input type="number" min={0} value={value} onChange={(e) => setValue(e.target.value)} autoFocus data-testid="scale-replicas" aria-label="Replicas" onFocus={(e) => e.currentTarget.select()} />
        </label>
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={!valid} data-testid="scale-review">
            Review (dry run)…
          </button>
        </div>
      </form>
    </div>
  );
}

export function ObjectActions({ object, objectRef, access, scaleOpen, setScaleOpen }: { object: KubeObject; objectRef: ResourceRef; access: Access; scaleOpen: boolean; setScaleOpen(v: boolean): void }) {
  const [request, setRequest] = useState<ActionRequest>();
  const [draining, setDraining] = useState(false);
  const name = object.metadata?.name;
  const cannot = access.can('patch', { name }) === false ? access.missing('patch', { name }) : undefined;
  const kind = object.kind;
  const spec = ((object as Obj).spec ?? {}) as Obj;
  const btn = (label: string, testid: string, onClick: () => void, title?: string) => (
    <button key={testid} className="btn small" data-testid={testid} disabled={!!cannot} title={cannot ?? title} onClick={onClick}>
      {label}
    </button>
  );
  const buttons = [];
  if (isScalable(kind)) buttons.push(btn('Scale…', 'action-scale', () => setScaleOpen(true), 'Scale (s)'));
  if (kind && RESTARTABLE.has(kind)) buttons.push(btn('Restart…', 'action-restart', () => setRequest(restartAction(objectRef))));
  if (kind === 'Deployment') buttons.push(spec.paused ? btn('Resume…', 'action-resume', () => setRequest(pauseAction(objectRef, false))) : btn('Pause…', 'action-pause', () => setRequest(pauseAction(objectRef, true))));
  if (kind === 'Node') {
    buttons.push(spec.unschedulable ? btn('Uncordon…', 'action-uncordon', () => setRequest(cordonAction(objectRef, false))) : btn('Cordon…', 'action-cordon', () => setRequest(cordonAction(objectRef, true))));
    buttons.push(btn('Drain…', 'action-drain', () => setDraining(true)));
  }
  if (!buttons.length) return null;
  return (
    <span className="actions-bar" data-testid="object-actions">
      {buttons}
      {request && <ActionDialog request={request} current={object} onClose={() => setRequest(undefined)} />}
      {scaleOpen && isScalable(kind) && <ScalePrompt object={object} objectRef={objectRef} onClose={() => setScaleOpen(false)} />}
      {draining && <DrainDialog node={object} objectRef={objectRef} onClose={() => setDraining(false)} />}
    </span>
  );
}
