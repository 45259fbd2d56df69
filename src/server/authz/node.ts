// The Node authorizer (upstream plugin/pkg/auth/authorizer/node, --authorization-mode=Node): a kubelet, user
// system:node:<name> in group system:nodes, may read the secrets, configmaps, persistent volume claims and volumes
// and create tokens for the service accounts that pods bound to its node reference, and use its own Lease in
// kube-node-lease and its own Node; everything else it may do is upstream's static NodeRules. Other users get no
// opinion. Upstream keeps a graph of pods → node edges fed by informers; here the edges are read from the API
// server's watch caches at the time of the check (pods in the namespace, filtered by spec.nodeName), and a check
// that finds no edge waits for the caches to hold every write so far and looks again (a pod just bound counts).
import { nodeIdentity } from '../auth/user.js';
import type { KubeObject } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';
import type { WatchCache, WatchCacheSet } from '../watch/watch-cache.js';
import { allow, noOpinion, type Attributes, type AuthorizationResult, type Authorizer } from './attributes.js';
import { NODE_RULES } from './node-rules.js';
import { ruleAllows } from './rbac.js';
import { canonicalGroup } from '../registry/names.js';

const NODE_LEASE_NAMESPACE = 'kube-node-lease';
type Obj = Record<string, any>;

/** What a pod references that its node may read (upstream's graph_populator edges from a pod). */
export interface PodRefs {
  secrets: Set<string>;
  configmaps: Set<string>;
  pvcs: Set<string>;
  serviceAccount: string;
}

export function podReferences(pod: KubeObject): PodRefs {
  const spec: Obj = (pod as Obj).spec ?? {};
  const out: PodRefs = { secrets: new Set(), configmaps: new Set(), pvcs: new Set(), serviceAccount: typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : '' };
  const add = (set: Set<string>, v: unknown) => typeof v === 'string' && v && set.add(v);
  for (const s of spec.imagePullSecrets ?? []) add(out.secrets, s?.name);
  const podName = pod.metadata?.name ?? '';
  for (const v of spec.volumes ?? []) {
    if (!v || typeof v !== 'object') continue;
    add(out.secrets, v.secret?.secretName);
    add(out.configmaps, v.configMap?.name);
    add(out.pvcs, v.persistentVolumeClaim?.claimName);
    // a generic ephemeral volume's claim is named <pod>-<volume>
    if (v.ephemeral) add(out.pvcs, `${podName}-${v.name}`);
    for (const p of v.projected?.sources ?? []) {
      add(out.secrets, p?.secret?.name);
      add(out.configmaps, p?.configMap?.name);
    }
    for (const k of ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'storageos', 'iscsi']) add(out.secrets, v[k]?.secretRef?.name ?? v[k]?.secretName);
    add(out.secrets, v.csi?.nodePublishSecretRef?.name);
  }
  for (const list of [spec.containers, spec.initContainers, spec.ephemeralContainers]) {
    for (const c of list ?? []) {
      for (const e of c?.env ?? []) {
        add(out.secrets, e?.valueFrom?.secretKeyRef?.name);
        add(out.configmaps, e?.valueFrom?.configMapKeyRef?.name);
      }
      for (const e of c?.envFrom ?? []) {
        add(out.secrets, e?.secretRef?.name);
        add(out.configmaps, e?.configMapRef?.name);
      }
    }
  }
  return out;
}

const podsPrefix = '/registry/core/pods/';
const pvcsPrefix = '/registry/core/persistentvolumeclaims/';

export class NodeAuthorizer implements Authorizer {
  readonly name = 'node';
  private readonly pods: WatchCache;
  private readonly pvcs: WatchCache;

  constructor(
    caches: WatchCacheSet,
    private readonly store: RevisionedStore,
  ) {
    this.pods = caches.get(podsPrefix);
    this.pvcs = caches.get(pvcsPrefix);
  }

