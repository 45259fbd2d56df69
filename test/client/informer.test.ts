// The informer against the real server: streaming list and list-then-watch, live changes, lazy chunks with
// an overlay, resuming after a cut connection, 410 relists, Table rows, and a server restart mid-watch.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { ApiClient, Informer, type ConnectionState, type KubeObject, type TableRow } from '../../src/client/index.js';
import { testServer } from '../helpers/server.js';
import { FlakyNetwork, bulkConfigMaps, configMap, createNamespace, postJson, waitFor } from './fixtures.js';

let server: ApiServer;
const fast = { backoffMs: { initial: 50, max: 400 } };
const cmRef = (namespace: string) => ({ group: '', version: 'v1', resource: 'configmaps', namespace });
const names = (inf: Informer<KubeObject>) => inf.list().map((o) => o.metadata!.name!);

beforeAll(async () => {
  server = await testServer();
});
afterAll(async () => {
  await server?.close();
});

describe('informer', () => {
  it('syncs by streaming list and follows creates, updates and deletes', async () => {
    await createNamespace(server.url, 'inf1');
    await postJson(server.url, '/api/v1/namespaces/inf1/configmaps', configMap('inf1', 'a'));
    const client = new ApiClient({ baseUrl: server.url });
    const urls: string[] = [];
    const inf = new Informer<KubeObject>({
      client: new ApiClient({ baseUrl: server.url, fetch: (i, init) => (urls.push(String(i)), fetch(i, init)) }),
      ref: cmRef('inf1'),
      ...fast,
    }).start();
    const changes: string[] = [];
    inf.subscribe((c) => {
      if (c.reset) changes.push('reset');
      for (const o of c.added) changes.push(`+${(o as KubeObject).metadata!.name}`);
      for (const o of c.modified) changes.push(`~${(o as KubeObject).metadata!.name}`);
      for (const o of c.deleted) changes.push(`-${(o as KubeObject).metadata!.name}`);
    });
    await inf.whenSynced();
    expect(names(inf)).toEqual(['a']);
    expect(urls[0]).toContain('sendInitialEvents=true');
    expect(urls.some((u) => !u.includes('watch'))).toBe(false); // no separate list request
    await client.create(cmRef('inf1'), configMap('inf1', 'b'));
    await client.replace({ ...cmRef('inf1'), name: 'a' }, { ...configMap('inf1', 'a', { x: '1' }) });
    await client.delete({ ...cmRef('inf1'), name: 'b' });
    await waitFor(() => changes.includes('-b'), 'the delete');
    expect(changes).toEqual(['reset', '+b', '~a', '-b']);
    expect(inf.get('inf1/a')?.data).toEqual({ x: '1' });
    expect(inf.snapshot().state).toBe('live');
    inf.stop();
  });

  it('falls back to list-then-watch when the server rejects streaming lists', async () => {
    await createNamespace(server.url, 'inf2');
    await postJson(server.url, '/api/v1/namespaces/inf2/configmaps', configMap('inf2', 'x'));
    const urls: string[] = [];
    // an older server: sendInitialEvents is an unknown, invalid option
    const oldServer: typeof fetch = async (input, init) => {
      const u = String(input);
      urls.push(u);
      if (u.includes('sendInitialEvents'))
        return new Response(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422, message: 'sendInitialEvents: Forbidden' }), {
          status: 422,
          headers: { 'content-type': 'application/json' },
        });
      return fetch(input, init);
    };
    const inf = new Informer<KubeObject>({ client: new ApiClient({ baseUrl: server.url, fetch: oldServer }), ref: cmRef('inf2'), ...fast }).start();
    await inf.whenSynced();
    expect(names(inf)).toEqual(['x']);
    await postJson(server.url, '/api/v1/namespaces/inf2/configmaps', configMap('inf2', 'y'));
    await waitFor(() => inf.size === 2, 'the new object');
    expect(urls.map((u) => (u.includes('sendInitialEvents') ? 'stream' : u.includes('watch=1') ? 'watch' : 'list'))).toEqual(['stream', 'list', 'watch']);
    expect(inf.snapshot().relists).toBe(0);
    inf.stop();
  });

  it('resumes from the last resourceVersion after a cut connection, without relisting', async () => {
    await createNamespace(server.url, 'inf3');
    const net = new FlakyNetwork();
    const states: ConnectionState[] = [];
    const inf = new Informer<KubeObject>({ client: new ApiClient({ baseUrl: server.url, fetch: net.fetch }), ref: cmRef('inf3'), ...fast }).start();
    inf.subscribe((_c, s) => {
      if (states.at(-1) !== s.state) states.push(s.state);
    });
    await inf.whenSynced();
    net.cut();
    await waitFor(() => inf.snapshot().state === 'reconnecting', 'reconnecting');
    await postJson(server.url, '/api/v1/namespaces/inf3/configmaps', configMap('inf3', 'while-offline'));
    net.restore();
    await waitFor(() => inf.get('inf3/while-offline') !== undefined, 'the change made while offline');
    const last = net.requests.at(-1)!.url;
    expect(last).toContain('resourceVersion=');
    expect(last).not.toContain('sendInitialEvents');
    expect(inf.snapshot().relists).toBe(0);
    await waitFor(() => inf.snapshot().state === 'live', 'live again');
    expect(states).toContain('reconnecting');
    inf.stop();
  });

  it('relists on 410 when the history it would resume from was compacted', async () => {
    await createNamespace(server.url, 'inf4');
    await postJson(server.url, '/api/v1/namespaces/inf4/configmaps', configMap('inf4', 'gone-soon'));
    const net = new FlakyNetwork();
    const inf = new Informer<KubeObject>({ client: new ApiClient({ baseUrl: server.url, fetch: net.fetch }), ref: cmRef('inf4'), ...fast }).start();
    await inf.whenSynced();
    net.cut();
    const client = new ApiClient({ baseUrl: server.url });
    await client.delete({ ...cmRef('inf4'), name: 'gone-soon' });
    await client.create(cmRef('inf4'), configMap('inf4', 'after-compaction'));
    await server.store.compact(await server.store.currentRevision());
    // the watch cache would still replay its in-memory window; restart it so the resume must go to the compacted store
    server.deps.caches.remove('/registry/core/configmaps/');
    net.restore();
    await waitFor(() => inf.get('inf4/after-compaction') !== undefined, 'the relisted state');
    expect(names(inf)).toEqual(['after-compaction']);
    const s = inf.snapshot();
    expect(s.relists).toBe(1);
    expect(s.lastRelistReason).toMatch(/too old|410|Expired/i);
    inf.stop();
  });

  it('keeps Table rows keyed by object, with columns from the first event', async () => {
    await createNamespace(server.url, 'inf5');
    await postJson(server.url, '/api/v1/namespaces/inf5/configmaps', configMap('inf5', 'row1', { a: '1' }));
    const inf = new Informer<TableRow>({ client: new ApiClient({ baseUrl: server.url }), ref: cmRef('inf5'), representation: 'table', ...fast }).start();
    await inf.whenSynced();
    const s = inf.snapshot();
    expect(s.form).toBe('Table');
    expect(s.columns?.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(s.items.map((r) => r.cells.slice(0, 2))).toEqual([['row1', 1]]);
    await postJson(server.url, '/api/v1/namespaces/inf5/configmaps/row1', configMap('inf5', 'row1', { a: '1', b: '2' }), 'PUT');
    await waitFor(() => inf.get('inf5/row1')?.cells[1] === 2, 'the updated row');
    inf.stop();
  });

  it('lazy: loads chunks on demand while watching, folding in changes made past the loaded range', async () => {
    await createNamespace(server.url, 'lazy');
    await bulkConfigMaps(server, 'lazy', 2000);
    const urls: string[] = [];
    const client = new ApiClient({ baseUrl: server.url, fetch: (i, init) => (urls.push(String(i)), fetch(i, init)) });
    const inf = new Informer<TableRow>({ client, ref: cmRef('lazy'), representation: 'table', lazy: true, pageSize: 200, bulkPageSize: 500, ...fast }).start();
    await inf.whenSynced();
    let s = inf.snapshot();
    expect(s.loaded).toBe(200);
    expect(s.complete).toBe(false);
    expect(s.remaining).toBe(1800);
    await waitFor(() => inf.snapshot().state === 'live', 'the watch');
    // past the loaded range: a create, an update and a delete
    const api = new ApiClient({ baseUrl: server.url });
    await api.create(cmRef('lazy'), configMap('lazy', 'cm-1500b'));
    await api.replace({ ...cmRef('lazy'), name: 'cm-1700' }, configMap('lazy', 'cm-1700', { a: '1', b: '2', c: '3' }));
    await api.delete({ ...cmRef('lazy'), name: 'cm-1800' });
    // inside it
    await api.delete({ ...cmRef('lazy'), name: 'cm-0005' });
    await waitFor(() => inf.get('lazy/cm-0005') === undefined, 'the delete inside the range');
    inf.ensureLoaded(600);
    await waitFor(() => inf.snapshot().loaded >= 599, 'three chunks');
    expect(inf.snapshot().complete).toBe(false);
    inf.loadAll();
    await waitFor(() => inf.snapshot().complete, 'everything');
    s = inf.snapshot();
    const rows = s.items.map((r) => r.cells[0]);
    expect(rows).toHaveLength(2000 + 1 - 2);
    expect(rows).toContain('cm-1500b');
    expect(rows).not.toContain('cm-1800');
    expect(rows).not.toContain('cm-0005');
    expect(rows).toEqual([...rows].sort());
    expect(inf.get('lazy/cm-1700')?.cells[1]).toBe(3);
    expect(s.relists).toBe(0);
    // later chunks were bigger once everything was asked for
    expect(urls.some((u) => u.includes('limit=500'))).toBe(true);
    // a change to a row a chunk brought lands in its place among the rows
    await api.replace({ ...cmRef('lazy'), name: 'cm-1900' }, configMap('lazy', 'cm-1900', { a: '1', b: '2' }));
    await waitFor(() => inf.snapshot().items.find((r) => r.cells[0] === 'cm-1900')?.cells[1] === 2, 'the update among the rows');
    expect(inf.snapshot().items).toHaveLength(2000 + 1 - 2);
    inf.stop();
  });

  it('relists a lazy collection whose continue token expired', async () => {
    await createNamespace(server.url, 'lazy2');
    await bulkConfigMaps(server, 'lazy2', 600);
    const inf = new Informer<TableRow>({ client: new ApiClient({ baseUrl: server.url }), ref: cmRef('lazy2'), representation: 'table', lazy: true, pageSize: 100, ...fast }).start();
    await inf.whenSynced();
    await postJson(server.url, '/api/v1/namespaces/lazy2/configmaps', configMap('lazy2', 'cm-new'));
    await server.store.compact(await server.store.currentRevision());
    inf.loadAll();
    await waitFor(() => inf.snapshot().complete && inf.size === 601, 'the relisted collection');
    expect(inf.snapshot().relists).toBe(1);
    inf.stop();
  });

  it('reads a watch as a CBOR sequence when asked, or JSON when the server does not offer CBOR', async () => {
    const cborServer = await testServer({ featureGates: { ...server.deps.gates, CBORServingAndStorage: true } });
    try {
      await createNamespace(cborServer.url, 'cbor');
      await postJson(cborServer.url, '/api/v1/namespaces/cbor/configmaps', configMap('cbor', 'c1'));
      const inf = new Informer<KubeObject>({ client: new ApiClient({ baseUrl: cborServer.url }), ref: cmRef('cbor'), encoding: 'cbor', ...fast }).start();
      await inf.whenSynced();
      await postJson(cborServer.url, '/api/v1/namespaces/cbor/configmaps', configMap('cbor', 'c2'));
      await waitFor(() => inf.size === 2, 'the second object');
      expect(names(inf)).toEqual(['c1', 'c2']);
      inf.stop();
    } finally {
      await cborServer.close();
    }
  });
});

