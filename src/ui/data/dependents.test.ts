import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, testServer } from '../../../test/helpers/server.js';
import { ApiClient, discover } from '../../client/index.js';
import type { ApiServer } from '../../server/app.js';
import { findDependents } from './dependents.js';

describe('findDependents', () => {
  let srv: ApiServer;
  beforeAll(async () => {
    srv = await testServer();
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('follows ownerReferences through every type, transitively, and notes dependents that stay', async () => {
    const api = client(srv.url);
    await api.post('/api/v1/namespaces', { metadata: { name: 'gc' } });
    const mk = async (path: string, body: Record<string, unknown>) => {
      const r = await api.post(path, body);
      expect(r.status).toBe(201);
      return r.body as { metadata: { uid: string; name: string } };
    };
    const ref = (o: { metadata: { uid: string; name: string } }, kind = 'ConfigMap', apiVersion = 'v1') => ({ apiVersion, kind, name: o.metadata.name, uid: o.metadata.uid });
    const owner = await mk('/api/v1/namespaces/gc/configmaps', { metadata: { name: 'owner' } });
    const other = await mk('/api/v1/namespaces/gc/configmaps', { metadata: { name: 'other' } });
    const child = await mk('/api/v1/namespaces/gc/secrets', { metadata: { name: 'child', ownerReferences: [ref(owner)] } });
    await mk('/api/v1/namespaces/gc/configmaps', { metadata: { name: 'grandchild', ownerReferences: [{ ...ref(child, 'Secret'), blockOwnerDeletion: true }] } });
    await mk('/api/v1/namespaces/gc/configmaps', { metadata: { name: 'shared', ownerReferences: [ref(owner), ref(other)] } });
    await mk('/api/v1/namespaces/gc/configmaps', { metadata: { name: 'unrelated', ownerReferences: [ref(other)] } });

    const c = new ApiClient({ baseUrl: srv.url });
    const d = await discover(c);
    const ownerObj = (await api.get('/api/v1/namespaces/gc/configmaps/owner')).body;
    const { dependents, skipped } = await findDependents(c, d, ownerObj);
    expect(skipped).toEqual([]);
    const byName = Object.fromEntries(dependents.map((x) => [x.name, x]));
    expect(Object.keys(byName).sort()).toEqual(['child', 'grandchild', 'shared']);
    expect(byName.child).toMatchObject({ depth: 1, type: { kind: 'Secret' }, otherOwners: [] });
    expect(byName.grandchild).toMatchObject({ depth: 2, ownerUid: child.metadata.uid, blocksOwnerDeletion: true });
    expect(byName.shared!.otherOwners.map((o) => o.name)).toEqual(['other']);
  });
});
