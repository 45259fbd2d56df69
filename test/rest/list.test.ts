import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
const NS = '/api/v1/namespaces/paging/configmaps';

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'paging' } });
  for (let i = 0; i < 10; i++)
    await api.post(NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { parity: i % 2 ? 'odd' : 'even', idx: String(i) } } });
});
afterAll(() => server.close());

const names = (r: any) => r.body.items.map((i: any) => i.metadata.name);

describe('paged lists', () => {
  it('pages through one consistent snapshot, in key order', async () => {
    const first = await api.get(`${NS}?limit=4`);
    expect(names(first)).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3']);
    expect(first.body.metadata.continue).toBeTruthy();
    expect(first.body.metadata.remainingItemCount).toBe(6);
    const rv = first.body.metadata.resourceVersion;
    // a change after the first page never shows up in later pages
    await api.post(NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-5a' } });
    await api.del(`${NS}/cm-7`);
    const second = await api.get(`${NS}?limit=4&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(second.body.metadata.resourceVersion).toBe(rv);
    expect(names(second)).toEqual(['cm-4', 'cm-5', 'cm-6', 'cm-7']);
    expect(second.body.metadata.remainingItemCount).toBe(2);
    const third = await api.get(`${NS}?limit=4&continue=${encodeURIComponent(second.body.metadata.continue)}`);
    expect(names(third)).toEqual(['cm-8', 'cm-9']);
    expect(third.body.metadata.continue).toBeUndefined();
    expect(third.body.metadata.remainingItemCount).toBeUndefined();
    // restore
    await api.del(`${NS}/cm-5a`);
    await api.post(NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-7', labels: { parity: 'odd', idx: '7' } } });
  });

  it('omits remainingItemCount with selectors and fills pages with matches', async () => {
    const r = await api.get(`${NS}?limit=2&labelSelector=parity%3Dodd`);
    expect(names(r)).toEqual(['cm-1', 'cm-3']);
    expect(r.body.metadata.continue).toBeTruthy();
    expect(r.body.metadata.remainingItemCount).toBeUndefined();
  });

  it('reads an exact past version', async () => {
    const before = await api.get(NS);
    const rv = before.body.metadata.resourceVersion;
    await api.post(NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later' } });
    const exact = await api.get(`${NS}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(exact.body.metadata.resourceVersion).toBe(rv);
    expect(names(exact)).not.toContain('later');
    const notOlder = await api.get(`${NS}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    expect(names(notOlder)).toContain('later');
    // limit with rv and no match means Exact
    const limited = await api.get(`${NS}?resourceVersion=${rv}&limit=100`);
    expect(names(limited)).not.toContain('later');
    await api.del(`${NS}/later`);
  });

  it('rejects invalid option combinations as upstream', async () => {
    const cases: [string, number, string][] = [
      ['resourceVersionMatch=Exact', 422, 'resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['resourceVersion=0&resourceVersionMatch=Exact', 422, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
      ['resourceVersion=1&resourceVersionMatch=Sometimes', 422, 'supported values: "Exact", "NotOlderThan"'],
      ['sendInitialEvents=true', 422, 'sendInitialEvents is forbidden for list'],
      ['limit=2&continue=abc&resourceVersion=5', 400, 'specifying resource version is not allowed when using continue'],
      ['limit=2&continue=not-a-token', 400, 'continue key is not valid'],
      ['labelSelector=a%20in%20(', 400, 'labelSelector'],
      ['fieldSelector=spec.unknown%3Dx', 400, 'field label not supported: spec.unknown'],
    ];
    for (const [q, code, msg] of cases) {
      const r = await api.get(`${NS}?${q}`);
      expect(r.status, q).toBe(code);
      expect(r.body.message, q).toContain(msg);
    }
    const withMatch = await api.get(`${NS}?limit=2`);
    const r = await api.get(`${NS}?limit=2&continue=${withMatch.body.metadata.continue}&resourceVersion=3&resourceVersionMatch=Exact`);
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('resourceVersionMatch is forbidden when continue is provided');
  });

  it('answers 504 with Retry-After for a version from the future', async () => {
    const r = await api.get(`${NS}?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`);
    expect(r.status).toBe(504);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.body.message).toContain('Too large resource version');
    expect(r.body.details.causes[0].reason).toBe('ResourceVersionTooLarge');
  });

  it('answers 410 Expired for compacted versions and expired continue tokens', async () => {
    const first = await api.get(`${NS}?limit=3`);
    const rv = Number(first.body.metadata.resourceVersion);
    await api.post(NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bump' } });
    await server.store.compact(await server.store.currentRevision());
    const exact = await api.get(`${NS}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(410);
    expect(exact.body.reason).toBe('Expired');
    expect(exact.body.message).toBe('The resourceVersion for the provided list is too old.');
    const cont = await api.get(`${NS}?limit=3&continue=${first.body.metadata.continue}`);
    expect(cont.status).toBe(410);
    expect(cont.body.reason).toBe('Expired');
    expect(cont.body.message).toContain('The provided continue parameter is too old');
    const fresh = cont.body.metadata.continue;
    expect(fresh).toBeTruthy();
    const resumed = await api.get(`${NS}?limit=3&continue=${fresh}`);
    expect(resumed.status).toBe(200);
    expect(names(resumed)[0]).toBe('cm-3');
  });

  it('selects by field and label', async () => {
    const byName = await api.get(`${NS}?fieldSelector=metadata.name%3Dcm-2`);
    expect(names(byName)).toEqual(['cm-2']);
    const notIn = await api.get(`${NS}?labelSelector=idx%20notin%20(0,1,2,3,4,5,6,7),parity`);
    expect(names(notIn)).toEqual(['cm-8', 'cm-9']);
    const exists = await api.get(`${NS}?labelSelector=!parity`);
    expect(names(exists)).toEqual(['bump']);
  });
});
