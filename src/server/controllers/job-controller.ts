// Job controller, as upstream's pkg/controller/job: runs up to `parallelism` pods until `completions` succeed,
// fails the Job past `backoffLimit` failed pods (BackoffLimitExceeded) or `activeDeadlineSeconds`
// (DeadlineExceeded), sets SuccessCriteriaMet/Complete or FailureTarget/Failed, and — as the ttl-after-finished
// controller — deletes finished Jobs `ttlSecondsAfterFinished` after they finished.
import { nowTimestamp } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import { controllerRef } from './cluster-cache.js';
import { condition, intOr, isPodActive, isPodReady, podFromTemplate, setCondition, spec, status } from './pod-util.js';
import type { ControllerClient } from './client.js';
import { Reconciler, settle, splitKey, type ClusterContext } from './reconciler.js';

type Obj = Record<string, any>;

/** spec.managedBy of the Jobs this controller manages (upstream batch.JobControllerName). */
export const JOB_CONTROLLER_NAME = 'kubernetes.io/job-controller';

export function jobFinished(job: KubeObject): 'Complete' | 'Failed' | undefined {
  if (condition(job, 'Complete')?.status === 'True') return 'Complete';
  if (condition(job, 'Failed')?.status === 'True') return 'Failed';
  return undefined;
}

export class JobController extends Reconciler {
  constructor(
    ctx: ClusterContext,
    /** The ttl-after-finished controller's client (its own service account), or undefined when it is off. */
    private ttlAfterFinished: ControllerClient | undefined,
  ) {
    super('job-controller', ctx);
    ctx.cache.on('batch/jobs', ({ obj }) => this.enqueue(obj.metadata?.namespace, obj.metadata?.name));
    ctx.cache.on('core/pods', ({ obj }) => {
      const ref = controllerRef(obj);
      if (ref?.kind === 'Job') this.enqueue(obj.metadata?.namespace, ref.name);
    });
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const job = this.ctx.cache.get('batch/jobs', ns, name);
    if (!job || job.metadata?.deletionTimestamp) return;
    // JobManagedBy (beta, on in 1.33): a Job another controller manages is left to it (upstream's syncJob skips it)
    const managedBy = spec(job).managedBy;
    if (typeof managedBy === 'string' && managedBy !== JOB_CONTROLLER_NAME) return;
    const finished = jobFinished(job);
    if (finished) return this.ttl(job);
    const s = spec(job);
    const pods = this.ctx.cache.ownedBy(job.metadata!.uid, 'core/pods');
    const active = pods.filter(isPodActive);
    const succeeded = pods.filter((p) => status(p).phase === 'Succeeded').length;
    const failed = pods.filter((p) => status(p).phase === 'Failed').length;
    const completions: number | undefined = typeof s.completions === 'number' ? s.completions : undefined;
    const parallelism = intOr(s.parallelism, 1);
    const backoffLimit = intOr(s.backoffLimit, 6);
    const now = this.ctx.now();
    const startTime = status(job).startTime ?? nowTimestamp();
    let outcome: { type: 'Complete' | 'Failed'; reason?: string; message?: string } | undefined;
    if (completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0) outcome = { type: 'Complete' };
    else if (failed > backoffLimit) outcome = { type: 'Failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    else if (typeof s.activeDeadlineSeconds === 'number' && Date.parse(startTime) + s.activeDeadlineSeconds * 1000 <= now)
      outcome = { type: 'Failed', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
    let created: (KubeObject | undefined)[] = [];
    if (outcome?.type === 'Failed') {
      for (const p of active) await this.ctx.writer.delete('', 'pods', ns, p.metadata!.name!, { preconditions: { uid: p.metadata!.uid } });
    } else if (!outcome && s.suspend !== true) {
      const want = Math.min(parallelism, completions !== undefined ? completions - succeeded : succeeded > 0 ? 0 : parallelism) - active.length;
      if (want > 0) {
        created = await Promise.all(
          Array.from({ length: want }, () =>
            this.ctx.writer.create('', 'pods', ns, podFromTemplate(s.template ?? {}, job, { generateName: `${name}-` })).then(
              (p) => (this.ctx.events.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${p.metadata!.name}`), p),
              (e: Error) => (this.ctx.events.event(job, 'Warning', 'FailedCreate', `Error creating: ${e.message}`), undefined),
            ),
          ),
        );
        await settle(this.ctx, created);
      }
    }
    const activeNow = outcome ? 0 : active.length + created.filter(Boolean).length;
    const ts = nowTimestamp();
    await this.ctx.writer.mutate('batch', 'jobs', ns, name, (o) => {
      const cur: Obj = (o['status'] as Obj) ?? {};
      const next: Obj = { ...cur, startTime, active: activeNow, ready: active.filter(isPodReady).length, succeeded, failed, terminating: 0, uncountedTerminatedPods: {} };
      for (const k of ['active', 'succeeded', 'failed']) if (!next[k]) delete next[k];
      if (outcome?.type === 'Complete') {
        next.conditions = setCondition(next.conditions, { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' }, ts, { probe: true });
        next.conditions = setCondition(next.conditions, { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' }, ts, { probe: true });
        next.completionTime = ts;
      } else if (outcome) {
        next.conditions = setCondition(next.conditions, { type: 'FailureTarget', status: 'True', reason: outcome.reason, message: outcome.message }, ts, { probe: true });
        next.conditions = setCondition(next.conditions, { type: 'Failed', status: 'True', reason: outcome.reason, message: outcome.message }, ts, { probe: true });
      }
      if (JSON.stringify(next) === JSON.stringify(cur)) return false;
      o['status'] = next;
      return true;
    }, { subresource: 'status', uid: job.metadata!.uid });
    if (outcome?.type === 'Complete') this.ctx.events.event(job, 'Normal', 'Completed', 'Job completed');
    else if (outcome) this.ctx.events.event(job, 'Warning', outcome.reason!, outcome.message!);
    if (!outcome && typeof s.activeDeadlineSeconds === 'number') this.enqueueAfter(ns, name, Date.parse(startTime) + s.activeDeadlineSeconds * 1000 - now + 10);
  }

  /** ttl-after-finished: deletes the Job (and, in the background, its pods) once its TTL has run out. */
  private async ttl(job: KubeObject): Promise<void> {
    const ttl = spec(job).ttlSecondsAfterFinished;
    if (!this.ttlAfterFinished || typeof ttl !== 'number') return;
    const finishedAt = Date.parse(status(job).completionTime ?? condition(job, 'Failed')?.lastTransitionTime ?? condition(job, 'Complete')?.lastTransitionTime ?? '');
    if (!Number.isFinite(finishedAt)) return;
    const due = finishedAt + ttl * 1000 - this.ctx.now();
    if (due > 0) return this.enqueueAfter(job.metadata?.namespace, job.metadata?.name, due);
    await this.ttlAfterFinished.delete('batch', 'jobs', job.metadata?.namespace, job.metadata!.name!, { propagationPolicy: 'Background', preconditions: { uid: job.metadata!.uid } });
  }
}
