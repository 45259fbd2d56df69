// Namespace termination: for a namespace with deletionTimestamp (phase Terminating) delete every namespaced object of
// every type in it (custom resources included; finalizers are respected since deletion goes through the normal
// delete path), report in status.conditions what is still there, and once it is empty remove the `kubernetes`
// finalizer from spec.finalizers, which removes the namespace (pkg/controller/namespace/deletion upstream).
import { controllerContext } from './identities.js';
import { deleteObject } from '../registry/pipeline/delete.js';
import { typePrefix } from '../registry/keys.js';
import { sharedOrDecoded, nowTimestamp, ResourceStore } from '../registry/resource-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import { isGoneOrChanged, mutateObject, typeForResource, type ControllerDeps } from './controller-support.js';
import { parseKey, type FeedEvent, type FeedItem, type FeedListener } from './object-feed.js';
import { WorkQueue } from './work-queue.js';

export const NAMESPACE_FINALIZER = 'kubernetes';

/** A batch of content deletions produces many events: let them settle before looking again. */
const SETTLE_MS = 50;
/** Fallback re-check while content remains (events normally arrive first). */
const RECHECK_MS = 5_000;

type Condition = { type: string; status: string; reason: string; message: string; lastTransitionTime?: string };

/** Condition types the controller maintains, with their "all is well" variants (status_condition_utils.go). */
const CONDITIONS: [type: string, okReason: string, okMessage: string][] = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentRemoved', 'All content successfully removed'],
];

interface ContentState {
  remaining: number;
  /** "<resource>.<group>" → objects left */
  byResource: Map<string, number>;
  /** finalizer → objects carrying it */
  byFinalizer: Map<string, number>;
  failures: string[];
}

const specFinalizers = (ns: KubeObject): unknown[] => {
  const f = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(f) ? f : [];
};

export class NamespaceController implements FeedListener {
  private terminating = new Set<string>();
  private queue: WorkQueue;

  constructor(private deps: ControllerDeps) {
    this.queue = new WorkQueue(
      (name) => this.process(name),
      (name, e) => deps.log(`namespace controller: ${name}: ${(e as Error).message}`),
    );
  }

  private get namespaces(): ResourceType | undefined {
    return typeForResource(this.deps.types, '', 'namespaces');
  }

  onSync(items: FeedItem[]): void {
    this.terminating.clear();
    for (const it of items) {
      const p = parseKey(it.key);
      if (p?.group === '' && p.plural === 'namespaces' && it.obj?.metadata?.deletionTimestamp) {
        this.terminating.add(p.name);
        this.queue.add(p.name);
      }
    }
  }

  onEvent(ev: FeedEvent): void {
    const p = parseKey(ev.key);
    if (!p) return;
    if (p.group === '' && p.plural === 'namespaces') {
      if (ev.type === 'delete' || !ev.obj?.metadata?.deletionTimestamp) {
        this.terminating.delete(p.name);
        return;
      }
      this.terminating.add(p.name);
      this.queue.add(p.name);
      return;
    }
    if (p.namespace && this.terminating.has(p.namespace)) this.queue.addAfter(p.namespace, SETTLE_MS);
  }

  stop(): Promise<void> {
    return this.queue.stop();
  }

  private async process(name: string): Promise<void> {
    const nsType = this.namespaces;
    if (!nsType) return;
    const rs = new ResourceStore(nsType, this.deps.store);
    const w = { rs, admission: this.deps.admission };
    const ctx = controllerContext(this.deps, 'namespace-controller');
    const cur = await rs.readShared(undefined, name); // read only
    if (!cur?.obj.metadata?.deletionTimestamp) return;
    const uid = cur.obj.metadata.uid;
    if ((cur.obj.status as { phase?: string } | undefined)?.phase !== 'Terminating')
      await mutateObject(w, ctx, undefined, name, uid, (o) => {
        o.status = { ...((o.status as object | undefined) ?? {}), phase: 'Terminating' };
        return true;
      }, 'status');
    // our part is done (or was never asked for): other finalizers belong to someone else
    if (!specFinalizers(cur.obj).includes(NAMESPACE_FINALIZER)) return;
    const content = await this.deleteAllContent(name);
    await mutateObject(w, ctx, undefined, name, uid, (o) => updateConditions(o, content), 'status');
    if (content.remaining > 0 || content.failures.length > 0) {
      this.queue.addAfter(name, RECHECK_MS);
      return;
    }
    // empty: finalize; with no other finalizer left this removes the namespace
    await mutateObject(w, ctx, undefined, name, uid, (o) => {
      const f = specFinalizers(o);
      if (!f.includes(NAMESPACE_FINALIZER)) return false;
      (o.spec as { finalizers: unknown[] }).finalizers = f.filter((x) => x !== NAMESPACE_FINALIZER);
      return true;
    }, 'finalize');
  }

