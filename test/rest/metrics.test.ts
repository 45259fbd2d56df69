// GET /metrics: Prometheus text with the feature gates as upstream exposes them (kubernetes_feature_enabled),
// request counts and stored object counts; authorized as the non-resource URL /metrics.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { parseFeatureGates } from '../../src/server/features.js';
import { authzServer, bind, type AuthzFixture } from '../authz/support.js';
import { client, testServer } from '../helpers/server.js';

describe('/metrics', () => {
  let server: ApiServer;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    server = await testServer({ featureGates: parseFeatureGates('WatchList=false,CBORServingAndStorage=true') });
    api = client(server.url);
  });
  afterAll(() => server.close());

  it('lists every feature gate with its stage and state, as --feature-gates set it', async () => {
    const r = await api.get('/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(r.text).toContain('# TYPE kubernetes_feature_enabled gauge\n');
    expect(r.text).toContain('kubernetes_feature_enabled{name="WatchList",stage="BETA"} 0\n');
    expect(r.text).toContain('kubernetes_feature_enabled{name="CBORServingAndStorage",stage="ALPHA"} 1\n');
    expect(r.text).toContain('kubernetes_feature_enabled{name="APIResponseCompression",stage="BETA"} 1\n');
    expect(r.text).toMatch(/^kubernetes_build_info\{.*git_version="v1\.33\.[^"]*".*\} 1$/m);
  });

  it('counts finished requests of served resources, and stored objects', async () => {
    const ns = '/api/v1/namespaces/default/configmaps';
    for (const name of ['a', 'b']) expect((await api.post(ns, { metadata: { name } })).status).toBe(201);
    await api.get(ns);
    await api.get(`${ns}/a`);
    await api.get(`${ns}/missing`);
    await api.post(`${ns}?dryRun=All`, { metadata: { name: 'c' } });
    await api.get('/api/v1/no-such-resource-xyz'); // never a label value
    const text = (await api.get('/metrics')).text;
    const line = (l: Record<string, string>) => {
      const all = { code: '200', component: 'apiserver', dry_run: '', group: '', resource: 'configmaps', scope: 'namespace', subresource: '', verb: 'LIST', version: 'v1', ...l };
      return `apiserver_request_total{${Object.entries(all).map(([k, v]) => `${k}="${v}"`).join(',')}}`;
    };
    expect(text).toContain(`${line({ code: '201', scope: 'resource', verb: 'POST' })} 2\n`);
    expect(text).toContain(`${line({ code: '201', scope: 'resource', verb: 'POST', dry_run: 'All' })} 1\n`);
    expect(text).toContain(`${line({})} 1\n`);
    expect(text).toContain(`${line({ scope: 'resource', verb: 'GET' })} 1\n`);
    expect(text).toContain(`${line({ code: '404', scope: 'resource', verb: 'GET' })} 1\n`);
    expect(text).not.toContain('no-such-resource-xyz');
    expect(text).toMatch(/^apiserver_storage_objects\{resource="configmaps"\} [2-9]\d*$/m);
  });

  it('answers other methods 405', async () => {
    expect((await api.post('/metrics', {})).status).toBe(405);
  });
});

describe('/metrics authorization', () => {
  let f: AuthzFixture;
  let dir: string;
  beforeAll(async () => {
    // the explorer served beside the API must not make /metrics public
    dir = mkdtempSync(join(tmpdir(), 'periscope-metrics-ui-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>x</title>');
    f = await authzServer({ staticDir: dir, anonymousAuth: false });
  });
  afterAll(async () => {
    await f.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is forbidden to a user without the grant, and unauthenticated requests get 401', async () => {
    const r = await f.as('dave').get('/metrics');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ kind: 'Status', code: 403, message: 'forbidden: User "dave" cannot get path "/metrics"' });
    expect((await client(f.srv.url).get('/metrics')).status).toBe(401);
  });

  it('is served to system:monitoring (bootstrap role)', async () => {
    await bind(f, 'erin', 'system:monitoring', 'ClusterRole');
    const r = await f.as('erin').get('/metrics');
    expect(r.status).toBe(200);
    expect(r.text).toContain('kubernetes_feature_enabled{name="WatchList"');
  });
});
