import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import type { ApiServer } from '../../src/server/app.js';
import { startServer } from '../../src/server/app.js';
import { client } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
const NS = '/api/v1/namespaces/w/configmaps';
const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } });
const streams: WatchStream[] = [];
const open = async (path: string, headers?: Record<string, string>) => {
  const w = await WatchStream.open(server.url + path, headers);
  streams.push(w);
  return w;
};

beforeAll(async () => {
  server = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 },
    { watch: { bookmarkIntervalMs: 200 } },
  );
  api = client(server.url);
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'w' } });
  await api.post(NS, cm('a'));
  await api.post(NS, cm('b'));
});
afterAll(async () => {
  for (const s of streams) s.close();
  await server.close();
});

describe('watch', () => {
  it('without resourceVersion: synthetic ADDED for current state, then changes, as chunked JSON', async () => {
    const w = await open(`${NS}?watch=1`);
    expect(w.status).toBe(200);
    expect(w.headers!.get('content-type')).toBe('application/json;stream=watch');
    await w.until((e) => e.length >= 2);
    expect(w.events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
    const c = await api.post(NS, cm('c'));
    const upd = await api.put(`${NS}/c`, { ...c.body, data: { k: 'v' } });
    const del = await api.del(`${NS}/c`);
    await w.until((e) => e.length >= 5);
    expect(w.events.slice(2).map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(w.events[3]!.object.metadata.resourceVersion).toBe(upd.body.metadata.resourceVersion);
    // DELETED carries the last state with the deletion revision
    expect(w.events[4]!.object.data).toEqual({ k: 'v' });
    expect(Number(w.events[4]!.object.metadata.resourceVersion)).toBeGreaterThan(Number(upd.body.metadata.resourceVersion));
    expect(del.status).toBe(200);
    w.close();
  });

  it('from a resourceVersion: only later changes, no synthetic events', async () => {
    const list = await api.get(NS);
    const w = await open(`${NS}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
    await api.post(NS, cm('d'));
    await w.until((e) => e.length >= 1);
    expect(w.events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'd']]);
    w.close();
  });

  it('resumes from an older version with every change since, in order', async () => {
    const list = await api.get(NS);
    const rv = list.body.metadata.resourceVersion;
    await api.post(NS, cm('e'));
    await api.del(`${NS}/e`);
    const w = await open(`${NS}?watch=1&resourceVersion=${rv}`);
    await w.until((e) => e.length >= 2);
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    w.close();
  });

  it('turns selector transitions into ADDED and DELETED', async () => {
    const w = await open(`${NS}?watch=1&labelSelector=tier%3Dfront`);
    const f = await api.post(NS, cm('f', { tier: 'back' }));
    const f2 = await api.put(`${NS}/f`, { ...f.body, metadata: { ...f.body.metadata, labels: { tier: 'front' } } });
    const f3 = await api.put(`${NS}/f`, { ...f2.body, metadata: { ...f2.body.metadata, labels: { tier: 'back' } } });
    await w.until((e) => e.length >= 2);
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    expect(w.events[1]!.object.metadata.resourceVersion).toBe(f3.body.metadata.resourceVersion);
    w.close();
  });

  it('watches a single object by field selector', async () => {
    const w = await open(`${NS}?watch=1&fieldSelector=metadata.name%3Da`);
    await w.until((e) => e.length >= 1);
    expect(w.events.map((e) => e.object.metadata.name)).toEqual(['a']);
    w.close();
  });

  it('sends bookmarks when allowed, carrying only the resourceVersion', async () => {
    const w = await open(`${NS}?watch=1&allowWatchBookmarks=true&resourceVersion=0`);
    await w.until((e) => e.some((x) => x.type === 'BOOKMARK'), 3000);
    const b = w.events.find((x) => x.type === 'BOOKMARK')!;
    expect(b.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: expect.any(String) } });
    w.close();
  });

  it('streams lists with sendInitialEvents and an initial-events-end bookmark', async () => {
    const w = await open(`${NS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    await w.until((e) => e.some((x) => x.type === 'BOOKMARK'));
    const idx = w.events.findIndex((x) => x.type === 'BOOKMARK');
    expect(w.events.slice(0, idx).every((e) => e.type === 'ADDED')).toBe(true);
    expect(w.events.slice(0, idx).map((e) => e.object.metadata.name)).toEqual(expect.arrayContaining(['a', 'b', 'd', 'f']));
    expect(w.events[idx]!.object.metadata.annotations).toEqual({ 'service.io/initial-events-end': 'true' });
    w.close();
    const bad = await api.get(`${NS}?watch=1&sendInitialEvents=true`);
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    const bad2 = await api.get(`${NS}?watch=1&resourceVersion=1&resourceVersionMatch=NotOlderThan`);
    expect(bad2.status).toBe(422);
    expect(bad2.body.message).toContain('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  });

  it('resumes from a version older than the cache history while the store still has it', async () => {
    const w = await open(`${NS}?watch=1&resourceVersion=2`);
    await w.until((e) => e.length >= 2);
    expect(w.events[0]!.type).toBe('ADDED');
    expect(w.events[0]!.object.metadata.name).toBe('a');
    w.close();
  });

  it('answers a compacted resourceVersion with an ERROR event carrying 410 Expired', async () => {
    await api.post(NS, cm('g'));
    await server.store.compact(await server.store.currentRevision());
    const w = await open(`${NS}?watch=1&resourceVersion=2`);
    await w.until((e) => e.length >= 1);
    expect(w.events[0]!.type).toBe('ERROR');
    expect(w.events[0]!.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    await w.waitEnd();
  });

  it('answers 410 for a compacted resourceVersion the watch cache still holds, as a list does', async () => {
    // the cache for configmaps is running (earlier watches), so it holds these events in its history
    const first = await api.post(NS, cm('h1'));
    await api.post(NS, cm('h2'));
    const rv = first.body.metadata.resourceVersion;
    const live = await open(`${NS}?watch=1&resourceVersion=${rv}`);
    await live.until((e) => e.some((x) => x.object?.metadata?.name === 'h2'));
    live.close();
    await server.store.compact(await server.store.currentRevision());
    expect((await api.get(`${NS}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status).toBe(410);
    const w = await open(`${NS}?watch=1&resourceVersion=${rv}`);
    await w.until((e) => e.length >= 1);
    expect(w.events.map((e) => e.type)).toEqual(['ERROR']);
    expect(w.events[0]!.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    await w.waitEnd();
  });

  it('ends the stream after timeoutSeconds', async () => {
    const w = await open(`${NS}?watch=1&timeoutSeconds=1&resourceVersion=0`);
    await w.waitEnd(4000);
    expect(w.ended).toBe(true);
  });

  it('serves many watchers from one cache and keeps fast ones going when one never reads', async () => {
    const fast = await open(`${NS}?watch=1&resourceVersion=0`);
    // a watcher whose client never reads: open the request and never consume the body
    const ac = new AbortController();
    const stalled = await fetch(`${server.url}${NS}?watch=1&resourceVersion=0`, { signal: ac.signal });
    expect(stalled.status).toBe(200);
    const before = fast.events.length;
    for (let i = 0; i < 30; i++) await api.post(NS, { ...cm(`burst-${i}`), data: { pad: 'x'.repeat(2000) } });
    await fast.until((e) => e.length >= before + 30);
    ac.abort();
    fast.close();
  });
});

describe('watch stream bytes', () => {
  /** A watch over a raw socket: the dechunked body so far, and each chunk checked for framing. */
  async function rawWatch(path: string): Promise<{ body: () => string; close: () => void }> {
    const u = new URL(server.url);
    const sock = connect(Number(u.port), u.hostname);
    sock.write(`GET ${path} HTTP/1.1\r\nHost: ${u.host}\r\nAccept: application/json\r\n\r\n`);
    let raw = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => (raw = Buffer.concat([raw, d])));
    const body = () => {
      let i = raw.indexOf('\r\n\r\n');
      if (i < 0) return '';
      i += 4;
      let out = '';
      for (;;) {
        const eol = raw.indexOf('\r\n', i);
        if (eol < 0) return out;
        const len = parseInt(raw.subarray(i, eol).toString('latin1'), 16);
        if (eol + 2 + len + 2 > raw.length) return out;
        expect(raw.subarray(eol + 2 + len, eol + 4 + len).toString('latin1')).toBe('\r\n');
        out += raw.subarray(eol + 2, eol + 2 + len).toString();
        i = eol + 4 + len;
      }
    };
    return { body, close: () => sock.destroy() };
  }

  it('sends each event as its JSON line, objects byte for byte as a GET serves them, when writes arrive together', async () => {
    const list = await api.get(NS);
    const watches = await Promise.all([0, 1].map(() => rawWatch(`${NS}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`)));
    await expect.poll(() => server.deps.caches.get('/registry/core/configmaps/').watcherCount).toBeGreaterThanOrEqual(2);
    const names = ['g1', 'g2', 'g3', 'g4', 'g5'];
    await Promise.all(names.map((n) => api.post(NS, { ...cm(n), data: { v: n } })));
    for (const w of watches) await expect.poll(() => w.body().split('\n').length - 1, { timeout: 10_000 }).toBe(names.length);
    const lines = watches[0]!.body().split('\n').slice(0, -1);
    const expected: string[] = [];
    for (const line of lines) {
      const name = (JSON.parse(line) as { object: { metadata: { name: string } } }).object.metadata.name;
      const got = await fetch(`${server.url}${NS}/${name}`, { headers: { Accept: 'application/json' } });
      expected.push(`{"type":"ADDED","object":${(await got.text()).trimEnd()}}`);
    }
    expect(lines.map((l) => (JSON.parse(l) as { object: { metadata: { name: string } } }).object.metadata.name).sort()).toEqual(names);
    expect(lines).toEqual(expected);
    // every watcher gets the same bytes
    expect(watches[1]!.body()).toBe(watches[0]!.body());
    for (const w of watches) w.close();
  });
});
