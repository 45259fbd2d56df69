// The kinds application bundles carry beyond workloads: remaining core/apps kinds, networking, autoscaling,
// storage, scheduling, discovery, events, node and admission webhooks. Each is a table entry (schema from
// builtin-definitions.json, columns as kubectl prints them — upstream pkg/printers/internalversion) plus its strategy.
import { ageSince } from './age.js';
import { type Obj, ageColumn, arr, builtinType, col, ensure, isEmptySelector, labelSelectorString, mapSelectorString, num, obj, orNone, podTemplateColumns, setDefault, str } from './builtin-helpers.js';
import { defaultPodTemplate, validatePodTemplate } from './builtin-pod.js';
import * as fe from './schema/field-errors.js';
import type { FieldError, KubeObject, ResourceType, Strategy } from './types.js';

const createdAt = col('Created At', (o) => o.metadata?.creationTimestamp ?? null, { type: 'date' });
const spec = (o: KubeObject): Obj => obj(o.spec);
const status = (o: KubeObject): Obj => obj(o.status);
const field = (o: KubeObject, k: string): unknown => (o as Obj)[k];

function immutableField(o: KubeObject, old: KubeObject | undefined, path: string, get: (x: KubeObject) => unknown, errs: FieldError[]): void {
  if (old && JSON.stringify(get(o) ?? null) !== JSON.stringify(get(old) ?? null)) errs.push(fe.invalid(path, get(o) ?? null, 'field is immutable'));
}

// ---- ResourceQuota / LimitRange ----

/** "name: used/hard" pairs, split into requests and limits (printResourceQuota). */
function quotaCell(o: KubeObject, limits: boolean): string {
  const hard = obj(spec(o).hard);
  const used = obj(status(o).used);
  return Object.keys(hard)
    .filter((k) => k.startsWith('limits.') === limits)
    .sort()
    .map((k) => `${k}: ${str(used[k] ?? '0')}/${str(hard[k])}`)
    .join(', ');
}

const QUOTA_SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];

const quotaStrategy: Strategy = {
  validate(o) {
    const errs: FieldError[] = [];
    for (const [k, v] of Object.entries(obj(spec(o).hard)))
      if (typeof v === 'string' && v.startsWith('-')) errs.push(fe.invalid(`spec.hard[${k}]`, v, 'must be greater than or equal to 0'));
    arr(spec(o).scopes).forEach((s, i) => {
      if (!QUOTA_SCOPES.includes(str(s))) errs.push(fe.notSupported(`spec.scopes[${i}]`, s, QUOTA_SCOPES));
    });
    return errs;
  },
};

const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

const limitRangeStrategy: Strategy = {
  validate(o) {
    const errs: FieldError[] = [];
    arr(spec(o).limits).forEach((l, i) => {
      const t = str(obj(l).type);
      if (!t) errs.push(fe.required(`spec.limits[${i}].type`));
      else if (!LIMIT_TYPES.includes(t) && !t.includes('/')) errs.push(fe.notSupported(`spec.limits[${i}].type`, t, LIMIT_TYPES));
    });
    return errs;
  },
};

// ---- ReplicationController / PodTemplate / ControllerRevision ----

const rcStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    const s = ensure(o as Obj, 'spec');
    setDefault(s, 'replicas', 1);
    setDefault(s, 'minReadySeconds', 0);
    const labels = obj(obj(obj(s.template).metadata).labels);
    // an empty selector defaults to the template's labels, and empty object labels to the selector (upstream SetDefaults_ReplicationController)
    if (Object.keys(obj(s.selector)).length === 0 && Object.keys(labels).length) s.selector = { ...labels };
    const meta = (o.metadata ??= {});
    if (!meta.labels || Object.keys(meta.labels).length === 0) if (Object.keys(labels).length) meta.labels = Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, str(v)]));
    defaultPodTemplate(s.template);
  },
  validate(o) {
    const errs: FieldError[] = [];
    const s = spec(o);
    const selector = obj(s.selector);
    if (Object.keys(selector).length === 0) errs.push(fe.required('spec.selector'));
    const labels = obj(obj(obj(s.template).metadata).labels);
    if (Object.keys(selector).some((k) => labels[k] !== selector[k]))
      errs.push(fe.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
    if (typeof s.replicas === 'number' && s.replicas < 0) errs.push(fe.invalid('spec.replicas', s.replicas, 'must be greater than or equal to 0'));
    errs.push(...validatePodTemplate(s.template, 'spec.template', { restartPolicies: ['Always'] }));
    return errs;
  },
};

const podTemplateStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    defaultPodTemplate(field(o, 'template'));
  },
  validate: (o) => validatePodTemplate(field(o, 'template'), 'template', {}),
};

const controllerRevisionStrategy: Strategy = {
  validate(o, old) {
    const errs: FieldError[] = [];
    const rev = field(o, 'revision');
    if (typeof rev === 'number' && rev < 0) errs.push(fe.invalid('revision', rev, 'must be greater than or equal to 0'));
    immutableField(o, old, 'data', (x) => field(x, 'data'), errs);
    return errs;
  },
};

