// RBAC objects read from the per-type watch caches: a check first waits until the caches hold
// everything the store had (so a binding just created takes effect on the next request). On etcd, where
// asking for the current revision is a round trip, that wait is skipped while no RBAC write was seen
// lately and the last one is recent: other replicas' changes then arrive through the watch, as upstream.
import { RBAC_GROUP } from '../registry/builtin-cluster.js';
import type { KubeObject } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';
import type { WatchCache, WatchCacheSet } from '../watch/watch-cache.js';
import type { RbacSource } from './rbac.js';

const prefix = (plural: string) => `/registry/${RBAC_GROUP}/${plural}/`;

/** On etcd: how long a consistent sync is trusted when no RBAC write went through this server. */
const ETCD_SYNC_MS = 1000;
/** On etcd: how long after an RBAC write every check syncs again. */
const AFTER_WRITE_MS = 2000;

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

  private lastSync = 0;
  private lastWrite = 0;

  /** An RBAC object is being written through this server. */
  markWritten(): void {
    this.lastWrite = Date.now();
  }

  async sync(): Promise<void> {
    const all = [this.roles, this.clusterRolesC, this.bindings, this.clusterBindings];
    await Promise.all(all.map((c) => c.start()));
    const now = Date.now();
    if (this.store.name === 'etcd' && now - this.lastSync < ETCD_SYNC_MS && now - this.lastWrite > AFTER_WRITE_MS) return;
    const rev = await this.store.currentRevision();
    await Promise.all(all.map((c) => c.waitFresh(rev)));
    this.lastSync = now;
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
