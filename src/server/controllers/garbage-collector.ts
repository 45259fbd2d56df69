// The garbage collector: deletes objects whose owners (metadata.ownerReferences, checked by uid) are gone,
// finishes Foreground deletions (owner keeps the foregroundDeletion finalizer until its blocking dependents are gone)
// and Orphan deletions (dependents lose their reference, then the orphan finalizer goes). Every type of the
// TypeRegistry is covered, custom resources included. Its only memory is an index of owner references rebuilt
// from the store at start, so a restart in the middle of a deletion picks up where the store says it stands.
import type { WriteContext, WriteTarget } from '../registry/pipeline/context.js';
import { controllerContext } from './identities.js';
import { deleteObject, FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../registry/pipeline/delete.js';
import type { PropagationPolicy } from '../http/rest/delete-options.js';
import { objectKey } from '../registry/keys.js';
import { resourceStoreFor } from '../registry/resource-store.js';
import type { KubeObject, OwnerReference } from '../registry/types.js';
import {
  isGoneOrChanged,
  mutateObject,
  removeFinalizer,
  targetForKey,
  typeForOwner,
  type ControllerDeps,
  type KeyTarget,
} from './controller-support.js';
import type { FeedEvent, FeedItem, FeedListener, ObjectFeed } from './object-feed.js';
import { parseKey } from './object-feed.js';
import { WorkQueue } from './work-queue.js';

/** How long to wait before looking again at an object whose owner kind is not served (yet). */
const UNRESOLVED_RECHECK_MS = 30_000;

const refsOf = (o: KubeObject | undefined): OwnerReference[] => (Array.isArray(o?.metadata?.ownerReferences) ? o!.metadata!.ownerReferences! : []);
const finalizersOf = (o: KubeObject | undefined): string[] => o?.metadata?.finalizers ?? [];

/** Same owner references, field by field (most updates keep them: no JSON of both per event). */
function sameRefs(a: readonly OwnerReference[], b: readonly OwnerReference[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.uid !== y.uid || x.name !== y.name || x.kind !== y.kind || x.apiVersion !== y.apiVersion || x.controller !== y.controller || x.blockOwnerDeletion !== y.blockOwnerDeletion) return false;
  }
  return true;
}

/** Being deleted and waiting for the collector (orphaning or foreground). */
function gcFinalizing(o: KubeObject | undefined): boolean {
  if (!o?.metadata?.deletionTimestamp) return false;
  const f = finalizersOf(o);
  return f.includes(FINALIZER_ORPHAN) || f.includes(FINALIZER_FOREGROUND);
}

const deletingDependents = (o: KubeObject | undefined) => !!o?.metadata?.deletionTimestamp && finalizersOf(o).includes(FINALIZER_FOREGROUND);

export class GarbageCollector implements FeedListener {
  /** dependent key → its owner references */
  private owners = new Map<string, OwnerReference[]>();
  /** owner uid → dependent keys */
  private dependents = new Map<string, Set<string>>();
  private queue: WorkQueue;

  constructor(
    private deps: ControllerDeps,
    private feed: ObjectFeed,
  ) {
    this.queue = new WorkQueue(
      (key) => this.process(key),
      (key, e) => deps.log(`garbage collector: ${key}: ${(e as Error).message}`),
    );
  }

  onSync(items: FeedItem[]): void {
    this.owners.clear();
    this.dependents.clear();
    for (const it of items) {
      if (!it.obj) continue;
      this.index(it.key, it.obj);
    }
    for (const it of items) if (refsOf(it.obj).length > 0 || gcFinalizing(it.obj)) this.queue.add(it.key);
  }

  onEvent(ev: FeedEvent): void {
    if (ev.type === 'delete') {
      const oldRefs = this.owners.get(ev.key) ?? refsOf(ev.obj);
      this.unindex(ev.key);
      const uid = ev.obj?.metadata?.uid;
      // its dependents may now be dangling
      if (uid) for (const d of this.dependents.get(uid) ?? []) this.queue.add(d);
      // owners waiting in the foreground for it may be done
      this.queueOwners(ev.key, oldRefs);
      return;
    }
    const obj = ev.obj;
    if (!obj) return;
    const oldRefs = this.owners.get(ev.key) ?? [];
    const refs = refsOf(obj);
    const refsChanged = !sameRefs(oldRefs, refs);
    if (refsChanged) this.index(ev.key, obj);
    else if (refs.length > 0) this.owners.set(ev.key, refs);
    if (refs.length > 0 && (ev.created || refsChanged)) this.queue.add(ev.key);
    else if (gcFinalizing(obj) && (ev.created || !gcFinalizing(ev.prev) || JSON.stringify(finalizersOf(ev.prev)) !== JSON.stringify(finalizersOf(obj))))
      this.queue.add(ev.key);
    // a dependent that dropped or unblocked its reference may release an owner waiting in the foreground
    if (refsChanged) this.queueOwners(ev.key, oldRefs);
  }