function controllerOf(o: KubeObject): string {
  const ref = (o.metadata?.ownerReferences ?? []).find((r) => r.controller);
  if (!ref) return '<none>';
  const av = str(ref.apiVersion);
  const group = av.includes('/') ? av.slice(0, av.indexOf('/')) : '';
  return `${ref.kind.toLowerCase()}${group ? '.' + group : ''}/${ref.name}`;
}

// ---- networking ----

function ingressHosts(o: KubeObject): string {
  const hosts = arr(spec(o).rules)
    .map((r) => str(obj(r).host))
    .filter(Boolean);
  if (hosts.length === 0) return '*';
  return hosts.length > 4 ? `${hosts.slice(0, 4).join(',')} + ${hosts.length - 4} more...` : hosts.join(',');
}

function loadBalancerAddress(lb: unknown): string {
  const ing = arr(obj(lb).ingress).map((i) => str(obj(i).ip) || str(obj(i).hostname)).filter(Boolean);
  return ing.join(',');
}

const PATH_TYPES = ['Exact', 'Prefix', 'ImplementationSpecific'];

function validateBackend(b: unknown, path: string, errs: FieldError[]): void {
  const be = obj(b);
  const svc = be.service === undefined ? undefined : obj(be.service);
  if (svc && be.resource !== undefined) errs.push(fe.invalid(path, be, 'cannot set both service and resource backends'));
  else if (!svc && be.resource === undefined) errs.push(fe.invalid(path, be, 'must specify either service or resource'));
  if (svc) {
    if (!str(svc.name)) errs.push(fe.required(`${path}.service.name`));
    const port = obj(svc.port);
    if (port.name !== undefined && port.number !== undefined) errs.push(fe.invalid(`${path}.service.port`, port, 'cannot specify both port name and port number'));
    else if (port.name === undefined && port.number === undefined) errs.push(fe.required(`${path}.service.port`, 'port name or number is required'));
    if (typeof port.number === 'number' && (port.number < 1 || port.number > 65535)) errs.push(fe.invalid(`${path}.service.port.number`, port.number, 'must be between 1 and 65535, inclusive'));
  }
}

const ingressStrategy: Strategy = {
  tracksGeneration: true,
  validate(o) {
    const errs: FieldError[] = [];
    const s = spec(o);
    if (s.defaultBackend !== undefined) validateBackend(s.defaultBackend, 'spec.defaultBackend', errs);
    if (s.defaultBackend === undefined && arr(s.rules).length === 0) errs.push(fe.invalid('spec.rules', [], 'either `defaultBackend` or `rules` must be specified'));
    arr(s.rules).forEach((r, i) => {
      const host = str(obj(r).host);
      if (host && /^\d+\.\d+\.\d+\.\d+$/.test(host)) errs.push(fe.invalid(`spec.rules[${i}].host`, host, 'must be a DNS name, not an IP address'));
      const http = obj(r).http;
      if (http === undefined) return;
      const paths = arr(obj(http).paths);
      if (paths.length === 0) errs.push(fe.required(`spec.rules[${i}].http.paths`));
      paths.forEach((p, j) => {
        const pp = `spec.rules[${i}].http.paths[${j}]`;
        const pt = obj(p).pathType;
        if (pt === undefined) errs.push(fe.required(`${pp}.pathType`, 'pathType must be specified'));
        else if (!PATH_TYPES.includes(str(pt))) errs.push(fe.notSupported(`${pp}.pathType`, pt, PATH_TYPES));
        const pathValue = obj(p).path;
        if ((pt === 'Exact' || pt === 'Prefix') && !str(pathValue).startsWith('/')) errs.push(fe.invalid(`${pp}.path`, pathValue ?? '', "must be an absolute path"));
        validateBackend(obj(p).backend, `${pp}.backend`, errs);
      });
    });
    return errs;
  },
};

const ingressClassStrategy: Strategy = {
  tracksGeneration: true,
  validate(o, old) {
    const errs: FieldError[] = [];
    const controller = str(spec(o).controller);
    if (!controller) errs.push(fe.required('spec.controller'));
    else if (controller.length > 250) errs.push({ type: 'FieldValueTooLong', field: 'spec.controller', detail: 'Too long: may not be more than 250 bytes', badValue: controller });
    immutableField(o, old, 'spec.controller', (x) => spec(x).controller, errs);
    return errs;
  },
};

const POLICY_TYPES = ['Ingress', 'Egress'];

const networkPolicyStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    const s = ensure(o as Obj, 'spec');
    setDefault(s, 'podSelector', {});
    // upstream: Ingress always, Egress when egress rules are present
    if (s.policyTypes === undefined || (Array.isArray(s.policyTypes) && s.policyTypes.length === 0))
      s.policyTypes = Array.isArray(s.egress) && s.egress.length ? ['Ingress', 'Egress'] : ['Ingress'];
    for (const dir of ['ingress', 'egress'])
      for (const r of arr(s[dir]))
        for (const p of arr(obj(r).ports)) if (p && typeof p === 'object') setDefault(p as Obj, 'protocol', 'TCP');
  },
  validate(o) {
    const errs: FieldError[] = [];
    arr(spec(o).policyTypes).forEach((t, i) => {
      if (!POLICY_TYPES.includes(str(t))) errs.push(fe.notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
    });
    return errs;
  },
};

// ---- autoscaling/v2 ----

function hpaTargets(o: KubeObject): string {
  const metrics = arr(spec(o).metrics).map(obj);
  if (metrics.length === 0) return '<none>';
  const current = arr(status(o).currentMetrics).map(obj);
  const parts = metrics.map((m, i) => {
    const cur = current[i] ?? {};
    if (m.type === 'Resource') {
      const t = obj(obj(m.resource).target);
      const c = obj(obj(cur.resource).current);
      const name = str(obj(m.resource).name);
      if (t.averageUtilization !== undefined) return `${name}: ${c.averageUtilization !== undefined ? `${num(c.averageUtilization)}%` : '<unknown>'}/${num(t.averageUtilization)}%`;
      return `${name}: ${str(c.averageValue) || '<unknown>'}/${str(t.averageValue ?? t.value)}`;
    }
    const kind = str(m.type);
    const block = obj(m[kind.charAt(0).toLowerCase() + kind.slice(1)]);
    const t = obj(block.target);
    return `${str(c(cur, kind).averageValue ?? c(cur, kind).value) || '<unknown>'}/${str(t.averageValue ?? t.value)}${t.type === 'AverageValue' ? ' (avg)' : ''}`;
  });
  return parts.length > 2 ? `${parts.slice(0, 2).join(', ')} + ${parts.length - 2} more...` : parts.join(', ');
}

function c(cur: Obj, kind: string): Obj {
  return obj(obj(cur[kind.charAt(0).toLowerCase() + kind.slice(1)]).current);
}

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];

