// Each object version is decoded once per process: the in-process controllers read the watch caches' decoded
// objects (ObjectFeed), not a copy of their own, and every write starts from the watch cache's object. Counted
// with the server's decode counter (served as periscope_storage_decodes_total) over a Deployment rolled out by the controllers, scheduler and kubelets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { storageDecodes } from '../../src/server/registry/decode-count.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
beforeAll(async () => {
  server = await testServer({ controllers: ['*'], simulatedNodes: 2, simulatedPodStartMs: 50, simulatedPodReadyMs: 50 });
});
afterAll(() => server?.close());

async function until<T>(fn: () => Promise<T | undefined | false>, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('decode counter', () => {
  it('a Deployment of 20 rolled out: the controllers decode no object version a second time', async () => {
    const api = client(server.url);
    await until(async () => ((await api.get('/api/v1/nodes')).body.items ?? []).length === 2, 'two nodes');
    const d0 = storageDecodes();
    const r0 = await server.store.currentRevision();
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 20, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    expect((await api.post('/apis/apps/v1/namespaces/default/deployments', dep)).status).toBe(201);
    await until(async () => (await api.get('/apis/apps/v1/namespaces/default/deployments/web')).body.status?.availableReplicas === 20, 'Available');
    const versions = (await server.store.currentRevision()) - r0;
    const decodes = storageDecodes() - d0;
    console.log(`decode-once: ${versions} object versions written, ${decodes} decodes (${(decodes / versions).toFixed(2)} per version)`);
    expect(versions).toBeGreaterThan(60);
    // the watch cache decodes each version once; the controllers' feeds used to decode every version again
    // (twice: two feeds, 3+ decodes per version), then reads for writes decoded their own copy (1.42 per version).
    // Updates now start from the watch cache's object (upstream's cachedExistingObject) and reads for writes take
    // the cache's copy of the version storage returns: what may remain is an object read before the cache has
    // applied it and its wait ran out (CACHE_CATCH_UP_MS)
    expect(decodes).toBeLessThanOrEqual(Math.ceil(1.05 * versions));
    // the /metrics figure is the same counter
    const m = await fetch(`${server.url}/metrics`).then((r) => r.text());
    expect(Number(/^periscope_storage_decodes_total (\d+)$/m.exec(m)?.[1])).toBeGreaterThanOrEqual(d0 + decodes);
  }, 90_000);

  it('creates in a namespace with a ResourceQuota count the objects from the watch cache, decoding none', async () => {
    const api = client(server.url);
    expect((await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'quota' } })).status).toBe(201);
    const q = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { 'count/configmaps': '100' } } };
    expect((await api.post('/api/v1/namespaces/quota/resourcequotas', q)).status).toBe(201);
    const d0 = storageDecodes();
    const r0 = await server.store.currentRevision();
    // each create's quota check counts every ConfigMap of the namespace (upstream's evaluator lists them), and
    // the quota controller's status updates reach the admission's quota cache: both read the watch cache's copies
    for (let i = 0; i < 30; i++)
      expect((await api.post('/api/v1/namespaces/quota/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } })).status).toBe(201);
    const versions = (await server.store.currentRevision()) - r0;
    const decodes = storageDecodes() - d0;
    console.log(`decode-once (quota): ${versions} object versions written, ${decodes} decodes`);
    expect(decodes).toBeLessThanOrEqual(Math.ceil(1.05 * versions));
  });
});
