// Workload kinds: apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet and batch/v1 Job, CronJob.
import { deepEqual } from '../../api/merge-patch.js';
import { ageSince, humanDuration, nowMs } from './age.js';
import {
  type Obj, ageColumn, arr, builtinType, col, ensure, isEmptySelector, mapSelectorString, num, obj, podTemplateColumns,
  selectorMatches, setDefault, str,
} from './builtin-helpers.js';
import { defaultPodTemplate, validatePodTemplate } from './builtin-pod.js';
import * as fe from './schema/field-errors.js';
import { validateJobSpec133, validateJobSpecUpdate133 } from './job-validation.js';
import type { FieldError, KubeObject, ResourceType, Strategy } from './types.js';

const ALWAYS = ['Always'];
const JOB_RESTART = ['OnFailure', 'Never'];
const PERCENT = /^[0-9]+%$/;

function nonNegative(v: unknown, path: string, errs: FieldError[]): void {
  if (typeof v === 'number' && v < 0) errs.push(fe.invalid(path, v, 'must be greater than or equal to 0'));
}

function intOrPercent(v: unknown, path: string, errs: FieldError[]): void {
  if (typeof v === 'string' && !PERCENT.test(v)) {
    errs.push(fe.invalid(path, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"));
  } else if (typeof v === 'string' && Number(v.slice(0, -1)) > 100) {
    errs.push(fe.invalid(path, v, 'must not be greater than 100%'));
  } else nonNegative(v, path, errs);
}

const isZero = (v: unknown) => v === 0 || v === '0%';

/** selector required, non-empty, matching the template labels; template valid with the given restart policies. */
function validateSelectorAndTemplate(o: KubeObject, kindWord: string, restartPolicies: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o.spec);
  const template = spec.template;
  const templatePath = 'spec.template';
  if (spec.selector === undefined || spec.selector === null) errs.push(fe.required('spec.selector'));
  else if (isEmptySelector(spec.selector)) errs.push(fe.invalid('spec.selector', spec.selector, `empty selector is invalid for ${kindWord}`));
  else {
    const labels = obj(obj(obj(template).metadata).labels);
    if (!selectorMatches(spec.selector, labels))
      errs.push(fe.invalid(`${templatePath}.metadata.labels`, labels, '`selector` does not match template `labels`'));
  }
  // a StatefulSet's containers mount its volumeClaimTemplates as well as the template's volumes
  const claimNames = arr(spec.volumeClaimTemplates).map((t) => str(obj(obj(t).metadata).name)).filter(Boolean);
  errs.push(...validatePodTemplate(template, templatePath, { restartPolicies, extraVolumes: claimNames }));
  return errs;
}

function immutable(o: KubeObject, old: KubeObject | undefined, field: string, errs: FieldError[]): void {
  if (!old) return;
  const a = obj(o.spec)[field];
  const b = obj(old.spec)[field];
  // compared as values, as upstream's semantic DeepEqual: a map's key order is no change
  if (!deepEqual((a ?? null), (b ?? null))) errs.push(fe.invalid(`spec.${field}`, a ?? null, 'field is immutable'));
}

const readyOf = (ready: unknown, desired: unknown) => `${num(ready)}/${num(desired)}`;
const templateOf = (o: KubeObject) => obj(obj(o.spec).template);
const selectorOf = (o: KubeObject) => obj(o.spec).selector;

// ---- Deployment ----

const deploymentStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    const spec = ensure(o as Obj, 'spec');
    setDefault(spec, 'replicas', 1);
    const strategy = ensure(spec, 'strategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const ru = ensure(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', '25%');
      setDefault(ru, 'maxSurge', '25%');
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    defaultPodTemplate(spec.template);
  },
  validate(o, old) {
    const errs = validateSelectorAndTemplate(o, 'deployment', ALWAYS);
    const spec = obj(o.spec);
    nonNegative(spec.replicas, 'spec.replicas', errs);
    nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit', errs);
    nonNegative(spec.minReadySeconds, 'spec.minReadySeconds', errs);
    const strategy = obj(spec.strategy);
    const type = str(strategy.type);
    if (type && type !== 'RollingUpdate' && type !== 'Recreate') errs.push(fe.notSupported('spec.strategy.type', type, ['Recreate', 'RollingUpdate']));
    if (type === 'Recreate' && strategy.rollingUpdate !== undefined)
      errs.push(fe.forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
    if (type === 'RollingUpdate') {
      const ru = obj(strategy.rollingUpdate);
      intOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable', errs);
      intOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge', errs);
      if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge))
        errs.push(fe.invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
    }
    if (typeof spec.progressDeadlineSeconds === 'number' && spec.progressDeadlineSeconds <= num(spec.minReadySeconds))
      errs.push(fe.invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    immutable(o, old, 'selector', errs);
    return errs;
  },
};

