// LimitRanger admission (plugin/pkg/admission/limitranger upstream): pods on create get the namespace's
// LimitRange `default` limits and `defaultRequest` requests, then pods and PVCs are checked against
// min / max / maxLimitRequestRatio with upstream's Forbidden messages.
import { errors } from '../../api/status.js';
import { arr, ensure, obj, str, type Obj } from '../registry/builtin-helpers.js';
import { decodeFromStorage } from '../registry/resource-store.js';
import { collectionPrefix } from '../registry/keys.js';
import { canonicalQuantity, quantityNanos } from '../registry/schema/quantity.js';
import type { RevisionedStore } from '../storage/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../http/admission.js';

const LIMIT_RANGES = { group: '', plural: 'limitranges', scope: 'Namespaced' as const };
const ANNOTATION = 'kubernetes.io/limit-ranger';

type Kind = 'pods' | 'persistentvolumeclaims';

function kindOf(a: AdmissionAttributes): Kind | undefined {
  if (a.type.group !== '' || a.subresource !== '' || !a.object || a.object.metadata?.deletionTimestamp) return undefined;
  // pod containers are immutable, so upstream only looks at pod creates; PVCs on create and update (resize)
  if (a.type.plural === 'pods') return a.operation === 'CREATE' ? 'pods' : undefined;
  if (a.type.plural === 'persistentvolumeclaims') return a.operation === 'CREATE' || a.operation === 'UPDATE' ? 'persistentvolumeclaims' : undefined;
  return undefined;
}

/** The namespace's LimitRange items, with upstream's LimitRangeItem defaulting applied (Container type). */
async function limitItems(store: RevisionedStore, namespace: string): Promise<Obj[]> {
  const page = await store.range({ prefix: collectionPrefix(LIMIT_RANGES, namespace) });
  const out: Obj[] = [];
  for (const kv of page.kvs) {
    for (const raw of arr(obj(decodeFromStorage(kv).spec).limits)) {
      const item = structuredClone(obj(raw));
      if (item.type === 'Container') {
        // SetDefaults_LimitRangeItem: default ← max, defaultRequest ← default, then ← min
        const def = { ...obj(item.max), ...obj(item.default) };
        item.default = def;
        item.defaultRequest = { ...obj(item.min), ...def, ...obj(item.defaultRequest) };
      }
      out.push(item);
    }
  }
  return out;
}

const resourcesOf = (c: Obj) => ensure(c, 'resources');

interface Container {
  c: Obj;
  what: 'container' | 'init container';
}

function containers(spec: Obj): Container[] {
  return [
    ...arr(spec.initContainers).map((c) => ({ c: obj(c), what: 'init container' as const })),
    ...arr(spec.containers).map((c) => ({ c: obj(c), what: 'container' as const })),
  ];
}

/** Applies default limits and requests to a pod's containers; returns the annotation text (empty when none set). */
function applyDefaults(pod: Obj, items: Obj[]): string {
  const limits: Obj = {};
  const requests: Obj = {};
  for (const item of items) {
    if (item.type !== 'Container') continue;
    Object.assign(limits, obj(item.default));
    Object.assign(requests, obj(item.defaultRequest));
  }
  if (!Object.keys(limits).length && !Object.keys(requests).length) return '';
  const notes: string[] = [];
  for (const { c, what } of containers(obj(pod.spec))) {
    const r = resourcesOf(c);
    const setReq: string[] = [];
    const setLim: string[] = [];
    for (const [k, v] of Object.entries(limits)) {
      const have = obj(r.limits);
      if (have[k] === undefined) {
        ensure(r, 'limits')[k] = v;
        setLim.push(k);
      }
    }
    for (const [k, v] of Object.entries(requests)) {
      const have = obj(r.requests);
      if (have[k] !== undefined) continue;
      // a container with only a limit requests its limit (pod defaulting), not the namespace default
      ensure(r, 'requests')[k] = obj(r.limits)[k] !== undefined && !setLim.includes(k) ? obj(r.limits)[k] : v;
      setReq.push(k);
    }
    if (setReq.length) notes.push(`${setReq.join(', ')} request for ${what} ${str(c.name)}`);
    if (setLim.length) notes.push(`${setLim.join(', ')} limit for ${what} ${str(c.name)}`);
    if (!Object.keys(obj(r.limits)).length) delete r.limits;
  }
  return notes.length ? `LimitRanger plugin set: ${notes.join('; ')}` : '';
}

const nanos = (list: Obj, k: string) => quantityNanos(list[k]) ?? 0n;
const has = (list: Obj, k: string) => list[k] !== undefined;

function minConstraint(type: string, res: string, enforced: unknown, req: Obj, lim: Obj, errs: string[]): void {
  const e = quantityNanos(enforced) ?? 0n;
  const min = canonicalQuantity(enforced);
  if (!has(req, res)) errs.push(`minimum ${res} usage per ${type} is ${min}.  No request is specified`);
  else if (nanos(req, res) < e) errs.push(`minimum ${res} usage per ${type} is ${min}, but request is ${canonicalQuantity(req[res])}`);
  else if (has(lim, res) && nanos(lim, res) < e) errs.push(`minimum ${res} usage per ${type} is ${min}, but limit is ${canonicalQuantity(lim[res])}`);
}

