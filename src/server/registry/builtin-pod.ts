// Pods and pod templates: upstream's visible defaults, the common validations, and the kubectl-like
// Ready / Status / Restarts printer logic.
import { humanDuration, nowMs } from './age.js';
import { type Obj, ageColumn, arr, col, ensure, num, obj, orNone, setDefault, str } from './builtin-helpers.js';
import { dns1123LabelErrors } from './meta-validation.js';
import { matchLabelKeysErrors, mergeMatchLabelKeys } from './pod-affinity.js';
import * as fe from './schema/field-errors.js';
import { parseQuantity } from './schema/quantity.js';
import type { FieldError, KubeObject, ResourceType, Strategy, TableColumn } from './types.js';

// ---- defaults ----

/** Always for untagged or :latest images (without a digest), IfNotPresent otherwise. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const colon = image.indexOf(':', lastSlash + 1);
  if (colon < 0) return 'Always';
  return image.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(p: unknown): void {
  if (!p || typeof p !== 'object') return;
  const probe = p as Obj;
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
  const http = probe.httpGet;
  if (http && typeof http === 'object') setDefault(http as Obj, 'scheme', 'HTTP');
}

function defaultContainer(c: Obj): void {
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  if (c.imagePullPolicy === undefined || c.imagePullPolicy === '' || c.imagePullPolicy === null) {
    c.imagePullPolicy = defaultPullPolicy(str(c.image));
  }
  const resources = ensure(c, 'resources');
  // requests default to limits for resources that only have a limit
  const limits = obj(resources.limits);
  if (Object.keys(limits).length) {
    const requests = ensure(resources, 'requests');
    for (const k of Object.keys(limits)) setDefault(requests, k, limits[k]);
  }
  for (const p of arr(c.ports)) if (p && typeof p === 'object') setDefault(p as Obj, 'protocol', 'TCP');
  for (const e of arr(c.env)) {
    const from = obj(obj(e).valueFrom);
    const ref = obj(from.fieldRef);
    if (Object.keys(ref).length) setDefault(ref, 'apiVersion', 'v1');
    // a zero Quantity divisor is written out as "0" (upstream's resourceFieldRef as served)
    const rref = obj(from.resourceFieldRef);
    if (Object.keys(rref).length) setDefault(rref, 'divisor', '0');
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
}

/** Defaults of a PodSpec (pods and every pod template). */
export function defaultPodSpec(spec: Obj): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  // a negative grace period is stored as 1 (upstream mutatePodTerminationGracePeriodSeconds)
  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) spec.terminationGracePeriodSeconds = 1;
  // the deprecated serviceAccount mirrors serviceAccountName (and the other way round), as upstream's conversion
  if (str(spec.serviceAccountName) && !str(spec.serviceAccount)) spec.serviceAccount = spec.serviceAccountName;
  else if (str(spec.serviceAccount) && !str(spec.serviceAccountName)) spec.serviceAccountName = spec.serviceAccount;
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'enableServiceLinks', true);
  for (const c of arr(spec.containers)) if (c && typeof c === 'object') defaultContainer(c as Obj);
  for (const c of arr(spec.initContainers)) if (c && typeof c === 'object') defaultContainer(c as Obj);
  for (const v of arr(spec.volumes)) {
    const vol = obj(v);
    for (const src of ['configMap', 'secret', 'projected', 'downwardAPI']) {
      const s = vol[src];
      if (s && typeof s === 'object') setDefault(s as Obj, 'defaultMode', 420);
    }
  }
}

export function defaultPodTemplate(template: unknown): void {
  if (!template || typeof template !== 'object') return;
  defaultPodSpec(ensure(template as Obj, 'spec'));
}

