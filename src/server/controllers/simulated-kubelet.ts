// The simulated kubelet of every simulated node: moves bound pods Pending → Running (pod and host IPs,
// containerStatuses with image IDs, started/ready, restartCount; conditions Initialized, ContainersReady, Ready,
// PodScheduled), honours readiness probes (ready after a delay), completes run-to-completion pods (restartPolicy
// Never/OnFailure, e.g. Job pods) after a run time, finishes graceful deletion, and fails pods of deleted nodes.
//
// The pod annotation `sim.periscope.dev/fail` makes its containers misbehave, so error states can be explored:
//   crash  — the container exits with code 1 after starting: CrashLoopBackOff with growing back-off (or Failed
//            for restartPolicy Never)
//   image  — the image cannot be pulled: ErrImagePull, then ImagePullBackOff; the pod stays Pending
//   exit   — run-to-completion pods exit with code 1 (phase Failed); other pods crash-loop as `crash`
//
// What the kubelet answers on its streaming side derives from the pod objects this writes: logs
// (sim/pod-logs.ts), exec/attach/port-forward (sim/container-runtime.ts), served by src/server/streaming.
import { createHash } from 'node:crypto';
import { nowTimestamp } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import type { ControllerClient } from './client.js';
import type { EventRecorder } from './event-recorder.js';
import { setCondition, spec, status } from './pod-util.js';
import { Reconciler, splitKey, type ClusterContext } from './reconciler.js';
import { isSimulatedNode } from './simulated-nodes.js';

type Obj = Record<string, any>;

/**
 * initContainerStatuses: a regular init container ran to completion before the pod started; a native sidecar
 * (restartPolicy: Always, 1.33 GA) keeps running, started and ready, beside the main containers, and is stopped
 * after them when a run-to-completion pod finishes (the kubelet's SIGTERM; a simulated sidecar exits cleanly).
 */
function initContainerStatuses(initContainers: Obj[], uid: string, phase: 'running' | 'finished', startedAt: string): Obj[] {
  return initContainers.map((c) => {
    const id = `containerd://${hex(uid + c.name)}`;
    const sidecar = c.restartPolicy === 'Always';
    const running = sidecar && phase === 'running';
    return {
      name: c.name, ...imageRef(c.image ?? ''), containerID: id, ready: running, started: running, restartCount: 0,
      state: running
        ? { running: { startedAt } }
        : { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: sidecar ? nowTimestamp() : startedAt, containerID: id } },
    };
  });
}

export const FAIL_ANNOTATION = 'sim.periscope.dev/fail';

export interface KubeletTimings {
  /** Bound → Running (image pull and container start). */
  startMs: number;
  /** Running → Ready for containers with a readiness probe. */
  readyMs: number;
  /** How long run-to-completion pods run before they succeed. */
  runMs: number;
  /** How long containers take to stop once a pod is deleted (capped by its grace period). */
  stopMs: number;
}

export const DEFAULT_KUBELET_TIMINGS: KubeletTimings = { startMs: 1000, readyMs: 2000, runMs: 5000, stopMs: 1000 };

/** Upstream's crash-loop back-off: 10s doubling up to 5 minutes; scaled here by startMs/1000. */
const backoffMs = (t: KubeletTimings, restarts: number) => Math.min(10_000 * 2 ** Math.max(0, restarts - 1), 300_000) * Math.max(t.startMs, 10) / 1000;

const hex = (s: string, n = 64) => createHash('sha256').update(s).digest('hex').slice(0, n);

function imageRef(image: string): { image: string; imageID: string } {
  const bare = image.includes('/') ? image : `docker.io/library/${image}`;
  const full = /:[^/]+$/.test(bare) || bare.includes('@') ? bare : `${bare}:latest`;
  return { image: full, imageID: `${full.replace(/:[^/:@]+$/, '').replace(/@.*$/, '')}@sha256:${hex(full)}` };
}

export class SimulatedKubelet extends Reconciler {
  /** pod uid → when the kubelet first saw it bound, and restarts so far. */
  private seen = new Map<string, { at: number; killing?: boolean }>();
  private ips = 0;

