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

/** A fetch whose list bodies send their head at once and the rest only when the test lets them. */
function gatedFetch(pages: number) {
  const requests: { url: URL; signal: AbortSignal | undefined }[] = [];
  const gates: (() => void)[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    requests.push({ url, signal: init?.signal ?? undefined });
    const page = Number(url.searchParams.get('continue') ?? '0');
    const next = page + 1 < pages ? String(page + 1) : undefined;
    const head = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"${next ? `,"continue":"${next}"` : ''}},"columnDefinitions":[{"name":"Name","type":"string"}],`;
    const rows = `"rows":[{"cells":["p${page}"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"p${page}","namespace":"ns"}}}]}`;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    gates[page] = release;
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(c) {
        c.enqueue(enc.encode(head));
        await gate;
        c.enqueue(enc.encode(rows));
        c.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  const until = async (cond: () => boolean) => {
    for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
    return cond();
  };
  const tableRef = { group: '', version: 'v1', resource: 'configmaps', namespace: 'ns' };
  /** The pager over this fake, one row per chunk, asking ahead or not. */
  const open = (prefetch: boolean) => listPages(new ApiClient({ baseUrl: 'http://api.test', fetch: fetchFn }), tableRef, { representation: 'table', limit: 1, prefetch: () => prefetch });
  return { requests, gates, until, open };
}

describe('pager: the next chunk asked for early', () => {
  it('asks for chunk k+1 as soon as chunk k shows its continue token, once each', async () => {
    const g = gatedFetch(3);
    const pages = g.open(true);
    const first = pages.next();
    // the first body has sent only its head: the second request is already out
    expect(await g.until(() => g.requests.length === 2)).toBe(true);
    expect(g.requests[1]!.url.searchParams.get('continue')).toBe('1');
    g.gates[0]!();
    expect((await first).value!.rows.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(['p0']);
    // one ahead at most: the third is asked for once the consumer takes on the second
    expect(await g.until(() => g.requests.length === 3)).toBe(false);
    const second = pages.next();
    expect(await g.until(() => g.requests.length === 3)).toBe(true);
    g.gates[1]!();
    g.gates[2]!();
    const rest: string[] = [String((await second).value!.rows[0]!.cells[0])];
    for await (const ch of pages) rest.push(...ch.rows.map((r) => String(r.cells[0])));
    expect(rest).toEqual(['p1', 'p2']);
    expect(g.requests.map((r) => r.url.searchParams.get('continue'))).toEqual([null, '1', '2']);
  });

  it('without prefetch, waits for the whole chunk', async () => {
    const g = gatedFetch(2);
    const pages = g.open(false);
    const first = pages.next();
    expect(await g.until(() => g.requests.length === 2)).toBe(false);
    g.gates[0]!();
    await first;
    const second = pages.next();
    expect(await g.until(() => g.requests.length === 2)).toBe(true);
    g.gates[1]!();
    expect((await second).value!.last).toBe(true);
    expect(g.requests).toHaveLength(2);
  });

  it('a consumer that stops early leaves no request running', async () => {
    const g = gatedFetch(3);
    const pages = g.open(true);
    const first = pages.next();
    expect(await g.until(() => g.requests.length === 2)).toBe(true);
    g.gates[0]!();
    await first;
    await pages.return(undefined);
    expect(g.requests[1]!.signal!.aborted).toBe(true);
  });

  it('against the server: the same rows, one request per chunk', async () => {
    let count = 0;
    const counting = new ApiClient({ baseUrl: server.url, fetch: (i, init) => (count++, fetch(i, init)) });
    const plain = await listAll(client, ref, { representation: 'table', limit: 300 });
    const early = await listAll(counting, ref, { representation: 'table', limit: 300, prefetch: () => true });
    expect(early.rows.map((r) => r.object?.metadata?.name)).toEqual(plain.rows.map((r) => r.object?.metadata?.name));
    expect(count).toBe(Math.ceil(early.rows.length / 300));
  });
});
