// RBAC objects read from the per-type watch caches: every check first waits until the caches hold
// everything the store had (so a binding just created takes effect on the next request).
import { RBAC_GROUP } from '../registry/builtin-cluster.js';
import type { KubeObject } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';
import type { WatchCache, WatchCacheSet } from '../watch/watch-cache.js';
import type { RbacSource } from './rbac.js';

const prefix = (plural: string) => `/registry/${RBAC_GROUP}/${plural}/`;

export class CachedRbacSource implements RbacSource {
  private readonly roles: WatchCache;
  private readonly clusterRolesC: WatchCache;
  private readonly bindings: WatchCache;
  private readonly clusterBindings: WatchCache;

  constructor(
    caches: WatchCacheSet,
    private readonly store: RevisionedStore,
  ) {
    this.roles = caches.get(prefix('roles'));
    this.clusterRolesC = caches.get(prefix('clusterroles'));
    this.bindings = caches.get(prefix('rolebindings'));
    this.clusterBindings = caches.get(prefix('clusterrolebindings'));
  }

  async sync(): Promise<void> {
    const all = [this.roles, this.clusterRolesC, this.bindings, this.clusterBindings];
    await Promise.all(all.map((c) => c.start()));
    const rev = await this.store.currentRevision();
    await Promise.all(all.map((c) => c.waitFresh(rev)));
  }

  clusterRoleBindings(): Iterable<KubeObject> {
    return this.clusterBindings.objects.values();
  }

  *roleBindings(namespace: string): Iterable<KubeObject> {
    for (const k of this.bindings.keysUnder(`${prefix('rolebindings')}${namespace}/`)) {
      const o = this.bindings.objects.get(k);
      if (o) yield o;
    }
  }

  clusterRole(name: string): KubeObject | undefined {
    return this.clusterRolesC.objects.get(`${prefix('clusterroles')}${name}`);
  }

  role(namespace: string, name: string): KubeObject | undefined {
    return this.roles.objects.get(`${prefix('roles')}${namespace}/${name}`);
  }

  /** Every ClusterRole (the aggregation controller and the explorer's access view). */
  allClusterRoles(): Iterable<KubeObject> {
    return this.clusterRolesC.objects.values();
  }
}
