// Writes of the simulated cluster components (kube-controller-manager, kube-scheduler, kubelet) through the same
// create/update/delete paths as HTTP writes: defaulting, validation, admission, and managedFields recorded under
// the component's field manager, as upstream components are ordinary API clients.
import { errors, StatusError } from '../../api/status.js';
import { bindPod } from '../registry/pipeline/binding.js';
import { identityContext, type WriteAttributes, type WriteContext, type WriteTarget } from '../registry/pipeline/context.js';
import { createObject } from '../registry/pipeline/create.js';
import { deleteObject } from '../registry/pipeline/delete.js';
import { mutateObject, updateObject } from '../registry/pipeline/update.js';
import type { DeleteOptions } from '../http/rest/delete-options.js';
import { ResourceStore, resourceStoreFor } from '../registry/resource-store.js';
import type { KubeObject, ResourceType } from '../registry/types.js';
import type { Component, MutateOptions } from './client.js';
import { typeForResource, type ControllerDeps } from './controller-support.js';
import { authorizeAs, userOf } from './identities.js';

export { COMPONENTS } from './identities.js';
export type { Component };

const gv = (t: ResourceType) => (t.group ? `${t.group}/${t.version}` : t.version);

export class ApiWriter {
  private types = new Map<string, ResourceType>();
  private readonly user;
  private readonly authorize;
  private readonly authorizePatch;
  private readonly authorizeScale;

  constructor(
    private deps: ControllerDeps,
    readonly component: Component,
  ) {
    // the component's own user, never system:masters: the server's authorizer decides each write
    this.user = userOf(component);
    this.authorize = authorizeAs(deps.authorizer, this.user);
    this.authorizePatch = authorizeAs(deps.authorizer, this.user, true);
    const update = this.authorize;
    this.authorizeScale = update && ((w: WriteAttributes) => update({ ...w, subresource: 'scale' }));
  }

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

  /** The pipeline context of this component's writes (one per write: warnings are per write). */
  private context(opts: MutateOptions = {}): WriteContext {
    return identityContext(this.user, this.component.manager, opts.viaScale ? this.authorizeScale : opts.patch ? this.authorizePatch : this.authorize, this.deps.signal);
  }

  private target(type: ResourceType): WriteTarget {
    return { rs: resourceStoreFor(type, this.deps.store), admission: this.deps.admission };
  }

  async create(group: string, plural: string, namespace: string | undefined, obj: KubeObject): Promise<KubeObject> {
    this.fence();
    const type = this.type(group, plural);
    obj.apiVersion = gv(type);
    obj.kind = type.kind;
    return createObject(this.target(type), this.context(), obj, type.scope === 'Namespaced' ? namespace : undefined);
  }

  /**
   * Read-modify-write with CAS retries. `fn` edits a copy and says whether it changed anything; with subresource
   * 'status' only the status is written. Returns the stored object, or undefined when gone, replaced (uid) or unchanged.
   */
  async mutate(group: string, plural: string, namespace: string | undefined, name: string, fn: (o: KubeObject) => boolean, opts: MutateOptions = {}): Promise<KubeObject | undefined> {
    this.fence();
    const type = this.type(group, plural);
    const ctx = this.context(opts);
    // the writer's term is checked again before each attempt's write (ctx.signal)
    return mutateObject(this.target(type), ctx, namespace, name, (o) => fn(o) && (this.fence(), true), { uid: opts.uid, subresource: opts.subresource, retries: 8 });
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
    const t = this.target(type);
    const cur = await t.rs.readShared(type.scope === 'Namespaced' ? namespace : undefined, name);
    if (!cur) throw errors.notFound(t.rs.target(name));
    if (!obj.metadata?.resourceVersion) throw errors.conflict(t.rs.target(name));
    return updateObject(t, this.context(), obj, cur, '');
  }

  /** POST pods/{name}/binding as the scheduler does (admitted as a pods/binding create); undefined when the pod is gone, bound already or being deleted. */
  async bind(namespace: string | undefined, name: string, uid: string, node: string): Promise<KubeObject | undefined> {
    this.fence();
    const type = this.type('', 'pods');
    try {
      const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid }, target: { kind: 'Node', name: node } } as KubeObject;
      return await bindPod(this.target(type), this.context(), namespace ?? '', name, binding);
    } catch (e) {
      // gone, bound meanwhile, or its namespace is terminating (admission refuses the Binding, as upstream's)
      if (e instanceof StatusError && (e.code === 404 || e.code === 409 || (e.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating'))) return undefined;
      throw e;
    }
  }

  /** Deletes one object (its last or terminating state is returned); a missing one is not an error. */
  async delete(group: string, plural: string, namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<KubeObject | undefined> {
    this.fence();
    const type = this.type(group, plural);
    try {
      return (await deleteObject(this.deps, type, namespace, name, options, this.context())).obj;
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