// ---- ReplicaSet ----

const replicaSetStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    const spec = ensure(o as Obj, 'spec');
    setDefault(spec, 'replicas', 1);
    defaultPodTemplate(spec.template);
  },
  validate(o, old) {
    const errs = validateSelectorAndTemplate(o, 'replicaset', ALWAYS);
    nonNegative(obj(o.spec).replicas, 'spec.replicas', errs);
    immutable(o, old, 'selector', errs);
    return errs;
  },
  fieldSelectors: { 'status.replicas': (o) => String(num(obj(o.status).replicas)) },
};

// ---- StatefulSet ----

const STS_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

const statefulSetStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    const spec = ensure(o as Obj, 'spec');
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'podManagementPolicy', 'OrderedReady');
    const us = ensure(spec, 'updateStrategy');
    setDefault(us, 'type', 'RollingUpdate');
    if (us.type === 'RollingUpdate') setDefault(ensure(us, 'rollingUpdate'), 'partition', 0);
    setDefault(spec, 'revisionHistoryLimit', 10);
    const retention = ensure(spec, 'persistentVolumeClaimRetentionPolicy');
    setDefault(retention, 'whenDeleted', 'Retain');
    setDefault(retention, 'whenScaled', 'Retain');
    defaultPodTemplate(spec.template);
    for (const t of arr(spec.volumeClaimTemplates)) {
      if (!t || typeof t !== 'object') continue;
      // upstream 1.33 writes the embedded claims' apiVersion/kind too
      setDefault(t as Obj, 'apiVersion', 'v1');
      setDefault(t as Obj, 'kind', 'PersistentVolumeClaim');
      setDefault(ensure(t as Obj, 'spec'), 'volumeMode', 'Filesystem');
      setDefault(ensure(t as Obj, 'status'), 'phase', 'Pending');
    }
  },
  validate(o, old) {
    const errs = validateSelectorAndTemplate(o, 'statefulset', ALWAYS);
    const spec = obj(o.spec);
    nonNegative(spec.replicas, 'spec.replicas', errs);
    const pmp = spec.podManagementPolicy;
    if (pmp !== undefined && pmp !== 'OrderedReady' && pmp !== 'Parallel')
      errs.push(fe.notSupported('spec.podManagementPolicy', pmp, ['OrderedReady', 'Parallel']));
    const ut = obj(spec.updateStrategy).type;
    if (ut !== undefined && ut !== 'RollingUpdate' && ut !== 'OnDelete') errs.push(fe.notSupported('spec.updateStrategy.type', ut, ['OnDelete', 'RollingUpdate']));
    if (old) {
      const a = { ...spec };
      const b = { ...obj(old.spec) };
      for (const f of STS_MUTABLE) {
        delete a[f];
        delete b[f];
      }
      if (!deepEqual(a, b))
        errs.push(
          fe.forbidden(
            'spec',
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
          ),
        );
    }
    return errs;
  },
};

// ---- DaemonSet ----

const daemonSetStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    const spec = ensure(o as Obj, 'spec');
    const us = ensure(spec, 'updateStrategy');
    setDefault(us, 'type', 'RollingUpdate');
    if (us.type === 'RollingUpdate') {
      const ru = ensure(us, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', 1);
      setDefault(ru, 'maxSurge', 0);
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    defaultPodTemplate(spec.template);
  },
  validate(o, old) {
    const errs = validateSelectorAndTemplate(o, 'daemonset', ALWAYS);
    const us = obj(obj(o.spec).updateStrategy);
    if (us.type !== undefined && us.type !== 'RollingUpdate' && us.type !== 'OnDelete')
      errs.push(fe.notSupported('spec.updateStrategy.type', us.type, ['OnDelete', 'RollingUpdate']));
    immutable(o, old, 'selector', errs);
    return errs;
  },
};

