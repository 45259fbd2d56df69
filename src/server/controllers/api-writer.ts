// Writes of the simulated cluster components (kube-controller-manager, kube-scheduler, kubelet) through the same
// create/update/delete paths as HTTP writes: defaulting, validation, admission, and managedFields recorded under
// the component's field manager, as upstream components are ordinary API clients.
import { serverComponent } from '../auth/user.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors, StatusError } from '../../api/status.js';
import { parseFeatureGates } from '../features.js';
import { deleteObject } from '../http/rest/deleter.js';
import { bindPod } from '../http/rest/binding.js';
import type { DeleteOptions } from '../http/rest/delete-options.js';
import { gv } from '../http/rest/decode.js';
import { createObject, updateObject } from '../http/rest/write.js';
import type { RequestScope } from '../http/scope.js';
import { ResourceStore } from '../registry/resource-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { WatchCache } from '../watch/watch-cache.js';
import { sharedVersion, typeForResource, type ControllerDeps } from './controller-support.js';

/** Field managers and users of upstream's components. */
export const COMPONENTS = {
  controllerManager: { manager: 'kube-controller-manager', user: 'system:kube-controller-manager' },
  scheduler: { manager: 'kube-scheduler', user: 'system:kube-scheduler' },
  kubelet: { manager: 'kubelet', user: 'system:node' },
} as const;

export type Component = (typeof COMPONENTS)[keyof typeof COMPONENTS];

const GATES = parseFeatureGates(undefined);

export class ApiWriter {
  private types = new Map<string, ResourceType>();

  constructor(
    private deps: ControllerDeps,
    readonly component: Component,
  ) {}

  /**
   * Writes stop with the writer's term: once deps.signal is aborted (the replica lost its leader Lease, or shuts
   * down) a sync still running issues no further write, as upstream's controller manager exits on losing it.
   */
  private fence(): void {
    if (this.deps.signal?.aborted) throw new StoppedError(`${this.component.manager} stopped: no more writes in this term`);
  }

  /** Whether the API serves the kind now (kinds may arrive later: CRDs, or built-ins a later merge adds). */
  has(group: string, plural: string): boolean {
    return typeForResource(this.deps.types, group, plural) !== undefined;
  }

  type(group: string, plural: string): ResourceType {
    const k = `${group}/${plural}`;
    let t = this.types.get(k);
    if (!t) {
      t = typeForResource(this.deps.types, group, plural);
      if (!t) throw new Error(`no type ${k}`);
      this.types.set(k, t);
    }
    return t;
  }

  private scope(type: ResourceType, namespace: string | undefined, name: string, subresource: string): RequestScope {
    const req = { headers: { 'user-agent': `${this.component.manager}/v1.33.0` }, method: 'POST' } as unknown as IncomingMessage;
    return {
      req,
      res: undefined as unknown as ServerResponse,
      info: { isResourceRequest: true, path: '', verb: 'update', apiPrefix: type.group ? 'apis' : 'api', group: type.group, version: type.version, namespace: namespace ?? '', resource: type.plural, subresource, name, parts: [] },
      query: new URLSearchParams({ fieldManager: this.component.manager }),
      type,
      rs: new ResourceStore(type, this.deps.store),
      cache: undefined as unknown as WatchCache,
      gates: GATES,
      apiVersion: gv(type.group, type.version),
      warnings: [],
      pretty: false,
      user: this.component.user,
      userInfo: serverComponent(this.component.user),
      signal: new AbortController().signal,
    };
  }

  async create(group: string, plural: string, namespace: string | undefined, obj: KubeObject): Promise<KubeObject> {
    this.fence();
    const type = this.type(group, plural);
    obj.apiVersion = gv(type.group, type.version);
    obj.kind = type.kind;
    const s = this.scope(type, namespace, obj.metadata?.name ?? '', '');
    return createObject(s, this.deps, obj, type.scope === 'Namespaced' ? namespace : undefined, false);
  }

