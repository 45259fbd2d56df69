// Who may read metrics.k8s.io: the view, edit and admin roles aggregate system:periscope:aggregated-metrics-reader
// (this server serves the group itself), in either spelling of the group; metrics-server's own role name stays free.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authzServer, type AuthzFixture } from './support.js';

let fx: AuthzFixture;
beforeAll(async () => {
  fx = await authzServer({ simulatedNodes: 1 });
});
afterAll(() => fx?.close());

describe('metrics.k8s.io under RBAC', () => {
  it('a namespace viewer may list its pod metrics, not another namespace’s; others are forbidden', async () => {
    const bind = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'carol-view', namespace: 'team' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'carol', apiGroup: 'rbac.authorization.k8s.io' }] };
    expect((await fx.as('admin').post('/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', bind)).status).toBe(201);
    let status = 0;
    for (let i = 0; i < 200 && status !== 200; i++) {
      status = (await fx.as('carol').get('/apis/metrics.k8s.io/v1beta1/namespaces/team/pods')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
    expect((await fx.as('carol').get('/apis/metrics.service.io/v1beta1/namespaces/team/pods')).status).toBe(200);
    expect((await fx.as('carol').get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods')).status).toBe(403);
    expect((await fx.as('dave').get('/apis/metrics.k8s.io/v1beta1/namespaces/team/pods')).status).toBe(403);
    const role = (await fx.as('admin').get('/apis/rbac.authorization.k8s.io/v1/clusterroles/system:periscope:aggregated-metrics-reader')).body;
    expect(role.rules).toEqual([{ verbs: ['get', 'list', 'watch'], apiGroups: ['metrics.service.io'], resources: ['pods', 'nodes'] }]);
  });

  it("server-side applying metrics-server's system:aggregated-metrics-reader creates it without conflicts, as upstream 1.33 (no such bootstrap role)", async () => {
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:aggregated-metrics-reader', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
      rules: [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
    };
    const r = await fx.as('admin').patch('/apis/rbac.authorization.k8s.io/v1/clusterroles/system:aggregated-metrics-reader?fieldManager=kubectl', role, 'application/apply-patch+yaml');
    expect(r.status, r.text).toBe(201);
  });
});
