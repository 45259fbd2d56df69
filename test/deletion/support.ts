// Shared bits of the deletion tests: waiting for the controllers' effects, object builders.
import { expect } from 'vitest';
import type { client } from '../helpers/server.js';

export type Api = ReturnType<typeof client>;

/** Retries `check` until it stops throwing (the controllers act asynchronously). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Waits until GET on path answers 404. */
export function gone(api: Api, path: string, timeoutMs?: number): Promise<void> {
  return eventually(async () => {
    expect((await api.get(path)).status).toBe(404);
  }, timeoutMs);
}

export const ns = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

export const cm = (name: string, meta: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, data: { a: '1' } });

export const pod = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...meta },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});

export function ownerRef(owner: { apiVersion: string; kind: string; metadata: { name: string; uid: string } }, extra: Record<string, unknown> = {}) {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, ...extra };
}

/** Removes every finalizer of the object at path (GET + PUT, retrying on conflicts). */
export async function dropFinalizers(api: Api, path: string): Promise<void> {
  for (;;) {
    const cur = await api.get(path);
    if (cur.status === 404) return;
    const r = await api.put(path, { ...cur.body, metadata: { ...cur.body.metadata, finalizers: [] } });
    if (r.status !== 409) {
      expect(r.status).toBe(200);
      return;
    }
  }
}
