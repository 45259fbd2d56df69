// Serves the resource types defined by CustomResourceDefinitions: registers them as CRDs appear, marks them
// Established, and on deletion (upstream's CRD finalizer controller) deletes every custom object through the normal
// delete path, so their finalizers are respected: the CRD stays, with condition Terminating, until all are gone.
// While it terminates its types stay served (finalizers can be removed) but creates are refused.
import { failure } from '../../api/status.js';
import type { AdmissionPlugin } from '../http/admission.js';
import { deleteObject } from '../registry/pipeline/delete.js';
import { CRD_CLEANUP_FINALIZER, crdEstablishedStatus, resourceTypesFromCRD } from '../registry/crd.js';
import { typePrefix } from '../registry/keys.js';
import { decodeFromStorage, nowTimestamp, ResourceStore } from '../registry/resource-store.js';
import { APISERVER_MANAGER, componentContext } from '../registry/pipeline/context.js';
import { mutateObject } from '../registry/pipeline/update.js';
import type { KubeObject } from '../registry/types.js';
import { StoreError, type StoreEvent, type StoreWatch } from '../storage/types.js';
import { isGoneOrChanged, typeForResource, type ControllerDeps } from './controller-support.js';
import { parseKey } from './object-feed.js';

export const CRD_PREFIX = '/registry/apiextensions.service.io/customresourcedefinitions/';
export { CRD_CLEANUP_FINALIZER } from '../registry/crd.js';
export const CRD_FINALIZER_USER = 'system:apiserver';

const MAX_RETRY_MS = 30_000;

interface CrdSpec {
  group: string;
  names: { plural: string };
}

type Condition = { type: string; status: string; lastTransitionTime?: string; reason: string; message: string };