  stop(): Promise<void> {
    return this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private index(key: string, obj: KubeObject): void {
    this.unindex(key);
    const refs = refsOf(obj);
    if (refs.length === 0) return;
    this.owners.set(key, refs);
    for (const r of refs) {
      let set = this.dependents.get(r.uid);
      if (!set) this.dependents.set(r.uid, (set = new Set()));
      set.add(key);
    }
  }

  private unindex(key: string): void {
    const refs = this.owners.get(key);
    if (!refs) return;
    this.owners.delete(key);
    for (const r of refs) {
      const set = this.dependents.get(r.uid);
      set?.delete(key);
      if (set?.size === 0) this.dependents.delete(r.uid);
    }
  }

  private queueOwners(dependentKey: string, refs: OwnerReference[]): void {
    const ns = parseKey(dependentKey)?.namespace ?? '';
    for (const r of refs) {
      const t = typeForOwner(this.deps.types, r);
      if (!t || (t.scope === 'Namespaced' && !ns)) continue;
      this.queue.add(objectKey(t, ns || undefined, r.name));
    }
  }

  private async process(key: string): Promise<void> {
    const target = targetForKey(this.deps, key);
    if (!target) return;
    let cur;
    try {
      cur = await target.rs.readShared(target.namespace, target.name); // read only
    } catch {
      return; // unreadable (corrupt): nothing the collector can do
    }
    if (!cur) return;
    const obj = cur.obj;
    if (obj.metadata?.deletionTimestamp) {
      // the dependents index must include everything created before this state of the owner
      if (gcFinalizing(obj)) await this.feed.caughtUp(cur.modRevision);
      const f = finalizersOf(obj);
      if (f.includes(FINALIZER_ORPHAN)) await this.orphanDependents(target, obj);
      else if (f.includes(FINALIZER_FOREGROUND)) await this.processDeletingDependents(target, obj);
      return;
    }
    const refs = refsOf(obj);
    if (refs.length === 0) return;
    await this.attemptToDelete(key, target, obj, refs);
  }

  /** Classifies the owners: solid (present), dangling (absent, other uid, or invalid), waiting (deleting in the foreground). */
  private async classifyOwners(namespace: string | undefined, refs: OwnerReference[]) {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    let unresolved = false;
    for (const ref of refs) {
      const t = typeForOwner(this.deps.types, ref);
      if (!t) {
        unresolved = true;
        solid.push(ref);
        continue;
      }
      // a cluster-scoped dependent cannot have a namespaced owner: the reference is treated as absent
      if (t.scope === 'Namespaced' && !namespace) {
        dangling.push(ref);
        continue;
      }
      let owner;
      try {
        owner = await resourceStoreFor(t, this.deps.store).readShared(t.scope === 'Namespaced' ? namespace : undefined, ref.name); // read only
      } catch {
        solid.push(ref); // unreadable owner: do not guess
        continue;
      }
      if (!owner || owner.obj.metadata?.uid !== ref.uid) dangling.push(ref);
      else if (deletingDependents(owner.obj)) waiting.push(ref);
      else solid.push(ref);
    }
    return { solid, dangling, waiting, unresolved };
  }

  private writeTo(t: KeyTarget): WriteTarget {
    return { rs: t.rs, admission: this.deps.admission };
  }

  /** The garbage collector writes as its service account (upstream's controller manager with per-controller credentials). */
  private ctx(): WriteContext {
    return controllerContext(this.deps, 'garbage-collector-controller');
  }

  private async attemptToDelete(key: string, target: KeyTarget, obj: KubeObject, refs: OwnerReference[]): Promise<void> {
    const uid = obj.metadata!.uid!;
    const { solid, dangling, waiting, unresolved } = await this.classifyOwners(target.namespace, refs);
    if (unresolved) this.queue.addAfter(key, UNRESOLVED_RECHECK_MS);
    if (solid.length > 0) {
      // still owned: only drop the references to owners that are gone or waiting for us
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      if (drop.size === 0) return;
      await mutateObject(this.writeTo(target), this.ctx(), target.namespace, target.name, uid, (o) => {
        const before = refsOf(o);
        const after = before.filter((r) => !drop.has(r.uid));
        if (after.length === before.length) return false;
        o.metadata!.ownerReferences = after;
        return true;
      });
      return;
    }
    let policy: PropagationPolicy;
    if (waiting.length > 0 && (this.dependents.get(uid)?.size ?? 0) > 0) {
      // our owner waits for us and we have dependents ourselves: go in the foreground too. If one of our
      // dependents already deletes in the foreground (a cycle), stop blocking our owners first.
      if (await this.anyDependentDeletingInForeground(uid)) {
        await mutateObject(this.writeTo(target), this.ctx(), target.namespace, target.name, uid, (o) => {
          let changed = false;
          for (const r of refsOf(o))
            if (r.blockOwnerDeletion) {
              r.blockOwnerDeletion = false;
              changed = true;
            }
          return changed;
        });
      }
      policy = 'Foreground';
    } else {
      const f = finalizersOf(obj);
      policy = f.includes(FINALIZER_ORPHAN) ? 'Orphan' : f.includes(FINALIZER_FOREGROUND) ? 'Foreground' : 'Background';
    }
    await this.delete(target, uid, policy);
  }

  private async anyDependentDeletingInForeground(uid: string): Promise<boolean> {
    for (const dk of this.dependents.get(uid) ?? []) {
      const t = targetForKey(this.deps, dk);
      if (!t) continue;
      const d = await t.rs.readShared(t.namespace, t.name).catch(() => undefined);
      if (deletingDependents(d?.obj)) return true;
    }
    return false;
  }

  private async delete(target: KeyTarget, uid: string, policy: PropagationPolicy): Promise<void> {
    try {
      await deleteObject(this.deps, target.type, target.namespace, target.name, { propagationPolicy: policy, preconditions: { uid } }, this.ctx());
    } catch (e) {
      if (!isGoneOrChanged(e)) throw e;
    }
  }

  /** Foreground: delete every dependent; drop the finalizer once no dependent blocks (blockOwnerDeletion) any more. */
  private async processDeletingDependents(target: KeyTarget, owner: KubeObject): Promise<void> {
    const uid = owner.metadata!.uid!;
    let blocking = 0;
    for (const dk of [...(this.dependents.get(uid) ?? [])]) {
      const t = targetForKey(this.deps, dk);
      if (!t) continue;
      let dep;
      try {
        dep = await t.rs.readShared(t.namespace, t.name);
      } catch {
        blocking++; // unreadable: assume it still blocks
        continue;
      }
      const ref = refsOf(dep?.obj).find((r) => r.uid === uid);
      if (!dep || !ref) continue;
      if (ref.blockOwnerDeletion) blocking++;
      if (!dep.obj.metadata?.deletionTimestamp) this.queue.add(dk);
    }
    if (blocking === 0) await removeFinalizer(this.writeTo(target), this.ctx(), target.namespace, target.name, uid, FINALIZER_FOREGROUND);
  }

  /** Orphan: every dependent loses its reference to the owner, then the orphan finalizer goes. */
  private async orphanDependents(target: KeyTarget, owner: KubeObject): Promise<void> {
    const uid = owner.metadata!.uid!;
    for (const dk of [...(this.dependents.get(uid) ?? [])]) {
      const t = targetForKey(this.deps, dk);
      if (!t) continue;
      await mutateObject(this.writeTo(t), this.ctx(), t.namespace, t.name, undefined, (o) => {
        const before = refsOf(o);
        const after = before.filter((r) => r.uid !== uid);
        if (after.length === before.length) return false;
        if (after.length > 0) o.metadata!.ownerReferences = after;
        else delete o.metadata!.ownerReferences;
        return true;
      });
    }
    await removeFinalizer(this.writeTo(target), this.ctx(), target.namespace, target.name, uid, FINALIZER_ORPHAN);
  }
}