  constructor(
    ctx: ClusterContext,
    /** Node `node`'s kubelet client (system:node:<node>). */
    private clientFor: (node: string) => ControllerClient,
    private eventsFor: (node: string) => EventRecorder,
    /** Fails the pods of a node that is gone, as upstream's pod garbage collector does (its service account). */
    private podGC: ControllerClient,
    private t: KubeletTimings,
  ) {
    super('kubelet', ctx, 10); // a kubelet per node in reality: pods progress in parallel
    ctx.cache.on('core/pods', ({ type, obj }) => {
      if (type === 'delete') this.seen.delete(obj.metadata!.uid!);
      else if (spec(obj).nodeName) this.enqueue(obj.metadata?.namespace, obj.metadata?.name);
    });
    ctx.cache.on('core/nodes', ({ type, obj }) => {
      if (type === 'delete') for (const p of ctx.cache.list('core/pods')) if (spec(p).nodeName === obj.metadata!.name) this.enqueue(p.metadata?.namespace, p.metadata?.name);
    });
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const pod = this.ctx.cache.get('core/pods', ns, name);
    const nodeName = pod ? (spec(pod).nodeName as string | undefined) : undefined;
    if (!pod || !nodeName) return;
    const node = this.ctx.cache.get('core/nodes', undefined, nodeName);
    const uid = pod.metadata!.uid!;
    const st = status(pod);
    if (!node) {
      // the node is gone: its pods fail (upstream's pod GC then removes them)
      if (st.phase === 'Failed' || st.phase === 'Succeeded') return;
      if (this.ctx.cache.list('core/nodes').every((n) => !isSimulatedNode(n))) return;
      await this.writeStatusAs(this.podGC, pod, (s) => {
        s.phase = 'Failed';
        s.reason = 'NodeLost';
        s.message = `Node ${nodeName} which was running pod ${name} is unresponsive`;
      });
      return;
    }
    if (!isSimulatedNode(node)) return;
    const events = this.eventsFor(nodeName);
    const containers: Obj[] = spec(pod).containers ?? [];
    const initContainers: Obj[] = spec(pod).initContainers ?? [];
    let state = this.seen.get(uid);
    if (!state) this.seen.set(uid, (state = { at: this.ctx.now() }));
    if (pod.metadata?.deletionTimestamp) {
      if (state.killing) return;
      state.killing = true;
      if (st.phase === 'Running') for (const c of containers) events.event(pod, 'Normal', 'Killing', `Stopping container ${c.name}`, `spec.containers{${c.name}}`);
      const grace = pod.metadata.deletionGracePeriodSeconds ?? 30;
      setTimeout(() => void this.finishDelete(pod).catch((e) => this.ctx.log(`kubelet: ${(e as Error).message}`)), Math.min(grace * 1000, this.t.stopMs)).unref();
      return;
    }
    if (st.phase === 'Succeeded' || st.phase === 'Failed') return;
    const fail = pod.metadata?.annotations?.[FAIL_ANNOTATION];
    const runToCompletion = spec(pod).restartPolicy === 'Never' || spec(pod).restartPolicy === 'OnFailure';
    const elapsed = this.ctx.now() - state.at;
    if (!st.startTime || st.phase === 'Pending') {
      if (elapsed < this.t.startMs) return this.enqueueAfter(ns, name, this.t.startMs - elapsed);
      if (fail === 'image') return this.imagePullFailure(pod, containers, events);
      for (const c of containers) {
        events.event(pod, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`, `spec.containers{${c.name}}`);
        events.event(pod, 'Normal', 'Created', `Created container: ${c.name}`, `spec.containers{${c.name}}`);
        events.event(pod, 'Normal', 'Started', `Started container ${c.name}`, `spec.containers{${c.name}}`);
      }
      const hostIP = ((node['status'] as Obj)?.addresses ?? []).find((a: Obj) => a.type === 'InternalIP')?.address;
      const cidr = String(spec(node).podCIDR ?? '10.244.0.0/24');
      const podIP = cidr.replace(/\.0\/\d+$/, `.${(this.ips++ % 250) + 2}`);
      const probed = containers.some((c) => c.readinessProbe);
      await this.writeStatus(pod, (s) => {
        s.phase = 'Running';
        s.hostIP = hostIP;
        s.hostIPs = hostIP ? [{ ip: hostIP }] : undefined;
        s.podIP = podIP;
        s.podIPs = [{ ip: podIP }];
        s.startTime = nowTimestamp();
        s.qosClass ??= 'BestEffort';
        s.containerStatuses = containers.map((c) => ({
          name: c.name, ...imageRef(c.image ?? ''), containerID: `containerd://${hex(uid + c.name)}`,
          ready: !probed || !c.readinessProbe, started: true, restartCount: 0, state: { running: { startedAt: nowTimestamp() } },
        }));
        if (initContainers.length) s.initContainerStatuses = initContainerStatuses(initContainers, uid, 'running', s.startTime);
        this.conditions(s, !probed);
      });
      if (probed) this.enqueueAfter(ns, name, this.t.readyMs + 1);
      if (fail === 'crash' || fail === 'exit' || runToCompletion) this.enqueueAfter(ns, name, runToCompletion && fail !== 'crash' ? this.t.runMs : this.t.startMs);
      return;
    }
    // Running
    const sinceStart = this.ctx.now() - Date.parse(st.startTime);
    if (fail === 'crash' || (fail === 'exit' && !runToCompletion)) return this.crash(pod, containers, events, spec(pod).restartPolicy === 'Never');
    if (runToCompletion) {
      if (sinceStart < this.t.runMs) return this.enqueueAfter(ns, name, this.t.runMs - sinceStart);
      const ok = fail !== 'exit';
      await this.writeStatus(pod, (s) => {
        s.phase = ok ? 'Succeeded' : 'Failed';
        s.containerStatuses = containers.map((c) => ({
          name: c.name, ...imageRef(c.image ?? ''), containerID: `containerd://${hex(uid + c.name)}`, ready: false, started: false, restartCount: 0,
          state: { terminated: { exitCode: ok ? 0 : 1, reason: ok ? 'Completed' : 'Error', startedAt: st.startTime, finishedAt: nowTimestamp(), containerID: `containerd://${hex(uid + c.name)}` } },
        }));
        if (initContainers.length) s.initContainerStatuses = initContainerStatuses(initContainers, uid, 'finished', st.startTime);
        this.conditions(s, false, 'PodCompleted');
      });
      return;
    }
    const unready = (st.containerStatuses ?? []).some((c: Obj) => !c.ready);
    if (unready) {
      if (sinceStart < this.t.readyMs) return this.enqueueAfter(ns, name, this.t.readyMs - sinceStart);
      await this.writeStatus(pod, (s) => {
        for (const c of s.containerStatuses ?? []) c.ready = true;
        this.conditions(s, true);
      });
    }
  }

  private conditions(s: Obj, ready: boolean, reason?: string): void {
    const now = nowTimestamp();
    let c = s.conditions as Obj[] | undefined;
    c = setCondition(c, { type: 'PodReadyToStartContainers', status: 'True' }, now, { probe: true });
    c = setCondition(c, { type: 'Initialized', status: 'True' }, now, { probe: true });
    const notReady = reason ?? 'ContainersNotReady';
    const names = (s.containerStatuses ?? []).filter((x: Obj) => !x.ready).map((x: Obj) => x.name).join(' ');
    const msg = reason ? undefined : `containers with unready status: [${names}]`;
    c = setCondition(c, ready ? { type: 'Ready', status: 'True' } : { type: 'Ready', status: 'False', reason: notReady, message: msg }, now, { probe: true });
    c = setCondition(c, ready ? { type: 'ContainersReady', status: 'True' } : { type: 'ContainersReady', status: 'False', reason: notReady, message: msg }, now, { probe: true });
    c = setCondition(c, { type: 'PodScheduled', status: 'True' }, now, { probe: true });
    s.conditions = c;
  }

  private async crash(pod: KubeObject, containers: Obj[], events: EventRecorder, never: boolean): Promise<void> {
    const ns = pod.metadata?.namespace;
    const name = pod.metadata!.name!;
    const st = status(pod);
    const restarts = Math.max(0, ...(st.containerStatuses ?? []).map((c: Obj) => c.restartCount ?? 0));
    const waitingSince = Date.parse((st.containerStatuses ?? [])[0]?.lastState?.terminated?.finishedAt ?? st.startTime);
    const backoff = restarts === 0 ? 0 : backoffMs(this.t, restarts);
    const due = waitingSince + backoff - this.ctx.now();
    if ((st.containerStatuses ?? [])[0]?.state?.waiting && due > 0) return this.enqueueAfter(ns, name, due);
    const uid = pod.metadata!.uid!;
    const next = never ? restarts : restarts + 1;
    await this.writeStatus(pod, (s) => {
      if (never) s.phase = 'Failed';
      s.containerStatuses = containers.map((c) => ({
        name: c.name, ...imageRef(c.image ?? ''), containerID: `containerd://${hex(uid + c.name + next)}`, ready: false, started: false, restartCount: next,
        ...(never
          ? { state: { terminated: { exitCode: 1, reason: 'Error', startedAt: st.startTime, finishedAt: nowTimestamp() } } }
          : {
              state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(backoffMs(this.t, next) / 1000)}s restarting failed container=${c.name} pod=${name}_${ns}(${uid})` } },
              lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: st.startTime, finishedAt: nowTimestamp(), containerID: `containerd://${hex(uid + c.name + restarts)}` } },
            }),
      }));
      this.conditions(s, false);
    });
    for (const c of containers) {
      if (restarts > 0) events.event(pod, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`, `spec.containers{${c.name}}`);
      if (!never) events.event(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${name}_${ns}(${uid})`, `spec.containers{${c.name}}`);
    }
    if (!never) this.enqueueAfter(ns, name, backoffMs(this.t, next));
  }

  private async imagePullFailure(pod: KubeObject, containers: Obj[], events: EventRecorder): Promise<void> {
    const st = status(pod);
    if ((st.containerStatuses ?? [])[0]?.state?.waiting?.reason === 'ImagePullBackOff') return;
    for (const c of containers) {
      events.event(pod, 'Normal', 'Pulling', `Pulling image "${c.image}"`, `spec.containers{${c.name}}`);
      events.event(pod, 'Warning', 'Failed', `Failed to pull image "${c.image}": simulated pull failure (annotation ${FAIL_ANNOTATION}=image)`, `spec.containers{${c.name}}`);
      events.event(pod, 'Warning', 'Failed', 'Error: ErrImagePull', `spec.containers{${c.name}}`);
      events.event(pod, 'Normal', 'BackOff', `Back-off pulling image "${c.image}"`, `spec.containers{${c.name}}`);
      events.event(pod, 'Warning', 'Failed', 'Error: ImagePullBackOff', `spec.containers{${c.name}}`);
    }
    await this.writeStatus(pod, (s) => {
      s.containerStatuses = containers.map((c) => ({
        name: c.name, image: c.image, imageID: '', ready: false, started: false, restartCount: 0,
        state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${c.image}"` } },
      }));
      this.conditions(s, false);
    });
  }

  private async finishDelete(pod: KubeObject): Promise<void> {
    await this.kubeletOf(pod).delete('', 'pods', pod.metadata!.namespace, pod.metadata!.name!, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata!.uid } });
  }

  /** The kubelet of the node the pod is bound to. */
  private kubeletOf(pod: KubeObject): ControllerClient {
    return this.clientFor(String(spec(pod).nodeName));
  }

  private writeStatus(pod: KubeObject, fn: (s: Obj) => void): Promise<KubeObject | undefined> {
    return this.writeStatusAs(this.kubeletOf(pod), pod, fn);
  }

  private writeStatusAs(writer: ControllerClient, pod: KubeObject, fn: (s: Obj) => void): Promise<KubeObject | undefined> {
    // upstream's kubelet and pod GC patch the status (authorized as patch)
    return writer.mutate('', 'pods', pod.metadata!.namespace, pod.metadata!.name!, (o) => {
      if (o.metadata?.deletionTimestamp && status(o).phase !== 'Running') return false;
      const s: Obj = ((o['status'] as Obj) ??= {});
      fn(s);
      return true;
    }, { subresource: 'status', uid: pod.metadata!.uid, patch: true });
  }
}

