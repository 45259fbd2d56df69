// Upstream's bootstrap RBAC policy is created at start and reconciled on every start: missing
// permissions and subjects come back unless the object opts out with autoupdate=false.
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/app.js';
import { createStore } from '../../src/server/storage/index.js';
import { client } from '../helpers/server.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const flags = { port: 0, store: 'memory' as const, demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 };

describe('bootstrap policy', () => {
  it('creates the upstream roles and bindings, and repairs them on restart unless autoupdate=false', async () => {
    const store = createStore({ kind: 'memory', dataDir: '', etcdServers: [], etcdPrefix: '/registry', log: () => {} });
    let srv = await startServer(flags, { store, log: () => {} });
    let c = client(srv.url);
    const roles = (await c.get(`${RBAC}/clusterroles`)).body.items.map((i: any) => i.metadata.name);
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:aggregate-to-view'])
      expect(roles, name).toContain(name);
    const admin = (await c.get(`${RBAC}/clusterroles/cluster-admin`)).body;
    expect(admin.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    expect(admin.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    expect(admin.rules).toEqual([
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]);
    const binding = (await c.get(`${RBAC}/clusterrolebindings/system:public-info-viewer`)).body;
    expect(binding.subjects.map((s: any) => s.name)).toEqual(['system:authenticated', 'system:unauthenticated']);

    // damage two objects; opt one other out of reconciliation
    binding.subjects = [binding.subjects[0]];
    expect((await c.put(`${RBAC}/clusterrolebindings/system:public-info-viewer`, binding)).status).toBe(200);
    const basic = (await c.get(`${RBAC}/clusterroles/system:basic-user`)).body;
    basic.rules = basic.rules.slice(0, 1);
    expect((await c.put(`${RBAC}/clusterroles/system:basic-user`, basic)).status).toBe(200);
    const disco = (await c.get(`${RBAC}/clusterroles/system:discovery`)).body;
    disco.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'] = 'false';
    disco.rules = [{ nonResourceURLs: ['/api'], verbs: ['get'] }];
    expect((await c.put(`${RBAC}/clusterroles/system:discovery`, disco)).status).toBe(200);
    await srv.close();

    srv = await startServer(flags, { store, log: () => {} });
    c = client(srv.url);
    try {
      expect((await c.get(`${RBAC}/clusterrolebindings/system:public-info-viewer`)).body.subjects.map((s: any) => s.name)).toEqual(['system:authenticated', 'system:unauthenticated']);
      expect((await c.get(`${RBAC}/clusterroles/system:basic-user`)).body.rules).toHaveLength(2);
      expect((await c.get(`${RBAC}/clusterroles/system:discovery`)).body.rules).toEqual([{ nonResourceURLs: ['/api'], verbs: ['get'] }]);
    } finally {
      await srv.close();
    }
  });
});
