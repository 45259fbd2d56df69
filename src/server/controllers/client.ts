// The one client interface of the simulated cluster's components (controllers, scheduler, simulated kubelets),
// as upstream's components are client-go clients of the API. Reads come from a Feed (in-process: the API server's
// watch caches, shared read-only; remote: list/watch over HTTP); writes go through this interface with two
// transports: in-process (ApiWriter: the write path of the API server, as the component's user and field manager)
// and remote (RemoteClient: HTTP through src/client, authenticated by a kubeconfig, so the server's whole chain,
// authorization included, applies).
import type { DeleteOptions } from '../http/rest/delete-options.js';
import type { KubeObject } from '../registry/types.js';

/** Field managers and users of upstream's components. */
export interface Component {
  readonly manager: string;
  readonly user: string;
  /** The user's groups (in-process writes are authorized as this user). */
  readonly groups: readonly string[];
}

export interface MutateOptions {
  subresource?: string;
  uid?: string;
  patch?: boolean;
  viaScale?: boolean;
}

export interface ControllerClient {
  readonly component: Component;
  /** Whether the API serves the kind now (kinds may arrive later: CRDs, or built-ins a later merge adds). */
  has(group: string, plural: string): boolean;
  /** POST; the stored object. */
  create(group: string, plural: string, namespace: string | undefined, obj: KubeObject): Promise<KubeObject>;
  /**
   * Read-modify-write with conflict retries: `fn` edits a fresh copy and says whether it changed anything; with
   * subresource 'status' only the status is written. The stored object, or undefined when gone, replaced (uid)
   * or unchanged. `patch`: upstream's component sends a PATCH here (authorized as patch, not update);
   * `viaScale`: upstream's component writes this through the scale sub-resource (authorized as update <plural>/scale).
   */
  mutate(group: string, plural: string, namespace: string | undefined, name: string, fn: (o: KubeObject) => boolean, opts?: MutateOptions): Promise<KubeObject | undefined>;
  /** The latest stored object (not a cache), or undefined. */
  get(group: string, plural: string, namespace: string | undefined, name: string): Promise<KubeObject | undefined>;
  /** One PUT with the object's resourceVersion as precondition (409 when it changed since), no retry. */
  update(group: string, plural: string, namespace: string | undefined, obj: KubeObject): Promise<KubeObject>;
  /** POST pods/{name}/binding; undefined when the pod is gone, bound already or being deleted. */
  bind(namespace: string | undefined, name: string, uid: string, node: string): Promise<KubeObject | undefined>;
  /** DELETE; the last or terminating state, undefined when missing or the precondition failed. */
  delete(group: string, plural: string, namespace: string | undefined, name: string, options?: DeleteOptions): Promise<KubeObject | undefined>;
}
