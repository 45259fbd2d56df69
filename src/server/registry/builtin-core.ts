// Core (v1) kinds of the built-in table.
import { ageSince } from './age.js';
import { type Obj, ageColumn, arr, builtinType, col, ensure, num, obj, orNone, setDefault, str } from './builtin-helpers.js';
import { podColumns, podStrategy, withEviction, withProxy } from './builtin-pod.js';
import { withTokenRequest } from './builtin-authentication.js';
import { serviceColumns, serviceStrategy } from './builtin-service.js';
import * as fe from './schema/field-errors.js';
import type { FieldError, KubeObject, ResourceType, Strategy, TableColumn } from './types.js';

const core = 'io.k8s.api.core.v1.';

// ---- Namespace ----

const namespaceStrategy: Strategy = {
  nameValidation: 'label',
  defaults(o, old) {
    const spec = ensure(o as Obj, 'spec');
    if (old) {
      // spec.finalizers change only through namespaces/{name}/finalize (status through /status)
      const before = obj(old.spec).finalizers;
      if (before === undefined) delete spec.finalizers;
      else spec.finalizers = structuredClone(before);
    } else {
      // a new namespace is Active and always carries the namespace controller's finalizer
      const finalizers = arr(spec.finalizers);
      spec.finalizers = finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'];
      (o as Obj).status = { phase: 'Active' };
    }
    const meta = (o.metadata ??= {});
    if (meta.name) meta.labels = { ...(meta.labels ?? {}), 'kubernetes.io/metadata.name': meta.name };
  },
  validate(o) {
    const errs: FieldError[] = [];
    arr(obj(o.spec).finalizers).forEach((f, i) => {
      if (typeof f !== 'string' || !/^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(f))
        errs.push(fe.invalid(`spec.finalizers[${i}]`, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    });
    return errs;
  },
  fieldSelectors: { 'status.phase': (o) => str(obj(o.status).phase) },
};

/** namespaces/{name}/finalize: where spec.finalizers are changed (the namespace controller's finalizer among them). */
function withFinalize(t: ResourceType): ResourceType {
  t.subresources.push({ name: 'finalize', kind: 'Namespace', verbs: ['update'] });
  return t;
}

// ---- ConfigMap / Secret ----

const MAX_DATA_BYTES = 1024 * 1024;

function configKeyErrors(key: string): string[] {
  const out: string[] = [];
  if (key.length > 253) out.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(key))
    out.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  if (key === '.') out.push("must not be '.'");
  else if (key === '..') out.push("must not be '..'");
  else if (key.startsWith('..')) out.push("must not start with '..'");
  return out;
}

function validateKeys(map: unknown, field: string, errs: FieldError[]): number {
  let size = 0;
  for (const [k, v] of Object.entries(obj(map))) {
    for (const e of configKeyErrors(k)) errs.push(fe.invalid(`${field}[${k}]`, k, e));
    size += k.length + (typeof v === 'string' ? v.length : 0);
  }
  return size;
}

function immutableErrors(o: KubeObject, old: KubeObject | undefined, fields: string[]): FieldError[] {
  if (!old || old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (o.immutable !== true) errs.push(fe.forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) {
    if (JSON.stringify(o[f] ?? {}) !== JSON.stringify(old[f] ?? {})) errs.push(fe.forbidden(f, 'field is immutable when `immutable` is set'));
  }
  return errs;
}

const configMapStrategy: Strategy = {
  validate(o, old) {
    const errs: FieldError[] = [];
    const size = validateKeys(o.data, 'data', errs) + validateKeys(o.binaryData, 'binaryData', errs);
    const data = obj(o.data);
    for (const k of Object.keys(obj(o.binaryData))) {
      if (k in data) errs.push(fe.invalid(`data[${k}]`, k, 'duplicate of key present in binaryData'));
    }
    if (size > MAX_DATA_BYTES) errs.push(fe.tooLong('', MAX_DATA_BYTES));
    errs.push(...immutableErrors(o, old, ['data', 'binaryData']));
    return errs;
  },
};

const SECRET_REQUIRED_KEYS: Record<string, string[]> = {
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
};

const secretStrategy: Strategy = {
  defaults(o) {
    setDefault(o as Obj, 'type', 'Opaque');
    // stringData is write-only: merged into data (base64) and never stored
    const sd = o.stringData;
    if (sd && typeof sd === 'object') {
      const data = ensure(o as Obj, 'data');
      for (const [k, v] of Object.entries(sd as Obj)) data[k] = Buffer.from(str(v), 'utf8').toString('base64');
      delete o.stringData;
    }
  },
  validate(o, old) {
    const errs: FieldError[] = [];
    const size = validateKeys(o.data, 'data', errs);
    if (size > MAX_DATA_BYTES) errs.push(fe.tooLong('data', MAX_DATA_BYTES));
    const type = str(o.type) || 'Opaque';
    const data = obj(o.data);
    for (const k of SECRET_REQUIRED_KEYS[type] ?? []) if (!(k in data)) errs.push(fe.required(`data[${k}]`));
    if (type === 'kubernetes.io/service-account-token' && !o.metadata?.annotations?.['kubernetes.io/service-account.name'])
      errs.push(fe.required('metadata.annotations[kubernetes.io/service-account.name]'));
    if (old && str(old.type) !== '' && type !== str(old.type)) errs.push(fe.invalid('type', type, 'field is immutable'));
    errs.push(...immutableErrors(o, old, ['data']));
    return errs;
  },
  fieldSelectors: { type: (o) => str(o.type) },
};

// ---- Node ----

function nodeStatus(o: KubeObject): string {
  const conds = arr(obj(o.status).conditions).map(obj);
  const ready = conds.find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (obj(o.spec).unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function nodeAddress(o: KubeObject, type: string): string {
  const a = arr(obj(o.status).addresses).map(obj).find((x) => x.type === type);
  return a ? str(a.address) : '<none>';
}

const nodeInfo = (o: KubeObject) => obj(obj(o.status).nodeInfo);

const nodeColumns: TableColumn[] = [
  col('Status', nodeStatus, { description: 'The status of the node.' }),
  col('Roles', nodeRoles, { description: 'The roles of the node.' }),
  ageColumn,
  col('Version', (o) => str(nodeInfo(o).kubeletVersion), { description: 'Kubelet version reported by the node.' }),
  col('Internal-IP', (o) => nodeAddress(o, 'InternalIP'), { priority: 1 }),
  col('External-IP', (o) => nodeAddress(o, 'ExternalIP'), { priority: 1 }),
  col('OS-Image', (o) => orNone(str(nodeInfo(o).osImage)), { priority: 1 }),
  col('Kernel-Version', (o) => orNone(str(nodeInfo(o).kernelVersion)), { priority: 1 }),
  col('Container-Runtime', (o) => orNone(str(nodeInfo(o).containerRuntimeVersion)), { priority: 1 }),
];

const nodeStrategy: Strategy = {
  keepStatusOnCreate: true,
  fieldSelectors: { 'spec.unschedulable': (o) => String(obj(o.spec).unschedulable === true) },
};

// ---- Event ----

function eventLastSeen(o: KubeObject): string {
  const ts = str(o.lastTimestamp) || str(obj(o.series).lastObservedTime) || str(o.eventTime) || str(o.firstTimestamp);
  return ts ? ageSince(ts) : '<unknown>';
}

const involved = (o: KubeObject) => obj(o.involvedObject);

const eventColumns: TableColumn[] = [
  col('Last Seen', eventLastSeen, { description: 'Time since the most recent occurrence.' }),
  col('Type', (o) => str(o.type)),
  col('Reason', (o) => str(o.reason)),
  col('Object', (o) => `${str(involved(o).kind).toLowerCase()}/${str(involved(o).name)}`),
  col('Subobject', (o) => str(involved(o).fieldPath), { priority: 1 }),
  col(
    'Source',
    (o) => {
      const s = obj(o.source);
      const comp = str(s.component) || str(o.reportingComponent);
      const host = str(s.host) || str(o.reportingInstance);
      return host ? `${comp}, ${host}` : comp;
    },
    { priority: 1 },
  ),
  col('Message', (o) => str(o.message).trim()),
  col('First Seen', (o) => (str(o.firstTimestamp) || str(o.eventTime) ? ageSince(str(o.firstTimestamp) || str(o.eventTime)) : '<unknown>'), { priority: 1 }),
  col('Count', (o) => num(o.count) || num(obj(o.series).count) || 1, { type: 'integer', priority: 1 }),
];

const eventStrategy: Strategy = {
  allowCreateOnUpdate: true,
  validate(o) {
    const errs: FieldError[] = [];
    const ns = involved(o).namespace;
    if (typeof ns === 'string' && ns && o.metadata?.namespace && ns !== o.metadata.namespace)
      errs.push(fe.invalid('involvedObject.namespace', ns, 'does not match event.namespace'));
    return errs;
  },
  fieldSelectors: {
    'involvedObject.kind': (o) => str(involved(o).kind),
    'involvedObject.namespace': (o) => str(involved(o).namespace),
    'involvedObject.name': (o) => str(involved(o).name),
    'involvedObject.uid': (o) => str(involved(o).uid),
    'involvedObject.apiVersion': (o) => str(involved(o).apiVersion),
    'involvedObject.resourceVersion': (o) => str(involved(o).resourceVersion),
    'involvedObject.fieldPath': (o) => str(involved(o).fieldPath),
    reason: (o) => str(o.reason),
    reportingComponent: (o) => str(o.reportingComponent),
    source: (o) => str(obj(o.source).component),
    type: (o) => str(o.type),
  },
};

// ---- Endpoints ----

function endpointsCell(o: KubeObject): string {
  const all: string[] = [];
  let count = 0;
  for (const s of arr(o.subsets).map(obj)) {
    const addresses = arr(s.addresses).map((a) => str(obj(a).ip));
    const ports = arr(s.ports).map((p) => num(obj(p).port));
    if (ports.length === 0) {
      for (const ip of addresses) {
        count++;
        if (all.length < 3) all.push(ip);
      }
      continue;
    }
    for (const port of ports) {
      for (const ip of addresses) {
        count++;
        if (all.length < 3) all.push(`${ip}:${port}`);
      }
    }
  }
  if (count === 0) return '<none>';
  const s = all.join(',');
  return count > all.length ? `${s} + ${count - all.length} more...` : s;
}

const endpointsStrategy: Strategy = {
  allowCreateOnUpdate: true,
  defaults(o) {
    for (const s of arr(o.subsets)) for (const p of arr(obj(s).ports)) if (p && typeof p === 'object') setDefault(p as Obj, 'protocol', 'TCP');
  },
};

// ---- PersistentVolumeClaim / PersistentVolume ----

const ACCESS_MODES: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

function accessModes(v: unknown): string {
  return arr(v)
    .map((m) => ACCESS_MODES[str(m)] ?? str(m))
    .join(',');
}

function validateAccessModes(v: unknown, errs: FieldError[]): void {
  const modes = arr(v);
  if (modes.length === 0) errs.push(fe.required('spec.accessModes', 'at least 1 access mode is required'));
  for (const m of modes) if (!(str(m) in ACCESS_MODES)) errs.push(fe.notSupported('spec.accessModes', m, Object.keys(ACCESS_MODES)));
}

const pvcStrategy: Strategy = {
  defaults(o) {
    const spec = ensure(o as Obj, 'spec');
    setDefault(spec, 'volumeMode', 'Filesystem');
    setDefault(ensure(o as Obj, 'status'), 'phase', 'Pending');
  },
  validate(o, old) {
    const errs: FieldError[] = [];
    const spec = obj(o.spec);
    validateAccessModes(spec.accessModes, errs);
    if (obj(obj(spec.resources).requests).storage === undefined) errs.push(fe.required('spec.resources[storage]'));
    if (old) {
      const a = structuredClone(spec);
      const b = structuredClone(obj(old.spec));
      delete obj(a.resources).requests;
      delete obj(b.resources).requests;
      if (!b.volumeName) delete a.volumeName;
      if (JSON.stringify(sortKeys(a)) !== JSON.stringify(sortKeys(b)))
        errs.push(fe.forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
    }
    return errs;
  },
};

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Obj = {};
  for (const k of Object.keys(v as Obj).sort()) if ((v as Obj)[k] !== undefined) out[k] = sortKeys((v as Obj)[k]);
  return out;
}

const PV_SOURCES = [
  'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephfs', 'cinder', 'csi', 'fc', 'flexVolume', 'flocker', 'gcePersistentDisk',
  'glusterfs', 'hostPath', 'iscsi', 'local', 'nfs', 'photonPersistentDisk', 'portworxVolume', 'quobyte', 'rbd', 'scaleIO',
  'storageos', 'vsphereVolume',
];

const pvStrategy: Strategy = {
  defaults(o) {
    const spec = ensure(o as Obj, 'spec');
    setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
    setDefault(spec, 'volumeMode', 'Filesystem');
    setDefault(ensure(o as Obj, 'status'), 'phase', 'Pending');
  },
  validate(o) {
    const errs: FieldError[] = [];
    const spec = obj(o.spec);
    if (obj(spec.capacity).storage === undefined) errs.push(fe.required('spec.capacity'));
    validateAccessModes(spec.accessModes, errs);
    const sources = PV_SOURCES.filter((s) => spec[s] !== undefined && spec[s] !== null);
    if (sources.length === 0) errs.push(fe.required('spec', 'must specify a volume type'));
    for (const s of sources.slice(1)) errs.push(fe.forbidden(`spec.${s}`, 'may not specify more than 1 volume type'));
    return errs;
  },
};

const pvcColumns: TableColumn[] = [
  col('Status', (o) => (o.metadata?.deletionTimestamp ? 'Terminating' : str(obj(o.status).phase))),
  col('Volume', (o) => str(obj(o.spec).volumeName)),
  col('Capacity', (o) => str(obj(obj(o.status).capacity).storage)),
  col('Access Modes', (o) => accessModes(obj(o.status).accessModes)),
  col('StorageClass', (o) => str(obj(o.spec).storageClassName)),
  ageColumn,
  col('VolumeMode', (o) => str(obj(o.spec).volumeMode), { priority: 1 }),
];

const pvColumns: TableColumn[] = [
  col('Capacity', (o) => str(obj(obj(o.spec).capacity).storage)),
  col('Access Modes', (o) => accessModes(obj(o.spec).accessModes)),
  col('Reclaim Policy', (o) => str(obj(o.spec).persistentVolumeReclaimPolicy)),
  col('Status', (o) => (o.metadata?.deletionTimestamp ? 'Terminating' : str(obj(o.status).phase))),
  col('Claim', (o) => {
    const ref = obj(obj(o.spec).claimRef);
    return ref.name ? `${str(ref.namespace)}/${str(ref.name)}` : '';
  }),
  col('StorageClass', (o) => str(obj(o.spec).storageClassName)),
  col('Reason', (o) => str(obj(o.status).reason)),
  ageColumn,
  col('VolumeMode', (o) => str(obj(o.spec).volumeMode), { priority: 1 }),
];

export const coreTypes: ResourceType[] = [
  withFinalize(builtinType({
    group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', schemaRef: core + 'Namespace', scope: 'Cluster',
    shortNames: ['ns'], status: true, columns: [col('Status', (o) => str(obj(o.status).phase)), ageColumn], strategy: namespaceStrategy,
  })),
  withEviction(builtinType({
    group: '', version: 'v1', kind: 'Pod', plural: 'pods', schemaRef: core + 'Pod', scope: 'Namespaced',
    shortNames: ['po'], categories: ['all'], status: true, columns: podColumns, strategy: podStrategy,
  })),
  withProxy(builtinType({
    group: '', version: 'v1', kind: 'Service', plural: 'services', schemaRef: core + 'Service', scope: 'Namespaced',
    shortNames: ['svc'], categories: ['all'], status: true, columns: serviceColumns, strategy: serviceStrategy,
  }), 'ServiceProxyOptions'),
  builtinType({
    group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', schemaRef: core + 'ConfigMap', scope: 'Namespaced',
    shortNames: ['cm'],
    columns: [col('Data', (o) => Object.keys(obj(o.data)).length + Object.keys(obj(o.binaryData)).length, { type: 'integer' }), ageColumn],
    strategy: configMapStrategy,
  }),
  builtinType({
    group: '', version: 'v1', kind: 'Secret', plural: 'secrets', schemaRef: core + 'Secret', scope: 'Namespaced',
    columns: [col('Type', (o) => str(o.type)), col('Data', (o) => Object.keys(obj(o.data)).length, { type: 'integer' }), ageColumn],
    strategy: secretStrategy,
  }),
  withProxy(builtinType({
    group: '', version: 'v1', kind: 'Node', plural: 'nodes', schemaRef: core + 'Node', scope: 'Cluster',
    shortNames: ['no'], status: true, columns: nodeColumns, strategy: nodeStrategy,
  }), 'NodeProxyOptions'),
  withTokenRequest(builtinType({
    group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', schemaRef: core + 'ServiceAccount', scope: 'Namespaced',
    shortNames: ['sa'], columns: [col('Secrets', (o) => arr(o.secrets).length, { type: 'integer' }), ageColumn], strategy: {},
  })),
  builtinType({
    group: '', version: 'v1', kind: 'Event', plural: 'events', schemaRef: core + 'Event', scope: 'Namespaced',
    shortNames: ['ev'], columns: eventColumns, strategy: eventStrategy,
  }),
  builtinType({
    group: '', version: 'v1', kind: 'Endpoints', plural: 'endpoints', schemaRef: core + 'Endpoints', scope: 'Namespaced',
    shortNames: ['ep'], columns: [col('Endpoints', endpointsCell), ageColumn], strategy: endpointsStrategy,
  }),
  builtinType({
    group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', schemaRef: core + 'PersistentVolumeClaim',
    scope: 'Namespaced', shortNames: ['pvc'], status: true, columns: pvcColumns, strategy: pvcStrategy,
  }),
  builtinType({
    group: '', version: 'v1', kind: 'PersistentVolume', plural: 'persistentvolumes', schemaRef: core + 'PersistentVolume',
    scope: 'Cluster', shortNames: ['pv'], status: true, columns: pvColumns, strategy: pvStrategy,
  }),
];
