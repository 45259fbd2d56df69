// A small kube-scheduler: assigns pending pods (schedulerName default-scheduler) to ready, schedulable nodes that
// fit their resource requests, nodeSelector, required node affinity and taints, preferring the least allocated
// node; pods that fit nowhere get PodScheduled=False reason Unschedulable and a FailedScheduling event with
// upstream's "0/N nodes are available: ..." message, and are retried when nodes or pods change.
import { parseQuantity } from '../registry/schema/quantity.js';
import { nowTimestamp } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import type { ControllerClient } from './client.js';
import type { EventRecorder } from './event-recorder.js';
import { condition, isPodActive, setCondition, spec, status } from './pod-util.js';
import { Reconciler, splitKey, type ClusterContext } from './reconciler.js';

type Obj = Record<string, any>;

const qty = (v: unknown): number => {
  try {
    return v === undefined ? 0 : parseQuantity(String(v));
  } catch {
    return 0;
  }
};

/** Sum of container requests, or of the largest init container when larger (upstream's effective request). */
export function podRequests(p: KubeObject): { cpu: number; memory: number } {
  const sum = { cpu: 0, memory: 0 };
  for (const c of (spec(p).containers as Obj[] | undefined) ?? []) {
    const r = c.resources?.requests ?? c.resources?.limits ?? {};
    sum.cpu += qty(r.cpu);
    sum.memory += qty(r.memory);
  }
  for (const c of (spec(p).initContainers as Obj[] | undefined) ?? []) {
    const r = c.resources?.requests ?? {};
    sum.cpu = Math.max(sum.cpu, qty(r.cpu));
    sum.memory = Math.max(sum.memory, qty(r.memory));
  }
  return sum;
}