const hpaStrategy: Strategy = {
  convertFrom: hpaV1toV2,
  defaults(o) {
    const s = ensure(o as Obj, 'spec');
    setDefault(s, 'minReplicas', 1);
    // autoscaling/v2 SetDefaults_HorizontalPodAutoscaler: no metrics means 80% average CPU utilization
    if (!Array.isArray(s.metrics) || s.metrics.length === 0)
      s.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  },
  validate(o) {
    const errs: FieldError[] = [];
    const s = spec(o);
    const ref = obj(s.scaleTargetRef);
    if (!str(ref.kind)) errs.push(fe.required('spec.scaleTargetRef.kind'));
    if (!str(ref.name)) errs.push(fe.required('spec.scaleTargetRef.name'));
    const min = s.minReplicas;
    const max = num(s.maxReplicas);
    if (typeof min === 'number' && min < 1) errs.push(fe.invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
    if (max < 1) errs.push(fe.invalid('spec.maxReplicas', s.maxReplicas ?? 0, 'must be greater than 0'));
    if (typeof min === 'number' && max < min) errs.push(fe.invalid('spec.maxReplicas', s.maxReplicas, 'must be greater than or equal to `minReplicas`'));
    arr(s.metrics).forEach((m, i) => {
      const t = obj(m).type;
      if (!METRIC_TYPES.includes(str(t))) errs.push(fe.notSupported(`spec.metrics[${i}].type`, t, METRIC_TYPES));
    });
    return errs;
  },
};

// ---- autoscaling/v1 <-> v2 (one storage; upstream pkg/apis/autoscaling/v1 conversion) ----

/** Annotations autoscaling/v1 keeps what it has no fields for (upstream's names). */
const HPA_METRICS = 'autoscaling.alpha.kubernetes.io/metrics';
const HPA_CURRENT_METRICS = 'autoscaling.alpha.kubernetes.io/current-metrics';
const HPA_CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';
const HPA_BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior';

const isCpuUtilization = (m: Obj) => m.type === 'Resource' && str(obj(m.resource).name) === 'cpu' && obj(obj(m.resource).target).type === 'Utilization';

/** A stored v2 HPA as autoscaling/v1 sees it. */
export function hpaV2toV1(o: KubeObject): KubeObject {
  const out = structuredClone(o) as Obj;
  const sp = obj(o.spec);
  const st = obj(o.status);
  const annotations: Record<string, string> = { ...(o.metadata?.annotations ?? {}) };
  const metrics = arr(sp.metrics).map(obj);
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  if (others.length) annotations[HPA_METRICS] = JSON.stringify(others);
  if (sp.behavior !== undefined) annotations[HPA_BEHAVIOR] = JSON.stringify(sp.behavior);
  const spec: Obj = { scaleTargetRef: sp.scaleTargetRef, maxReplicas: sp.maxReplicas };
  if (sp.minReplicas !== undefined) spec.minReplicas = sp.minReplicas;
  if (cpu) spec.targetCPUUtilizationPercentage = obj(obj(cpu.resource).target).averageUtilization;
  out.spec = spec;
  if (o.status !== undefined) {
    const status: Obj = { currentReplicas: num(st.currentReplicas), desiredReplicas: num(st.desiredReplicas) };
    if (st.observedGeneration !== undefined) status.observedGeneration = st.observedGeneration;
    if (st.lastScaleTime !== undefined) status.lastScaleTime = st.lastScaleTime;
    const current = arr(st.currentMetrics).map(obj);
    const cpuNow = current.find((m) => m.type === 'Resource' && str(obj(m.resource).name) === 'cpu');
    if (cpuNow && obj(obj(cpuNow.resource).current).averageUtilization !== undefined) status.currentCPUUtilizationPercentage = obj(obj(cpuNow.resource).current).averageUtilization;
    const otherNow = current.filter((m) => m !== cpuNow);
    if (otherNow.length) annotations[HPA_CURRENT_METRICS] = JSON.stringify(otherNow);
    if (arr(st.conditions).length) annotations[HPA_CONDITIONS] = JSON.stringify(st.conditions);
    out.status = status;
  }
  out.metadata = { ...o.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete (out.metadata as Obj).annotations;
  return out as KubeObject;
}

const parseJson = (v: string | undefined): unknown[] => {
  try {
    const x = v ? JSON.parse(v) : [];
    return Array.isArray(x) ? x : [];
  } catch {
    return [];
  }
};

/** A stored v1 HPA as autoscaling/v2 sees it (the annotations v1 carries become fields again). */
export function hpaV1toV2(o: KubeObject): KubeObject {
  const out = structuredClone(o) as Obj;
  const sp = obj(o.spec);
  const st = obj(o.status);
  const annotations: Record<string, string> = { ...(o.metadata?.annotations ?? {}) };
  const metrics: unknown[] = [];
  if (typeof sp.targetCPUUtilizationPercentage === 'number')
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: sp.targetCPUUtilizationPercentage } } });
  metrics.push(...parseJson(annotations[HPA_METRICS]));
  const spec: Obj = { scaleTargetRef: sp.scaleTargetRef, maxReplicas: sp.maxReplicas };
  if (sp.minReplicas !== undefined) spec.minReplicas = sp.minReplicas;
  if (metrics.length) spec.metrics = metrics;
  if (annotations[HPA_BEHAVIOR]) {
    try {
      spec.behavior = JSON.parse(annotations[HPA_BEHAVIOR]);
    } catch {
      // an unreadable annotation is dropped, as upstream's conversion ignores it
    }
  }
  out.spec = spec;
  if (o.status !== undefined) {
    const status: Obj = { currentReplicas: num(st.currentReplicas), desiredReplicas: num(st.desiredReplicas) };
    if (st.observedGeneration !== undefined) status.observedGeneration = st.observedGeneration;
    if (st.lastScaleTime !== undefined) status.lastScaleTime = st.lastScaleTime;
    const current: unknown[] = [];
    if (typeof st.currentCPUUtilizationPercentage === 'number') current.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: st.currentCPUUtilizationPercentage } } });
    current.push(...parseJson(annotations[HPA_CURRENT_METRICS]));
    if (current.length) status.currentMetrics = current;
    const conditions = parseJson(annotations[HPA_CONDITIONS]);
    if (conditions.length) status.conditions = conditions;
    out.status = status;
  }
  for (const k of [HPA_METRICS, HPA_CURRENT_METRICS, HPA_CONDITIONS, HPA_BEHAVIOR]) delete annotations[k];
  out.metadata = { ...o.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete (out.metadata as Obj).annotations;
  return out as KubeObject;
}

/** Either stored form as v2 (for columns shared by both versions). */
const asV2 = (o: KubeObject): KubeObject => (String(o.apiVersion ?? '').endsWith('/v1') ? hpaV1toV2(o) : o);