  /**
   * Read-modify-write with CAS retries. `fn` edits a copy and says whether it changed anything; with subresource
   * 'status' only the status is written. Returns the stored object, or undefined when gone, replaced (uid) or unchanged.
   */
  async mutate(group: string, plural: string, namespace: string | undefined, name: string, fn: (o: KubeObject) => boolean, opts: { subresource?: string; uid?: string } = {}): Promise<KubeObject | undefined> {
    this.fence();
    const type = this.type(group, plural);
    const sub = opts.subresource ?? '';
    const s = this.scope(type, namespace, name, sub);
    for (let i = 0; ; i++) {
      // the watch cache's copy of the current version when it has it (copied below): no second decode
      const cur = await s.rs.read(type.scope === 'Namespaced' ? namespace : undefined, name, undefined, sharedVersion(this.deps, type));
      if (!cur || (opts.uid !== undefined && cur.obj.metadata?.uid !== opts.uid)) return undefined;
      const next = structuredClone(cur.obj);
      if (!fn(next)) return undefined;
      this.fence();
      try {
        return await updateObject(s, this.deps, next, cur, sub, false);
      } catch (e) {
        if (e instanceof StatusError && e.code === 409 && i < 8 && !(e.status.details?.causes ?? []).some((c) => c.reason === 'FieldManagerConflict')) continue;
        if (e instanceof StatusError && e.code === 404) return undefined;
        throw e;
      }
    }
  }

  /** The stored object (read from storage, not a cache: leader election compares against the latest version). */
  async get(group: string, plural: string, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    const type = this.type(group, plural);
    return (await new ResourceStore(type, this.deps.store).read(type.scope === 'Namespaced' ? namespace : undefined, name))?.obj;
  }

  /**
   * One update with `obj.metadata.resourceVersion` as precondition (409 Conflict when the stored object changed
   * since, 404 when gone): no retry, as client-go's Update, for writers that decide on the version they read.
   */
  async update(group: string, plural: string, namespace: string | undefined, obj: KubeObject): Promise<KubeObject> {
    this.fence();
    const type = this.type(group, plural);
    const name = obj.metadata?.name ?? '';
    const s = this.scope(type, namespace, name, '');
    const cur = await s.rs.read(type.scope === 'Namespaced' ? namespace : undefined, name);
    if (!cur) throw errors.notFound(s.rs.target(name));
    if (!obj.metadata?.resourceVersion) throw errors.conflict(s.rs.target(name));
    return updateObject(s, this.deps, obj, cur, '', false);
  }

  /** POST pods/{name}/binding as the scheduler does; undefined when the pod is gone, bound already or being deleted. */
  async bind(namespace: string | undefined, name: string, uid: string, node: string): Promise<KubeObject | undefined> {
    this.fence();
    const type = this.type('', 'pods');
    try {
      return await bindPod(new ResourceStore(type, this.deps.store), namespace, name, { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { kind: 'Node', name: node } } as KubeObject, { uid });
    } catch (e) {
      if (e instanceof StatusError && (e.code === 404 || e.code === 409)) return undefined;
      throw e;
    }
  }

  /** Deletes one object (its last or terminating state is returned); a missing one is not an error. */
  async delete(group: string, plural: string, namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<KubeObject | undefined> {
    this.fence();
    const type = this.type(group, plural);
    try {
      return (await deleteObject(this.deps, type, namespace, name, options, this.component.user)).obj;
    } catch (e) {
      if (e instanceof StatusError && (e.code === 404 || e.code === 409)) return undefined;
      throw e;
    }
  }
}

/** A write refused because the writer's term ended. */
export class StoppedError extends Error {}

export const isConflict = (e: unknown): boolean => e instanceof StatusError && e.code === 409;
export const isAlreadyExists = (e: unknown): boolean => e instanceof StatusError && e.code === 409 && e.status.reason === 'AlreadyExists';