function qosClass(spec: Obj): string {
  const containers = [...arr(spec.containers), ...arr(spec.initContainers)].map(obj);
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const r = obj(c.resources);
    const req = obj(r.requests);
    const lim = obj(r.limits);
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const k of ['cpu', 'memory']) {
      if (lim[k] === undefined || parseQuantity(str(req[k] ?? lim[k])) !== parseQuantity(str(lim[k]))) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function defaultPod(o: KubeObject, old?: KubeObject): void {
  const spec = ensure(o as Obj, 'spec');
  defaultPodSpec(spec);
  // what upstream's service-account admission adds to every pod
  setDefault(spec, 'serviceAccountName', spec.serviceAccount || 'default');
  setDefault(spec, 'serviceAccount', spec.serviceAccountName);
  // priority and preemptionPolicy come from the Priority admission plugin at creation; updates keep them
  const oldSpec = obj(old?.spec);
  if (oldSpec.priority !== undefined) setDefault(spec, 'priority', oldSpec.priority);
  if (oldSpec.preemptionPolicy !== undefined) setDefault(spec, 'preemptionPolicy', oldSpec.preemptionPolicy);
  const st = ensure(o as Obj, 'status');
  setDefault(st, 'phase', 'Pending');
  setDefault(st, 'qosClass', qosClass(spec));
}

// ---- validation ----

export interface PodSpecRules {
  /** Allowed restart policies (templates of Deployments etc. only allow Always). */
  restartPolicies?: string[];
  /** Names containers may mount besides spec.volumes (a StatefulSet's volumeClaimTemplates). */
  extraVolumes?: string[];
}

export function validatePodSpec(spec: Obj, path: string, rules: PodSpecRules = {}): FieldError[] {
  const errs: FieldError[] = [];
  const containers = arr(spec.containers);
  if (containers.length === 0) errs.push(fe.required(`${path}.containers`));
  const names = new Set<string>();
  /** volumeMounts per container path, checked once the volumes are known */
  const pendingMounts: [string, unknown[]][] = [];
  const checkContainers = (list: unknown[], field: string) => {
    list.forEach((c, i) => {
      const p = `${path}.${field}[${i}]`;
      const ctr = obj(c);
      const name = str(ctr.name);
      if (!name) errs.push(fe.required(`${p}.name`));
      else {
        for (const e of dns1123LabelErrors(name)) errs.push(fe.invalid(`${p}.name`, name, e));
        if (names.has(name)) errs.push(fe.duplicate(`${p}.name`, name));
        names.add(name);
      }
      if (!str(ctr.image).trim()) errs.push(fe.required(`${p}.image`));
      // native sidecars (GA 1.33): only an init container may set restartPolicy, and only to Always
      if (ctr.restartPolicy !== undefined && ctr.restartPolicy !== null) {
        if (field !== 'initContainers') errs.push(fe.forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
        else if (ctr.restartPolicy !== 'Always') errs.push(fe.notSupported(`${p}.restartPolicy`, ctr.restartPolicy, ['Always']));
      }
      arr(ctr.ports).forEach((port, j) => {
        const pp = `${p}.ports[${j}]`;
        const po = obj(port);
        if (po.containerPort === undefined) errs.push(fe.required(`${pp}.containerPort`));
        else if (!validPort(po.containerPort)) errs.push(fe.invalid(`${pp}.containerPort`, po.containerPort, 'must be between 1 and 65535, inclusive'));
        if (po.hostPort !== undefined && po.hostPort !== 0 && !validPort(po.hostPort))
          errs.push(fe.invalid(`${pp}.hostPort`, po.hostPort, 'must be between 1 and 65535, inclusive'));
      });
      arr(ctr.env).forEach((e, j) => {
        if (!str(obj(e).name)) errs.push(fe.required(`${p}.env[${j}].name`));
      });
      const res = obj(ctr.resources);
      const req = obj(res.requests);
      const lim = obj(res.limits);
      for (const [kind, list] of [['requests', req], ['limits', lim]] as const)
        for (const [k, q] of Object.entries(list))
          if (parseQuantity(str(q)) < 0) errs.push(fe.invalid(`${p}.resources.${kind}[${k}]`, str(q), 'must be greater than or equal to 0'));
      errs.push(...resizePolicyErrors(arr(ctr.resizePolicy), `${p}.resizePolicy`, str(spec.restartPolicy)));
      for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (ctr[probe] === undefined) continue;
        const handlers = ['exec', 'httpGet', 'tcpSocket', 'grpc'].filter((h) => obj(ctr[probe])[h] !== undefined);
        if (handlers.length === 0) errs.push(fe.required(`${p}.${probe}`, 'must specify a handler type'));
        // upstream names the second handler it finds, in exec/httpGet/tcpSocket/grpc order
        else if (handlers.length > 1) errs.push(fe.forbidden(`${p}.${probe}.${handlers[1]}`, 'may not specify more than 1 handler type'));
      }
      errs.push(...appArmorProfileErrors(obj(ctr.securityContext).appArmorProfile, `${p}.securityContext.appArmorProfile`));
      // validateSleepAction (PodLifecycleSleepAction, PodLifecycleSleepActionAllowZero on in 1.33): 0..grace period
      const grace = spec.terminationGracePeriodSeconds;
      for (const hook of ['postStart', 'preStop']) {
        const sleep = obj(obj(obj(ctr.lifecycle)[hook]).sleep);
        const secs = sleep.seconds;
        if (typeof secs === 'number' && typeof grace === 'number' && (secs < 0 || secs > grace))
          errs.push(fe.invalid(`${p}.lifecycle.${hook}.sleep`, secs, `must be non-negative and less than terminationGracePeriodSeconds (${grace})`));
      }
      pendingMounts.push([p, arr(ctr.volumeMounts)]);
      for (const k of Object.keys(req)) {
        if (lim[k] === undefined) continue;
        const r = parseQuantity(str(req[k]));
        const l = parseQuantity(str(lim[k]));
        if (r > l) errs.push(fe.invalid(`${p}.resources.requests[${k}]`, str(req[k]), `must be less than or equal to ${k} limit of ${str(lim[k])}`));
      }
    });
  };
  checkContainers(containers, 'containers');
  checkContainers(arr(spec.initContainers), 'initContainers');
  // InPlacePodVerticalScaling (beta, on in 1.33) lets every init container carry a resizePolicy (upstream's
  // AllowSidecarResizePolicy); ephemeral containers may not (not in upstream's allowedEphemeralContainerFields)
  arr(spec.ephemeralContainers).forEach((c, i) => {
    const p = `${path}.ephemeralContainers[${i}]`;
    const policy = arr(obj(c).resizePolicy);
    errs.push(...resizePolicyErrors(policy, `${p}.resizePolicy`, str(spec.restartPolicy)));
    if (policy.length) errs.push(fe.forbidden(`${p}.resizePolicy`, 'cannot be set for an Ephemeral Container'));
  });
  const volumes = new Set<string>();
  arr(spec.volumes).forEach((v, i) => {
    const name = str(obj(v).name);
    const p = `${path}.volumes[${i}].name`;
    if (!name) errs.push(fe.required(p));
    else {
      for (const e of dns1123LabelErrors(name)) errs.push(fe.invalid(p, name, e));
      if (volumes.has(name)) errs.push(fe.duplicate(p, name));
      volumes.add(name);
    }
    const sources = Object.keys(obj(v)).filter((k) => k !== 'name' && obj(v)[k] !== undefined && obj(v)[k] !== null);
    if (sources.length === 0) errs.push(fe.required(`${path}.volumes[${i}]`, 'must specify a volume type'));
    else if (sources.length > 1) errs.push(fe.forbidden(`${path}.volumes[${i}].${sources[1]}`, 'may not specify more than 1 volume type'));
  });
  // validatePodSpecSecurityContext's 1.28-1.33 fields
  const podSC = obj(spec.securityContext);
  errs.push(...appArmorProfileErrors(podSC.appArmorProfile, `${path}.securityContext.appArmorProfile`));
  const sgp = podSC.supplementalGroupsPolicy;
  if (sgp !== undefined && sgp !== null && sgp !== 'Merge' && sgp !== 'Strict') errs.push(fe.notSupported(`${path}.securityContext.supplementalGroupsPolicy`, sgp, ['Merge', 'Strict']));
  errs.push(...matchLabelKeysErrors(spec, path));
  for (const [p, mounts] of pendingMounts)
    mounts.forEach((m, j) => {
      const name = str(obj(m).name);
      if (!name) errs.push(fe.required(`${p}.volumeMounts[${j}].name`));
      else if (!volumes.has(name) && !rules.extraVolumes?.includes(name)) errs.push({ type: 'FieldValueNotFound', field: `${p}.volumeMounts[${j}].name`, detail: `Not found: ${JSON.stringify(name)}`, badValue: name });
      if (!str(obj(m).mountPath)) errs.push(fe.required(`${p}.volumeMounts[${j}].mountPath`));
      errs.push(...mountPropagationErrors(obj(m), `${p}.volumeMounts[${j}]`));
    });
  arr(spec.tolerations).forEach((t, i) => {
    const tol = obj(t);
    const tp = `${path}.tolerations[${i}]`;
    if (tol.operator === 'Exists' && str(tol.value) !== '') errs.push(fe.invalid(`${tp}.operator`, 'Exists', "value must be empty when `operator` is 'Exists'"));
    else if (tol.operator !== undefined && tol.operator !== '' && tol.operator !== 'Exists' && tol.operator !== 'Equal') errs.push(fe.notSupported(`${tp}.operator`, tol.operator, ['Equal', 'Exists']));
    if (!str(tol.key) && tol.operator !== 'Exists') errs.push(fe.invalid(`${tp}.operator`, str(tol.operator), 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (tol.tolerationSeconds !== undefined && tol.effect !== 'NoExecute') errs.push(fe.invalid(`${tp}.effect`, str(tol.effect), 'effect must be \'NoExecute\' when `tolerationSeconds` is set'));
    if (tol.effect !== undefined && tol.effect !== '' && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(str(tol.effect)))
      errs.push(fe.notSupported(`${tp}.effect`, tol.effect, ['NoExecute', 'NoSchedule', 'PreferNoSchedule']));
  });
  const rp = spec.restartPolicy;
  if (rules.restartPolicies && typeof rp === 'string' && !rules.restartPolicies.includes(rp)) {
    errs.push(fe.notSupported(`${path}.restartPolicy`, rp, rules.restartPolicies));
  }
  return errs;
}

const RESIZE_RESOURCES = ['cpu', 'memory'];
const RESIZE_RESTART_POLICIES = ['NotRequired', 'RestartContainer'];

/** Upstream validateResizePolicy: cpu/memory once each, NotRequired or RestartContainer (only NotRequired in a Never pod). */
function resizePolicyErrors(list: unknown[], path: string, podRestartPolicy: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const p = obj(item);
    const resource = str(p.resourceName);
    const policy = str(p.restartPolicy);
    if (seen.has(resource)) errs.push(fe.duplicate(`${path}[${i}]`, resource));
    seen.add(resource);
    // upstream reports the value errors on the list's path, not the entry's
    if (resource === '') errs.push(fe.required(path));
    else if (!RESIZE_RESOURCES.includes(resource)) errs.push(fe.notSupported(path, resource, RESIZE_RESOURCES));
    if (policy === '') errs.push(fe.required(path));
    else if (!RESIZE_RESTART_POLICIES.includes(policy)) errs.push(fe.notSupported(path, policy, RESIZE_RESTART_POLICIES));
    if (podRestartPolicy === 'Never' && policy !== 'NotRequired') errs.push(fe.invalid(path, policy, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
  });
  return errs;
}

function validPort(p: unknown): boolean {
  return typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= 65535;
}

/** Template must carry labels the selector matches (workload kinds). */
export function validatePodTemplate(template: unknown, path: string, rules: PodSpecRules): FieldError[] {
  if (!template || typeof template !== 'object') return [fe.required(path)];
  return validatePodSpec(obj((template as Obj).spec), `${path}.spec`, rules);
}

const MUTABLE_POD_FIELDS = ['activeDeadlineSeconds', 'terminationGracePeriodSeconds', 'tolerations'];

/** Pod spec updates are limited to images, activeDeadlineSeconds, tolerations and the grace period (and binding a node once). */
function validatePodUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const next = structuredClone(obj(o.spec));
  const prev = structuredClone(obj(old.spec));
  const ignore = [...MUTABLE_POD_FIELDS];
  if (!prev.nodeName) ignore.push('nodeName');
  for (const f of ignore) {
    delete next[f];
    delete prev[f];
  }
  for (const field of ['containers', 'initContainers', 'ephemeralContainers']) {
    for (const c of [...arr(next[field]), ...arr(prev[field])]) if (c && typeof c === 'object') delete (c as Obj).image;
  }
  if (stable(next) === stable(prev)) return [];
  return [
    fe.forbidden(
      'spec',
      'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    ),
  ];
}

function stable(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'undefined';
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  const o = v as Obj;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stable(o[k])}`)
    .join(',')}}`;
}

// ---- printing ----

interface PodView {
  ready: string;
  status: string;
  restarts: string;
}

/** kubectl's Ready / Status / Restarts cells. */
export function podView(o: KubeObject, now?: number): PodView {
  const spec = obj(o.spec);
  const st = obj(o.status);
  const total = arr(spec.containers).length;
  let reason = str(st.reason) || str(st.phase);
  let restarts = 0;
  let lastRestart = 0;
  let ready = 0;
  const noteRestart = (cs: Obj) => {
    restarts += num(cs.restartCount);
    const finished = str(obj(obj(cs.lastState).terminated).finishedAt);
    if (num(cs.restartCount) > 0 && finished) lastRestart = Math.max(lastRestart, Date.parse(finished) || 0);
  };

  let initializing = false;
  const initStatuses = arr(st.initContainerStatuses).map(obj);
  const initCount = arr(spec.initContainers).length;
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i]!;
    noteRestart(cs);
    const state = obj(cs.state);
    const term = obj(state.terminated);
    const waiting = obj(state.waiting);
    if (state.terminated && num(term.exitCode) === 0) continue;
    if (cs.started === true && state.running) continue; // restartable init (sidecar) container
    if (state.terminated) {
      reason = term.reason ? `Init:${str(term.reason)}` : term.signal ? `Init:Signal:${str(term.signal)}` : `Init:ExitCode:${num(term.exitCode)}`;
    } else if (waiting.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${str(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initCount}`;
    }
    initializing = true;
    break;
  }

  if (!initializing) {
    let hasRunning = false;
    const statuses = arr(st.containerStatuses).map(obj);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i]!;
      noteRestart(cs);
      const state = obj(cs.state);
      const term = obj(state.terminated);
      const waiting = obj(state.waiting);
      if (waiting.reason) reason = str(waiting.reason);
      else if (term.reason) reason = str(term.reason);
      else if (state.terminated) reason = term.signal ? `Signal:${str(term.signal)}` : `ExitCode:${num(term.exitCode)}`;
      else if (cs.ready === true && state.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const podReady = arr(st.conditions).some((c) => obj(c).type === 'Ready' && obj(c).status === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }

  if (o.metadata?.deletionTimestamp) reason = st.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  let restartsCell = String(restarts);
  if (lastRestart > 0) restartsCell += ` (${humanDuration((now ?? nowMs()) - lastRestart)} ago)`;
  return { ready: `${ready}/${total}`, status: reason, restarts: restartsCell };
}

const podColumns: TableColumn[] = [
  col('Ready', (o) => podView(o).ready, { description: 'The aggregate readiness state of this pod for accepting traffic.' }),
  col('Status', (o) => podView(o).status, { description: 'The aggregate status of the containers in this pod.' }),
  col('Restarts', (o) => podView(o).restarts, { description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.' }),
  ageColumn,
  col('IP', (o) => orNone(str(obj(o.status).podIP)), { priority: 1, description: 'IP address allocated to the pod.' }),
  col('Node', (o) => orNone(str(obj(o.spec).nodeName)), { priority: 1, description: 'Name of the Node this pod runs on.' }),
  col('Nominated Node', (o) => orNone(str(obj(o.status).nominatedNodeName)), { priority: 1, description: 'Node the scheduler nominated for this pod.' }),
  col(
    'Readiness Gates',
    (o) => {
      const gates = arr(obj(o.spec).readinessGates).map((g) => str(obj(g).conditionType));
      if (!gates.length) return '<none>';
      const conds = arr(obj(o.status).conditions).map(obj);
      const ok = gates.filter((g) => conds.some((c) => c.type === g && c.status === 'True')).length;
      return `${ok}/${gates.length}`;
    },
    { priority: 1, description: 'Pod readiness gates satisfied.' },
  ),
];

export const podStrategy: Strategy = {
  tracksGeneration: true,
  defaults: defaultPod,
  // upstream PrepareForCreate: matchLabelKeys / mismatchLabelKeys become labelSelector expressions once, at creation
  prepareCreate: (o) => mergeMatchLabelKeys(o as Obj),
  validate(o, old) {
    const errs = validatePodSpec(obj(o.spec), 'spec');
    if (old) errs.push(...validatePodUpdate(o, old));
    return errs;
  },
  fieldSelectors: {
    'spec.nodeName': (o) => str(obj(o.spec).nodeName),
    'spec.restartPolicy': (o) => str(obj(o.spec).restartPolicy),
    'spec.schedulerName': (o) => str(obj(o.spec).schedulerName),
    'spec.serviceAccountName': (o) => str(obj(o.spec).serviceAccountName),
    'spec.hostNetwork': (o) => String(obj(o.spec).hostNetwork === true),
    'status.phase': (o) => str(obj(o.status).phase),
    'status.podIP': (o) => str(obj(o.status).podIP),
    'status.nominatedNodeName': (o) => str(obj(o.status).nominatedNodeName),
  },
};

export { podColumns };

/** pods/eviction: the virtual sub-resource that deletes a pod honouring its PodDisruptionBudget (POST an Eviction). */
export function withEviction(t: ResourceType): ResourceType {
  t.subresources.push({ name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] });
  // pods/binding: the scheduler's way of assigning a node (POST a Binding; rest/binding.ts)
  t.subresources.push({ name: 'binding', kind: 'Binding', group: '', version: 'v1', verbs: ['create'] });
  // the connect sub-resources (served by src/server/streaming), with upstream's discovery kinds and verbs
  t.subresources.push(
    { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
    { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
    { name: 'log', kind: 'Pod', verbs: ['get'] },
    { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
    { name: 'proxy', kind: 'PodProxyOptions', verbs: PROXY_VERBS },
  );
  return t;
}

const PROXY_VERBS = ['create', 'delete', 'get', 'patch', 'update'] as ResourceType['verbs'];

/** services/proxy and nodes/proxy, as upstream lists them. */
export function withProxy(t: ResourceType, kind: string): ResourceType {
  t.subresources.push({ name: 'proxy', kind, verbs: PROXY_VERBS });
  return t;
}

const MOUNT_PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
const RECURSIVE_READ_ONLY = ['Disabled', 'Enabled', 'IfPossible'];

/**
 * validateMountPropagation's supported values, and validateMountRecursiveReadOnly (RecursiveReadOnlyMounts, beta
 * 1.31, 1.33 default on): Enabled and IfPossible only on a readOnly mount whose propagation is None or unset.
 */
function mountPropagationErrors(m: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const prop = m.mountPropagation;
  if (prop !== undefined && prop !== null && !MOUNT_PROPAGATIONS.includes(str(prop))) errs.push(fe.notSupported(`${path}.mountPropagation`, prop, MOUNT_PROPAGATIONS));
  const rro = m.recursiveReadOnly;
  if (rro === undefined || rro === null || rro === 'Disabled') return errs;
  if (rro === 'Enabled' || rro === 'IfPossible') {
    if (m.readOnly !== true) errs.push(fe.forbidden(`${path}.recursiveReadOnly`, 'may only be specified when readOnly is true'));
    if (prop !== undefined && prop !== null && prop !== 'None') errs.push(fe.forbidden(`${path}.recursiveReadOnly`, 'may only be specified when mountPropagation is None or not specified'));
  } else errs.push(fe.notSupported(`${path}.recursiveReadOnly`, rro, RECURSIVE_READ_ONLY));
  return errs;
}

const APPARMOR_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];
const MAX_LOCALHOST_PROFILE_LENGTH = 4095; // PATH_MAX - 1

/** ValidateAppArmorProfileField (AppArmor fields, GA 1.30). */
function appArmorProfileErrors(profile: unknown, path: string): FieldError[] {
  if (profile === undefined || profile === null) return [];
  const p = obj(profile);
  const local = p.localhostProfile;
  switch (p.type) {
    case 'Localhost': {
      if (local === undefined || local === null) return [fe.required(`${path}.localhostProfile`, 'must be set when AppArmor type is Localhost')];
      const errs: FieldError[] = [];
      const text = str(local);
      if (text.trim() !== text) errs.push(fe.invalid(`${path}.localhostProfile`, text, 'must not be padded with whitespace'));
      else if (text === '') errs.push(fe.required(`${path}.localhostProfile`, 'must be set when AppArmor type is Localhost'));
      if (Buffer.byteLength(text) > MAX_LOCALHOST_PROFILE_LENGTH) errs.push(fe.tooLong(`${path}.localhostProfile`, MAX_LOCALHOST_PROFILE_LENGTH));
      return errs;
    }
    case 'RuntimeDefault':
    case 'Unconfined':
      return local !== undefined && local !== null ? [fe.invalid(`${path}.localhostProfile`, local, 'can only be set when AppArmor type is Localhost')] : [];
    case undefined:
    case null:
    case '':
      return [fe.required(`${path}.type`, 'type is required when appArmorProfile is set')];
    default:
      return [fe.notSupported(`${path}.type`, p.type, APPARMOR_TYPES)];
  }
}