const hpaV1Strategy: Strategy = {
  defaults(o) {
    setDefault(ensure(o as Obj, 'spec'), 'minReplicas', 1);
  },
  validate(o) {
    const errs: FieldError[] = [];
    const sp = spec(o);
    const ref = obj(sp.scaleTargetRef);
    if (!str(ref.kind)) errs.push(fe.required('spec.scaleTargetRef.kind'));
    if (!str(ref.name)) errs.push(fe.required('spec.scaleTargetRef.name'));
    const min = sp.minReplicas;
    const max = num(sp.maxReplicas);
    if (typeof min === 'number' && min < 1) errs.push(fe.invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
    if (max < 1) errs.push(fe.invalid('spec.maxReplicas', sp.maxReplicas ?? 0, 'must be greater than 0'));
    if (typeof min === 'number' && max < min) errs.push(fe.invalid('spec.maxReplicas', sp.maxReplicas, 'must be greater than or equal to `minReplicas`'));
    const t = sp.targetCPUUtilizationPercentage;
    if (typeof t === 'number' && t < 1) errs.push(fe.invalid('spec.targetCPUUtilizationPercentage', t, 'must be greater than 0'));
    return errs;
  },
  convertFrom: hpaV2toV1,
};

// ---- storage ----

const RECLAIM = ['Delete', 'Retain'];
const BINDING = ['Immediate', 'WaitForFirstConsumer'];

const storageClassStrategy: Strategy = {
  defaults(o) {
    const x = o as Obj;
    setDefault(x, 'reclaimPolicy', 'Delete');
    setDefault(x, 'volumeBindingMode', 'Immediate');
  },
  validate(o, old) {
    const errs: FieldError[] = [];
    const x = o as Obj;
    if (!str(x.provisioner)) errs.push(fe.required('provisioner'));
    if (x.reclaimPolicy !== undefined && !RECLAIM.includes(str(x.reclaimPolicy))) errs.push(fe.notSupported('reclaimPolicy', x.reclaimPolicy, RECLAIM));
    if (x.volumeBindingMode !== undefined && !BINDING.includes(str(x.volumeBindingMode))) errs.push(fe.notSupported('volumeBindingMode', x.volumeBindingMode, BINDING));
    for (const f of ['parameters', 'provisioner', 'reclaimPolicy', 'volumeBindingMode'])
      immutableField(o, old, f, (y) => (y as Obj)[f], errs);
    return errs;
  },
};

const csiDriverStrategy: Strategy = {
  defaults(o) {
    const s = ensure(o as Obj, 'spec');
    setDefault(s, 'attachRequired', true);
    setDefault(s, 'podInfoOnMount', false);
    setDefault(s, 'storageCapacity', false);
    setDefault(s, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
    setDefault(s, 'requiresRepublish', false);
    setDefault(s, 'seLinuxMount', false);
    setDefault(s, 'volumeLifecycleModes', ['Persistent']);
  },
  validate(o, old) {
    const errs: FieldError[] = [];
    immutableField(o, old, 'spec.attachRequired', (x) => spec(x).attachRequired, errs);
    immutableField(o, old, 'spec.volumeLifecycleModes', (x) => spec(x).volumeLifecycleModes, errs);
    return errs;
  },
};

const volumeAttachmentStrategy: Strategy = {
  validate(o, old) {
    const errs: FieldError[] = [];
    const s = spec(o);
    if (!str(s.attacher)) errs.push(fe.required('spec.attacher'));
    if (!str(s.nodeName)) errs.push(fe.required('spec.nodeName'));
    const src = obj(s.source);
    if ((src.persistentVolumeName === undefined) === (src.inlineVolumeSpec === undefined))
      errs.push(fe.required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
    immutableField(o, old, 'spec', spec, errs);
    return errs;
  },
};

const csiNodeStrategy: Strategy = {};
const capacityStrategy: Strategy = {
  validate(o) {
    return str(field(o, 'storageClassName')) ? [] : [fe.required('storageClassName')];
  },
};

// ---- scheduling ----

const PREEMPTION = ['Never', 'PreemptLowerPriority'];
/** Upstream reserves values above one billion (HighestUserDefinablePriority) for system classes. */
const HIGHEST_USER_PRIORITY = 1_000_000_000;

const priorityClassStrategy: Strategy = {
  defaults(o) {
    setDefault(o as Obj, 'preemptionPolicy', 'PreemptLowerPriority');
  },
  validate(o, old) {
    const errs: FieldError[] = [];
    const x = o as Obj;
    const name = o.metadata?.name ?? '';
    if (typeof x.value === 'number' && x.value > HIGHEST_USER_PRIORITY && !name.startsWith('system-'))
      errs.push(fe.invalid('value', x.value, `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
    if (name.startsWith('system-') && !['system-node-critical', 'system-cluster-critical'].includes(name))
      errs.push(fe.forbidden('metadata.name', "priority class names with 'system-' prefix are reserved for system use only"));
    if (x.preemptionPolicy !== undefined && !PREEMPTION.includes(str(x.preemptionPolicy))) errs.push(fe.notSupported('preemptionPolicy', x.preemptionPolicy, PREEMPTION));
    immutableField(o, old, 'value', (y) => (y as Obj).value, errs);
    immutableField(o, old, 'preemptionPolicy', (y) => (y as Obj).preemptionPolicy, errs);
    return errs;
  },
};

// ---- discovery ----

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];

function slicePorts(o: KubeObject): string {
  const ports = arr(field(o, 'ports')).map((p) => num(obj(p).port));
  if (ports.length === 0) return '<unset>';
  return ports.length > 3 ? `${ports.slice(0, 3).join(',')} + ${ports.length - 3} more...` : ports.join(',');
}

function sliceEndpoints(o: KubeObject): string {
  const addrs = arr(field(o, 'endpoints')).flatMap((e) => arr(obj(e).addresses).map(str));
  if (addrs.length === 0) return '<unset>';
  return addrs.length > 3 ? `${addrs.slice(0, 3).join(',')} + ${addrs.length - 3} more...` : addrs.join(',');
}

const endpointSliceStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    for (const p of arr(field(o, 'ports'))) if (p && typeof p === 'object') setDefault(p as Obj, 'protocol', 'TCP');
    for (const p of arr(field(o, 'ports'))) if (p && typeof p === 'object') setDefault(p as Obj, 'name', '');
  },
  validate(o, old) {
    const errs: FieldError[] = [];
    const at = field(o, 'addressType');
    if (at === undefined) errs.push(fe.required('addressType'));
    else if (!ADDRESS_TYPES.includes(str(at))) errs.push(fe.notSupported('addressType', at, ADDRESS_TYPES));
    arr(field(o, 'endpoints')).forEach((e, i) => {
      const addrs = arr(obj(e).addresses);
      if (addrs.length === 0) errs.push(fe.required(`endpoints[${i}].addresses`, 'must contain at least 1 address'));
    });
    immutableField(o, old, 'addressType', (x) => field(x, 'addressType'), errs);
    return errs;
  },
};

// ---- events.k8s.io ----

function eventsV1LastSeen(stored: KubeObject): string {
  const o = eventFromCore(stored);
  const ts = str(obj(field(o, 'series')).lastObservedTime) || str(field(o, 'deprecatedLastTimestamp')) || str(field(o, 'eventTime'));
  return ts ? ageSince(ts) : '<unknown>';
}

/** events.k8s.io/v1 field <-> core v1 field (upstream pkg/apis/events/v1 conversion). */
const EVENT_FIELDS: [string, string][] = [
  ['regarding', 'involvedObject'], ['note', 'message'], ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'], ['deprecatedFirstTimestamp', 'firstTimestamp'], ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

const isCoreForm = (o: KubeObject) => !String(o.apiVersion ?? 'v1').includes('/');

/** The core v1 Event an events.k8s.io/v1 Event is stored as (idempotent on core objects). */
export function eventToCore(o: KubeObject): KubeObject {
  if (isCoreForm(o)) return o;
  const out: Obj = { ...(o as Obj), apiVersion: 'v1' };
  for (const [v1, core] of EVENT_FIELDS) {
    delete out[v1];
    if ((o as Obj)[v1] !== undefined) out[core] = (o as Obj)[v1];
  }
  return out as KubeObject;
}

/** A stored core v1 Event as events.k8s.io/v1 shows it. */
export function eventFromCore(o: KubeObject): KubeObject {
  if (!isCoreForm(o)) return o;
  const out: Obj = { ...(o as Obj) };
  for (const [v1, core] of EVENT_FIELDS) {
    delete out[core];
    if ((o as Obj)[core] !== undefined) out[v1] = (o as Obj)[core];
  }
  return out as KubeObject;
}

const regarding = (o: KubeObject) => obj(field(eventFromCore(o), 'regarding'));

const eventsV1Strategy: Strategy = {
  allowCreateOnUpdate: true,
  convertFrom: eventFromCore,
  convertTo: eventToCore,
  validate(o, old) {
    const errs: FieldError[] = [];
    // events.k8s.io/v1 requires eventTime, reportingController, reportingInstance and action on create (ValidateEventCreate);
    // updates keep what the stored event (perhaps a core one) has
    if (!old) {
      if (!str(field(o, 'eventTime'))) errs.push(fe.required('eventTime'));
      if (!str(field(o, 'reportingController'))) errs.push(fe.required('reportingController'));
      if (!str(field(o, 'reportingInstance'))) errs.push(fe.required('reportingInstance'));
      if (!str(field(o, 'action'))) errs.push(fe.required('action'));
    }
    const t = field(o, 'type');
    if (t !== 'Normal' && t !== 'Warning') errs.push(fe.notSupported('type', t ?? '', ['Normal', 'Warning']));
    if (str(field(o, 'note')).length > 1024) errs.push({ type: 'FieldValueTooLong', field: 'note', detail: 'Too long: may not be more than 1024 bytes', badValue: field(o, 'note') });
    return errs;
  },
};

// ---- node ----

const runtimeClassStrategy: Strategy = {
  validate(o, old) {
    const errs: FieldError[] = [];
    const handler = str(field(o, 'handler'));
    if (!handler) errs.push(fe.required('handler'));
    else if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(handler) || handler.length > 63)
      errs.push(fe.invalid('handler', handler, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
    immutableField(o, old, 'handler', (x) => field(x, 'handler'), errs);
    return errs;
  },
};

// ---- admission webhooks ----



// columns read either stored version through its v2 form
const hpaColumns = [
  col('Reference', (o: KubeObject) => `${str(obj(spec(o).scaleTargetRef).kind)}/${str(obj(spec(o).scaleTargetRef).name)}`),
  col('Targets', (o: KubeObject) => hpaTargets(asV2(o))),
  col('MinPods', (o: KubeObject) => (spec(o).minReplicas === undefined ? '<unset>' : String(num(spec(o).minReplicas)))),
  col('MaxPods', (o: KubeObject) => num(spec(o).maxReplicas), { type: 'integer' }),
  col('Replicas', (o: KubeObject) => num(status(o).currentReplicas), { type: 'integer' }),
  ageColumn,
];

// ---- the table ----

const API = 'io.k8s.api.';
const CORE = API + 'core.v1.';
const rcTemplate = (o: KubeObject) => obj(spec(o).template);

export const platformTypes: ResourceType[] = [
  builtinType({
    group: '', version: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas', schemaRef: CORE + 'ResourceQuota', scope: 'Namespaced',
    shortNames: ['quota'], status: true, strategy: quotaStrategy,
    columns: [ageColumn, col('Request', (o) => quotaCell(o, false)), col('Limit', (o) => quotaCell(o, true))],
  }),
  builtinType({
    group: '', version: 'v1', kind: 'LimitRange', plural: 'limitranges', schemaRef: CORE + 'LimitRange', scope: 'Namespaced',
    shortNames: ['limits'], strategy: limitRangeStrategy, columns: [createdAt],
  }),
  builtinType({
    group: '', version: 'v1', kind: 'ReplicationController', plural: 'replicationcontrollers', schemaRef: CORE + 'ReplicationController',
    scope: 'Namespaced', shortNames: ['rc'], categories: ['all'], status: true, scale: true, strategy: rcStrategy,
    columns: [
      col('Desired', (o) => num(spec(o).replicas), { type: 'integer' }),
      col('Current', (o) => num(status(o).replicas), { type: 'integer' }),
      col('Ready', (o) => num(status(o).readyReplicas), { type: 'integer' }),
      ageColumn,
      ...podTemplateColumns(rcTemplate).concat(col('Selector', (o) => mapSelectorString(spec(o).selector), { priority: 1 })),
    ],
  }),
  builtinType({
    group: '', version: 'v1', kind: 'PodTemplate', plural: 'podtemplates', schemaRef: CORE + 'PodTemplate', scope: 'Namespaced',
    strategy: podTemplateStrategy,
    columns: [
      ...podTemplateColumns((o) => obj(field(o, 'template'))).map((x) => ({ ...x, priority: undefined })),
      col('Pod Labels', (o) => mapSelectorString(obj(obj(field(o, 'template')).metadata).labels)),
    ],
  }),
  builtinType({
    group: 'apps', version: 'v1', kind: 'ControllerRevision', plural: 'controllerrevisions', schemaRef: API + 'apps.v1.ControllerRevision',
    scope: 'Namespaced', strategy: controllerRevisionStrategy,
    columns: [col('Controller', controllerOf), col('Revision', (o) => num(field(o, 'revision')), { type: 'integer' }), ageColumn],
  }),
  builtinType({
    group: 'networking.service.io', version: 'v1', kind: 'Ingress', plural: 'ingresses', schemaRef: API + 'networking.v1.Ingress',
    scope: 'Namespaced', shortNames: ['ing'], status: true, strategy: ingressStrategy,
    columns: [
      col('Class', (o) => str(spec(o).ingressClassName) || '<none>'),
      col('Hosts', ingressHosts),
      col('Address', (o) => loadBalancerAddress(status(o).loadBalancer)),
      col('Ports', (o) => (arr(spec(o).tls).length ? '80, 443' : '80')),
      ageColumn,
    ],
  }),
  builtinType({
    group: 'networking.service.io', version: 'v1', kind: 'IngressClass', plural: 'ingressclasses', schemaRef: API + 'networking.v1.IngressClass',
    scope: 'Cluster', strategy: ingressClassStrategy,
    columns: [
      col('Controller', (o) => str(spec(o).controller)),
      col('Parameters', (o) => {
        const p = obj(spec(o).parameters);
        if (!str(p.name)) return '<none>';
        return `${str(p.kind)}.${str(p.apiGroup)}/${str(p.name)}`;
      }),
      ageColumn,
    ],
  }),
  builtinType({
    group: 'networking.service.io', version: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies', schemaRef: API + 'networking.v1.NetworkPolicy',
    scope: 'Namespaced', shortNames: ['netpol'], strategy: networkPolicyStrategy,
    columns: [col('Pod-Selector', (o) => (isEmptySelector(spec(o).podSelector) ? '<none>' : labelSelectorString(spec(o).podSelector))), ageColumn],
  }),
  builtinType({
    group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', schemaRef: API + 'autoscaling.v2.HorizontalPodAutoscaler',
    scope: 'Namespaced', shortNames: ['hpa'], categories: ['all'], status: true, strategy: hpaStrategy, columns: hpaColumns,
  }),
  builtinType({
    group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', schemaRef: API + 'autoscaling.v1.HorizontalPodAutoscaler',
    scope: 'Namespaced', shortNames: ['hpa'], categories: ['all'], status: true, strategy: hpaV1Strategy, columns: hpaColumns,
  }),
  builtinType({
    group: 'storage.service.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', schemaRef: API + 'storage.v1.StorageClass',
    scope: 'Cluster', shortNames: ['sc'], strategy: storageClassStrategy,
    columns: [
      col('Provisioner', (o) => str(field(o, 'provisioner'))),
      col('ReclaimPolicy', (o) => str(field(o, 'reclaimPolicy')) || 'Delete'),
      col('VolumeBindingMode', (o) => str(field(o, 'volumeBindingMode')) || 'Immediate'),
      col('AllowVolumeExpansion', (o) => field(o, 'allowVolumeExpansion') === true, { type: 'boolean' }),
      ageColumn,
    ],
  }),
  builtinType({
    group: 'storage.service.io', version: 'v1', kind: 'CSIDriver', plural: 'csidrivers', schemaRef: API + 'storage.v1.CSIDriver',
    scope: 'Cluster', strategy: csiDriverStrategy,
    columns: [
      col('AttachRequired', (o) => spec(o).attachRequired !== false, { type: 'boolean' }),
      col('PodInfoOnMount', (o) => spec(o).podInfoOnMount === true, { type: 'boolean' }),
      col('StorageCapacity', (o) => spec(o).storageCapacity === true, { type: 'boolean' }),
      col('TokenRequests', (o) => orNone(arr(spec(o).tokenRequests).map((t) => str(obj(t).audience)).join(','))),
      col('RequiresRepublish', (o) => spec(o).requiresRepublish === true, { type: 'boolean' }),
      col('Modes', (o) => orNone(arr(spec(o).volumeLifecycleModes).map(str).join(','))),
      ageColumn,
    ],
  }),
  builtinType({
    group: 'storage.service.io', version: 'v1', kind: 'CSINode', plural: 'csinodes', schemaRef: API + 'storage.v1.CSINode',
    scope: 'Cluster', strategy: csiNodeStrategy,
    columns: [col('Drivers', (o) => arr(spec(o).drivers).length, { type: 'integer' }), ageColumn],
  }),
  builtinType({
    group: 'storage.service.io', version: 'v1', kind: 'VolumeAttachment', plural: 'volumeattachments', schemaRef: API + 'storage.v1.VolumeAttachment',
    scope: 'Cluster', status: true, strategy: volumeAttachmentStrategy,
    columns: [
      col('Attacher', (o) => str(spec(o).attacher)),
      col('PV', (o) => str(obj(spec(o).source).persistentVolumeName)),
      col('Node', (o) => str(spec(o).nodeName)),
      col('Attached', (o) => status(o).attached === true, { type: 'boolean' }),
      ageColumn,
    ],
  }),
  builtinType({
    group: 'storage.service.io', version: 'v1', kind: 'CSIStorageCapacity', plural: 'csistoragecapacities', schemaRef: API + 'storage.v1.CSIStorageCapacity',
    scope: 'Namespaced', strategy: capacityStrategy,
    columns: [col('StorageClassName', (o) => str(field(o, 'storageClassName'))), col('Capacity', (o) => str(field(o, 'capacity'))), ageColumn],
  }),
  builtinType({
    group: 'scheduling.service.io', version: 'v1', kind: 'PriorityClass', plural: 'priorityclasses', schemaRef: API + 'scheduling.v1.PriorityClass',
    scope: 'Cluster', shortNames: ['pc'], strategy: priorityClassStrategy,
    columns: [
      col('Value', (o) => num(field(o, 'value')), { type: 'integer' }),
      col('Global-Default', (o) => field(o, 'globalDefault') === true, { type: 'boolean' }),
      ageColumn,
      col('PreemptionPolicy', (o) => str(field(o, 'preemptionPolicy'))),
    ],
  }),
  builtinType({
    group: 'discovery.service.io', version: 'v1', kind: 'EndpointSlice', plural: 'endpointslices', schemaRef: API + 'discovery.v1.EndpointSlice',
    scope: 'Namespaced', strategy: endpointSliceStrategy,
    columns: [col('AddressType', (o) => str(field(o, 'addressType'))), col('Ports', slicePorts), col('Endpoints', sliceEndpoints), ageColumn],
  }),
  builtinType({
    group: 'events.service.io', version: 'v1', kind: 'Event', plural: 'events', schemaRef: API + 'events.v1.Event',
    scope: 'Namespaced', shortNames: ['ev'], strategy: eventsV1Strategy, storageGroup: '',
    columns: [
      col('Last Seen', eventsV1LastSeen),
      col('Type', (o) => str(field(o, 'type'))),
      col('Reason', (o) => str(field(o, 'reason'))),
      col('Object', (o) => `${str(regarding(o).kind).toLowerCase()}/${str(regarding(o).name)}`),
      col('Message', (o) => str(field(eventFromCore(o), 'note')).trim()),
    ],
  }),
  builtinType({
    group: 'node.service.io', version: 'v1', kind: 'RuntimeClass', plural: 'runtimeclasses', schemaRef: API + 'node.v1.RuntimeClass',
    scope: 'Cluster', strategy: runtimeClassStrategy,
    columns: [col('Handler', (o) => str(field(o, 'handler'))), ageColumn],
  }),
];
