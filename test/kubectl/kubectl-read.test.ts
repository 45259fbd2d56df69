// Stock kubectl reading through lists, chunks, watches and Table output.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { KUBECTL, kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let kc: string;
let api: ReturnType<typeof client>;
const k = (args: string[]) => kubectl(kc, args);

beforeAll(async () => {
  server = await testServer();
  kc = kubeconfigFor(server.url);
  api = client(server.url);
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  for (let i = 0; i < 25; i++) await api.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(2, '0')}` }, data: { i: String(i) } });
  await api.post('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0' },
    spec: { nodeName: 'node-a', containers: [{ name: 'web', image: 'nginx' }] },
  });
});
afterAll(() => server.close());

describe('kubectl reads', () => {
  it('get --chunk-size pages through more objects than one chunk', async () => {
    const r = await k(['get', 'configmaps', '--chunk-size=7', '-o', 'name']);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(25);
    expect(lines[0]).toBe('configmap/cm-00');
    expect(lines[24]).toBe('configmap/cm-24');
    const table = await k(['get', 'configmaps', '--chunk-size=10']);
    expect(table.stdout.trim().split('\n')).toHaveLength(26);
    expect(table.stdout).toMatch(/^NAME\s+DATA\s+AGE$/m);
  });

  it('get -o wide shows the extra columns', async () => {
    const r = await k(['get', 'pods', '-o', 'wide']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE/m);
    expect(r.stdout).toMatch(/^web-0\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+node-a/m);
  });

  it('get --raw returns the server bytes', async () => {
    const r = await k(['get', '--raw', '/api/v1/namespaces/default/configmaps/cm-01']);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'ConfigMap', data: { i: '1' } });
  });

  it('get --watch prints changes as they happen', async () => {
    const child = spawn(KUBECTL, ['--kubeconfig', kc, 'get', 'configmaps', '--watch', '--output-watch-events', '--field-selector', 'metadata.name=watched'], {
      env: { ...process.env, HOME: '/tmp' },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    await new Promise((r) => setTimeout(r, 1500));
    const c = await api.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' } });
    await api.put('/api/v1/namespaces/default/configmaps/watched', { ...c.body, data: { x: 'y' } });
    await api.del('/api/v1/namespaces/default/configmaps/watched');
    for (let i = 0; i < 50 && !out.includes('DELETED'); i++) await new Promise((r) => setTimeout(r, 100));
    child.kill();
    expect(out).toMatch(/^ADDED\s+watched\s+0\s/m);
    expect(out).toMatch(/^MODIFIED\s+watched\s+1\s/m);
    expect(out).toMatch(/^DELETED\s+watched\s+1\s/m);
  });
});