  async authorize(a: Attributes): Promise<AuthorizationResult> {
    const node = nodeIdentity(a.user);
    if (!node) return noOpinion();
    const nodeName = node.name;
    if (!nodeName) return noOpinion(`unknown node for user ${JSON.stringify(a.user.name)}`);
    if (a.resourceRequest) {
      const gr = `${a.resource}.${canonicalGroup(a.apiGroup)}`;
      switch (gr) {
        case 'secrets.':
          return this.readNamespaced(nodeName, a, (refs) => refs.secrets);
        case 'configmaps.':
          return this.readNamespaced(nodeName, a, (refs) => refs.configmaps);
        case 'persistentvolumeclaims.':
          if (a.subresource === 'status') return this.related(nodeName, a, (refs) => refs.pvcs, ['update', 'patch'], 'can only update persistentvolumeclaim status');
          return this.related(nodeName, a, (refs) => refs.pvcs, ['get'], 'can only get individual resources of this type');
        case 'persistentvolumes.':
          return this.getVolume(nodeName, a);
        case 'serviceaccounts.':
          if (a.verb !== 'create' || a.subresource !== 'token' || !a.name) return noOpinion('can only create tokens for individual service accounts');
          return this.related(nodeName, a, (refs) => new Set(refs.serviceAccount ? [refs.serviceAccount] : []), ['create'], '');
        case 'leases.coordination.service.io':
          return this.lease(nodeName, a);
        case 'nodes.':
          // AuthorizeNodeWithSelectors (on by default since 1.32): a node reads its own Node object only
          if (['get', 'list', 'watch'].includes(a.verb) && a.subresource === '') {
            if (a.name === nodeName) return allow();
            return noOpinion(a.name ? `node '${nodeName}' cannot read '${a.name}', only its own Node object` : `node '${nodeName}' cannot read all nodes, only its own Node object`);
          }
          break;
        case 'pods.':
          // AuthorizeNodeWithSelectors: a pod is read by name only when bound to this node
          if (a.verb === 'get' && a.subresource === '' && a.name) return (await this.boundTo(nodeName, a.namespace, a.name)) ? allow() : noOpinion(`no relationship found between node '${nodeName}' and this object`);
          break;
      }
    }
    return NODE_RULES.some((r) => ruleAllows(a, r)) ? allow() : noOpinion();
  }

  private async readNamespaced(nodeName: string, a: Attributes, pick: (r: PodRefs) => Set<string>): Promise<AuthorizationResult> {
    if (!['get', 'list', 'watch'].includes(a.verb)) return noOpinion('can only read resources of this type');
    if (a.subresource) return noOpinion('cannot read subresource');
    if (!a.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(nodeName, a, pick, ['get', 'list', 'watch'], '');
  }

  /** Allowed when a pod bound to the node references the named object in its namespace. */
  private async related(nodeName: string, a: Attributes, pick: (r: PodRefs) => Set<string>, verbs: string[], verbMessage: string): Promise<AuthorizationResult> {
    if (!verbs.includes(a.verb)) return noOpinion(verbMessage);
    if (!a.name) return noOpinion('No Object name found');
    const found = () => this.podsOn(nodeName, a.namespace).some((p) => pick(podReferences(p)).has(a.name));
    if (found() || (await this.fresh(), found())) return allow();
    return noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  /** A PersistentVolume is the node's when a claim of one of its pods is bound to it. */
  private async getVolume(nodeName: string, a: Attributes): Promise<AuthorizationResult> {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (!a.name) return noOpinion('No Object name found');
    const found = () =>
      this.podsOn(nodeName, undefined).some((p) => {
        for (const claim of podReferences(p).pvcs) {
          const pvc = this.pvcs.objects.get(`${pvcsPrefix}${p.metadata?.namespace}/${claim}`) as Obj | undefined;
          if (pvc?.spec?.volumeName === a.name) return true;
        }
        return false;
      });
    if (found() || (await this.fresh(), found())) return allow();
    return noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  private lease(nodeName: string, a: Attributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace`);
    if (a.verb !== 'create' && a.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
    if (a.subresource) return noOpinion('cannot access subresource');
    return allow();
  }

  private async boundTo(nodeName: string, namespace: string, name: string): Promise<boolean> {
    const bound = () => ((this.pods.objects.get(`${podsPrefix}${namespace}/${name}`) as Obj | undefined)?.spec?.nodeName ?? '') === nodeName;
    return bound() || (await this.fresh(), bound());
  }

  /** The pods bound to `nodeName` (in `namespace`, or in all). */
  private podsOn(nodeName: string, namespace: string | undefined): KubeObject[] {
    const out: KubeObject[] = [];
    for (const k of this.pods.keysUnder(namespace === undefined ? podsPrefix : `${podsPrefix}${namespace}/`)) {
      const p = this.pods.objects.get(k) as Obj | undefined;
      if (p?.spec?.nodeName === nodeName) out.push(p as KubeObject);
    }
    return out;
  }

  /** Waits until the caches hold every write made so far. */
  private async fresh(): Promise<void> {
    try {
      await Promise.all([this.pods.start(), this.pvcs.start()]);
      const rev = await this.store.currentRevision();
      await Promise.all([this.pods.waitFresh(rev), this.pvcs.waitFresh(rev)]);
    } catch {
      // caches behind (or the store unreachable): decide on what they hold, as upstream's graph does
    }
  }
}
