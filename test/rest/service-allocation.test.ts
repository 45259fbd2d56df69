// Cluster IPs and node ports survive a restart: a restarted server never hands out an address a stored service holds.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceIPs } from '../../src/server/registry/builtin-service.js';
import { client, testServer } from '../helpers/server.js';

describe('service allocations', () => {
  it('are remembered from the store at start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-alloc-'));
    const first = await testServer({ store: 'sqlite', dataDir });
    const api = client(first.url);
    await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc' } });
    const svc = await api.post('/api/v1/namespaces/svc/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    expect(svc.status).toBe(201);
    const ip = svc.body.spec.clusterIP as string;
    await first.close();
    // forget everything this process allocated, as a fresh process would
    serviceIPs.release(ip);
    expect(serviceIPs.isUsed(ip)).toBe(false);
    const second = await testServer({ store: 'sqlite', dataDir });
    try {
      expect(serviceIPs.isUsed(ip)).toBe(true);
    } finally {
      await second.close();
    }
  });
});
