// HorizontalPodAutoscaler controller, as upstream's (pkg/controller/podautoscaler horizontal.go and
// replica_calculator.go): Resource and ContainerResource metrics (Utilization and AverageValue) read from what the
// simulated kubelets measure — the numbers metrics.k8s.io serves (sim/usage.ts) — with upstream's tolerance (0.1),
// ready/unready/missing pod handling (CPU initialization period 5m, initial readiness delay 30s), the scale-up
// limit without behavior (max(2×, 4)), spec.behavior's policies and stabilization windows (scale-down 300s unless
// the HPA's behavior says otherwise), conditions AbleToScale / ScalingActive / ScalingLimited and the events
// SuccessfulRescale, FailedGet*Metric, FailedComputeMetricsReplicas. Without simulated nodes the server serves no
// metrics.k8s.io and the controller reports what upstream reports without a metrics server. Pods, Object and
// External metrics need a custom or external metrics API, which is not served: they are reported as invalid.
// Re-checks every --horizontal-pod-autoscaler-sync-period (15s). Acts once autoscaling/v2 is served.
import { formatNanos, quantityNanos } from '../registry/schema/quantity.js';
import { nowTimestamp } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import { selectorMatches } from '../registry/builtin-helpers.js';
import { METRICS_GROUP } from '../registry/builtin-metrics.js';
import { isSimulatedNode } from '../sim/nodes.js';
import { METRICS_WINDOW_S, podUsage } from '../sim/usage.js';
import { condition, intOr, setCondition, spec, status } from './pod-util.js';
import { Reconciler, splitKey, type ClusterContext } from './reconciler.js';

type Obj = Record<string, any>;

const HPA_KIND = 'autoscaling/horizontalpodautoscalers';
export const DEFAULT_HPA_SYNC_PERIOD_MS = 15_000;
/** kube-controller-manager's HPA defaults. */
const TOLERANCE = 0.1;
const DOWNSCALE_STABILIZATION_S = 300;
const CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000;
const DELAY_OF_INITIAL_READINESS_STATUS_MS = 30_000;
const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

const TARGETS: Record<string, [string, string]> = {
  Deployment: ['apps', 'deployments'],
  ReplicaSet: ['apps', 'replicasets'],
  StatefulSet: ['apps', 'statefulsets'],
  ReplicationController: ['', 'replicationcontrollers'],
};

interface PodMetric {
  /** milli-units (MilliValue): millicores, or millibytes */
  value: number;
  timestamp: number;
  windowMs: number;
}

interface Rules {
  stabilizationWindowSeconds: number;
  selectPolicy: string;
  policies: { type: string; value: number; periodSeconds: number }[];
}