function tolerates(p: KubeObject, taint: Obj): boolean {
  return ((spec(p).tolerations as Obj[] | undefined) ?? []).some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

function matchExpr(labels: Record<string, string>, e: Obj): boolean {
  const v = labels[e.key];
  switch (e.operator) {
    case 'In':
      return v !== undefined && (e.values ?? []).includes(v);
    case 'NotIn':
      return v === undefined || !(e.values ?? []).includes(v);
    case 'Exists':
      return v !== undefined;
    case 'DoesNotExist':
      return v === undefined;
    case 'Gt':
      return v !== undefined && Number(v) > Number(e.values?.[0]);
    case 'Lt':
      return v !== undefined && Number(v) < Number(e.values?.[0]);
    default:
      return false;
  }
}

/** Why a node does not fit the pod (upstream's filter plugin messages), or undefined when it fits. */
export function unfit(p: KubeObject, node: KubeObject, used: { cpu: number; memory: number; pods: number }): string | undefined {
  if (spec(node).unschedulable) return 'node(s) were unschedulable';
  if (condition(node, 'Ready')?.status !== 'True') return 'node(s) had untolerated taint {node.kubernetes.io/not-ready: }';
  for (const t of (spec(node).taints as Obj[] | undefined) ?? [])
    if ((t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerates(p, t)) return `node(s) had untolerated taint {${t.key}: ${t.value ?? ''}}`;
  const labels: Record<string, string> = node.metadata?.labels ?? {};
  const sel: Record<string, string> = spec(p).nodeSelector ?? {};
  const terms: Obj[] | undefined = spec(p).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const fields = { 'metadata.name': node.metadata!.name! };
  const termMatches = (t: Obj) => (t.matchExpressions ?? []).every((e: Obj) => matchExpr(labels, e)) && (t.matchFields ?? []).every((e: Obj) => matchExpr(fields, e));
  if (Object.entries(sel).some(([k, v]) => labels[k] !== v) || (terms && terms.length > 0 && !terms.some(termMatches)))
    return "node(s) didn't match Pod's node affinity/selector";
  const alloc: Obj = status(node).allocatable ?? {};
  const req = podRequests(p);
  if (used.pods + 1 > (qty(alloc.pods) || 110)) return 'Too many pods';
  if (alloc.cpu !== undefined && req.cpu > 0 && used.cpu + req.cpu > qty(alloc.cpu)) return 'Insufficient cpu';
  if (alloc.memory !== undefined && req.memory > 0 && used.memory + req.memory > qty(alloc.memory)) return 'Insufficient memory';
  return undefined;
}

export class Scheduler extends Reconciler {
  /** node name → requests of the pods bound to it (kept from the pod informer). */
  private usage = new Map<string, { cpu: number; memory: number; pods: number }>();
  private retry?: NodeJS.Timeout;
  /** namespace/name of the pods waiting as Unschedulable (retried when room appears). */
  private unschedulable = new Set<string>();
  /** Pods bound and counted before the informer has seen the binding (upstream's assumed pods). */
  private assumed = new Set<string>();

  constructor(
    ctx: ClusterContext,
    private writer: ControllerClient,
    private events: EventRecorder,
  ) {
    // one pod at a time, as upstream's scheduling cycle: each decision sees the room the previous one took
    super('kube-scheduler', ctx, 1);
    ctx.cache.on('core/nodes', () => this.retryUnschedulable());
    ctx.cache.on('core/pods', ({ type, obj, prev }) => {
      const key = `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
      if (type === 'put' && !spec(obj).nodeName && isPodActive(obj) && condition(obj, 'PodScheduled')?.reason === 'Unschedulable') this.unschedulable.add(key);
      else this.unschedulable.delete(key);
      if (prev) this.account(prev, -1);
      if (type === 'put' && !(spec(obj).nodeName && this.assumed.delete(obj.metadata!.uid!))) this.account(obj, +1);
      if (type === 'put' && !spec(obj).nodeName && isPodActive(obj) && (spec(obj).schedulerName ?? 'default-scheduler') === 'default-scheduler') this.enqueue(obj.metadata?.namespace, obj.metadata?.name);
      if (type === 'delete' || (prev && isPodActive(prev) && !isPodActive(obj))) this.retryUnschedulable();
    });
  }

  private account(p: KubeObject, sign: 1 | -1): void {
    const node = spec(p).nodeName as string | undefined;
    if (!node || !isPodActive(p)) return;
    const u = this.usage.get(node) ?? { cpu: 0, memory: 0, pods: 0 };
    const r = podRequests(p);
    u.cpu += sign * r.cpu;
    u.memory += sign * r.memory;
    u.pods += sign;
    this.usage.set(node, u);
  }

  /** Freed room or a new node: unschedulable pods are tried again (batched). */
  private retryUnschedulable(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      for (const key of this.unschedulable) this.queue.add(key);
    }, 200);
    this.retry.unref();
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const pod = this.ctx.cache.get('core/pods', ns, name);
    if (!pod || spec(pod).nodeName || !isPodActive(pod)) return;
    const nodes = this.ctx.cache.list('core/nodes');
    const reasons = new Map<string, number>();
    let best: { node: KubeObject; score: number } | undefined;
    for (const n of nodes) {
      const used = this.usage.get(n.metadata!.name!) ?? { cpu: 0, memory: 0, pods: 0 };
      const why = unfit(pod, n, used);
      if (why) {
        reasons.set(why, (reasons.get(why) ?? 0) + 1);
        continue;
      }
      // least allocated: fewest pods, then least cpu
      const alloc: Obj = status(n).allocatable ?? {};
      const score = used.pods / (qty(alloc.pods) || 110) + used.cpu / (qty(alloc.cpu) || 1);
      if (!best || score < best.score) best = { node: n, score };
    }
    if (!best) {
      const detail = [...reasons.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([r, n]) => `${n} ${r}`).join(', ');
      const message = `0/${nodes.length} nodes are available${detail ? ': ' + detail : ''}. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`;
      const now = nowTimestamp();
      await this.writer.mutate('', 'pods', ns, name, (o) => {
        const st: Obj = ((o['status'] as Obj) ??= {});
        const old = condition(o, 'PodScheduled');
        if (old?.status === 'False' && old.message === message) return false;
        st.phase ??= 'Pending';
        st.conditions = setCondition(st.conditions, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }, now, { probe: true });
        return true;
      }, { subresource: 'status', uid: pod.metadata!.uid, patch: true });
      this.events.event(pod, 'Warning', 'FailedScheduling', message);
      return;
    }
    const nodeName = best.node.metadata!.name!;
    // pods/binding, as upstream's scheduler: nodeName and PodScheduled=True in one write
    const bound = await this.writer.bind(ns, name, pod.metadata!.uid!, nodeName);
    if (!bound) return;
    // counted now (the next pod in the queue must see the room taken) unless the informer already has
    if (!spec(this.ctx.cache.get('core/pods', ns, name)).nodeName) {
      this.assumed.add(bound.metadata!.uid!);
      this.account(bound, +1);
    }
    this.events.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${ns}/${name} to ${nodeName}`);
  }

  override async stop(): Promise<void> {
    clearTimeout(this.retry);
    await super.stop();
  }
}
