// Discovery: aggregated when the server offers it, legacy otherwise, with the same result; CRDs appear.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { ApiClient, discover, findResources, resourceForKind, suggestResources } from '../../src/client/index.js';
import { testServer } from '../helpers/server.js';
import { postJson } from './fixtures.js';
import { simpleCrd } from '../helpers/crd.js';

let server: ApiServer;

beforeAll(async () => {
  server = await testServer();
});
afterAll(async () => {
  await server?.close();
});

const crd = simpleCrd({ group: 'toys.example.com', plural: 'widgets', kind: 'Widget', shortNames: ['wd'], apiGroup: 'apiextensions.service.io' });

describe('discovery', () => {
  it('reads the aggregated form and the legacy documents to the same model', async () => {
    const agg = await discover(new ApiClient({ baseUrl: server.url }));
    expect(agg.aggregated).toBe(true);
    const legacyClient = new ApiClient({
      baseUrl: server.url,
      // a server without aggregated discovery answers the plain JSON fallback
      fetch: (input, init) => {
        const h = new Headers(init?.headers);
        h.set('accept', 'application/json');
        return fetch(input, { ...init, headers: h });
      },
    });
    const legacy = await discover(legacyClient);
    expect(legacy.aggregated).toBe(false);
    const summary = (d: typeof agg) =>
      d.resources.map((r) => `${r.group}/${r.version}/${r.resource}:${r.kind}:${r.namespaced}:${r.shortNames.join(',')}:${r.subresources.sort().join(',')}:${r.preferred}`).sort();
    // the legacy APIGroupList lists aliased groups in both spellings; aggregated discovery (the explorer negotiates
    // the neutral spelling first) lists each once
    const twinOfNeutral = (g: string) => g.endsWith('.k8s.io') && legacy.groups.some((x) => x.name === g.replace(/\.k8s\.io$/, '.service.io'));
    expect(agg.groups.some((g) => twinOfNeutral(g.name))).toBe(false);
    expect(agg.groups.map((g) => g.name)).toContain('rbac.authorization.service.io');
    expect(summary({ ...legacy, resources: legacy.resources.filter((r) => !twinOfNeutral(r.group)) })).toEqual(summary(agg));
    expect(legacy.groups.map((g) => g.name).filter((g) => !twinOfNeutral(g)).sort()).toEqual(agg.groups.map((g) => g.name).sort());
    const deploy = agg.resources.find((r) => r.resource === 'deployments')!;
    expect(deploy).toMatchObject({ group: 'apps', version: 'v1', kind: 'Deployment', namespaced: true, shortNames: ['deploy'] });
    expect(deploy.subresources).toContain('scale');
  });

  it('finds types by plural, singular, kind, short name and qualified name', async () => {
    const d = await discover(new ApiClient({ baseUrl: server.url }));
    for (const q of ['deploy', 'deployments', 'Deployment', 'deployment', 'deployments.apps']) expect(findResources(d, q).map((r) => r.resource)).toEqual(['deployments']);
    expect(findResources(d, 'po').map((r) => r.resource)).toEqual(['pods']);
    expect(suggestResources(d, 'po')[0]!.resource).toBe('pods');
    expect(resourceForKind(d, 'apps/v1', 'ReplicaSet')?.resource).toBe('replicasets');
    // discovery lists rbac once, in the negotiated (neutral) spelling; an owner reference may name either
    for (const av of ['rbac.authorization.k8s.io/v1', 'rbac.authorization.service.io/v1'])
      expect(resourceForKind(d, av, 'Role')).toMatchObject({ group: 'rbac.authorization.service.io', resource: 'roles' });
    expect(resourceForKind(d, 'v1', 'Pod')?.resource).toBe('pods');
  });

  it('shows a CRD once it is established', async () => {
    const client = new ApiClient({ baseUrl: server.url });
    expect(findResources(await discover(client), 'wd')).toEqual([]);
    await postJson(server.url, '/apis/apiextensions.service.io/v1/customresourcedefinitions', crd);
    let found: string[] = [];
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      found = findResources(await discover(client), 'wd').map((r) => `${r.group}/${r.version}/${r.resource}`);
      if (found.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(found).toEqual(['toys.example.com/v1/widgets']);
  });
});