function maxConstraint(type: string, res: string, enforced: unknown, req: Obj, lim: Obj, errs: string[]): void {
  const e = quantityNanos(enforced) ?? 0n;
  const max = canonicalQuantity(enforced);
  if (!has(lim, res)) errs.push(`maximum ${res} usage per ${type} is ${max}.  No limit is specified`);
  else if (nanos(lim, res) > e) errs.push(`maximum ${res} usage per ${type} is ${max}, but limit is ${canonicalQuantity(lim[res])}`);
  else if (has(req, res) && nanos(req, res) > e) errs.push(`maximum ${res} usage per ${type} is ${max}, but request is ${canonicalQuantity(req[res])}`);
}

function ratioConstraint(type: string, res: string, enforced: unknown, req: Obj, lim: Obj, errs: string[]): void {
  const ratio = canonicalQuantity(enforced);
  const r = nanos(req, res);
  const l = nanos(lim, res);
  if (!has(req, res) || r === 0n) errs.push(`${res} max limit to request ratio per ${type} is ${ratio}, but no request is specified or request is 0`);
  else if (!has(lim, res) || l === 0n) errs.push(`${res} max limit to request ratio per ${type} is ${ratio}, but no limit is specified or limit is 0`);
  else {
    const observed = Number(l) / Number(r);
    if (observed > Number(quantityNanos(enforced) ?? 0n) / 1e9) errs.push(`${res} max limit to request ratio per ${type} is ${ratio}, but provided ratio is ${observed.toFixed(6)}`);
  }
}

function checkItem(type: string, item: Obj, req: Obj, lim: Obj, errs: string[]): void {
  for (const [k, v] of Object.entries(obj(item.min))) minConstraint(type, k, v, req, lim, errs);
  for (const [k, v] of Object.entries(obj(item.max))) maxConstraint(type, k, v, req, lim, errs);
  for (const [k, v] of Object.entries(obj(item.maxLimitRequestRatio))) ratioConstraint(type, k, v, req, lim, errs);
}

/** Pod-level totals: sum over app containers, at least the largest init container (upstream's pod requests). */
function podTotals(spec: Obj, field: 'requests' | 'limits'): Obj {
  const sum = new Map<string, bigint>();
  for (const c of arr(spec.containers).map(obj))
    for (const [k, v] of Object.entries(obj(obj(c.resources)[field]))) sum.set(k, (sum.get(k) ?? 0n) + (quantityNanos(v) ?? 0n));
  const out: Obj = {};
  const raw: Obj = {};
  for (const [k, v] of sum) out[k] = v;
  for (const c of arr(spec.initContainers).map(obj))
    for (const [k, v] of Object.entries(obj(obj(c.resources)[field]))) {
      const n = quantityNanos(v) ?? 0n;
      if (out[k] === undefined || n > (out[k] as bigint)) out[k] = n;
    }
  for (const [k, v] of Object.entries(out)) raw[k] = `${v}n`;
  return raw;
}

function validateObject(kind: Kind, o: Obj, items: Obj[]): string[] {
  const errs: string[] = [];
  for (const item of items) {
    if (kind === 'pods' && item.type === 'Container') {
      for (const { c } of containers(obj(o.spec))) {
        const r = obj(c.resources);
        checkItem('Container', item, obj(r.requests), obj(r.limits), errs);
      }
    } else if (kind === 'pods' && item.type === 'Pod') {
      const spec = obj(o.spec);
      checkItem('Pod', item, podTotals(spec, 'requests'), podTotals(spec, 'limits'), errs);
    } else if (kind === 'persistentvolumeclaims' && item.type === 'PersistentVolumeClaim') {
      // a PVC's requests are its only input: min checks the request, max checks it as if a limit
      const req = obj(obj(obj(o.spec).resources).requests);
      for (const [k, v] of Object.entries(obj(item.min))) minConstraint('PersistentVolumeClaim', k, v, req, {}, errs);
      for (const [k, v] of Object.entries(obj(item.max))) maxConstraint('PersistentVolumeClaim', k, v, {}, req, errs);
    }
  }
  return errs;
}

/** utilerrors.NewAggregate's text: one message alone, several de-duplicated in brackets. */
export function aggregate(msgs: string[]): string {
  const uniq = [...new Set(msgs)];
  return uniq.length === 1 ? uniq[0]! : `[${uniq.join(', ')}]`;
}

export function limitRanger(deps: { store: RevisionedStore }): AdmissionPlugin {
  return {
    name: 'LimitRanger',
    async admit(a) {
      const kind = kindOf(a);
      if (kind !== 'pods') return;
      const items = await limitItems(deps.store, a.namespace);
      const note = applyDefaults(a.object as Obj, items);
      if (note) ensure(ensure(a.object as Obj, 'metadata'), 'annotations')[ANNOTATION] = note;
    },
    async validate(a) {
      const kind = kindOf(a);
      if (!kind) return;
      const items = await limitItems(deps.store, a.namespace);
      if (!items.length) return;
      const errs = validateObject(kind, a.object as Obj, items);
      if (errs.length) throw errors.forbidden({ group: '', resource: a.type.plural, name: a.name || a.object?.metadata?.name }, aggregate(errs));
    },
  };
}
