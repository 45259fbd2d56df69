// events.k8s.io/v1 Events share the storage of core v1 Events, as upstream: either API reads every event,
// converted (note <-> message, regarding <-> involvedObject, reportingController <-> reportingComponent ...).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';
import { WatchStream } from '../helpers/watch.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
});
afterAll(() => server.close());

const CORE = '/api/v1/namespaces/default/events';
const NEW = '/apis/events.k8s.io/v1/namespaces/default/events';

describe('events in two APIs over one storage', () => {
  it('shows an events.k8s.io event through the core API, converted', async () => {
    const r = await api.post(NEW, {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e1' }, eventTime: '2025-01-01T00:00:00.000000Z',
      reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Sync', reason: 'Synced', type: 'Normal', note: 'all good',
      regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'all good', regarding: { kind: 'Pod', name: 'p' } });
    const core = await api.get(`${CORE}/e1`);
    expect(core.body).toMatchObject({ apiVersion: 'v1', message: 'all good', involvedObject: { kind: 'Pod', name: 'p' }, reportingComponent: 'example.com/ctl', reportingInstance: 'ctl-1', reason: 'Synced', action: 'Sync' });
    expect(core.body.note).toBeUndefined();
  });

  it('shows a core event through events.k8s.io, and both lists hold both', async () => {
    expect((await api.post(CORE, { metadata: { name: 'e2' }, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'Ready', message: 'node ready', type: 'Normal', count: 3, source: { component: 'kubelet' } })).status).toBe(201);
    const v1 = await api.get(`${NEW}/e2`);
    expect(v1.body).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'node ready', regarding: { kind: 'Node', name: 'n1' }, deprecatedCount: 3, deprecatedSource: { component: 'kubelet' } });
    expect(v1.body.message).toBeUndefined();
    const both = (await api.get(NEW)).body.items.map((e: any) => [e.metadata.name, e.note]);
    expect(both).toEqual([['e1', 'all good'], ['e2', 'node ready']]);
    expect((await api.get(CORE)).body.items.map((e: any) => [e.metadata.name, e.message])).toEqual([['e1', 'all good'], ['e2', 'node ready']]);
  });

  it('updates a core event through events.k8s.io and watches it in either form', async () => {
    const w = await WatchStream.open(`${server.url}${CORE}?watch=1&resourceVersion=0`);
    try {
      const cur = (await api.get(`${NEW}/e2`)).body;
      expect((await api.put(`${NEW}/e2`, { ...cur, note: 'node ready again' })).status).toBe(200);
      await w.until((evs) => evs.some((e) => e.type === 'MODIFIED'));
      const mod = w.events.find((e) => e.type === 'MODIFIED')!;
      expect(mod.object).toMatchObject({ apiVersion: 'v1', message: 'node ready again' });
    } finally {
      w.close();
    }
  });
});
