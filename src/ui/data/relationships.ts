// How one object relates to others, walked through the API (paged lists, cancellable): its owners and
// dependents (the garbage collector's graph), for a Service its EndpointSlices and their Pods, for a Pod
// what it uses, for a ConfigMap, Secret, PVC or ServiceAccount the Pods using it, for a subject or role the
// bindings. The Relationships view draws what useRelationships returns.
import { useQuery } from '@tanstack/react-query';
import { resourceForKind, sameGroup, type ApiResource, type Discovery, type KubeObject } from '../../client/index.js';
import { isAliasGroup, useBrowsableResources } from './discovery.js';
import { keys } from './keys.js';
import { eachLimited, listAll, listPages } from './scan.js';
import { bindsSubject, endpointSlicePods, ingressServices, podSpecRefs, roleOf, selectorMatches } from '../lib/references.js';

export interface Related {
  relation: string;
  kind: string;
  name: string;
  namespace?: string;
  resource?: ApiResource;
  via?: string;
  /** The node this one hangs off ('' = the object in view). */
  from: string;
  /** Hops from the object in view: owners count down (-1, -2), everything else up. */
  depth: number;
  /** Referred to by name but not found. */
  missing?: boolean;
}

/** A node's identity: one node per object, however many ways it is reached. */
export const nodeId = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;

function typeOf(d: Discovery, kind: string, group?: string): ApiResource | undefined {
  // the group in either spelling: a server lists one spelling (Periscope the neutral one, a real cluster k8s.io)
  return d.resources.find((r) => r.kind === kind && r.preferred && !isAliasGroup(d, r.group) && (group === undefined || sameGroup(r.group, group)));
}

