// Stock kubectl (1.33) deleting against our server: cascades, grace periods, server dry-run, namespaces,
// label selectors and `kubectl wait --for=delete`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';
import { cm, eventually, gone, ns, ownerRef, pod } from '../deletion/support.js';

let server: ApiServer;
let kc: string;
let api: ReturnType<typeof client>;
const k = (args: string[], input?: string) => kubectl(kc, args, input, 60_000);
const cms = '/api/v1/namespaces/kd/configmaps';

beforeAll(async () => {
  server = await testServer();
  kc = kubeconfigFor(server.url);
  api = client(server.url);
  expect((await api.post('/api/v1/namespaces', ns('kd'))).status).toBe(201);
});
afterAll(() => server.close());

/** An owner ConfigMap with two dependent ConfigMaps (the first one blocking). */
async function family(prefix: string) {
  const o = (await api.post(cms, cm(`${prefix}-owner`))).body;
  await api.post(cms, cm(`${prefix}-kid1`, { ownerReferences: [ownerRef(o, { blockOwnerDeletion: true })] }));
  await api.post(cms, cm(`${prefix}-kid2`, { ownerReferences: [ownerRef(o)] }));
  return o;
}

describe('kubectl delete', () => {
  it('deletes with the default (background) cascade', async () => {
    await family('bg');
    const r = await k(['delete', 'configmap', 'bg-owner', '-n', 'kd', '--cascade=background']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('configmap "bg-owner" deleted');
    await gone(api, `${cms}/bg-kid1`);
    await gone(api, `${cms}/bg-kid2`);
  });

  it('--cascade=foreground returns once the owner is gone, after its dependents', async () => {
    await family('fg');
    const r = await k(['delete', 'configmap', 'fg-owner', '-n', 'kd', '--cascade=foreground']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('configmap "fg-owner" deleted');
    expect((await api.get(`${cms}/fg-owner`)).status).toBe(404);
    expect((await api.get(`${cms}/fg-kid1`)).status).toBe(404);
    await gone(api, `${cms}/fg-kid2`);
  });

  it('--cascade=orphan leaves the dependents without their owner reference', async () => {
    await family('or');
    const r = await k(['delete', 'configmap', 'or-owner', '-n', 'kd', '--cascade=orphan']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('configmap "or-owner" deleted');
    for (const kid of ['or-kid1', 'or-kid2']) {
      const g = await api.get(`${cms}/${kid}`);
      expect(g.status).toBe(200);
      expect(g.body.metadata.ownerReferences).toBeUndefined();
    }
  });

  it('--grace-period waits for a scheduled pod to finish terminating', async () => {
    await api.post('/api/v1/namespaces/kd/pods', pod('graceful', { nodeName: 'node-1' }));
    const r = await k(['delete', 'pod', 'graceful', '-n', 'kd', '--grace-period=1']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('pod "graceful" deleted');
    expect((await api.get('/api/v1/namespaces/kd/pods/graceful')).status).toBe(404);
  });

  it('--dry-run=server deletes nothing', async () => {
    await api.post(cms, cm('dry'));
    const r = await k(['delete', 'configmap', 'dry', '-n', 'kd', '--dry-run=server']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/configmap "dry" deleted.*\(server dry run\)/);
    expect((await api.get(`${cms}/dry`)).status).toBe(200);
  });

  it('deletes by label selector', async () => {
    for (const [n, app] of [['sel-a', 'x'], ['sel-b', 'x'], ['sel-c', 'y']]) await api.post(cms, cm(n, { labels: { app } }));
    const r = await k(['delete', 'cm', '-l', 'app=x', '-n', 'kd']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('configmap "sel-a" deleted');
    expect(r.stdout).toContain('configmap "sel-b" deleted');
    expect(r.stdout).not.toContain('sel-c');
    expect((await api.get(`${cms}/sel-c`)).status).toBe(200);
  });

  it('deletes a namespace and waits until its content and the namespace are gone', async () => {
    await api.post('/api/v1/namespaces', ns('kd-gone'));
    await api.post('/api/v1/namespaces/kd-gone/configmaps', cm('inside'));
    await api.post('/api/v1/namespaces/kd-gone/pods', pod('p'));
    const r = await k(['delete', 'ns', 'kd-gone']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('namespace "kd-gone" deleted');
    const g = await k(['get', 'ns', 'kd-gone']);
    expect(g.code).not.toBe(0);
    expect(g.stderr).toContain('NotFound');
    expect((await api.get('/api/v1/namespaces/kd-gone/configmaps/inside')).status).toBe(404);
  });

  it('kubectl wait --for=delete returns when a terminating object goes', async () => {
    await api.post(cms, cm('waited', { finalizers: ['example.com/hold'] }));
    const d = await k(['delete', 'configmap', 'waited', '-n', 'kd', '--wait=false']);
    expect(d.code).toBe(0);
    const held = (await api.get(`${cms}/waited`)).body;
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    const watchers = () => server.deps.caches.get('/registry/core/configmaps/').watcherCount;
    // (watches of earlier kubectl runs close first)
    await eventually(async () => expect(watchers()).toBe(0));
    const waiting = k(['wait', '--for=delete', 'configmap/waited', '-n', 'kd', '--timeout=30s']);
    // release the object only once kubectl is watching it
    await eventually(async () => expect(watchers()).toBeGreaterThan(0), 30_000);
    expect((await api.put(`${cms}/waited`, { ...held, metadata: { ...held.metadata, finalizers: [] } })).status).toBe(200);
    const w = await waiting;
    expect(w.stderr).toBe('');
    expect(w.code).toBe(0);
    expect(w.stdout).toContain('configmap/waited condition met');
  });
});
