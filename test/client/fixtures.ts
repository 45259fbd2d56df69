// Test fixtures for the client: bulk objects, a network that can be cut, waiting for conditions.
import type { ApiServer } from '../../src/server/app.js';
import { encodeForStorage } from '../../src/server/registry/resource-store.js';

/** Creates a namespace through the API. */
export async function createNamespace(base: string, name: string): Promise<void> {
  const r = await fetch(`${base}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name } }) });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.status} ${await r.text()}`);
}

/** Writes n configmaps straight into the store (as the registry stores them): fast setup for big lists. */
export async function bulkConfigMaps(server: ApiServer, ns: string, n: number, prefix = 'cm'): Promise<void> {
  const created = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const width = String(n).length;
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const name = `${prefix}-${String(i).padStart(width, '0')}`;
    const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: ns, uid: crypto.randomUUID(), creationTimestamp: created }, data: { index: String(i) } };
    writes.push(server.store.create(`/registry/core/configmaps/${ns}/${name}`, encodeForStorage(obj)));
    if (writes.length >= 200) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
}

export async function postJson(base: string, path: string, body: unknown, method = 'POST'): Promise<any> {
  const r = await fetch(base + path, { method, headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return JSON.parse(text);
}

export function configMap(ns: string, name: string, data: Record<string, string> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data };
}

/** A fetch that can be taken offline: open responses break off and new requests fail as a dead network would. */
export class FlakyNetwork {
  offline = false;
  readonly requests: { url: string; init?: RequestInit }[] = [];
  private open = new Set<AbortController>();

  readonly fetch: typeof fetch = async (input, init) => {
    const url = String(input);
    this.requests.push({ url, init });
    if (this.offline) throw new TypeError('fetch failed (offline)');
    const ac = new AbortController();
    this.open.add(ac);
    const outer = init?.signal;
    if (outer) {
      if (outer.aborted) ac.abort(outer.reason);
      else outer.addEventListener('abort', () => ac.abort(outer.reason), { once: true });
    }
    try {
      const res = await fetch(input, { ...init, signal: ac.signal });
      return res;
    } catch (e) {
      this.open.delete(ac);
      throw e;
    }
  };

  cut(): void {
    this.offline = true;
    for (const ac of this.open) ac.abort(new TypeError('network connection lost'));
    this.open.clear();
  }

  restore(): void {
    this.offline = false;
  }
}

export async function waitFor(pred: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
