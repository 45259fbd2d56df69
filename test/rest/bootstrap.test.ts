// Bootstrap objects every cluster has, with or without demo data: system namespaces, the `kubernetes` Service
// with its Endpoints/EndpointSlice, a `default` ServiceAccount per namespace, and kube-root-ca.crt under TLS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { eventually } from '../deletion/support.js';

describe('bootstrap objects on a fresh --no-demo-data server', () => {
  let server: ApiServer;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    server = await testServer();
    api = client(server.url);
  });
  afterAll(() => server.close());

  it('has the four system namespaces', async () => {
    const r = await api.get('/api/v1/namespaces');
    expect(r.body.items.map((n: any) => n.metadata.name).sort()).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
  });

  it('lets a tutorial create a configmap in default right away', async () => {
    const r = await api.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' }, data: { a: '1' } });
    expect(r.status).toBe(201);
  });

  it('serves the kubernetes Service at the first service IP, with Endpoints and an EndpointSlice at this server', async () => {
    const svc = await api.get('/api/v1/namespaces/default/services/kubernetes');
    expect(svc.status).toBe(200);
    expect(svc.body.spec.clusterIP).toBe('10.96.0.1');
    expect(svc.body.spec.ports).toEqual([{ name: 'https', port: 443, protocol: 'TCP', targetPort: server.port }]);
    expect(svc.body.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
    const ep = await api.get('/api/v1/namespaces/default/endpoints/kubernetes');
    expect(ep.body.subsets).toEqual([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: server.port, protocol: 'TCP' }] }]);
    const slice = await api.get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    expect(slice.status).toBe(200);
    expect(slice.body.metadata.labels['kubernetes.io/service-name']).toBe('kubernetes');
    expect(slice.body.endpoints[0].addresses).toEqual(['127.0.0.1']);
    expect(slice.body.ports).toEqual([{ name: 'https', port: server.port, protocol: 'TCP' }]);
  });

  it('gives every namespace a default ServiceAccount, and gives it back when deleted', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
      await eventually(async () => expect((await api.get(`/api/v1/namespaces/${ns}/serviceaccounts/default`)).status).toBe(200));
    expect((await api.post('/api/v1/namespaces', { metadata: { name: 'team-a' } })).status).toBe(201);
    const first = await eventually(async () => {
      const r = await api.get('/api/v1/namespaces/team-a/serviceaccounts/default');
      expect(r.status).toBe(200);
      return r.body;
    });
    expect((await api.del('/api/v1/namespaces/team-a/serviceaccounts/default')).status).toBe(200);
    await eventually(async () => {
      const r = await api.get('/api/v1/namespaces/team-a/serviceaccounts/default');
      expect(r.status).toBe(200);
      expect(r.body.metadata.uid).not.toBe(first.metadata.uid);
    });
  });

  it('publishes no kube-root-ca.crt without TLS', async () => {
    expect((await api.get('/api/v1/namespaces/default/configmaps/kube-root-ca.crt')).status).toBe(404);
  });
});

describe('bootstrap across restarts and under TLS', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bootstrap-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is idempotent at every start and repoints the Endpoints at the new port', async () => {
    const first = await testServer({ store: 'sqlite', dataDir: join(dir, 'db') });
    const uid = (await client(first.url).get('/api/v1/namespaces/default')).body.metadata.uid;
    await first.close();
    const second = await testServer({ store: 'sqlite', dataDir: join(dir, 'db') });
    try {
      const api = client(second.url);
      expect((await api.get('/api/v1/namespaces/default')).body.metadata.uid).toBe(uid);
      const ep = await api.get('/api/v1/namespaces/default/endpoints/kubernetes');
      expect(ep.body.subsets[0].ports[0].port).toBe(second.port);
      expect((await api.get('/api/v1/namespaces')).body.items).toHaveLength(4);
    } finally {
      await second.close();
    }
  });

  it('publishes kube-root-ca.crt in every namespace when serving TLS, and restores it when edited', async () => {
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const pem = readFileSync(cert, 'utf8');
    const prev = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const server = await testServer({ tlsCertFile: cert, tlsPrivateKeyFile: key });
    try {
      const api = client(server.url);
      const path = '/api/v1/namespaces/kube-public/configmaps/kube-root-ca.crt';
      const cm = await eventually(async () => {
        const r = await api.get(path);
        expect(r.status).toBe(200);
        return r.body;
      });
      expect(cm.data).toEqual({ 'ca.crt': pem.trim() + '\n' });
      expect(cm.metadata.annotations['kubernetes.io/description']).toMatch(/^Contains a CA bundle/);
      expect((await api.patch(path, { data: { 'ca.crt': 'tampered' } }, 'application/merge-patch+json')).status).toBe(200);
      await eventually(async () => expect((await api.get(path)).body.data['ca.crt']).toBe(pem.trim() + '\n'));
    } finally {
      await server.close();
      if (prev === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = prev;
    }
  });
});