// ---- Job ----

export const JOB_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

/** Job spec defaults (shared by CronJob job templates: those get no selector). */
function defaultJobSpec(spec: Obj): void {
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', 6);
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  // JobPodReplacementPolicy (beta, on in 1.33): Failed with a podFailurePolicy, TerminatingOrFailed otherwise
  setDefault(spec, 'podReplacementPolicy', spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed');
  // SetDefaults_Job: a pod failure policy's onPodConditions patterns match status True unless told
  for (const rule of arr(obj(spec.podFailurePolicy).rules)) for (const pattern of arr(obj(rule).onPodConditions)) if (pattern && typeof pattern === 'object') setDefault(pattern as Obj, 'status', 'True');
  defaultPodTemplate(spec.template);
}

const jobStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    const spec = ensure(o as Obj, 'spec');
    defaultJobSpec(spec);
    const uid = o.metadata?.uid;
    const name = o.metadata?.name;
    // generated selector: needs the uid, which exists once the object is prepared for create
    if (spec.manualSelector !== true && (spec.selector === undefined || spec.selector === null) && uid) {
      spec.selector = { matchLabels: { [JOB_UID_LABEL]: uid } };
      const template = ensure(spec, 'template');
      const meta = ensure(template, 'metadata');
      meta.labels = { ...obj(meta.labels), [JOB_UID_LABEL]: uid, [JOB_NAME_LABEL]: name ?? '', 'controller-uid': uid, 'job-name': name ?? '' };
    }
  },
  validate(o, old) {
    const errs: FieldError[] = [];
    const spec = obj(o.spec);
    if (spec.selector !== undefined && spec.selector !== null) errs.push(...validateSelectorAndTemplate(o, 'job', JOB_RESTART));
    else errs.push(...validatePodTemplate(spec.template, 'spec.template', { restartPolicies: JOB_RESTART }));
    for (const f of ['parallelism', 'completions', 'backoffLimit', 'activeDeadlineSeconds', 'ttlSecondsAfterFinished']) nonNegative(spec[f], `spec.${f}`, errs);
    validateJobSpec133(spec, errs);
    // validatePodReplacementPolicy: only Failed beside a podFailurePolicy
    const rp = spec.podReplacementPolicy;
    if (rp !== undefined && rp !== null) {
      if (spec.podFailurePolicy) {
        if (rp !== 'Failed') errs.push(fe.notSupported('spec.podReplacementPolicy', rp, ['Failed']));
      } else if (rp !== 'Failed' && rp !== 'TerminatingOrFailed') errs.push(fe.notSupported('spec.podReplacementPolicy', rp, ['Failed', 'TerminatingOrFailed']));
    }
    immutable(o, old, 'selector', errs);
    if (old) validateJobSpecUpdate133(o, old, errs);
    if (old && spec.suspend !== true) immutable(o, old, 'template', errs);
    return errs;
  },
  fieldSelectors: { 'status.successful': (o) => String(num(obj(o.status).succeeded)) },
};

function jobStatusCell(o: KubeObject): string {
  const conds = arr(obj(o.status).conditions).map(obj);
  const has = (t: string) => conds.some((c) => c.type === t && c.status === 'True');
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (o.metadata?.deletionTimestamp) return 'Terminating';
  if (has('FailureTarget')) return 'FailureTarget';
  if (has('Suspended')) return 'Suspended';
  return 'Running';
}

