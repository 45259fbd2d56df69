// Watches are bounded: a client that stops reading is cut off once its unsent events pass the
// per-watcher bound (events or bytes), its connection and state are released, and readers are not harmed.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
const NS = '/api/v1/namespaces/wb/configmaps';
const CACHE = '/registry/core/configmaps/';
const streams: WatchStream[] = [];
const watchers = () => server.deps.caches.get(CACHE).watcherCount;

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  await api.post('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'wb' },
  });
});
afterAll(async () => {
  for (const s of streams) s.close();
  await server.close();
});

/** A watch over a raw socket that reads the response head and then never reads again. */
async function stalledWatch(path: string): Promise<{ sock: Socket; closed: Promise<number> }> {
  const u = new URL(server.url);
  const sock = connect(Number(u.port), u.hostname);
  sock.on('error', () => {});
  sock.write(`GET ${path} HTTP/1.1\r\nHost: ${u.host}\r\nAccept: application/json\r\n\r\n`);
  let received = 0;
  const head = await new Promise<string>((resolve) => sock.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
  expect(head).toMatch(/^HTTP\/1\.1 200/);
  sock.pause();
  sock.on('data', (d: Buffer) => (received += d.length));
  const closed = new Promise<number>((resolve) => sock.once('close', () => resolve(received)));
  return { sock, closed };
}

describe('watch bounds', () => {
  it('closes watchers that stop reading and releases them; a reading watcher gets every event', async () => {
    const created = await api.post(NS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { v: '' },
    });
    expect(created.status).toBe(201);
    const rv = created.body.metadata.resourceVersion;
    await vi.waitFor(() => expect(watchers()).toBe(0));

    const stalled = await Promise.all(Array.from({ length: 20 }, () => stalledWatch(`${NS}?watch=1&resourceVersion=${rv}`)));
    const good = await WatchStream.open(`${server.url}${NS}?watch=1&resourceVersion=${rv}`);
    streams.push(good);
    await vi.waitFor(() => expect(watchers()).toBe(21));

    // 80 updates of 256 KiB: 20 MiB per watcher, past the per-watcher bound (8 MiB) plus what the
    // kernel can buffer for a socket that is not read (at most tcp_wmem + tcp_rmem, ~10 MiB by default)
    const payload = 'x'.repeat(256 * 1024);
    let cur = created.body;
    const rvs: string[] = [];
    for (let i = 0; i < 80; i++) {
      const r = await api.put(`${NS}/big`, {
        ...cur,
        data: { v: `${i}${payload}` },
      });
      expect(r.status).toBe(200);
      cur = r.body;
      rvs.push(cur.metadata.resourceVersion);
    }

    // the well-behaved watcher sees every update, in order
    await good.until((e) => e.length >= 80, 30_000);
    expect(good.events.map((e) => e.type)).toEqual(Array(80).fill('MODIFIED'));
    expect(good.events.map((e) => e.object.metadata.resourceVersion)).toEqual(rvs);

    // every stalled watcher was dropped by the cache, and its connection is gone
    await vi.waitFor(() => expect(watchers()).toBe(1), { timeout: 10_000 });
    for (const s of stalled) s.sock.resume();
    const got = await Promise.all(stalled.map((s) => s.closed));
    for (const n of got) expect(n).toBeLessThan(80 * payload.length);

    // once the last client leaves, nothing of it stays registered
    good.close();
    await vi.waitFor(() => expect(watchers()).toBe(0));
  });

  it('timeoutSeconds beyond the timer range keeps the watch open', async () => {
    const list = await api.get(NS);
    const w = await WatchStream.open(`${server.url}${NS}?watch=1&timeoutSeconds=3000000&resourceVersion=${list.body.metadata.resourceVersion}`);
    streams.push(w);
    expect(w.status).toBe(200);
    // give a wrapped (overflowed) timer the chance to fire before the event
    await new Promise((r) => setTimeout(r, 50));
    await api.post(NS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'after-long-timeout' },
    });
    await w.until((e) => e.some((x) => x.object.metadata.name === 'after-long-timeout'));
    expect(w.ended).toBe(false);
    w.close();
  });

  it('timeoutSeconds=0 means the server default, not an immediate end', async () => {
    const list = await api.get(NS);
    const w = await WatchStream.open(`${server.url}${NS}?watch=1&timeoutSeconds=0&resourceVersion=${list.body.metadata.resourceVersion}`);
    streams.push(w);
    await new Promise((r) => setTimeout(r, 50));
    await api.post(NS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'after-zero-timeout' },
    });
    await w.until((e) => e.some((x) => x.object.metadata.name === 'after-zero-timeout'));
    w.close();
  });

  it.each(['-1', 'abc', '1.5', '1e3', '99999999999999999999'])('timeoutSeconds=%s is a 400', async (v) => {
    const r = await api.get(`${NS}?watch=1&timeoutSeconds=${encodeURIComponent(v)}`);
    expect(r.status).toBe(400);
    expect(r.body.kind).toBe('Status');
    expect(r.body.reason).toBe('BadRequest');
    expect(r.body.message).toContain('timeoutSeconds');
  });
});

