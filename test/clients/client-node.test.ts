// @kubernetes/client-node against our server: typed calls and an informer (list, then watch, resuming
// after the server ends the stream) that sees adds, updates and deletes.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { client } from '../helpers/server.js';

let server: ApiServer;
let core: k8s.CoreV1Api;
let kc: k8s.KubeConfig;

beforeAll(async () => {
  server = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 },
    { watch: { defaultTimeoutMs: [800, 1200] } },
  );
  kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'p', server: server.url, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'p', cluster: 'p', user: 'u' }],
    currentContext: 'p',
  });
  core = kc.makeApiClient(k8s.CoreV1Api);
  await client(server.url).post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'inf' } });
});
afterAll(() => server.close());

const until = async (pred: () => boolean, ms = 8000) => {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('@kubernetes/client-node', () => {
  it('creates, reads and lists through the typed API', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: 'inf', body: { metadata: { name: 'typed' }, data: { a: 'b' } } });
    expect(cm.metadata?.uid).toBeTruthy();
    const got = await core.readNamespacedConfigMap({ name: 'typed', namespace: 'inf' });
    expect(got.data).toEqual({ a: 'b' });
    const list = await core.listNamespacedConfigMap({ namespace: 'inf' });
    expect(list.items.map((i) => i.metadata?.name)).toContain('typed');
  });

  it('keeps an informer in sync across server-side stream ends', async () => {
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/inf/configmaps', () => core.listNamespacedConfigMap({ namespace: 'inf' }));
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update:${o.metadata?.name}:${o.data?.v}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata?.name}`));
    await informer.start();
    await until(() => seen.includes('add:typed'));
    const api = client(server.url);
    const c = await api.post('/api/v1/namespaces/inf/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'live' }, data: { v: '1' } });
    await until(() => seen.includes('add:live'));
    // let the server end the watch stream (1 s) so the informer resumes from its last resourceVersion
    await new Promise((r) => setTimeout(r, 1500));
    await api.put('/api/v1/namespaces/inf/configmaps/live', { ...c.body, data: { v: '2' } });
    await until(() => seen.includes('update:live:2'));
    await new Promise((r) => setTimeout(r, 1300));
    await api.del('/api/v1/namespaces/inf/configmaps/live');
    await until(() => seen.includes('delete:live'));
    expect(informer.list('inf').map((o) => o.metadata?.name)).toEqual(['typed']);
    expect(seen.filter((s) => s === 'add:live')).toHaveLength(1);
    await informer.stop();
  });
});