function jobCompletions(o: KubeObject): string {
  const spec = obj(o.spec);
  const succeeded = num(obj(o.status).succeeded);
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  const parallelism = num(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: KubeObject): string {
  const st = obj(o.status);
  const start = Date.parse(str(st.startTime));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(str(st.completionTime));
  return humanDuration((Number.isNaN(end) ? nowMs() : end) - start);
}

// ---- CronJob ----

const CRON_MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
const CRON_RANGES: [number, number, string[]?][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12, ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']],
  [0, 7, ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']],
];

/** Checks a standard 5-field cron expression (or @macro / @every); returns the parse error text. */
export function cronScheduleError(schedule: string): string | undefined {
  const s = schedule.trim();
  if (/^(TZ|CRON_TZ)=/.test(s)) return 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead';
  if (s.startsWith('@')) {
    if (CRON_MACROS.has(s)) return undefined;
    if (/^@every\s+\S+$/.test(s)) return undefined;
    return `unrecognized descriptor: ${s}`;
  }
  const fields = s.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) return `Expected exactly 5 fields, found ${fields.length}: ${s}`;
  for (let i = 0; i < 5; i++) {
    const [min, max, names] = CRON_RANGES[i]!;
    for (const part of fields[i]!.split(',')) {
      const [range, step] = part.split('/');
      if (step !== undefined && !/^\d+$/.test(step)) return `Failed to parse int from ${step}: strconv.Atoi: parsing "${step}": invalid syntax`;
      if (range === '*' || range === '?') continue;
      const bounds = range!.split('-');
      if (bounds.length > 2) return `Too many hyphens: ${range}`;
      for (const b of bounds) {
        const upper = b.toUpperCase();
        const n = names && names.includes(upper) ? names.indexOf(upper) + min : /^\d+$/.test(b) ? Number(b) : NaN;
        if (Number.isNaN(n)) return `Failed to parse int from ${b}: strconv.Atoi: parsing "${b}": invalid syntax`;
        if (n < min) return `Beginning of range (${n}) below minimum (${min}): ${part}`;
        if (n > max) return `End of range (${n}) above maximum (${max}): ${part}`;
      }
    }
  }
  return undefined;
}

/** An IANA time zone name the runtime's tz database knows (upstream: time.LoadLocation); "" and "Local" are rejected too. */
function validTimeZone(tz: string): boolean {
  if (tz === '' || tz === 'Local' || tz.trim() !== tz) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const cronJobStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    const spec = ensure(o as Obj, 'spec');
    setDefault(spec, 'concurrencyPolicy', 'Allow');
    setDefault(spec, 'suspend', false);
    setDefault(spec, 'successfulJobsHistoryLimit', 3);
    setDefault(spec, 'failedJobsHistoryLimit', 1);
    const jt = ensure(spec, 'jobTemplate');
    defaultJobSpec(ensure(jt, 'spec'));
  },
  validate(o) {
    const errs: FieldError[] = [];
    const spec = obj(o.spec);
    const name = o.metadata?.name ?? '';
    if (name.length > 52) errs.push(fe.invalid('metadata.name', name, 'must be no more than 52 characters'));
    const schedule = spec.schedule;
    if (typeof schedule !== 'string' || schedule === '') errs.push(fe.required('spec.schedule'));
    else {
      const e = cronScheduleError(schedule);
      if (e) errs.push(fe.invalid('spec.schedule', schedule, e));
    }
    const tz = spec.timeZone;
    if (typeof tz === 'string' && !validTimeZone(tz)) errs.push(fe.invalid('spec.timeZone', tz, `unknown time zone ${tz}`));
    const cp = spec.concurrencyPolicy;
    if (cp !== undefined && !['Allow', 'Forbid', 'Replace'].includes(str(cp)))
      errs.push(fe.notSupported('spec.concurrencyPolicy', cp, ['Allow', 'Forbid', 'Replace']));
    for (const f of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) nonNegative(spec[f], `spec.${f}`, errs);
    const jobSpec = obj(obj(spec.jobTemplate).spec);
    errs.push(...validatePodTemplate(jobSpec.template, 'spec.jobTemplate.spec.template', { restartPolicies: JOB_RESTART }));
    return errs;
  },
};

// ---- table ----

const daemonSetNodeSelector = (o: KubeObject) => mapSelectorString(obj(obj(templateOf(o).spec)).nodeSelector);