describe('watch replay', () => {
  it('a watch resuming 1,200 events back gets all of them, paced by the client, not cut as slow', async () => {
    await api.post('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'wr' },
    });
    const from = (await api.get('/api/v1/namespaces/wr/configmaps')).body.metadata.resourceVersion;
    for (let i = 0; i < 1200; i++) {
      const r = await api.post('/api/v1/namespaces/wr/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `r${i}` },
      });
      expect(r.status).toBe(201);
    }
    const w = await WatchStream.open(`${server.url}/api/v1/namespaces/wr/configmaps?watch=1&resourceVersion=${from}`);
    streams.push(w);
    await w.until((e) => e.length >= 1200, 20_000);
    expect(w.events.map((e) => e.object.metadata.name)).toEqual(Array.from({ length: 1200 }, (_, i) => `r${i}`));
    // still open: later changes follow the replay
    await api.post('/api/v1/namespaces/wr/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'later' },
    });
    await w.until((e) => e.length >= 1201);
    expect(w.events[1200]!.object.metadata.name).toBe('later');
    w.close();
  });
});

describe('numeric parameters that feed timers', () => {
  const pods = '/api/v1/namespaces/wb/pods';
  const pod = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      nodeName: 'node-1',
      containers: [{ name: 'c', image: 'busybox' }],
      ...spec,
    },
  });

  it.each([
    ['query', '?gracePeriodSeconds=99999999999999', undefined],
    ['body', '', { gracePeriodSeconds: 1e15 }],
  ])('a grace period past the timer range (%s) keeps the pod terminating, never a 500', async (_how, q, body) => {
    const name = `long-grace-${_how}`;
    expect((await api.post(pods, pod(name))).status).toBe(201);
    const d = await api.del(`${pods}/${name}${q}`, body);
    expect(d.status).toBe(200);
    expect(d.body.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // the pod is still there (its deadline is far away) and can still be deleted at once
    await new Promise((r) => setTimeout(r, 50));
    expect((await api.get(`${pods}/${name}`)).status).toBe(200);
    expect((await api.del(`${pods}/${name}`, { gracePeriodSeconds: 0 })).status).toBe(200);
  });

  it('a grace period outside int64 is a 400', async () => {
    expect((await api.post(pods, pod('huge-grace'))).status).toBe(201);
    const d = await api.del(`${pods}/huge-grace?gracePeriodSeconds=99999999999999999999`);
    expect(d.status).toBe(400);
    expect(d.body.message).toContain('gracePeriodSeconds');
  });

  it('a huge spec.terminationGracePeriodSeconds does not break deletion', async () => {
    const c = await api.post(pods, pod('huge-spec-grace', { terminationGracePeriodSeconds: 9e15 }));
    expect(c.status).toBe(201);
    const d = await api.del(`${pods}/huge-spec-grace`);
    expect(d.status).toBe(200);
    expect((await api.del(`${pods}/huge-spec-grace`, { gracePeriodSeconds: 0 })).status).toBe(200);
  });
});

describe('watch initial state', () => {
  it('sends all of a large initial state (more than the socket takes at once), then changes', async () => {
    const base = '/api/v1/namespaces/wi/configmaps';
    await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wi' } });
    const payload = 'y'.repeat(256 * 1024);
    for (let i = 0; i < 40; i++)
      expect((await api.post(base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `i${i}` }, data: { v: payload } })).status).toBe(201);
    const names = Array.from({ length: 40 }, (_, i) => `i${i}`).sort();

    const legacy = await WatchStream.open(`${server.url}${base}?watch=1`);
    const streaming = await WatchStream.open(`${server.url}${base}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    streams.push(legacy, streaming);
    await api.post(base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'zz-later' } });
    for (const w of [legacy, streaming]) await w.until((e) => e.some((x) => x.object.metadata.name === 'zz-later'), 20_000);

    expect(legacy.events.map((e) => [e.type, e.object.metadata.name])).toEqual([...names.map((n) => ['ADDED', n]), ['ADDED', 'zz-later']]);
    const s = streaming.events.filter((e) => e.type !== 'BOOKMARK' || e.object.metadata.annotations);
    expect(s.map((e) => e.type)).toEqual([...names.map(() => 'ADDED'), 'BOOKMARK', 'ADDED']);
    expect(s[40]!.object.metadata.annotations).toEqual({ 'service.io/initial-events-end': 'true' });
    legacy.close();
    streaming.close();
  });
});

describe('list limit', () => {
  it.each(['0x10', '1e3', ' 5', '99999999999999999999', '-1'])('limit=%s is a 400', async (v) => {
    const r = await api.get(`${NS}?limit=${encodeURIComponent(v)}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('limit');
  });

  it('a huge limit within int64 lists everything', async () => {
    const r = await api.get(`${NS}?limit=9223372036854775807`);
    expect(r.status).toBe(200);
    expect(r.body.metadata.continue).toBeUndefined();
  });
});