const conditionsOf = (crd: KubeObject): Condition[] => {
  const c = (crd.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(c) ? (c as Condition[]) : [];
};

const isEstablished = (crd: KubeObject) => conditionsOf(crd).some((c) => c.type === 'Established' && c.status === 'True');

/** upstream SetCRDCondition: lastTransitionTime moves only when the status changes; false when nothing changed. */
function setCondition(crd: KubeObject, want: Condition): boolean {
  const status = (crd.status ??= {}) as { conditions?: Condition[] };
  const conds = conditionsOf(crd);
  const cur = conds.find((c) => c.type === want.type);
  if (cur && cur.status === want.status && cur.reason === want.reason && cur.message === want.message) return false;
  if (!cur) conds.push({ type: want.type, status: want.status, lastTransitionTime: nowTimestamp(), reason: want.reason, message: want.message });
  else {
    if (cur.status !== want.status) cur.lastTransitionTime = nowTimestamp();
    Object.assign(cur, { status: want.status, reason: want.reason, message: want.message });
  }
  status.conditions = conds;
  return true;
}

const terminating = (status: 'True' | 'False', reason: string, message: string): Condition => ({ type: 'Terminating', status, reason, message });

export class CrdController {
  private watch?: StoreWatch;
  private queue: Promise<void> = Promise.resolve();
  private queued = new Set<string>();
  private stopped = false;
  /** `${group}/${plural}` of CRDs being deleted: their types are still served, but creates are refused */
  private terminatingResources = new Set<string>();
  /** CRD key → watch over its custom objects while it waits for them to go */
  private instanceWatches = new Map<string, StoreWatch>();
  private retries = new Map<string, { timer?: NodeJS.Timeout; attempts: number }>();

  constructor(private deps: ControllerDeps) {}

  async start(): Promise<void> {
    const page = await this.deps.store.range({ prefix: CRD_PREFIX, lenient: true });
    for (const kv of page.kvs) this.enqueue(kv.key);
    await this.idle();
    this.watchFrom(page.revision);
  }

  private watchFrom(rev: number): void {
    this.watch = this.deps.store.watch(CRD_PREFIX, rev, {
      onEvents: (events: StoreEvent[]) => {
        for (const ev of events) this.enqueue(ev.kv.key, ev.type === 'delete' ? ev.kv : undefined);
      },
      onError: (err: StoreError) => {
        if (this.stopped) return;
        // history gone or backend hiccup: resync from a fresh list
        this.deps.log(`crd controller: watch ended (${err.message}); resyncing`);
        setTimeout(() => void this.start().catch((e) => this.deps.log(`crd controller: resync failed: ${e}`)), 500).unref();
      },
    });
  }

  /** Waits until every queued reconcile has run (tests, shutdown). */
  async idle(): Promise<void> {
    let q;
    do {
      q = this.queue;
      await q;
    } while (q !== this.queue);
  }

  /** Admission: refuses to create custom objects of a CRD that is being deleted (upstream crdHandler). */
  terminationAdmission(): AdmissionPlugin {
    return {
      name: 'CustomResourceDefinitionTerminating',
      admit: (a) => {
        if (a.operation !== 'CREATE' || a.subresource !== '' || !this.terminatingResources.has(`${a.type.group}/${a.type.plural}`)) return;
        throw failure(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { group: a.type.group, kind: a.type.plural });
      },
    };
  }

  private enqueue(key: string, deletedKv?: { value: Uint8Array; modRevision: number; createRevision: number; key: string }): void {
    if (this.stopped) return;
    if (!deletedKv) {
      // a reconcile already waiting covers this change too
      if (this.queued.has(key)) return;
      this.queued.add(key);
    }
    this.queue = this.queue.then(async () => {
      if (!deletedKv) this.queued.delete(key);
      if (this.stopped) return;
      try {
        if (deletedKv) this.forget(key, decodeFromStorage(deletedKv));
        else await this.reconcile(key);
        this.clearRetry(key);
      } catch (e) {
        this.deps.log(`crd controller: ${key}: ${(e as Error).message}`);
        this.retryLater(key);
      }
    });
  }

  private retryLater(key: string): void {
    const r = this.retries.get(key) ?? { attempts: 0 };
    r.attempts++;
    if (r.timer) clearTimeout(r.timer);
    r.timer = setTimeout(() => this.enqueue(key), Math.min(250 * 2 ** r.attempts, MAX_RETRY_MS));
    r.timer.unref();
    this.retries.set(key, r);
  }

  private clearRetry(key: string): void {
    const r = this.retries.get(key);
    if (r?.timer) clearTimeout(r.timer);
    this.retries.delete(key);
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    for (const w of this.instanceWatches.values()) w.stop();
    this.instanceWatches.clear();
    for (const r of this.retries.values()) if (r.timer) clearTimeout(r.timer);
    this.retries.clear();
  }

  /** The CRD is gone from the store: stop serving its types. */
  private forget(key: string, crd: KubeObject): void {
    this.stopInstanceWatch(key);
    this.clearRetry(key);
    const spec = crd.spec as CrdSpec | undefined;
    if (!spec?.group || !spec.names?.plural) return;
    this.terminatingResources.delete(`${spec.group}/${spec.names.plural}`);
    this.unserve(spec);
  }

  private unserve(spec: CrdSpec): void {
    if (this.deps.types.versionsOf(spec.group, spec.names.plural).length > 0) this.deps.types.replaceGroupResource(spec.group, spec.names.plural, []);
  }

  private async reconcile(key: string): Promise<void> {
    const got = await this.deps.store.get(key);
    if (!got.kv) return;
    const crd = decodeFromStorage(got.kv);
    const spec = crd.spec as CrdSpec;
    if (crd.metadata?.deletionTimestamp) {
      await this.finalize(key, crd);
      return;
    }
    let types;
    try {
      types = resourceTypesFromCRD(crd);
    } catch (e) {
      this.deps.log(`crd controller: ${crd.metadata?.name}: cannot serve: ${(e as Error).message}`);
      return;
    }
    this.deps.types.replaceGroupResource(spec.group, spec.names.plural, types);
    // the cleanup finalizer (main resource), then the Established status (crds/status)
    await this.mutate(
      key,
      (obj) => {
        const finalizers = obj.metadata!.finalizers ?? [];
        if (finalizers.includes(CRD_CLEANUP_FINALIZER)) return false;
        obj.metadata!.finalizers = [...finalizers, CRD_CLEANUP_FINALIZER];
        return true;
      },
      '',
    );
    await this.mutate(key, (obj) => {
      const status = crdEstablishedStatus(obj);
      if (JSON.stringify(obj.status) === JSON.stringify(status)) return false;
      obj.status = status;
      return true;
    });
  }

  /**
   * Deletion (upstream crd_finalizer.go): condition Terminating/InstanceDeletionInProgress, delete every custom object
   * through the normal delete path, wait for them to go (their finalizers may hold them), then stop serving and drop
   * the cleanup finalizer.
   */
  private async finalize(key: string, crd: KubeObject): Promise<void> {
    const spec = crd.spec as CrdSpec;
    const gr = `${spec.group}/${spec.names.plural}`;
    if (!(crd.metadata!.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) {
      // our part is done; other finalizers belong to someone else
      this.stopInstanceWatch(key);
      this.terminatingResources.delete(gr);
      this.unserve(spec);
      return;
    }
    this.terminatingResources.add(gr);
    await this.mutate(key, (o) => setCondition(o, terminating('True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress')));
    if (!isEstablished(crd)) {
      await this.mutate(key, (o) => setCondition(o, terminating('False', 'NeverEstablished', 'resource was never established')));
      await this.finish(key, spec);
      return;
    }
    // keep serving while objects remain, so that their finalizers can be removed (also after a restart)
    if (this.deps.types.versionsOf(spec.group, spec.names.plural).length === 0) {
      try {
        this.deps.types.replaceGroupResource(spec.group, spec.names.plural, resourceTypesFromCRD(crd));
      } catch (e) {
        this.deps.log(`crd controller: ${crd.metadata?.name}: cannot serve while terminating: ${(e as Error).message}`);
      }
    }
    const { remaining, revision, failures } = await this.deleteInstances(spec);
    if (failures.length > 0) {
      const message = `could not issue all deletes: ${failures.join(', ')}`;
      await this.mutate(key, (o) => setCondition(o, terminating('True', 'InstanceDeletionFailed', message)));
      throw new Error(message);
    }
    if (remaining > 0) {
      this.watchInstances(key, spec, revision);
      return;
    }
    this.stopInstanceWatch(key);
    await this.mutate(key, (o) => setCondition(o, terminating('False', 'InstanceDeletionCompleted', 'removed all instances')));
    await this.finish(key, spec);
  }

  /** Stops serving, then drops the cleanup finalizer (which removes the CRD when it was the last one). */
  private async finish(key: string, spec: CrdSpec): Promise<void> {
    this.unserve(spec);
    await this.mutate(
      key,
      (obj) => {
        const finalizers = obj.metadata!.finalizers ?? [];
        if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) return false;
        obj.metadata!.finalizers = finalizers.filter((f) => f !== CRD_CLEANUP_FINALIZER);
        return true;
      },
      '',
    );
  }

  /** Deletes every custom object not already being deleted; counts what is still stored. */
  private async deleteInstances(spec: CrdSpec): Promise<{ remaining: number; revision: number; failures: string[] }> {
    const type = typeForResource(this.deps.types, spec.group, spec.names.plural);
    const prefix = typePrefix({ group: spec.group, plural: spec.names.plural });
    const failures: string[] = [];
    let remaining = 0;
    let startKey: string | undefined;
    let revision: number | undefined;
    for (;;) {
      const page = await this.deps.store.range({ prefix, startKey, limit: 500, revision });
      revision = page.revision;
      for (const kv of page.kvs) {
        remaining++;
        let obj: KubeObject;
        try {
          obj = decodeFromStorage(kv);
        } catch (e) {
          failures.push(`${kv.key}: ${(e as Error).message}`);
          continue;
        }
        if (obj.metadata?.deletionTimestamp) continue;
        const p = parseKey(kv.key);
        if (!type || !p) {
          failures.push(`${kv.key}: no type serves ${spec.names.plural}.${spec.group}`);
          continue;
        }
        try {
          const r = await deleteObject(this.deps, type, p.namespace || undefined, p.name, {}, CRD_FINALIZER_USER);
          if (r.deleted) remaining--;
        } catch (e) {
          if (isGoneOrChanged(e)) continue;
          failures.push(`${p.namespace ? `${p.namespace}/` : ''}${p.name}: ${(e as Error).message}`);
        }
      }
      if (!page.more || page.kvs.length === 0) break;
      startKey = page.kvs[page.kvs.length - 1]!.key + '\u0000';
    }
    return { remaining, revision: revision!, failures };
  }

  /** Looks at the CRD again whenever one of its objects changes (a finalizer removed, an object gone). */
  private watchInstances(key: string, spec: CrdSpec, rev: number): void {
    if (this.instanceWatches.has(key) || this.stopped) return;
    const self: { watch?: StoreWatch; ended?: boolean } = {};
    self.watch = this.deps.store.watch(typePrefix({ group: spec.group, plural: spec.names.plural }), rev, {
      onEvents: () => this.enqueue(key),
      onError: () => {
        self.ended = true;
        if (this.stopped) return;
        // look again (which re-creates the watch) after a pause
        if (self.watch && this.instanceWatches.get(key) === self.watch) this.instanceWatches.delete(key);
        this.retryLater(key);
      },
    });
    if (!self.ended) this.instanceWatches.set(key, self.watch);
  }

  private stopInstanceWatch(key: string): void {
    this.instanceWatches.get(key)?.stop();
    this.instanceWatches.delete(key);
  }

  /**
   * Read-modify-write through the write pipeline, as upstream's CRD controllers write through the loopback client
   * (UpdateStatus as system:apiserver); removes the CRD when a deleting one loses its last finalizer. Status (the
   * conditions) goes through crds/status, the finalizers through the main resource.
   */
  private async mutate(key: string, fn: (obj: KubeObject) => boolean, subresource: 'status' | '' = 'status'): Promise<void> {
    const p = parseKey(key);
    const type = p && typeForResource(this.deps.types, p.group, p.plural);
    if (!p || !type) return;
    const ctx = componentContext(CRD_FINALIZER_USER, APISERVER_MANAGER, this.deps.signal);
    await mutateObject({ rs: new ResourceStore(type, this.deps.store), admission: this.deps.admission }, ctx, undefined, p.name, fn, { subresource });
  }
}