export const workloadTypes: ResourceType[] = [
  builtinType({
    group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', schemaRef: 'io.k8s.api.apps.v1.Deployment',
    scope: 'Namespaced', shortNames: ['deploy'], categories: ['all'], status: true, scale: true, strategy: deploymentStrategy,
    columns: [
      col('Ready', (o) => readyOf(obj(o.status).readyReplicas, obj(o.spec).replicas), { description: 'Number of the pod with ready state' }),
      col('Up-to-date', (o) => num(obj(o.status).updatedReplicas), { type: 'integer', description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.' }),
      col('Available', (o) => num(obj(o.status).availableReplicas), { type: 'integer', description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.' }),
      ageColumn,
      ...podTemplateColumns(templateOf, selectorOf),
    ],
  }),
  builtinType({
    group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', schemaRef: 'io.k8s.api.apps.v1.ReplicaSet',
    scope: 'Namespaced', shortNames: ['rs'], categories: ['all'], status: true, scale: true, strategy: replicaSetStrategy,
    columns: [
      col('Desired', (o) => num(obj(o.spec).replicas), { type: 'integer' }),
      col('Current', (o) => num(obj(o.status).replicas), { type: 'integer' }),
      col('Ready', (o) => num(obj(o.status).readyReplicas), { type: 'integer' }),
      ageColumn,
      ...podTemplateColumns(templateOf, selectorOf),
    ],
  }),
  builtinType({
    group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', schemaRef: 'io.k8s.api.apps.v1.StatefulSet',
    scope: 'Namespaced', shortNames: ['sts'], categories: ['all'], status: true, scale: true, strategy: statefulSetStrategy,
    columns: [
      col('Ready', (o) => readyOf(obj(o.status).readyReplicas, obj(o.spec).replicas)),
      ageColumn,
      ...podTemplateColumns(templateOf),
    ],
  }),
  builtinType({
    group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', schemaRef: 'io.k8s.api.apps.v1.DaemonSet',
    scope: 'Namespaced', shortNames: ['ds'], categories: ['all'], status: true, strategy: daemonSetStrategy,
    columns: [
      col('Desired', (o) => num(obj(o.status).desiredNumberScheduled), { type: 'integer' }),
      col('Current', (o) => num(obj(o.status).currentNumberScheduled), { type: 'integer' }),
      col('Ready', (o) => num(obj(o.status).numberReady), { type: 'integer' }),
      col('Up-to-date', (o) => num(obj(o.status).updatedNumberScheduled), { type: 'integer' }),
      col('Available', (o) => num(obj(o.status).numberAvailable), { type: 'integer' }),
      col('Node Selector', daemonSetNodeSelector),
      ageColumn,
      ...podTemplateColumns(templateOf, selectorOf),
    ],
  }),
  builtinType({
    group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', schemaRef: 'io.k8s.api.batch.v1.Job',
    scope: 'Namespaced', categories: ['all'], status: true, strategy: jobStrategy,
    columns: [
      col('Status', jobStatusCell),
      col('Completions', jobCompletions),
      col('Duration', jobDuration),
      ageColumn,
      ...podTemplateColumns(templateOf, selectorOf),
    ],
  }),
  builtinType({
    group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', schemaRef: 'io.k8s.api.batch.v1.CronJob',
    scope: 'Namespaced', shortNames: ['cj'], categories: ['all'], status: true, strategy: cronJobStrategy,
    columns: [
      col('Schedule', (o) => str(obj(o.spec).schedule)),
      col('Timezone', (o) => str(obj(o.spec).timeZone) || '<none>'),
      col('Suspend', (o) => (obj(o.spec).suspend === true ? 'True' : 'False')),
      col('Active', (o) => arr(obj(o.status).active).length, { type: 'integer' }),
      col('Last Schedule', (o) => (str(obj(o.status).lastScheduleTime) ? ageSince(obj(o.status).lastScheduleTime) : '<none>')),
      ageColumn,
      ...podTemplateColumns((o) => obj(obj(obj(obj(o.spec).jobTemplate).spec).template), (o) => obj(obj(obj(o.spec).jobTemplate).spec).selector),
    ],
  }),
];