interface Cond {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** An error of the replica computation, with the condition it sets (upstream's getUnableComputeReplicaCountCondition). */
class MetricError extends Error {
  constructor(
    message: string,
    readonly reason: string,
    readonly conditionMessage: string,
  ) {
    super(message);
  }
}

/** autoscaling/v2 SetDefaults_HorizontalPodAutoscalerBehavior (GenerateHPAScaleUpRules / GenerateHPAScaleDownRules). */
function behaviorRules(b: Obj): { up: Rules; down: Rules } {
  const fill = (r: Obj | undefined, window: number, policies: Rules['policies']): Rules => ({
    stabilizationWindowSeconds: typeof r?.stabilizationWindowSeconds === 'number' ? r.stabilizationWindowSeconds : window,
    selectPolicy: typeof r?.selectPolicy === 'string' ? r.selectPolicy : 'Max',
    policies: Array.isArray(r?.policies) ? r.policies : policies,
  });
  return {
    up: fill(b.scaleUp, 0, [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ]),
    // a scale-down rule without a window gets the controller's --horizontal-pod-autoscaler-downscale-stabilization
    down: fill(b.scaleDown, DOWNSCALE_STABILIZATION_S, [{ type: 'Percent', value: 100, periodSeconds: 15 }]),
  };
}

/** The label selector of a scale target (Scale.status.selector). */
function targetSelector(kind: string, obj: KubeObject): Obj | undefined {
  const sel = spec(obj).selector;
  if (!sel || typeof sel !== 'object') return undefined;
  return kind === 'ReplicationController' ? { matchLabels: sel } : sel;
}

function quantityFromMilli(milli: number): string {
  return formatNanos(BigInt(Math.round(milli)) * 1_000_000n);
}

export class HpaController extends Reconciler {
  private timer?: NodeJS.Timeout;
  private recommendations = new Map<string, { replicas: number; at: number }[]>();
  private scaleUpEvents = new Map<string, { change: number; at: number; outdated: boolean }[]>();
  private scaleDownEvents = new Map<string, { change: number; at: number; outdated: boolean }[]>();

  constructor(ctx: ClusterContext, syncPeriodMs = DEFAULT_HPA_SYNC_PERIOD_MS) {
    super('horizontal-pod-autoscaler-controller', ctx);
    ctx.cache.on(HPA_KIND, ({ type, obj }) => {
      if (type === 'put') this.enqueue(obj.metadata?.namespace, obj.metadata?.name);
    });
    this.timer = setInterval(() => {
      for (const h of ctx.cache.list(HPA_KIND)) this.enqueue(h.metadata?.namespace, h.metadata?.name);
    }, syncPeriodMs);
    this.timer.unref();
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const hpa = this.ctx.cache.get(HPA_KIND, ns, name);
    if (!hpa || hpa.metadata?.deletionTimestamp) {
      this.recommendations.delete(key);
      this.scaleUpEvents.delete(key);
      this.scaleDownEvents.delete(key);
      return;
    }
    if (!this.ctx.writer.has('autoscaling', 'horizontalpodautoscalers')) return;
    const ref: Obj = spec(hpa).scaleTargetRef ?? {};
    const target = TARGETS[ref.kind as string];
    const obj = target ? this.ctx.cache.get(`${target[0] || 'core'}/${target[1]}`, ns, ref.name) : undefined;
    const nowMs = this.ctx.now();
    const now = nowTimestamp();
    const min = intOr(spec(hpa).minReplicas, 1);
    const max = intOr(spec(hpa).maxReplicas, min);
    let conds: Obj[] | undefined = status(hpa).conditions;
    const set = (c: Cond) => {
      conds = setCondition(conds, c, now);
    };
    let current = 0;
    let desired = 0;
    let currentMetrics: Obj[] | undefined = status(hpa).currentMetrics;
    let rescaled = false;
    if (!obj) {
      const message = `the HPA controller was unable to get the target's current scale: ${target ? `${target[1]}/scale.${target[0] || 'core'} "${ref.name}" not found` : `no matches for kind "${ref.kind}" in group "${String(ref.apiVersion ?? '').split('/')[0]}"`}`;
      set({ type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message });
      this.ctx.events.event(hpa, 'Warning', 'FailedGetScale', message.replace("the HPA controller was unable to get the target's current scale: ", ''));
    } else {
      current = intOr(spec(obj).replicas, 1);
      set({ type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: "the HPA controller was able to get the target's current scale" });
      if (!this.recommendations.has(key)) this.recommendations.set(key, [{ replicas: current, at: nowMs }]);
      let rescaleReason = '';
      let rescale = true;
      if (current === 0 && min !== 0) {
        desired = 0;
        rescale = false;
        set({ type: 'ScalingActive', status: 'False', reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero' });
      } else if (current > max) {
        rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
        desired = max;
      } else if (current < min) {
        rescaleReason = 'Current number of replicas below Spec.MinReplicas';
        desired = min;
      } else {
        const computed = this.computeReplicasForMetrics(hpa, obj, ref.kind as string, current, nowMs, set);
        if ('error' in computed) {
          // upstream records the current replicas, keeps its desired count, and warns
          this.ctx.events.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error);
          await this.writeStatus(hpa, { currentReplicas: current, desiredReplicas: status(hpa).desiredReplicas ?? 0, conditions: conds, currentMetrics: computed.statuses }, false, now);
          return;
        }
        currentMetrics = computed.statuses;
        desired = computed.replicas;
        if (desired > current) rescaleReason = `${computed.metric} above target`;
        if (desired < current) rescaleReason = 'All metrics below target';
        const b = spec(hpa).behavior;
        desired = b && typeof b === 'object' ? this.normalizeWithBehaviors(key, b as Obj, current, desired, min, max, nowMs, set) : this.normalize(key, current, desired, min, max, nowMs, set);
        rescale = desired !== current;
      }
      if (rescale && target) {
        const scaled = await this.ctx.writer.mutate(target[0], target[1], ns, ref.name, (o) => {
          (o['spec'] as Obj).replicas = desired;
          return true;
        }, { uid: obj.metadata!.uid, viaScale: true });
        if (scaled) {
          rescaled = true;
          set({ type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: `the HPA controller was able to update the target scale to ${desired}` });
          this.ctx.events.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${rescaleReason}`);
          this.storeScaleEvent(key, spec(hpa).behavior, current, desired, nowMs);
        }
      } else desired = current;
    }
    await this.writeStatus(hpa, { currentReplicas: current, desiredReplicas: desired, conditions: conds, currentMetrics }, rescaled, now);
  }

  private async writeStatus(hpa: KubeObject, next: Obj, rescaled: boolean, now: string): Promise<void> {
    await this.ctx.writer.mutate('autoscaling', 'horizontalpodautoscalers', hpa.metadata!.namespace, hpa.metadata!.name!, (o) => {
      const cur: Obj = (o['status'] as Obj) ?? {};
      const out: Obj = { ...cur, ...next };
      if (out.currentMetrics === undefined || (Array.isArray(out.currentMetrics) && out.currentMetrics.length === 0)) delete out.currentMetrics;
      if (rescaled) out.lastScaleTime = now;
      if (JSON.stringify(out) === JSON.stringify(cur)) return false;
      o['status'] = out;
      return true;
    }, { subresource: 'status', uid: hpa.metadata!.uid });
  }

  /** upstream computeReplicasForMetrics: the largest proposal of the valid metrics, or the first invalid one's error. */
  private computeReplicasForMetrics(hpa: KubeObject, target: KubeObject, kind: string, current: number, nowMs: number, set: (c: Cond) => void): { replicas: number; metric: string; statuses: Obj[] } | { error: string; statuses: Obj[] } {
    const selector = targetSelector(kind, target);
    if (!selector) {
      this.ctx.events.event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
      set({ type: 'ScalingActive', status: 'False', reason: 'InvalidSelector', message: "the HPA target's scale is missing a selector" });
      return { error: 'selector is required', statuses: [] };
    }
    const specs: Obj[] = (spec(hpa).metrics as Obj[] | undefined) ?? [];
    const statuses: Obj[] = [];
    let replicas = 0;
    let metric = '';
    let invalid = 0;
    let first: MetricError | undefined;
    for (const m of specs) {
      try {
        const r = this.computeReplicasForMetric(hpa, m, selector, current, nowMs);
        statuses.push(r.status);
        if (replicas === 0 || r.replicas > replicas) {
          replicas = r.replicas;
          metric = r.metric;
        }
      } catch (e) {
        if (!(e instanceof MetricError)) throw e;
        statuses.push({});
        this.ctx.events.event(hpa, 'Warning', e.reason, e.conditionMessage);
        if (invalid++ === 0) first = e;
      }
    }
    const valid = statuses.filter((s) => Object.keys(s).length > 0);
    if (invalid >= specs.length) {
      if (first) set({ type: 'ScalingActive', status: 'False', reason: first.reason, message: `the HPA was unable to compute the replica count: ${first.conditionMessage}` });
      return { error: `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${first?.message ?? 'no metrics'}`, statuses: valid };
    }
    set({ type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: `the HPA was able to successfully calculate a replica count from ${metric}` });
    return { replicas, metric, statuses: valid };
  }

  private computeReplicasForMetric(hpa: KubeObject, m: Obj, selector: Obj, current: number, nowMs: number): { replicas: number; metric: string; status: Obj } {
    if (m.type === 'Resource' || m.type === 'ContainerResource') {
      const src: Obj = (m.type === 'Resource' ? m.resource : m.containerResource) ?? {};
      const resource = String(src.name ?? '');
      const container = m.type === 'ContainerResource' ? String(src.container ?? '') : '';
      const reason = m.type === 'Resource' ? 'FailedGetResourceMetric' : 'FailedGetContainerResourceMetric';
      const t: Obj = src.target ?? {};
      const statusKey = m.type === 'Resource' ? 'resource' : 'containerResource';
      const ident = container ? { name: resource, container } : { name: resource };
      if (t.averageValue !== undefined) {
        const targetMilli = milliOf(t.averageValue);
        const r = this.rawResourceReplicas(hpa, current, targetMilli, resource, container, selector, nowMs, reason);
        return { replicas: r.replicas, metric: `${resource} resource`, status: { type: m.type, [statusKey]: { ...ident, current: { averageValue: quantityFromMilli(r.raw) } } } };
      }
      if (typeof t.averageUtilization !== 'number') {
        const msg = 'invalid resource metric source: neither a utilization target nor a value target was set';
        throw new MetricError(msg, reason, msg);
      }
      const r = this.resourceReplicas(hpa, current, t.averageUtilization, resource, container, selector, nowMs, reason);
      return {
        replicas: r.replicas,
        metric: container ? `${resource} container resource utilization (percentage of request)` : `${resource} resource utilization (percentage of request)`,
        status: { type: m.type, [statusKey]: { ...ident, current: { averageUtilization: r.utilization, averageValue: quantityFromMilli(r.raw) } } },
      };
    }
    const kind = m.type === 'Pods' ? 'Pods' : m.type === 'Object' ? 'Object' : m.type === 'External' ? 'External' : undefined;
    if (!kind) {
      const msg = `unknown metric source type "${String(m.type ?? '')}"`;
      throw new MetricError(msg, 'InvalidMetricSourceType', msg);
    }
    const metricName = m.pods?.metric?.name ?? m.object?.metric?.name ?? m.external?.metric?.name ?? '';
    const msg = `unable to get metric ${metricName}: no custom or external metrics API is served`;
    throw new MetricError(msg, `FailedGet${kind}Metric`, msg);
  }

  /** The metrics of the selected pods, as metrics.k8s.io lists them (rest_metrics_client GetResourceMetric). */
  private podMetrics(ns: string | undefined, selector: Obj, resource: string, container: string, nowMs: number, reason: string, failure: string): { pods: KubeObject[]; metrics: Map<string, PodMetric> } {
    const fail = (detail: string): never => {
      throw new MetricError(`${failure}: ${detail}`, reason, `${failure}: ${detail}`);
    };
    if (!this.ctx.writer.has(METRICS_GROUP, 'pods'))
      fail(`unable to get metrics for resource ${resource}: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)`);
    const pods = this.ctx.cache.list('core/pods', ns).filter((p) => selectorMatches(selector, p.metadata?.labels ?? {}));
    const metrics = new Map<string, PodMetric>();
    const ts = Math.floor(nowMs / 1000) * 1000;
    let listed = 0;
    for (const p of pods) {
      const node = this.ctx.cache.get('core/nodes', undefined, String(spec(p).nodeName ?? ''));
      const usage = podUsage(p, node, isSimulatedNode(node), nowMs);
      if (!usage) continue;
      listed++;
      const picked = container ? usage.filter((c) => c.name === container) : usage;
      if (container && picked.length === 0) continue;
      let value = 0;
      for (const c of picked) value += resource === 'cpu' ? Math.ceil(c.cpu / 1e6) : resource === 'memory' ? c.memory * 1000 : NaN;
      if (!Number.isFinite(value)) continue; // a resource the kubelets do not measure: a missing metric
      metrics.set(p.metadata!.name!, { value, timestamp: ts, windowMs: METRICS_WINDOW_S * 1000 });
    }
    if (listed === 0) fail(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
    return { pods, metrics };
  }

  /** upstream ReplicaCalculator.GetResourceReplicas. */
  private resourceReplicas(hpa: KubeObject, current: number, targetUtilization: number, resource: string, container: string, selector: Obj, nowMs: number, reason: string): { replicas: number; utilization: number; raw: number } {
    const failure = `failed to get ${resource} utilization`;
    const fail = (detail: string): never => {
      throw new MetricError(`${failure}: ${detail}`, reason, `${failure}: ${detail}`);
    };
    const { pods, metrics } = this.podMetrics(hpa.metadata?.namespace, selector, resource, container, nowMs, reason, failure);
    if (pods.length === 0) fail('no pods returned by selector while calculating replica count');
    const { ready, ignored, missing } = groupPods(pods, metrics, resource, nowMs);
    for (const n of ignored) metrics.delete(n);
    const requests = new Map<string, number>();
    for (const p of pods) {
      const r = podRequest(p, resource, container);
      if (typeof r === 'string') fail(r);
      requests.set(p.metadata!.name!, r as number);
    }
    if (metrics.size === 0) fail('did not receive metrics for any ready pods');
    const first = utilizationRatio(metrics, requests, targetUtilization);
    if (!first) return fail('no metrics returned matched known pods');
    const rebalanceIgnored = ignored.size > 0 && first.ratio > 1;
    if (!rebalanceIgnored && missing.size === 0) {
      if (Math.abs(1 - first.ratio) <= TOLERANCE) return { replicas: current, utilization: first.utilization, raw: first.raw };
      return { replicas: Math.ceil(first.ratio * ready), utilization: first.utilization, raw: first.raw };
    }
    if (missing.size > 0) {
      // on a scale-down missing pods count as using 100% of their request, on a scale-up as 0%
      if (first.ratio < 1) for (const n of missing) metrics.set(n, { value: requests.get(n) ?? 0, timestamp: 0, windowMs: 0 });
      else if (first.ratio > 1) for (const n of missing) metrics.set(n, { value: 0, timestamp: 0, windowMs: 0 });
    }
    if (rebalanceIgnored) for (const n of ignored) metrics.set(n, { value: 0, timestamp: 0, windowMs: 0 });
    const next = utilizationRatio(metrics, requests, targetUtilization)!;
    if (Math.abs(1 - next.ratio) <= TOLERANCE || (first.ratio < 1 && next.ratio > 1) || (first.ratio > 1 && next.ratio < 1))
      return { replicas: current, utilization: first.utilization, raw: first.raw };
    const replicas = Math.ceil(next.ratio * metrics.size);
    if ((next.ratio < 1 && replicas > current) || (next.ratio > 1 && replicas < current)) return { replicas: current, utilization: first.utilization, raw: first.raw };
    return { replicas, utilization: first.utilization, raw: first.raw };
  }

  /** upstream GetRawResourceReplicas (calcPlainMetricReplicas on the resource's average value). */
  private rawResourceReplicas(hpa: KubeObject, current: number, targetMilli: number, resource: string, container: string, selector: Obj, nowMs: number, reason: string): { replicas: number; raw: number } {
    const failure = `failed to get ${resource} utilization`;
    const fail = (detail: string): never => {
      throw new MetricError(`${failure}: ${detail}`, reason, `${failure}: ${detail}`);
    };
    const { pods, metrics } = this.podMetrics(hpa.metadata?.namespace, selector, resource, container, nowMs, reason, failure);
    if (pods.length === 0) fail('no pods returned by selector while calculating replica count');
    const { ready, ignored, missing } = groupPods(pods, metrics, resource, nowMs);
    for (const n of ignored) metrics.delete(n);
    if (metrics.size === 0) fail('did not receive metrics for any ready pods');
    const average = (m: Map<string, PodMetric>) => {
      let sum = 0;
      for (const v of m.values()) sum += v.value;
      return { ratio: sum / m.size / targetMilli, raw: Math.floor(sum / m.size) };
    };
    const first = average(metrics);
    const rebalanceIgnored = ignored.size > 0 && first.ratio > 1;
    if (!rebalanceIgnored && missing.size === 0) {
      if (Math.abs(1 - first.ratio) <= TOLERANCE) return { replicas: current, raw: first.raw };
      return { replicas: Math.ceil(first.ratio * ready), raw: first.raw };
    }
    if (missing.size > 0) for (const n of missing) metrics.set(n, { value: first.ratio < 1 ? targetMilli : 0, timestamp: 0, windowMs: 0 });
    if (rebalanceIgnored) for (const n of ignored) metrics.set(n, { value: 0, timestamp: 0, windowMs: 0 });
    const next = average(metrics);
    if (Math.abs(1 - next.ratio) <= TOLERANCE || (first.ratio < 1 && next.ratio > 1) || (first.ratio > 1 && next.ratio < 1)) return { replicas: current, raw: first.raw };
    return { replicas: Math.ceil(next.ratio * metrics.size), raw: first.raw };
  }

  /** upstream normalizeDesiredReplicas (no spec.behavior): the scale-down stabilization window and max(2×, 4) up. */
  private normalize(key: string, current: number, proposed: number, min: number, max: number, nowMs: number, set: (c: Cond) => void): number {
    const recs = this.recommendations.get(key) ?? [];
    const cutoff = nowMs - DOWNSCALE_STABILIZATION_S * 1000;
    let stabilized = proposed;
    let oldIndex = -1;
    recs.forEach((r, i) => {
      if (r.at < cutoff) oldIndex = i;
      else if (r.replicas > stabilized) stabilized = r.replicas;
    });
    if (oldIndex >= 0) recs[oldIndex] = { replicas: proposed, at: nowMs };
    else recs.push({ replicas: proposed, at: nowMs });
    this.recommendations.set(key, recs);
    if (stabilized !== proposed) set({ type: 'AbleToScale', status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
    else set({ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' });
    const scaleUpLimit = Math.floor(Math.max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM));
    let maxAllowed: number;
    let reason: string;
    let message: string;
    if (max > scaleUpLimit) {
      maxAllowed = scaleUpLimit;
      reason = 'ScaleUpLimit';
      message = 'the desired replica count is increasing faster than the maximum scale rate';
    } else {
      maxAllowed = max;
      reason = 'TooManyReplicas';
      message = 'the desired replica count is more than the maximum replica count';
    }
    let desired = stabilized;
    if (stabilized < min) {
      desired = min;
      reason = 'TooFewReplicas';
      message = 'the desired replica count is less than the minimum replica count';
    } else if (stabilized > maxAllowed) desired = maxAllowed;
    else {
      reason = 'DesiredWithinRange';
      message = 'the desired count is within the acceptable range';
    }
    set({ type: 'ScalingLimited', status: desired === stabilized ? 'False' : 'True', reason, message });
    return desired;
  }

  /** upstream normalizeDesiredReplicasWithBehaviors: stabilization windows, then the policies' rate limits. */
  private normalizeWithBehaviors(key: string, behavior: Obj, current: number, proposed: number, min: number, max: number, nowMs: number, set: (c: Cond) => void): number {
    const { up, down } = behaviorRules(behavior);
    // stabilizeRecommendationWithBehaviors
    const scalingUp = proposed >= current;
    const delay = scalingUp ? up.stabilizationWindowSeconds : down.stabilizationWindowSeconds;
    const better = scalingUp ? Math.min : Math.max;
    const obsoleteCutoff = nowMs - Math.max(up.stabilizationWindowSeconds, down.stabilizationWindowSeconds) * 1000;
    const cutoff = nowMs - delay * 1000;
    const recs = this.recommendations.get(key) ?? [];
    let stabilized = proposed;
    let oldIndex = -1;
    recs.forEach((r, i) => {
      if (r.at > cutoff) stabilized = better(r.replicas, stabilized);
      if (r.at < obsoleteCutoff) oldIndex = i;
    });
    if (oldIndex >= 0) recs[oldIndex] = { replicas: proposed, at: nowMs };
    else recs.push({ replicas: proposed, at: nowMs });
    this.recommendations.set(key, recs);
    if (stabilized !== proposed)
      set(
        scalingUp
          ? { type: 'AbleToScale', status: 'True', reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
          : { type: 'AbleToScale', status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' },
      );
    else set({ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' });
    // convertDesiredReplicasWithBehaviorRate
    let desired = stabilized;
    let reason = 'DesiredWithinRange';
    let message = 'the desired count is within the acceptable range';
    if (stabilized > current) {
      const limit = Math.max(scaleUpLimit(current, this.scaleUpEvents.get(key) ?? [], up, nowMs), current);
      let maxAllowed = max;
      if (maxAllowed > limit) {
        maxAllowed = limit;
        reason = 'ScaleUpLimit';
        message = 'the desired replica count is increasing faster than the maximum scale rate';
      } else {
        reason = 'TooManyReplicas';
        message = 'the desired replica count is more than the maximum replica count';
      }
      if (stabilized > maxAllowed) desired = maxAllowed;
      else {
        reason = 'DesiredWithinRange';
        message = 'the desired count is within the acceptable range';
      }
    } else if (stabilized < current) {
      const limit = Math.min(scaleDownLimit(current, this.scaleUpEvents.get(key) ?? [], this.scaleDownEvents.get(key) ?? [], down, nowMs), current);
      let minAllowed = min;
      if (minAllowed < limit) {
        minAllowed = limit;
        reason = 'ScaleDownLimit';
        message = 'the desired replica count is decreasing faster than the maximum scale rate';
      } else {
        reason = 'TooFewReplicas';
        message = 'the desired replica count is less than the minimum replica count';
      }
      if (stabilized < minAllowed) desired = minAllowed;
      else {
        reason = 'DesiredWithinRange';
        message = 'the desired count is within the acceptable range';
      }
    }
    set({ type: 'ScalingLimited', status: desired === stabilized ? 'False' : 'True', reason, message });
    return desired;
  }

  /** upstream storeScaleEvent: only HPAs with behavior keep them. */
  private storeScaleEvent(key: string, behavior: unknown, prev: number, next: number, nowMs: number): void {
    if (!behavior || typeof behavior !== 'object') return;
    const { up, down } = behaviorRules(behavior as Obj);
    const scalingUp = next > prev;
    const map = scalingUp ? this.scaleUpEvents : this.scaleDownEvents;
    const longest = Math.max(0, ...(scalingUp ? up : down).policies.map((p) => p.periodSeconds ?? 0));
    const events = map.get(key) ?? [];
    for (const e of events) if (e.at <= nowMs - longest * 1000) e.outdated = true;
    const idx = events.findIndex((e) => e.outdated);
    const ev = { change: Math.abs(next - prev), at: nowMs, outdated: false };
    if (idx >= 0) events[idx] = ev;
    else events.push(ev);
    map.set(key, events);
  }

  override async stop(): Promise<void> {
    clearInterval(this.timer);
    await super.stop();
  }
}

function changeInPeriod(periodSeconds: number, events: { change: number; at: number }[], nowMs: number): number {
  const cutoff = nowMs - periodSeconds * 1000;
  let n = 0;
  for (const e of events) if (e.at > cutoff) n += e.change;
  return n;
}

/** upstream calculateScaleUpLimitWithScalingRules. */
function scaleUpLimit(current: number, upEvents: { change: number; at: number }[], rules: Rules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pickMin = rules.selectPolicy === 'Min';
  let result = pickMin ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  for (const p of rules.policies) {
    const start = current - changeInPeriod(p.periodSeconds, upEvents, nowMs);
    const proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
    result = pickMin ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

/** upstream calculateScaleDownLimitWithBehaviors. */
function scaleDownLimit(current: number, upEvents: { change: number; at: number }[], downEvents: { change: number; at: number }[], rules: Rules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pickMin = rules.selectPolicy === 'Min';
  let result = pickMin ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  for (const p of rules.policies) {
    const start = current - changeInPeriod(p.periodSeconds, upEvents, nowMs) + changeInPeriod(p.periodSeconds, downEvents, nowMs);
    const proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
    result = pickMin ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}

/** upstream groupPods: ready pods, ignored ones (pending, or unready/just started for CPU) and those without metrics. */
function groupPods(pods: KubeObject[], metrics: Map<string, PodMetric>, resource: string, nowMs: number): { ready: number; ignored: Set<string>; missing: Set<string> } {
  const ignored = new Set<string>();
  const missing = new Set<string>();
  let ready = 0;
  for (const p of pods) {
    const name = p.metadata!.name!;
    const phase = status(p).phase;
    if (p.metadata?.deletionTimestamp || phase === 'Failed') continue;
    if (phase === 'Pending') {
      ignored.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const c = condition(p, 'Ready');
      const start = Date.parse(status(p).startTime ?? '');
      let ignore: boolean;
      if (!c || !Number.isFinite(start)) ignore = true;
      else {
        const lastTransition = Date.parse(c.lastTransitionTime ?? '') || 0;
        if (start + CPU_INITIALIZATION_PERIOD_MS > nowMs) ignore = c.status === 'False' || metric.timestamp < lastTransition + metric.windowMs;
        else ignore = c.status === 'False' && start + DELAY_OF_INITIAL_READINESS_STATUS_MS > lastTransition;
      }
      if (ignore) {
        ignored.add(name);
        continue;
      }
    }
    ready++;
  }
  return { ready, ignored, missing };
}

/** upstream calculateRequests: the pod's containers and sidecars (restartable init containers); an error text when one has none. */
function podRequest(p: KubeObject, resource: string, container: string): number | string {
  const s = spec(p);
  const containers: Obj[] = [...((s.containers as Obj[] | undefined) ?? []), ...((s.initContainers as Obj[] | undefined) ?? []).filter((c) => c?.restartPolicy === 'Always')];
  let sum = 0;
  for (const c of containers) {
    if (container && c.name !== container) continue;
    const q = c.resources?.requests?.[resource];
    const milli = q === undefined ? 0 : milliOf(q);
    if (!milli) return `missing request for ${resource} in container ${c.name} of Pod ${p.metadata?.name}`;
    sum += milli;
  }
  return sum;
}

/** A quantity's MilliValue (rounded up, as upstream); 0 when not a quantity. */
function milliOf(q: unknown): number {
  const n = quantityNanos(q);
  return n === undefined ? 0 : Number((n + 999_999n) / 1_000_000n);
}

/** upstream GetResourceUtilizationRatio over the pods with both a metric and a request. */
function utilizationRatio(metrics: Map<string, PodMetric>, requests: Map<string, number>, target: number): { ratio: number; utilization: number; raw: number } | undefined {
  let used = 0;
  let requested = 0;
  let n = 0;
  for (const [name, m] of metrics) {
    const r = requests.get(name);
    if (r === undefined) continue;
    used += m.value;
    requested += r;
    n++;
  }
  if (requested === 0) return undefined;
  const utilization = Math.trunc((used * 100) / requested);
  return { ratio: utilization / target, utilization, raw: Math.trunc(used / n) };
}
