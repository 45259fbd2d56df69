// CronJob controller, as upstream's cronjob_controllerv2: at each scheduled time (spec.schedule in spec.timeZone)
// creates a Job `<name>-<minutes since epoch>` from the jobTemplate, honouring suspend, startingDeadlineSeconds and
// concurrencyPolicy (Allow, Forbid, Replace); tracks active Jobs, lastScheduleTime and lastSuccessfulTime, and
// keeps successfulJobsHistoryLimit (3) / failedJobsHistoryLimit (1) finished Jobs.
import type { KubeObject } from '../registry/types.js';
import { isAlreadyExists } from './api-writer.js';
import { controllerRef } from './cluster-cache.js';
import { CronError, mostRecentSchedule, nextSchedule, parseCron } from './cron-schedule.js';
import { jobFinished } from './job-controller.js';
import { intOr, ownerRefTo, spec, status } from './pod-util.js';
import { Reconciler, settle, splitKey, type ClusterContext } from './reconciler.js';

type Obj = Record<string, any>;

const SCHEDULED_AT = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
const ts = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class CronJobController extends Reconciler {
  constructor(ctx: ClusterContext) {
    super('cronjob-controller', ctx);
    ctx.cache.on('batch/cronjobs', ({ obj }) => this.enqueue(obj.metadata?.namespace, obj.metadata?.name));
    ctx.cache.on('batch/jobs', ({ obj }) => {
      const ref = controllerRef(obj);
      if (ref?.kind === 'CronJob') this.enqueue(obj.metadata?.namespace, ref.name);
    });
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const cj = this.ctx.cache.get('batch/cronjobs', ns, name);
    if (!cj || cj.metadata?.deletionTimestamp) return;
    const s = spec(cj);
    const now = this.ctx.now();
    const jobs = this.ctx.cache.ownedBy(cj.metadata!.uid, 'batch/jobs');
    const running = jobs.filter((j) => !jobFinished(j) && !j.metadata?.deletionTimestamp);
    let lastSuccess: string | undefined = status(cj).lastSuccessfulTime;
    for (const j of jobs) {
      if (jobFinished(j) !== 'Complete') continue;
      const done = status(j).completionTime;
      if (done && (!lastSuccess || done > lastSuccess)) lastSuccess = done;
    }
    for (const j of jobs) {
      const was = (status(cj).active as Obj[] | undefined)?.some((r) => r.uid === j.metadata?.uid);
      const fin = jobFinished(j);
      if (was && fin) this.ctx.events.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata!.name}, condition: ${fin}`);
    }
    await this.prune(cj, jobs);
    let schedule;
    try {
      schedule = parseCron(String(s.schedule ?? ''));
    } catch (e) {
      if (e instanceof CronError) return this.ctx.events.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: "${s.schedule}" : ${e.message}`);
      throw e;
    }
    const tz: string | undefined = s.timeZone || undefined;
    let created: KubeObject | undefined;
    let scheduledAt: number | undefined;
    if (s.suspend !== true) {
      const last = Date.parse(status(cj).lastScheduleTime ?? cj.metadata!.creationTimestamp!);
      const { time } = mostRecentSchedule(schedule, tz, last, now);
      const deadline = typeof s.startingDeadlineSeconds === 'number' ? s.startingDeadlineSeconds * 1000 : undefined;
      if (time !== undefined && (deadline === undefined || now - time <= deadline)) {
        const policy = s.concurrencyPolicy ?? 'Allow';
        if (policy === 'Forbid' && running.length > 0) {
          this.ctx.events.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
        } else {
          if (policy === 'Replace')
            for (const j of running) {
              await this.ctx.writer.delete('batch', 'jobs', ns, j.metadata!.name!, { propagationPolicy: 'Background', preconditions: { uid: j.metadata!.uid } });
              this.ctx.events.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata!.name}`);
            }
          created = await this.createJob(cj, time);
          scheduledAt = time;
        }
      } else if (time !== undefined) {
        this.ctx.events.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${ts(time)}`);
      }
    }
    const active = [...running, ...(created ? [created] : [])].filter((j, i, all) => all.findIndex((x) => x.metadata?.uid === j.metadata?.uid) === i);
    await this.ctx.writer.mutate('batch', 'cronjobs', ns, name, (o) => {
      const cur: Obj = (o['status'] as Obj) ?? {};
      const next: Obj = { ...cur };
      const refs = active.map((j) => ({ kind: 'Job', namespace: ns, name: j.metadata!.name, uid: j.metadata!.uid, apiVersion: 'batch/v1', resourceVersion: j.metadata!.resourceVersion }));
      if (refs.length) next.active = refs;
      else delete next.active;
      if (scheduledAt !== undefined) next.lastScheduleTime = ts(scheduledAt);
      if (lastSuccess) next.lastSuccessfulTime = lastSuccess;
      if (JSON.stringify(next) === JSON.stringify(cur)) return false;
      o['status'] = next;
      return true;
    }, { subresource: 'status', uid: cj.metadata!.uid });
    if (s.suspend !== true) {
      const next = nextSchedule(schedule, tz, now);
      this.enqueueAfter(ns, name, next === undefined ? 2 * 24 * 3_600_000 : next - now + 100);
    }
  }

  private async createJob(cj: KubeObject, time: number): Promise<KubeObject | undefined> {
    const tmpl: Obj = spec(cj).jobTemplate ?? {};
    const name = `${cj.metadata!.name}-${Math.floor(time / 60_000)}`;
    const job: KubeObject = {
      metadata: {
        name,
        namespace: cj.metadata!.namespace,
        labels: { ...(tmpl.metadata?.labels ?? {}) },
        annotations: { ...(tmpl.metadata?.annotations ?? {}), [SCHEDULED_AT]: new Date(time).toISOString().replace('.000Z', 'Z') },
        ownerReferences: [ownerRefTo(cj)],
      },
      spec: structuredClone(tmpl.spec ?? {}),
    };
    try {
      const created = await this.ctx.writer.create('batch', 'jobs', cj.metadata!.namespace, job);
      await settle(this.ctx, [created]);
      this.ctx.events.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${name}`);
      return created;
    } catch (e) {
      if (isAlreadyExists(e)) return this.ctx.cache.get('batch/jobs', cj.metadata!.namespace, name);
      this.ctx.events.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${(e as Error).message}`);
      throw e;
    }
  }

  /** Keeps the newest successfulJobsHistoryLimit / failedJobsHistoryLimit finished Jobs. */
  private async prune(cj: KubeObject, jobs: KubeObject[]): Promise<void> {
    for (const [kind, limit] of [['Complete', intOr(spec(cj).successfulJobsHistoryLimit, 3)], ['Failed', intOr(spec(cj).failedJobsHistoryLimit, 1)]] as const) {
      const done = jobs.filter((j) => jobFinished(j) === kind && !j.metadata?.deletionTimestamp).sort((a, b) => String(status(a).startTime ?? a.metadata!.creationTimestamp).localeCompare(String(status(b).startTime ?? b.metadata!.creationTimestamp)));
      for (const j of done.slice(0, Math.max(0, done.length - limit))) {
        await this.ctx.writer.delete('batch', 'jobs', cj.metadata!.namespace, j.metadata!.name!, { propagationPolicy: 'Background', preconditions: { uid: j.metadata!.uid } });
        this.ctx.events.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata!.name}`);
      }
    }
  }
}

