// Admission configuration is read from watch-kept caches: a webhook configuration, policy binding or quota
// created, changed or deleted takes effect on the next write, and a write lists no configuration from storage.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { ConfigCache } from '../../src/server/admission/config-cache.js';
import { encodeForStorage } from '../../src/server/registry/resource-store.js';
import { MemoryStore } from '../../src/server/storage/memory.js';
import { client, testServer } from '../helpers/server.js';
import { AR, allow, deny, hook, makeCert, WebhookServer } from '../helpers/webhook.js';

let api: ApiServer;
let c: ReturnType<typeof client>;
let wh: WebhookServer;
let caBundle: string;
let cleanup: () => void;
let n = 0;

beforeAll(async () => {
  const made = makeCert('IP:127.0.0.1');
  cleanup = made.cleanup;
  caBundle = made.cert.caBundle;
  wh = await new WebhookServer(made.cert).start();
  api = await testServer();
  c = client(api.url);
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(async () => {
  await wh.close();
  await api.close();
  cleanup();
});

const cm = () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cc-${++n}` }, data: { a: '1' } });
const postCm = () => c.post('/api/v1/namespaces/default/configmaps', cm());
const VWC = `${AR}/validatingwebhookconfigurations`;
const MWC = `${AR}/mutatingwebhookconfigurations`;

describe('webhook configurations take effect on the next write', () => {
  it('validating: created, changed, deleted', async () => {
    wh.reply = (r, path) => (path === '/deny' ? deny(r, { message: 'denied by the cache test' }) : allow(r));
    expect((await postCm()).status).toBe(201);
    const made = await c.post(VWC, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'cache-v' }, webhooks: [hook('v.example.com', wh.url('/allow'), caBundle)] });
    expect(made.status).toBe(201);
    const before = wh.reviewsFor('/allow').length;
    expect((await postCm()).status).toBe(201);
    expect(wh.reviewsFor('/allow')).toHaveLength(before + 1);
    // changed: the next write goes to the new URL
    const changed = await c.put(`${VWC}/cache-v`, { ...made.body, webhooks: [hook('v.example.com', wh.url('/deny'), caBundle)] });
    expect(changed.status).toBe(200);
    const denied = await postCm();
    expect(denied.status).toBe(400);
    expect(denied.body.message).toContain('denied by the cache test');
    // deleted: the next write calls nothing
    expect((await c.del(`${VWC}/cache-v`)).status).toBe(200);
    const calls = wh.received.length;
    expect((await postCm()).status).toBe(201);
    expect(wh.received).toHaveLength(calls);
  });

  it('mutating: created, deleted', async () => {
    wh.reply = (r) => allow(r, { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/data/b', value: '2' }])).toString('base64') });
    expect((await c.post(MWC, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'cache-m' }, webhooks: [hook('m.example.com', wh.url('/m'), caBundle)] })).status).toBe(201);
    const mutated = await postCm();
    expect(mutated.status).toBe(201);
    expect(mutated.body.data).toEqual({ a: '1', b: '2' });
    expect((await c.del(`${MWC}/cache-m`)).status).toBe(200);
    const plain = await postCm();
    expect(plain.body.data).toEqual({ a: '1' });
    wh.reply = (r) => allow(r);
  });
});

describe('other admission configuration', () => {
  it('a ValidatingAdmissionPolicy binding and a ResourceQuota take effect on the next write, and go away', async () => {
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'cache-p' },
      spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }, validations: [{ expression: "!has(object.data.a)", message: 'no a' }] },
    };
    expect((await c.post(`${AR}/validatingadmissionpolicies`, policy)).status).toBe(201);
    expect((await postCm()).status).toBe(201);
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'cache-b' }, spec: { policyName: 'cache-p', validationActions: ['Deny'] } };
    expect((await c.post(`${AR}/validatingadmissionpolicybindings`, binding)).status).toBe(201);
    const refused = await postCm();
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('no a');
    expect((await c.del(`${AR}/validatingadmissionpolicybindings/cache-b`)).status).toBe(200);
    expect((await postCm()).status).toBe(201);

    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'cache-q' }, spec: { hard: { 'count/configmaps': '0' } } };
    expect((await c.post('/api/v1/namespaces/default/resourcequotas', quota)).status).toBe(201);
    const over = await postCm();
    expect(over.status).toBe(403);
    expect(over.body.message).toContain('exceeded quota: cache-q');
    expect((await c.del('/api/v1/namespaces/default/resourcequotas/cache-q')).status).toBe(200);
    expect((await postCm()).status).toBe(201);
  });

  it('NamespaceLifecycle: a namespace created, then terminating, takes effect on the next write', async () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cache-ns', finalizers: ['example.com/hold'] } };
    const into = () => c.post('/api/v1/namespaces/cache-ns/configmaps', cm());
    expect((await into()).status).toBe(404);
    expect((await c.post('/api/v1/namespaces', ns)).status).toBe(201);
    expect((await into()).status).toBe(201);
    expect((await c.del('/api/v1/namespaces/cache-ns')).status).toBe(200);
    const refused = await into();
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('because it is being terminated');
  });

  it('a write reads no admission configuration from storage', async () => {
    await postCm(); // caches loaded
    const range = vi.spyOn(api.store, 'range');
    const get = vi.spyOn(api.store, 'get');
    try {
      expect((await postCm()).status).toBe(201);
      // (the namespace controller may still be emptying the namespace an earlier test deleted: its reads are not this write's)
      const prefixes = range.mock.calls.map(([o]) => o.prefix).filter((p) => !p.includes('cache-ns'));
      expect(prefixes.filter((p) => /admissionregistration|resourcequotas/.test(p))).toEqual([]);
      expect(get.mock.calls.map(([k]) => k).filter((k) => k.endsWith('/namespaces/default'))).toEqual([]);
    } finally {
      range.mockRestore();
      get.mockRestore();
    }
  });
});

it('a pod create reads no PriorityClass from storage (the Priority plugin reads its watch-kept cache)', async () => {
  const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'i' }] } });
  expect((await c.post('/api/v1/namespaces/default/pods', pod('prio-warm'))).status).toBe(201); // cache loaded
  const range = vi.spyOn(api.store, 'range');
  try {
    const r = await c.post('/api/v1/namespaces/default/pods', pod('prio-read'));
    expect(r.status).toBe(201);
    expect(r.body.spec.priority).toBe(0);
    expect(range.mock.calls.map(([o]) => o.prefix).filter((p) => p.includes('priorityclasses'))).toEqual([]);
  } finally {
    range.mockRestore();
  }
  // a class created now is seen by the next pod create
  const pc = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'cache-high' }, value: 1000 };
  expect((await c.post('/apis/scheduling.k8s.io/v1/priorityclasses', pc)).status).toBe(201);
  const high = await c.post('/api/v1/namespaces/default/pods', { ...pod('prio-high'), spec: { ...pod('x').spec, priorityClassName: 'cache-high' } });
  expect(high.status).toBe(201);
  expect(high.body.spec.priority).toBe(1000);
});

describe('ConfigCache', () => {
  it('lists once, then follows the store: writes from anywhere appear, deletes disappear, in name order', async () => {
    const store = new MemoryStore();
    await store.open();
    const prefix = '/registry/test/things/';
    const put = (name: string, v: number) => store.create(`${prefix}${name}`, encodeForStorage({ apiVersion: 'v1', kind: 'Thing', metadata: { name }, data: { v } } as never));
    await put('b', 1);
    const cache = new ConfigCache(store, prefix);
    expect((await cache.list()).map((o) => o.metadata?.name)).toEqual(['b']);
    await put('a', 2);
    await new Promise((r) => setImmediate(r));
    expect((await cache.list()).map((o) => o.metadata?.name)).toEqual(['a', 'b']);
    await store.delete(`${prefix}b`);
    await new Promise((r) => setImmediate(r));
    expect((await cache.list()).map((o) => o.metadata?.name)).toEqual(['a']);
    expect(await cache.hasUnder(`${prefix}a`)).toBe(true);
    expect(await cache.hasUnder(`${prefix}b`)).toBe(false);
    expect(cache.loads).toBe(1);
    // a closed store ends the watch: the next reader lists again
    cache.stop();
    expect((await cache.list()).map((o) => o.metadata?.name)).toEqual(['a']);
    expect(cache.loads).toBe(2);
    cache.stop();
    await store.close();
  });
});