  /** Deletes what is left in the namespace (background propagation, as upstream) and counts what remains. */
  private async deleteAllContent(ns: string): Promise<ContentState> {
    const state: ContentState = { remaining: 0, byResource: new Map(), byFinalizer: new Map(), failures: [] };
    const seen = new Set<string>();
    for (const t of this.deps.types.all()) {
      if (t.scope !== 'Namespaced' || !t.verbs.includes('delete') || !t.verbs.includes('list')) continue;
      const prefix = typePrefix(t);
      if (seen.has(prefix)) continue; // every version of a resource shares its storage
      seen.add(prefix);
      const rs = new ResourceStore(t, this.deps.store);
      const page = await this.deps.store.range({ prefix: rs.prefix(ns) });
      let left = 0;
      let failure: string | undefined;
      for (const kv of page.kvs) {
        let obj: KubeObject;
        try {
          obj = sharedOrDecoded(this.deps.store, prefix, kv); // read only
        } catch (e) {
          left++;
          failure ??= `${t.plural}.${t.group}: ${(e as Error).message}`;
          continue;
        }
        if (!obj.metadata?.deletionTimestamp) {
          try {
            const r = await deleteObject(this.deps, t, ns, obj.metadata!.name!, { propagationPolicy: 'Background' }, controllerContext(this.deps, 'namespace-controller'));
            if (r.deleted) continue;
            if (r.obj) obj = r.obj;
          } catch (e) {
            if (isGoneOrChanged(e) && (e as { code: number }).code === 404) continue;
            failure ??= `${t.plural}.${t.group}: ${(e as Error).message}`;
          }
        }
        left++;
        for (const f of obj.metadata?.finalizers ?? []) state.byFinalizer.set(f, (state.byFinalizer.get(f) ?? 0) + 1);
      }
      if (left > 0) state.byResource.set(`${t.plural}.${t.group}`, left);
      if (failure) state.failures.push(failure);
      state.remaining += left;
    }
    return state;
  }
}

/** Sets the five deletion conditions on the namespace's status; false when nothing changed. */
function updateConditions(ns: KubeObject, c: ContentState): boolean {
  const wanted = new Map<string, Condition>();
  if (c.byResource.size > 0) {
    const parts = [...c.byResource].map(([r, n]) => `${r} has ${n} resource instances`).sort();
    wanted.set('NamespaceContentRemaining', {
      type: 'NamespaceContentRemaining',
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: ${parts.join(', ')}`,
    });
  }
  if (c.byFinalizer.size > 0) {
    const parts = [...c.byFinalizer].map(([f, n]) => `${f} in ${n} resource instances`).sort();
    wanted.set('NamespaceFinalizersRemaining', {
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      reason: 'SomeFinalizerRemain',
      message: `Some finalizers are remaining: ${parts.join(', ')}`,
    });
  }
  if (c.failures.length > 0)
    wanted.set('NamespaceDeletionContentFailure', {
      type: 'NamespaceDeletionContentFailure',
      status: 'True',
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${c.failures.length} remaining: ${[...c.failures].sort().join(', ')}`,
    });
  const status = (ns.status ??= {}) as { conditions?: Condition[] };
  const conds: Condition[] = Array.isArray(status.conditions) ? status.conditions : [];
  let changed = false;
  for (const [type, okReason, okMessage] of CONDITIONS) {
    const want = wanted.get(type) ?? { type, status: 'False', reason: okReason, message: okMessage };
    const old = conds.find((x) => x.type === type);
    if (!old) {
      conds.push({ ...want, lastTransitionTime: nowTimestamp() });
      changed = true;
    } else if (old.status !== want.status || old.reason !== want.reason || old.message !== want.message) {
      if (old.status !== want.status) old.lastTransitionTime = nowTimestamp();
      Object.assign(old, { status: want.status, reason: want.reason, message: want.message });
      changed = true;
    }
  }
  status.conditions = conds;
  return changed;
}