describe('informer across a server restart', () => {
  it('resumes or relists against the restarted server and sees changes made after it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-client-'));
    let srv = await testServer({ store: 'sqlite', dataDir });
    const port = srv.port;
    try {
      await createNamespace(srv.url, 'rs');
      await postJson(srv.url, '/api/v1/namespaces/rs/configmaps', configMap('rs', 'before'));
      const states: ConnectionState[] = [];
      const inf = new Informer<KubeObject>({ client: new ApiClient({ baseUrl: srv.url }), ref: cmRef('rs'), ...fast }).start();
      inf.subscribe((_c, s) => {
        if (states.at(-1) !== s.state) states.push(s.state);
      });
      await inf.whenSynced();
      await srv.close();
      await waitFor(() => inf.snapshot().state !== 'live', 'the informer to notice');
      srv = await testServer({ store: 'sqlite', dataDir, port });
      await postJson(srv.url, '/api/v1/namespaces/rs/configmaps', configMap('rs', 'after'));
      await waitFor(() => inf.get('rs/after') !== undefined, 'the change after the restart', 20_000);
      expect(names(inf)).toEqual(['after', 'before']);
      await waitFor(() => inf.snapshot().state === 'live', 'live again');
      expect(states).toContain('reconnecting');
      inf.stop();
    } finally {
      await srv.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
