// HorizontalPodAutoscaler controller, as upstream's without a metrics server (this cluster serves no
// metrics.k8s.io): keeps the target within minReplicas..maxReplicas, and otherwise reports what upstream reports
// when metrics are missing — AbleToScale (SucceededGetScale / FailedGetScale), ScalingActive=False with
// FailedGetResourceMetric, and the matching Warning events. Re-checks every 15s (upstream's sync period).
// Acts once autoscaling/v2 HorizontalPodAutoscaler is served.
import { nowTimestamp } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import { intOr, setCondition, spec, status } from './pod-util.js';
import { Reconciler, splitKey, type ClusterContext } from './reconciler.js';

type Obj = Record<string, any>;

const HPA_KIND = 'autoscaling/horizontalpodautoscalers';
const SYNC_PERIOD_MS = 15_000;
const TARGETS: Record<string, [string, string]> = {
  Deployment: ['apps', 'deployments'],
  ReplicaSet: ['apps', 'replicasets'],
  StatefulSet: ['apps', 'statefulsets'],
  ReplicationController: ['', 'replicationcontrollers'],
};

/** The first metric's "unable to get metrics" message, as upstream words it for each metric source type. */
function metricFailure(hpa: KubeObject): { reason: string; message: string } {
  const m: Obj = (spec(hpa).metrics as Obj[] | undefined)?.[0] ?? { type: 'Resource', resource: { name: 'cpu' } };
  if (m.type === 'Resource' || m.type === 'ContainerResource') {
    const r = m.resource?.name ?? m.containerResource?.name ?? 'cpu';
    const what = r === 'cpu' ? 'cpu utilization' : `${r} utilization`;
    return {
      reason: 'FailedGetResourceMetric',
      message: `failed to get ${what}: unable to get metrics for resource ${r}: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)`,
    };
  }
  const kind = m.type === 'Pods' ? 'Pods' : m.type === 'Object' ? 'Object' : 'External';
  return { reason: `FailedGet${kind}Metric`, message: `unable to get metric ${m.pods?.metric?.name ?? m.object?.metric?.name ?? m.external?.metric?.name ?? ''}: no custom or external metrics API is served` };
}

export class HpaController extends Reconciler {
  private timer?: NodeJS.Timeout;

  constructor(ctx: ClusterContext) {
    super('horizontal-pod-autoscaler-controller', ctx);
    ctx.cache.on(HPA_KIND, ({ type, obj }) => {
      if (type === 'put') this.enqueue(obj.metadata?.namespace, obj.metadata?.name);
    });
    this.timer = setInterval(() => {
      for (const h of ctx.cache.list(HPA_KIND)) this.enqueue(h.metadata?.namespace, h.metadata?.name);
    }, SYNC_PERIOD_MS);
    this.timer.unref();
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const hpa = this.ctx.cache.get(HPA_KIND, ns, name);
    if (!hpa || hpa.metadata?.deletionTimestamp || !this.ctx.writer.has('autoscaling', 'horizontalpodautoscalers')) return;
    const ref: Obj = spec(hpa).scaleTargetRef ?? {};
    const target = TARGETS[ref.kind as string];
    const obj = target ? this.ctx.cache.get(`${target[0] || 'core'}/${target[1]}`, ns, ref.name) : undefined;
    const now = nowTimestamp();
    const min = intOr(spec(hpa).minReplicas, 1);
    const max = intOr(spec(hpa).maxReplicas, min);
    let conds: Obj[] | undefined = status(hpa).conditions;
    let current = 0;
    let desired = 0;
    if (!obj) {
      const message = `the HPA controller was unable to get the target's current scale: ${target ? `${target[1]}/scale.${target[0] || 'core'} "${ref.name}" not found` : `no matches for kind "${ref.kind}" in group "${String(ref.apiVersion ?? '').split('/')[0]}"`}`;
      conds = setCondition(conds, { type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message }, now);
      this.ctx.events.event(hpa, 'Warning', 'FailedGetScale', message.replace("the HPA controller was unable to get the target's current scale: ", ''));
    } else {
      current = intOr(spec(obj).replicas, 1);
      desired = current;
      conds = setCondition(conds, { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: "the HPA controller was able to get the target's current scale" }, now);
      let rescale: string | undefined;
      if (current === 0 && min !== 0) {
        conds = setCondition(conds, { type: 'ScalingActive', status: 'False', reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero' }, now);
      } else if (current > max) {
        desired = max;
        rescale = 'Current number of replicas above Spec.MaxReplicas';
        conds = setCondition(conds, { type: 'ScalingLimited', status: 'True', reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' }, now);
      } else if (current < min) {
        desired = min;
        rescale = 'Current number of replicas below Spec.MinReplicas';
        conds = setCondition(conds, { type: 'ScalingLimited', status: 'True', reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' }, now);
      } else {
        // no metrics API here: upstream's answer when metrics-server is missing
        const f = metricFailure(hpa);
        conds = setCondition(conds, { type: 'ScalingActive', status: 'False', reason: f.reason, message: `the HPA was unable to compute the replica count: ${f.message}` }, now);
        this.ctx.events.event(hpa, 'Warning', f.reason, f.message);
        this.ctx.events.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', `invalid metrics (1 invalid out of 1), first error is: ${f.message}`);
        desired = status(hpa).desiredReplicas ?? 0;
      }
      if (rescale && target) {
        const scaled = await this.ctx.writer.mutate(target[0], target[1], ns, ref.name, (o) => {
          (o['spec'] as Obj).replicas = desired;
          return true;
        }, { uid: obj.metadata!.uid });
        if (scaled) this.ctx.events.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${rescale}`);
      }
    }
    await this.ctx.writer.mutate('autoscaling', 'horizontalpodautoscalers', ns, name, (o) => {
      const cur: Obj = (o['status'] as Obj) ?? {};
      const next: Obj = { ...cur, currentReplicas: current, desiredReplicas: desired, conditions: conds };
      if (desired !== (cur.desiredReplicas ?? 0)) next.lastScaleTime = now;
      if (JSON.stringify(next) === JSON.stringify(cur)) return false;
      o['status'] = next;
      return true;
    }, { subresource: 'status', uid: hpa.metadata!.uid });
  }

  override async stop(): Promise<void> {
    clearInterval(this.timer);
    await super.stop();
  }
}
