// Serves the resource types defined by CustomResourceDefinitions: registers them as CRDs appear,
// marks them Established, and on deletion removes every custom object before letting the CRD go.
import { crdEstablishedStatus, resourceTypesFromCRD } from '../registry/crd.js';
import { typePrefix } from '../registry/keys.js';
import type { TypeRegistry } from '../registry/registry.js';
import { decodeFromStorage, encodeForStorage } from '../registry/resource-store.js';
import type { KubeObject } from '../registry/types.js';
import { StoreError, type RevisionedStore, type StoreEvent, type StoreWatch } from '../storage/types.js';

export const CRD_PREFIX = '/registry/apiextensions.service.io/customresourcedefinitions/';
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.service.io';

interface CrdSpec {
  group: string;
  names: { plural: string };
}

export class CrdController {
  private watch?: StoreWatch;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private store: RevisionedStore,
    private types: TypeRegistry,
    private log: (l: string) => void = () => {},
  ) {}

  async start(): Promise<void> {
    const page = await this.store.range({ prefix: CRD_PREFIX });
    for (const kv of page.kvs) await this.reconcile(kv.key);
    this.watchFrom(page.revision);
  }

  private watchFrom(rev: number): void {
    this.watch = this.store.watch(CRD_PREFIX, rev, {
      onEvents: (events: StoreEvent[]) => {
        for (const ev of events) this.enqueue(ev.kv.key, ev.type === 'delete' ? ev.kv : undefined);
      },
      onError: (err: StoreError) => {
        if (this.stopped) return;
        // history gone or backend hiccup: resync from a fresh list
        this.log(`crd controller: watch ended (${err.message}); resyncing`);
        setTimeout(() => void this.start().catch((e) => this.log(`crd controller: resync failed: ${e}`)), 500).unref();
      },
    });
  }

  /** Waits until every queued reconcile has run (tests, shutdown). */
  async idle(): Promise<void> {
    await this.queue;
  }

  private enqueue(key: string, deletedKv?: { value: Uint8Array; modRevision: number; createRevision: number; key: string }): void {
    this.queue = this.queue.then(async () => {
      try {
        if (deletedKv) this.unregister(decodeFromStorage(deletedKv));
        else await this.reconcile(key);
      } catch (e) {
        this.log(`crd controller: ${key}: ${(e as Error).message}`);
      }
    });
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
  }

  private unregister(crd: KubeObject): void {
    const spec = crd.spec as CrdSpec | undefined;
    if (spec?.group && spec.names?.plural) this.types.replaceGroupResource(spec.group, spec.names.plural, []);
  }

  private async reconcile(key: string): Promise<void> {
    const got = await this.store.get(key);
    if (!got.kv) return;
    const crd = decodeFromStorage(got.kv);
    const spec = crd.spec as CrdSpec;
    if (crd.metadata?.deletionTimestamp) {
      await this.cleanup(crd);
      return;
    }
    let types;
    try {
      types = resourceTypesFromCRD(crd);
    } catch (e) {
      this.log(`crd controller: ${crd.metadata?.name}: cannot serve: ${(e as Error).message}`);
      return;
    }
    this.types.replaceGroupResource(spec.group, spec.names.plural, types);
    await this.mutate(key, (obj) => {
      const status = crdEstablishedStatus(obj);
      const finalizers = obj.metadata!.finalizers ?? [];
      const hasFinalizer = finalizers.includes(CRD_CLEANUP_FINALIZER);
      if (hasFinalizer && JSON.stringify(obj.status) === JSON.stringify(status)) return false;
      obj.status = status;
      if (!hasFinalizer) obj.metadata!.finalizers = [...finalizers, CRD_CLEANUP_FINALIZER];
      return true;
    });
  }

  /** Deletion: stop serving, delete every custom object, then drop the cleanup finalizer. */
  private async cleanup(crd: KubeObject): Promise<void> {
    const spec = crd.spec as CrdSpec;
    this.types.replaceGroupResource(spec.group, spec.names.plural, []);
    const prefix = typePrefix({ group: spec.group, plural: spec.names.plural });
    for (;;) {
      const page = await this.store.range({ prefix, limit: 500 });
      if (page.kvs.length === 0) break;
      for (const kv of page.kvs) {
        try {
          await this.store.delete(kv.key, kv.modRevision);
        } catch (e) {
          if (!(e instanceof StoreError) || (e.code !== 'Conflict' && e.code !== 'KeyNotFound')) throw e;
        }
      }
    }
    const key = CRD_PREFIX + crd.metadata!.name;
    await this.mutate(key, (obj) => {
      const finalizers = obj.metadata!.finalizers ?? [];
      if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) return false;
      obj.metadata!.finalizers = finalizers.filter((f) => f !== CRD_CLEANUP_FINALIZER);
      return true;
    });
  }

  /** Read-modify-write with retry on conflict; removes the object when a deleting object loses its last finalizer. */
  private async mutate(key: string, fn: (obj: KubeObject) => boolean): Promise<void> {
    for (let i = 0; i < 10; i++) {
      const got = await this.store.get(key);
      if (!got.kv) return;
      const obj = decodeFromStorage(got.kv);
      if (!fn(obj)) return;
      try {
        if (obj.metadata!.deletionTimestamp && (obj.metadata!.finalizers ?? []).length === 0) await this.store.delete(key, got.kv.modRevision);
        else await this.store.update(key, encodeForStorage(obj), got.kv.modRevision);
        return;
      } catch (e) {
        if (e instanceof StoreError && e.code === 'Conflict') continue;
        throw e;
      }
    }
  }
}
