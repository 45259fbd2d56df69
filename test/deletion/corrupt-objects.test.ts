// Objects whose stored bytes cannot be decoded: reads report them as corrupt; with the AllowUnsafeMalformedObjectDeletion
// gate, ignoreStoreReadErrorWithClusterBreakingPotential removes them. On the memory and the sqlite store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { parseFeatureGates } from '../../src/server/features.js';
import { MemoryStore, SqliteStore, TransformingStore } from '../../src/server/storage/index.js';
import { client } from '../helpers/server.js';
import { cm, eventually, gone, ns, type Api } from './support.js';

const GARBAGE = new TextEncoder().encode('\u0000\u0001 this is not an object {');

async function corrupt(store: TransformingStore, key: string): Promise<void> {
  const got = await store.inner.get(key);
  await store.inner.update(key, GARBAGE, got.kv!.modRevision);
}

describe.each(['memory', 'sqlite'] as const)('corrupt objects on %s', (backend) => {
  let dataDir: string;
  let store: TransformingStore;
  let server: ApiServer;
  let api: Api;
  const base = '/api/v1/namespaces/c/configmaps';
  const key = (name: string) => `/registry/core/configmaps/c/${name}`;

  const start = async (gate: boolean) => {
    store = new TransformingStore(backend === 'memory' ? new MemoryStore() : new SqliteStore(dataDir));
    server = await startServer(
      {
        port: 0,
        store: backend,
        dataDir,
        demoData: false,
        requestLog: false,
        staticDir: '',
        compactionIntervalMs: 0,
        featureGates: parseFeatureGates(`AllowUnsafeMalformedObjectDeletion=${gate}`),
      },
      { store, log: () => {} },
    );
    api = client(server.url);
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'periscope-corrupt-'));
    await start(true);
    await api.post('/api/v1/namespaces', ns('c'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports a corrupt object on get with 500 naming it, and keeps serving the others', async () => {
    await api.post(base, cm('broken-get'));
    await api.post(base, cm('fine'));
    await corrupt(store, key('broken-get'));
    const g = await api.get(`${base}/broken-get`);
    expect(g.status).toBe(500);
    expect(g.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500 });
    expect(g.body.message).toContain('corrupt object');
    expect(g.body.message).toContain(key('broken-get'));
    expect((await api.get(`${base}/fine`)).status).toBe(200);
    // the watch cache serves lists of the others
    const list = await eventually(async () => {
      const l = await api.get(base);
      expect(l.status).toBe(200);
      expect(l.body.items.map((i: any) => i.metadata.name)).not.toContain('broken-get');
      return l.body;
    });
    expect(list.items.map((i: any) => i.metadata.name)).toContain('fine');
    // a list read from the store itself fails, as upstream's does
    expect((await api.get(`${base}?limit=100&resourceVersion=${list.metadata.resourceVersion}&resourceVersionMatch=Exact`)).status).toBe(500);
  });

  it('cannot delete it normally', async () => {
    await api.post(base, cm('broken-plain'));
    await corrupt(store, key('broken-plain'));
    const d = await api.del(`${base}/broken-plain`);
    expect(d.status).toBe(500);
    expect(d.body.message).toContain('corrupt object');
  });

  it('rejects ignoreStoreReadErrorWithClusterBreakingPotential with any other option (422)', async () => {
    const opt = { ignoreStoreReadErrorWithClusterBreakingPotential: true };
    for (const [extra, name] of [
      [{ dryRun: ['All'] }, 'dryRun'],
      [{ gracePeriodSeconds: 0 }, 'gracePeriodSeconds'],
      [{ orphanDependents: false }, 'orphanDependents'],
      [{ preconditions: { uid: 'x' } }, 'preconditions'],
      [{ propagationPolicy: 'Background' }, 'propagationPolicy'],
    ] as const) {
      const d = await api.del(`${base}/fine`, { ...opt, ...extra });
      expect(d.status).toBe(422);
      expect(d.body.message).toBe(
        `DeleteOptions.meta.service.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .${name}`,
      );
    }
  });

  it('refuses the option on a readable object', async () => {
    const d = await api.del(`${base}/fine?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(d.status).toBe(422);
    expect(d.body.message).toBe(
      'configmaps "fine" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option',
    );
    expect((await api.get(`${base}/fine`)).status).toBe(200);
  });

  it('force-deletes a corrupt object, ignoring its finalizers', async () => {
    await api.post(base, cm('broken', { finalizers: ['example.com/keep'] }));
    await corrupt(store, key('broken'));
    const d = await api.del(`${base}/broken`, { ignoreStoreReadErrorWithClusterBreakingPotential: true });
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, details: { name: 'broken', kind: 'ConfigMap' } });
    expect((await api.get(`${base}/broken`)).status).toBe(404);
    expect((await store.inner.get(key('broken'))).kv).toBeUndefined();
  });

  it('does not allow the option on deletecollection', async () => {
    const d = await api.del(`${base}?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(d.status).toBe(422);
    expect(d.body.message).toContain('is not allowed with DELETECOLLECTION');
  });

  it('holds a terminating namespace on a corrupt object until it is force-deleted', async () => {
    await api.post('/api/v1/namespaces', ns('c2'));
    await api.post('/api/v1/namespaces/c2/configmaps', cm('bad'));
    await corrupt(store, '/registry/core/configmaps/c2/bad');
    await api.del('/api/v1/namespaces/c2');
    const nsObj = await eventually(async () => {
      const g = await api.get('/api/v1/namespaces/c2');
      expect(g.body.status.conditions?.find((c: any) => c.type === 'NamespaceDeletionContentFailure')?.status).toBe('True');
      return g.body;
    });
    expect(nsObj.status.phase).toBe('Terminating');
    expect((await api.del('/api/v1/namespaces/c2/configmaps/bad?ignoreStoreReadErrorWithClusterBreakingPotential=true')).status).toBe(200);
    await gone(api, '/api/v1/namespaces/c2');
  });

  it('without the gate the option has no effect', async () => {
    await server.close();
    await start(false);
    // (a fresh memory store starts empty; sqlite keeps what is there)
    await api.post('/api/v1/namespaces', ns('c'));
    await api.post(base, cm('fine'));
    await api.post(base, cm('gateless'));
    await corrupt(store, key('gateless'));
    const d = await api.del(`${base}/gateless`, { ignoreStoreReadErrorWithClusterBreakingPotential: true });
    expect(d.status).toBe(500);
    expect(d.body.reason).toBe('InternalError');
    // nor do its rule checks apply
    const dry = await api.del(`${base}/fine`, { ignoreStoreReadErrorWithClusterBreakingPotential: true, dryRun: ['All'] });
    expect(dry.status).toBe(200);
    expect((await api.get(`${base}/fine`)).status).toBe(200);
  });
});
