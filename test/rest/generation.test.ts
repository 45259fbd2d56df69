// A spec change bumps metadata.generation by exactly one, whatever the verb; the stored object the watch
// cache serves is never written into (a merge patch shares untouched subtrees with it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, testServer } from '../helpers/server.js';
import type { ApiServer } from '../../src/server/app.js';

describe('generation', () => {
  let s: ApiServer;
  let c: ReturnType<typeof client>;
  const path = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
  beforeAll(async () => {
    s = await testServer({ controllers: [] });
    c = client(s.url);
  });
  afterAll(() => s.close());

  it('goes up by one per spec change for merge, strategic, JSON patch and PUT', async () => {
    await c.post(path, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'g' }, spec: { maxUnavailable: 1, selector: { matchLabels: { a: 'b' } } } });
    const before = (await c.get(`${path}/g`)).body;
    expect(before.metadata.generation).toBe(1);
    const merge = await c.patch(`${path}/g`, { spec: { maxUnavailable: null, minAvailable: 0 } }, 'application/merge-patch+json');
    expect(merge.body.metadata.generation).toBe(2);
    const smp = await c.patch(`${path}/g`, { spec: { minAvailable: 1 } }, 'application/strategic-merge-patch+json');
    expect(smp.body.metadata.generation).toBe(3);
    const json = await c.patch(`${path}/g`, [{ op: 'replace', path: '/spec/minAvailable', value: 2 }], 'application/json-patch+json');
    expect(json.body.metadata.generation).toBe(4);
    const cur = (await c.get(`${path}/g`)).body;
    const put = await c.put(`${path}/g`, { ...cur, spec: { ...cur.spec, minAvailable: 3 } });
    expect(put.body.metadata.generation).toBe(5);
    const labels = await c.patch(`${path}/g`, { metadata: { labels: { x: 'y' } } }, 'application/merge-patch+json');
    expect(labels.body.metadata.generation).toBe(5);
  });
});
