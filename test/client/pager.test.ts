// Paging through a large collection, and a list that outlives its snapshot (410 on continue).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { ApiClient, ApiError, listAll, listPages, type ListChunk } from '../../src/client/index.js';
import { testServer } from '../helpers/server.js';
import { bulkConfigMaps, createNamespace, postJson, configMap } from './fixtures.js';

let server: ApiServer;
let client: ApiClient;
const ref = { group: '', version: 'v1', resource: 'configmaps', namespace: 'big' };

beforeAll(async () => {
  server = await testServer();
  client = new ApiClient({ baseUrl: server.url });
  await createNamespace(server.url, 'big');
  await bulkConfigMaps(server, 'big', 2000);
});
afterAll(async () => {
  await server?.close();
});

describe('pager', () => {
  it('iterates 2,000 objects in chunks with progress', async () => {
    const chunks: ListChunk[] = [];
    for await (const c of listPages(client, ref, { limit: 300 })) chunks.push(c);
    expect(chunks.map((c) => c.items.length)).toEqual([300, 300, 300, 300, 300, 300, 200]);
    expect(chunks.map((c) => c.progress.items)).toEqual([300, 600, 900, 1200, 1500, 1800, 2000]);
    expect(chunks.map((c) => c.progress.remainingItemCount)).toEqual([1700, 1400, 1100, 800, 500, 200, undefined]);
    expect(chunks.map((c) => c.last)).toEqual([false, false, false, false, false, false, true]);
    expect(new Set(chunks.map((c) => c.resourceVersion)).size).toBe(1);
    const names = chunks.flatMap((c) => c.items.map((o) => o.metadata!.name!));
    expect(new Set(names).size).toBe(2000);
    expect(names).toEqual([...names].sort());
  });

  it('pages Table rows and metadata-only lists the same way', async () => {
    const table = await listAll(client, ref, { representation: 'table', limit: 700 });
    expect(table.form).toBe('Table');
    expect(table.rows).toHaveLength(2000);
    expect(table.rows[0]!.object?.kind).toBe('PartialObjectMetadata');
    const meta = await listAll(client, ref, { representation: 'metadata', limit: 700 });
    expect(meta.form).toBe('PartialObjectMetadataList');
    expect(meta.items).toHaveLength(2000);
    expect(meta.items[5]!.kind).toBe('PartialObjectMetadata');
  });

  it('restarts from a fresh list when the continue token expired (410) and says so', async () => {
    const pages = listPages(client, ref, { limit: 500 });
    const first = (await pages.next()).value as ListChunk;
    expect(first.restarted).toBe(false);
    // change the collection, then drop the history the continue token points into
    await postJson(server.url, '/api/v1/namespaces/big/configmaps', configMap('big', 'zz-after-compaction'));
    await server.store.compact(await server.store.currentRevision());
    const rest: ListChunk[] = [];
    for await (const c of pages) rest.push(c);
    expect(rest[0]!.restarted).toBe(true);
    expect(rest[0]!.restartReason).toBeInstanceOf(ApiError);
    expect(rest[0]!.restartReason!.code).toBe(410);
    expect(rest[0]!.progress.items).toBe(500);
    expect(rest.at(-1)!.progress.items).toBe(2001);
    const names = rest.flatMap((c) => c.items.map((o) => o.metadata!.name));
    expect(names).toContain('zz-after-compaction');
    expect(names).toHaveLength(2001);
  });

  it('gives up after maxRestarts and throws the 410', async () => {
    const pages = listPages(client, ref, { limit: 500, maxRestarts: 0 });
    await pages.next();
    await postJson(server.url, '/api/v1/namespaces/big/configmaps', configMap('big', 'zz-second'));
    await server.store.compact(await server.store.currentRevision());
    const e = await pages.next().catch((x) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe(410);
  });
});
