// The remote transport of the controller client: HTTP through src/client with a kubeconfig's credentials, so a
// controller manager in its own process (`npm run controller-manager -- --kubeconfig F`) goes through the API
// server's whole chain (authentication, authorization, admission) as upstream's kube-controller-manager does.
import { ApiClient, ApiError, discover, resourcePath, type ApiResource, type Discovery } from '../../client/index.js';
import { StatusError } from '../../api/status.js';
import type { DeleteOptions } from '../http/rest/delete-options.js';
import { canonicalGroup } from '../registry/names.js';
import type { KubeObject } from '../registry/types.js';
import { StoppedError } from './api-writer.js';
import type { Component, ControllerClient } from './client.js';

/** What the server serves, by canonical group and plural (refreshed: CRDs and later kinds arrive). */
export class RemoteDiscovery {
  private byResource = new Map<string, ApiResource>();
  private byKind = new Map<string, ApiResource>();
  private refreshing?: Promise<void>;
  private last = 0;

  constructor(private api: ApiClient) {}

  async refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const d: Discovery = await discover(this.api);
        const byResource = new Map<string, ApiResource>();
        const byKind = new Map<string, ApiResource>();
        for (const r of d.resources) {
          if (r.resource.includes('/')) continue;
          const k = `${canonicalGroup(r.group)}/${r.resource}`;
          // the preferred version wins; a group listed under both spellings is one group
          if (!byResource.has(k) || r.preferred) byResource.set(k, r);
          const kk = `${canonicalGroup(r.group)}/${r.kind}`;
          if (!byKind.has(kk) || r.preferred) byKind.set(kk, r);
        }
        this.byResource = byResource;
        this.byKind = byKind;
        this.last = Date.now();
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** The served resource (any spelling of the group); a miss asks the server again (at most every 5 s). */
  resource(group: string, plural: string): ApiResource | undefined {
    const r = this.byResource.get(`${canonicalGroup(group)}/${plural}`);
    if (!r && Date.now() - this.last > 5_000) void this.refresh().catch(() => {});
    return r;
  }

  /** The resource of an object's apiVersion and kind. */
  forObject(o: { apiVersion?: string; kind?: string }): ApiResource | undefined {
    const av = o.apiVersion ?? '';
    const i = av.indexOf('/');
    return this.byKind.get(`${canonicalGroup(i < 0 ? '' : av.slice(0, i))}/${o.kind ?? ''}`);
  }
}

/** A client-side error as the server-side StatusError the controllers test for (409, AlreadyExists, 404). */
export function statusErrorOf(e: unknown): unknown {
  if (!(e instanceof ApiError)) return e;
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: e.status?.message ? e.message : `${e.code} ${e.message}`, reason: e.reason as never, code: e.code, ...(e.details ? { details: e.details as never } : {}) });
}

export class RemoteClient implements ControllerClient {
  constructor(
    private api: ApiClient,
    private discovery: RemoteDiscovery,
    readonly component: Component,
    private signal?: AbortSignal,
  ) {}

  private fence(): void {
    if (this.signal?.aborted) throw new StoppedError(`${this.component.manager} stopped: no more writes in this term`);
  }

  private ref(group: string, plural: string, namespace: string | undefined, name?: string, subresource?: string) {
    const r = this.discovery.resource(group, plural);
    if (!r) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: `the server does not serve ${plural}.${group}` });
    return { r, ref: { group: r.group, version: r.version, resource: r.resource, namespace: r.namespaced ? namespace : undefined, name, subresource } };
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw statusErrorOf(e);
    }
  }

  private get opts() {
    return { fieldManager: this.component.manager, headers: { 'User-Agent': `${this.component.manager}/v1.33.0 (periscope)` } };
  }

  has(group: string, plural: string): boolean {
    return this.discovery.resource(group, plural) !== undefined;
  }

  async create(group: string, plural: string, namespace: string | undefined, obj: KubeObject): Promise<KubeObject> {
    this.fence();
    const { r, ref } = this.ref(group, plural, namespace);
    obj.apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
    obj.kind = r.kind;
    return this.call(() => this.api.create<KubeObject>(ref, obj, this.opts));
  }

  async get(group: string, plural: string, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    const { ref } = this.ref(group, plural, namespace, name);
    try {
      return await this.api.get<KubeObject>(ref, { headers: this.opts.headers });
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw statusErrorOf(e);
    }
  }

  async update(group: string, plural: string, namespace: string | undefined, obj: KubeObject): Promise<KubeObject> {
    this.fence();
    const { ref } = this.ref(group, plural, namespace, obj.metadata?.name ?? '');
    return this.call(() => this.api.replace<KubeObject>(ref, obj, this.opts));
  }

  async mutate(group: string, plural: string, namespace: string | undefined, name: string, fn: (o: KubeObject) => boolean, opts: { subresource?: string; uid?: string } = {}): Promise<KubeObject | undefined> {
    this.fence();
    const { ref } = this.ref(group, plural, namespace, name, opts.subresource);
    for (let i = 0; ; i++) {
      const cur = await this.get(group, plural, namespace, name);
      if (!cur || (opts.uid !== undefined && cur.metadata?.uid !== opts.uid)) return undefined;
      if (!fn(cur)) return undefined; // a fresh copy of our own: edited in place
      this.fence();
      try {
        return await this.api.replace<KubeObject>(ref, cur, this.opts);
      } catch (e) {
        if (e instanceof ApiError && e.code === 409 && i < 8 && !e.causes.some((c) => c.reason === 'FieldManagerConflict')) continue;
        if (e instanceof ApiError && e.code === 404) return undefined;
        throw statusErrorOf(e);
      }
    }
  }

  async bind(namespace: string | undefined, name: string, uid: string, node: string): Promise<KubeObject | undefined> {
    this.fence();
    const { ref } = this.ref('', 'pods', namespace, name, 'binding');
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid }, target: { kind: 'Node', name: node } };
    try {
      return await this.api.request<KubeObject>('POST', resourcePath(ref), { body: binding, query: { fieldManager: this.component.manager }, headers: this.opts.headers }).then((r) => r.body);
    } catch (e) {
      if (e instanceof ApiError && (e.code === 404 || e.code === 409)) return undefined;
      throw statusErrorOf(e);
    }
  }

  async delete(group: string, plural: string, namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<KubeObject | undefined> {
    this.fence();
    const { ref } = this.ref(group, plural, namespace, name);
    try {
      const body = await this.api.delete<KubeObject>(ref, { body: { ...options }, headers: this.opts.headers });
      return body?.kind === 'Status' ? undefined : body;
    } catch (e) {
      if (e instanceof ApiError && (e.code === 404 || e.code === 409)) return undefined;
      throw statusErrorOf(e);
    }
  }
}
