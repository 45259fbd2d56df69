// The garbage collector keeps its state in the store: a server stopped in the middle of a deletion finishes it
// after a restart (sqlite data directory).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeForStorage } from '../../src/server/registry/resource-store.js';
import { SqliteStore } from '../../src/server/storage/index.js';
import { client, testServer } from '../helpers/server.js';
import { cm, dropFinalizers, eventually, gone, ns, ownerRef } from './support.js';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'periscope-gc-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const start = () => testServer({ store: 'sqlite', dataDir });
const cms = '/api/v1/namespaces/r/configmaps';

describe('garbage collection across restarts', () => {
  it('finishes a foreground deletion that was waiting when the server stopped', async () => {
    let s = await start();
    let api = client(s.url);
    try {
      await api.post('/api/v1/namespaces', ns('r'));
      const o = (await api.post(cms, cm('owner'))).body;
      await api.post(cms, cm('dep-held', { ownerReferences: [ownerRef(o, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] }));
      await api.post(cms, cm('dep-free', { ownerReferences: [ownerRef(o, { blockOwnerDeletion: true })] }));
      await api.del(`${cms}/owner`, { propagationPolicy: 'Foreground' });
      await gone(api, `${cms}/dep-free`);
      await eventually(async () => expect((await api.get(`${cms}/dep-held`)).body.metadata.deletionTimestamp).toBeTruthy());
    } finally {
      await s.close();
    }

    s = await start();
    api = client(s.url);
    try {
      // still waiting after the restart
      const held = await api.get(`${cms}/owner`);
      expect(held.status).toBe(200);
      expect(held.body.metadata.finalizers).toEqual(['foregroundDeletion']);
      await dropFinalizers(api, `${cms}/dep-held`);
      await gone(api, `${cms}/dep-held`);
      await gone(api, `${cms}/owner`);
    } finally {
      await s.close();
    }
  });

  it('collects dependents whose owner went while the server was down', async () => {
    let s = await start();
    let api = client(s.url);
    let ownerKey = '';
    try {
      await api.post('/api/v1/namespaces', ns('r'));
      const o = (await api.post(cms, cm('owner'))).body;
      for (const n of ['d1', 'd2', 'd3']) await api.post(cms, cm(n, { ownerReferences: [ownerRef(o)] }));
      ownerKey = '/registry/core/configmaps/r/owner';
    } finally {
      await s.close();
    }
    // the owner disappears behind the server's back (a crash right after the owner's removal looks the same)
    const raw = new SqliteStore(dataDir);
    await raw.open();
    await raw.delete(ownerKey);
    // and one more dependent of an owner that never existed
    await raw.create(
      '/registry/core/configmaps/r/orphaned',
      encodeForStorage({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'orphaned', namespace: 'r', uid: '3b8c1f8e-0000-4000-8000-000000000001', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'ghost-uid' }] },
      }),
    );
    await raw.close();

    s = await start();
    api = client(s.url);
    try {
      for (const n of ['d1', 'd2', 'd3', 'orphaned']) await gone(api, `${cms}/${n}`);
    } finally {
      await s.close();
    }
  });

  it('orphans the dependents of an owner left waiting for the orphan finalizer', async () => {
    let s = await start();
    let api = client(s.url);
    try {
      await api.post('/api/v1/namespaces', ns('r'));
      const o = (await api.post(cms, cm('owner'))).body;
      await api.post(cms, cm('kid', { ownerReferences: [ownerRef(o)] }));
    } finally {
      await s.close();
    }
    // the state a crash right after the delete request leaves behind: marked for orphaning, nothing done yet
    const raw = new SqliteStore(dataDir);
    await raw.open();
    const key = '/registry/core/configmaps/r/owner';
    const got = await raw.get(key);
    const owner = JSON.parse(new TextDecoder().decode(got.kv!.value));
    owner.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    owner.metadata.deletionGracePeriodSeconds = 0;
    owner.metadata.finalizers = ['orphan'];
    await raw.update(key, encodeForStorage(owner), got.kv!.modRevision);
    await raw.close();

    s = await start();
    api = client(s.url);
    try {
      await gone(api, `${cms}/owner`);
      const kid = await api.get(`${cms}/kid`);
      expect(kid.status).toBe(200);
      expect(kid.body.metadata.ownerReferences).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});
