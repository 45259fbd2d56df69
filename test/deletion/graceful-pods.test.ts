// Graceful pod deletion: unscheduled pods go at once; scheduled pods get deletionTimestamp + grace period and are
// removed by the server when it runs out (there is no kubelet). The deadline lives in the store: restarts keep it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';
import { eventually, gone, ns, pod, type Api } from './support.js';

let server: ApiServer;
let api: Api;
const base = '/api/v1/namespaces/graceful/pods';

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  expect((await api.post('/api/v1/namespaces', ns('graceful'))).status).toBe(201);
});
afterAll(() => server.close());

const seconds = (ts: string) => Date.parse(ts) / 1000;

describe('graceful pod deletion', () => {
  it('deletes a pod without a node at once and answers with the pod', async () => {
    const c = (await api.post(base, pod('unscheduled'))).body;
    const d = await api.del(`${base}/unscheduled`);
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ kind: 'Pod', metadata: { name: 'unscheduled', uid: c.metadata.uid, deletionGracePeriodSeconds: 0 } });
    expect((await api.get(`${base}/unscheduled`)).status).toBe(404);
  });

  it('gives a scheduled pod spec.terminationGracePeriodSeconds (default 30) before it goes', async () => {
    await api.post(base, pod('scheduled', { nodeName: 'node-1' }));
    const before = Date.now() / 1000;
    const d = await api.del(`${base}/scheduled`);
    expect(d.status).toBe(200);
    expect(d.body.kind).toBe('Pod');
    expect(d.body.metadata.deletionGracePeriodSeconds).toBe(30);
    // deletionTimestamp is when the grace period ends
    expect(seconds(d.body.metadata.deletionTimestamp)).toBeGreaterThanOrEqual(Math.floor(before) + 29);
    const g = await api.get(`${base}/scheduled`);
    expect(g.status).toBe(200);
    expect(g.body.metadata.deletionTimestamp).toBe(d.body.metadata.deletionTimestamp);

    // the same delete again changes nothing; a longer grace period is ignored
    const again = await api.del(`${base}/scheduled`, { gracePeriodSeconds: 60 });
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(d.body.metadata.resourceVersion);
    // a shorter one moves the deadline
    const shorter = await api.del(`${base}/scheduled`, { gracePeriodSeconds: 10 });
    expect(shorter.body.metadata.deletionGracePeriodSeconds).toBe(10);
    expect(seconds(shorter.body.metadata.deletionTimestamp)).toBe(seconds(d.body.metadata.deletionTimestamp) - 20);
    // and zero finishes it
    const now = await api.del(`${base}/scheduled`, { gracePeriodSeconds: 0 });
    expect(now.status).toBe(200);
    expect((await api.get(`${base}/scheduled`)).status).toBe(404);
  });

  it('uses the pod\'s own terminationGracePeriodSeconds and removes it when the period runs out', async () => {
    const c = (await api.post(base, pod('short', { nodeName: 'node-1', terminationGracePeriodSeconds: 1 }))).body;
    const w = await WatchStream.open(`${server.url}${base}?watch=true&resourceVersion=${c.metadata.resourceVersion}`);
    try {
      const d = await api.del(`${base}/short`);
      expect(d.body.metadata.deletionGracePeriodSeconds).toBe(1);
      const evs = await w.until((e) => e.some((x) => x.type === 'DELETED'));
      expect(evs.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
      // the server finished it like a kubelet: grace period zero
      expect(evs[1]!.object.metadata.deletionGracePeriodSeconds).toBe(0);
    } finally {
      w.close();
    }
  });

  it('honours gracePeriodSeconds from the request, and deletes finished pods at once', async () => {
    await api.post(base, pod('requested', { nodeName: 'node-1' }));
    const d = await api.del(`${base}/requested?gracePeriodSeconds=1`);
    expect(d.body.metadata.deletionGracePeriodSeconds).toBe(1);
    await gone(api, `${base}/requested`);

    const c = (await api.post(base, pod('done', { nodeName: 'node-1' }))).body;
    const st = await api.put(`${base}/done/status`, { ...c, status: { phase: 'Succeeded' } });
    expect(st.status).toBe(200);
    expect((await api.del(`${base}/done`)).status).toBe(200);
    expect((await api.get(`${base}/done`)).status).toBe(404);
  });

  it('keeps a pod with finalizers after its grace period until they are removed', async () => {
    await api.post(base, pod('final', { nodeName: 'node-1', terminationGracePeriodSeconds: 1 }, { finalizers: ['example.com/keep'] }));
    await api.del(`${base}/final`);
    // the grace period ran out: the server set it to 0, the finalizer still holds the pod
    const held = await eventually(async () => {
      const g = await api.get(`${base}/final`);
      expect(g.body.metadata.deletionGracePeriodSeconds).toBe(0);
      return g.body;
    });
    expect(held.metadata.finalizers).toEqual(['example.com/keep']);
    const r = await api.put(`${base}/final`, { ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect(r.status).toBe(200);
    expect((await api.get(`${base}/final`)).status).toBe(404);
  });

  it('dry-run leaves a scheduled pod alone', async () => {
    await api.post(base, pod('dry', { nodeName: 'node-1' }));
    const d = await api.del(`${base}/dry`, { dryRun: ['All'] });
    expect(d.body.metadata.deletionTimestamp).toBeTruthy();
    expect((await api.get(`${base}/dry`)).body.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('grace periods across a restart', () => {
  it('re-arms the grace period of a pod from the store after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'periscope-grace-'));
    try {
      let s = await testServer({ store: 'sqlite', dataDir });
      let a = client(s.url);
      await a.post('/api/v1/namespaces', ns('g'));
      await a.post('/api/v1/namespaces/g/pods', pod('p', { nodeName: 'node-1', terminationGracePeriodSeconds: 1 }));
      const d = await a.del('/api/v1/namespaces/g/pods/p');
      expect(d.body.metadata.deletionGracePeriodSeconds).toBe(1);
      await s.close();
      s = await testServer({ store: 'sqlite', dataDir });
      a = client(s.url);
      try {
        await gone(a, '/api/v1/namespaces/g/pods/p');
      } finally {
        await s.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
