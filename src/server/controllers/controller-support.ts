// Shared plumbing of the deletion controllers: resolving storage keys and owner references to types, and
// read-modify-write of one object with compare-and-swap retries through the write pipeline.
import { StatusError } from '../../api/status.js';
import type { AdmissionChain } from '../http/admission.js';
import { canonicalGroup } from '../registry/names.js';
import type { TypeRegistry } from '../registry/registry.js';
import { ResourceStore } from '../registry/resource-store.js';
import type { WriteContext, WriteTarget } from '../registry/pipeline/context.js';
import { mutateObject as mutateInRegistry } from '../registry/pipeline/update.js';
import type { KubeObject, OwnerReference, ResourceType } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';
import type { WatchCacheSet } from '../watch/watch-cache.js';
import { parseKey } from './object-feed.js';
import type { WriteAuthorizer } from './identities.js';

export interface ControllerDeps {
  store: RevisionedStore;
  types: TypeRegistry;
  admission: AdmissionChain;
  /** The API server's watch caches: the in-process controllers read their decoded objects (ObjectFeed). */
  caches: WatchCacheSet;
  log: (line: string) => void;
  /** Aborted when the server shuts down: a start-up scan still paging through the store stops. */
  signal?: AbortSignal;
  /**
   * The server's authorizer chain: every component write is authorized by it (identities.ts). Absent only where
   * a test drives controllers on a bare store without a server.
   */
  authorizer?: WriteAuthorizer;
  /** --use-service-account-credentials: each controller writes as its own service account (default true). */
  useServiceAccountCredentials?: boolean;
}

/** A type serving group/plural (all versions share storage; a served one is preferred). */
export function typeForResource(types: TypeRegistry, group: string, plural: string): ResourceType | undefined {
  let fallback: ResourceType | undefined;
  for (const t of types.all()) {
    if (t.group !== group || t.plural !== plural) continue;
    if (t.served) return t;
    fallback ??= t;
  }
  return fallback;
}

export interface KeyTarget {
  type: ResourceType;
  rs: ResourceStore;
  namespace: string | undefined;
  name: string;
}

export function targetForKey(deps: Pick<ControllerDeps, 'store' | 'types'>, key: string): KeyTarget | undefined {
  const p = parseKey(key);
  if (!p) return undefined;
  const type = typeForResource(deps.types, p.group, p.plural);
  if (!type) return undefined;
  return { type, rs: new ResourceStore(type, deps.store), namespace: p.namespace || undefined, name: p.name };
}

/** The type an owner reference names (by group and kind, preferring its version); undefined when unknown. */
export function typeForOwner(types: TypeRegistry, ref: Pick<OwnerReference, 'apiVersion' | 'kind'>): ResourceType | undefined {
  const av = ref.apiVersion ?? '';
  const slash = av.indexOf('/');
  const group = canonicalGroup(slash < 0 ? '' : av.slice(0, slash));
  const version = slash < 0 ? av : av.slice(slash + 1);
  let fallback: ResourceType | undefined;
  for (const t of types.all()) {
    if (t.group !== group || t.kind !== ref.kind) continue;
    if (t.version === version) return t;
    fallback ??= t;
  }
  return fallback;
}

export const isGoneOrChanged = (e: unknown): boolean => e instanceof StatusError && (e.code === 404 || e.code === 409);

/**
 * Read-modify-write of one object through the write pipeline (validation, admission, managedFields under the
 * context's manager) with CAS retries. `fn` edits the object and says whether it changed anything. Nothing happens
 * when the object is gone or its uid differs. An object in deletion that loses its last finalizer is removed.
 */
export async function mutateObject(
  t: WriteTarget,
  ctx: WriteContext,
  namespace: string | undefined,
  name: string,
  uid: string | undefined,
  fn: (obj: KubeObject) => boolean,
  subresource = '',
): Promise<void> {
  await mutateInRegistry(t, ctx, namespace, name, fn, { uid, subresource });
}

/** Removes one finalizer (CAS); the object goes when it was the last one of an object in deletion. */
export function removeFinalizer(t: WriteTarget, ctx: WriteContext, namespace: string | undefined, name: string, uid: string | undefined, finalizer: string): Promise<void> {
  return mutateObject(t, ctx, namespace, name, uid, (obj) => {
    const meta = obj.metadata!;
    const f = meta.finalizers ?? [];
    if (!f.includes(finalizer)) return false;
    const rest = f.filter((x) => x !== finalizer);
    if (rest.length > 0) meta.finalizers = rest;
    else delete meta.finalizers;
    return true;
  });
}