const USED_BY_PODS = new Set(['ConfigMap', 'Secret', 'PersistentVolumeClaim', 'ServiceAccount']);
const POD_OWNERS = new Set(['ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'ReplicationController']);
/** Hops followed from the object in view. */
const MAX_DEPTH = 3;
/** Nodes shown at most: a Node runs many pods, a busy namespace holds many objects. */
const MAX_NODES = 200;

type Obj = Record<string, any>;

/** One walk of the map: lists read once each, nodes and edges deduplicated. */
class Walk {
  readonly out: Related[] = [];
  private readonly seen = new Set<string>();
  private readonly lists = new Map<string, Promise<KubeObject[]>>();
  constructor(
    readonly d: Discovery,
    readonly signal: AbortSignal,
  ) {}

  list(r: ApiResource, namespace: string | undefined, o: { labelSelector?: string; fieldSelector?: string; representation?: 'object' | 'metadata' } = {}): Promise<KubeObject[]> {
    const key = `${r.group}/${r.resource}/${namespace ?? ''}/${o.labelSelector ?? ''}/${o.fieldSelector ?? ''}/${o.representation ?? 'object'}`;
    let p = this.lists.get(key);
    if (!p) {
      p = listAll(r, { namespace, representation: o.representation ?? 'object', labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, signal: this.signal }).catch(() => [] as KubeObject[]);
      this.lists.set(key, p);
    }
    return p;
  }

  /** The object of a kind by name, undefined when it does not exist (or cannot be listed). */
  async find(kind: string, group: string | undefined, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    const r = typeOf(this.d, kind, group);
    if (!r) return undefined;
    const items = await this.list(r, r.namespaced ? namespace : undefined);
    return items.find((x) => x.metadata?.name === name && (!r.namespaced || x.metadata?.namespace === namespace));
  }

  /** Adds a node once (the first way it was reached is the one shown); false when it was there already. */
  add(rel: Omit<Related, 'resource'> & { resource?: ApiResource }, group?: string): boolean {
    const resource = rel.resource ?? typeOf(this.d, rel.kind, group);
    const namespace = resource && !resource.namespaced ? undefined : rel.namespace;
    const id = nodeId(rel.kind, namespace, rel.name);
    if (this.seen.has(id) || this.out.length >= MAX_NODES) return false;
    this.seen.add(id);
    this.out.push({ ...rel, namespace, resource });
    return true;
  }

  markSelf(kind: string, namespace: string | undefined, name: string): void {
    this.seen.add(nodeId(kind, namespace, name));
  }
}

/** Name references that must exist: added with a "missing" mark when they do not. */
async function addRef(w: Walk, from: string, depth: number, relation: string, kind: string, group: string | undefined, namespace: string | undefined, name: string, via?: string): Promise<KubeObject | undefined> {
  const found = await w.find(kind, group, namespace, name);
  w.add({ relation, kind, name, namespace, via, from, depth, missing: !found }, group);
  return found;
}

/** What a Pod uses and where it runs; its PVCs' volumes and their StorageClass. */
async function podOut(w: Walk, pod: KubeObject, from: string, depth: number): Promise<void> {
  const ns = pod.metadata?.namespace;
  const spec = ((pod as Obj).spec ?? {}) as Obj;
  for (const r of podSpecRefs(spec, ns)) {
    const found = await addRef(w, from, depth, 'uses', r.kind, '', ns, r.name, r.via);
    if (r.kind === 'PersistentVolumeClaim' && found && depth < MAX_DEPTH) await pvcOut(w, found, nodeId('PersistentVolumeClaim', ns, r.name), depth + 1);
  }
  if (spec.priorityClassName) await addRef(w, from, depth, 'priority', 'PriorityClass', 'scheduling.k8s.io', undefined, spec.priorityClassName, 'priorityClassName');
  if (spec.nodeName) await addRef(w, from, depth, 'runs on', 'Node', '', undefined, spec.nodeName, 'spec.nodeName');
}

async function pvcOut(w: Walk, pvc: KubeObject, from: string, depth: number): Promise<void> {
  const spec = ((pvc as Obj).spec ?? {}) as Obj;
  if (spec.volumeName) {
    const pv = await addRef(w, from, depth, 'volume', 'PersistentVolume', '', undefined, spec.volumeName, 'spec.volumeName');
    const cls = ((pv as Obj | undefined)?.spec as Obj | undefined)?.storageClassName;
    if (pv && cls && depth < MAX_DEPTH) await addRef(w, nodeId('PersistentVolume', undefined, spec.volumeName), depth + 1, 'storage class', 'StorageClass', 'storage.k8s.io', undefined, cls, 'storageClassName');
  } else if (spec.storageClassName) await addRef(w, from, depth, 'storage class', 'StorageClass', 'storage.k8s.io', undefined, spec.storageClassName, 'storageClassName');
}

/** Pods a controller (by uid) owns, and for each the Node it runs on. */
async function ownedPods(w: Walk, ns: string | undefined, ownerUids: Map<string, string>, depth: number): Promise<void> {
  const pods = typeOf(w.d, 'Pod', '');
  if (!pods || !ownerUids.size) return;
  for (const p of await w.list(pods, ns)) {
    const owner = p.metadata?.ownerReferences?.find((r) => ownerUids.has(r.uid));
    if (!owner) continue;
    w.add({ relation: 'pods', kind: 'Pod', name: p.metadata!.name!, namespace: p.metadata?.namespace, resource: pods, from: ownerUids.get(owner.uid)!, depth });
    const node = ((p as Obj).spec as Obj | undefined)?.nodeName;
    if (node && depth < MAX_DEPTH) await addRef(w, nodeId('Pod', p.metadata?.namespace, p.metadata!.name!), depth + 1, 'runs on', 'Node', '', undefined, node, 'spec.nodeName');
  }
}

async function findRelated(d: Discovery, kinds: ApiResource[], info: ApiResource, o: KubeObject, signal: AbortSignal): Promise<Related[]> {
  const w = new Walk(d, signal);
  const ns = o.metadata?.namespace;
  const name = o.metadata?.name ?? '';
  w.markSelf(info.kind, info.namespaced ? ns : undefined, name);
  // owners, and their owners (a Pod's ReplicaSet's Deployment)
  let owners = (o.metadata?.ownerReferences ?? []).map((ref) => ({ ref, from: '' }));
  for (let depth = -1; owners.length && depth >= -2; depth--) {
    const next: typeof owners = [];
    for (const { ref: owner, from } of owners) {
      const r = resourceForKind(d, owner.apiVersion, owner.kind);
      const id = nodeId(owner.kind, r?.namespaced ? ns : undefined, owner.name);
      const found = r ? (await w.list(r, r.namespaced ? ns : undefined, { representation: 'metadata' })).find((x) => x.metadata?.uid === owner.uid) : undefined;
      w.add({ relation: depth === -1 ? 'owner' : "owner's owner", kind: owner.kind, name: owner.name, namespace: r?.namespaced ? ns : undefined, resource: r, via: owner.controller ? 'controller' : undefined, from, depth, missing: !!r && !found });
      if (found) next.push(...(found.metadata?.ownerReferences ?? []).map((ref) => ({ ref, from: id })));
    }
    owners = next;
  }
  // dependents: objects naming this one's uid in ownerReferences (namespaced owners only own objects of their namespace)
  const uid = o.metadata?.uid;
  const candidates = kinds.filter((k) => (ns ? k.namespaced : true));
  const dependents: { k: ApiResource; x: KubeObject }[] = [];
  await eachLimited(
    candidates,
    4,
    async (k) => {
      try {
        for await (const page of listPages(k, { namespace: ns, signal })) for (const x of page) if (x.metadata?.ownerReferences?.some((ref) => ref.uid === uid)) dependents.push({ k, x });
      } catch {
        // a kind we may not list: no dependents shown from it
      }
    },
    signal,
  );
  dependents.sort((a, b) => a.k.kind.localeCompare(b.k.kind) || (a.x.metadata?.name ?? '').localeCompare(b.x.metadata?.name ?? ''));
  for (const { k, x } of dependents) w.add({ relation: 'dependent', kind: k.kind, name: x.metadata!.name!, namespace: x.metadata?.namespace, resource: k, from: '', depth: 1 });

  const spec = ((o as Obj).spec ?? {}) as Obj;
  // a controller's pods (directly, or through its ReplicaSets / Jobs) and where they run
  if (POD_OWNERS.has(info.kind) && uid) await ownedPods(w, ns, new Map([[uid, '']]), 1);
  if (info.kind === 'Deployment' || info.kind === 'CronJob') {
    const mids = new Map(dependents.filter(({ k }) => k.kind === 'ReplicaSet' || k.kind === 'Job').map(({ k, x }) => [x.metadata!.uid!, nodeId(k.kind, x.metadata?.namespace, x.metadata!.name!)]));
    await ownedPods(w, ns, mids, 2);
  }
  if (info.kind === 'Pod') {
    await podOut(w, o, '', 1);
    // the Services whose selector picks this pod
    const svcs = typeOf(d, 'Service', '');
    if (svcs) for (const s of await w.list(svcs, ns)) if (selectorMatches(((s as Obj).spec as Obj | undefined)?.selector, o.metadata?.labels)) w.add({ relation: 'selected by', kind: 'Service', name: s.metadata!.name!, namespace: ns, resource: svcs, from: '', depth: 1 });
  }
  if (info.kind === 'Node') {
    const pods = typeOf(d, 'Pod', '');
    if (pods)
      for (const p of await w.list(pods, undefined, { fieldSelector: `spec.nodeName=${name}` }))
        w.add({ relation: 'runs', kind: 'Pod', name: p.metadata!.name!, namespace: p.metadata?.namespace, resource: pods, from: '', depth: 1 });
  }
  if (info.kind === 'PersistentVolumeClaim') await pvcOut(w, o, '', 1);
  if (info.kind === 'PersistentVolume' && spec.storageClassName) await addRef(w, '', 1, 'storage class', 'StorageClass', 'storage.k8s.io', undefined, spec.storageClassName, 'storageClassName');
  if (info.kind === 'Ingress') for (const svc of ingressServices(o)) await addRef(w, '', 1, 'routes to', 'Service', '', ns, svc, 'backend');
  if (info.kind === 'HorizontalPodAutoscaler' && spec.scaleTargetRef?.kind && spec.scaleTargetRef?.name) {
    const t = spec.scaleTargetRef as { apiVersion?: string; kind: string; name: string };
    const r = t.apiVersion ? resourceForKind(d, t.apiVersion, t.kind) : typeOf(d, t.kind);
    const found = r ? (await w.list(r, ns, { representation: 'metadata' })).some((x) => x.metadata?.name === t.name) : false;
    w.add({ relation: 'scales', kind: t.kind, name: t.name, namespace: ns, resource: r, from: '', depth: 1, missing: !found, via: 'scaleTargetRef' });
  }
  if (USED_BY_PODS.has(info.kind) && ns) {
    const pods = typeOf(d, 'Pod', '');
    if (pods)
      for (const p of await w.list(pods, ns))
        for (const r of podSpecRefs((p as Obj).spec, ns)) if (r.kind === info.kind && r.name === name) w.add({ relation: 'used by', kind: 'Pod', name: p.metadata!.name!, namespace: ns, resource: pods, via: r.via, from: '', depth: 1 });
  }
  if (info.kind === 'Service' && ns) {
    const slices = typeOf(d, 'EndpointSlice', 'discovery.k8s.io');
    if (slices)
      for (const s of await w.list(slices, ns, { labelSelector: `kubernetes.io/service-name=${name}` })) {
        const sid = nodeId('EndpointSlice', ns, s.metadata!.name!);
        w.add({ relation: 'endpoints', kind: 'EndpointSlice', name: s.metadata!.name!, namespace: ns, resource: slices, from: '', depth: 1 });
        for (const p of endpointSlicePods(s)) w.add({ relation: 'serves', kind: 'Pod', name: p.name, namespace: p.namespace, via: `via ${s.metadata!.name}`, from: sid, depth: 2 }, '');
      }
  }
  // bindings: for a subject (ServiceAccount; users and groups are not objects) the roles it is given; for a role its bindings
  const rbacKinds = ['RoleBinding', 'ClusterRoleBinding'].map((k) => d.resources.find((r) => r.kind === k && r.preferred && !isAliasGroup(d, r.group))).filter((r): r is ApiResource => !!r);
  if (info.kind === 'ServiceAccount' || info.kind === 'Role' || info.kind === 'ClusterRole') {
    for (const b of rbacKinds) {
      const items = await w.list(b, b.kind === 'RoleBinding' && info.kind === 'Role' ? ns : undefined);
      for (const x of items) {
        const role = roleOf(x);
        if (info.kind === 'ServiceAccount' && bindsSubject(x, { kind: 'ServiceAccount', name, namespace: ns })) {
          const bid = nodeId(b.kind, x.metadata?.namespace, x.metadata!.name!);
          w.add({ relation: 'bound by', kind: b.kind, name: x.metadata!.name!, namespace: x.metadata?.namespace, resource: b, from: '', depth: 1 });
          if (role) await addRef(w, bid, 2, 'has role', role.kind, 'rbac.authorization.k8s.io', role.namespace, role.name, `through ${x.metadata!.name}`);
        } else if (role && role.kind === info.kind && role.name === name && (info.kind === 'ClusterRole' || role.namespace === ns))
          w.add({ relation: 'granted by', kind: b.kind, name: x.metadata!.name!, namespace: x.metadata?.namespace, resource: b, from: '', depth: 1 });
      }
    }
  }
  return w.out;
}

/** The object's relationships, walked once per resourceVersion (a change walks again). */
export function useRelationships(discovery: Discovery, info: ApiResource, object: KubeObject) {
  const kinds = useBrowsableResources(discovery);
  return useQuery({
    queryKey: keys.relationships(info.group, info.resource, object.metadata?.namespace, object.metadata?.name, object.metadata?.resourceVersion),
    queryFn: ({ signal }) => findRelated(discovery, kinds, info, object, signal),
    staleTime: 5_000,
  });
}
