// apiregistration.k8s.io/v1 APIServices: the local group-versions listed as upstream's autoregister controller
// creates them (`v1.apps  Local  True`), kube-aggregator's validation, and `kubectl get apiservices`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
let kc: string;
beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  kc = kubeconfigFor(server.url);
});
afterAll(() => server.close());

const SVCS = '/apis/apiregistration.k8s.io/v1/apiservices';

function causes(body: any): string[] {
  return (body.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);
}

describe('APIServices', () => {
  it('lists a Local, Available APIService per served group-version', async () => {
    const list = await api.get(SVCS);
    expect(list.status).toBe(200);
    const names = list.body.items.map((i: any) => i.metadata.name);
    for (const n of ['v1.', 'v1.apps', 'v2.autoscaling', 'v1.certificates.k8s.io', 'v1.certificates.service.io', 'v1.apiregistration.k8s.io']) expect(names).toContain(n);
    const apps = list.body.items.find((i: any) => i.metadata.name === 'v1.apps');
    expect(apps.spec).toEqual({ group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    expect(apps.spec.service).toBeUndefined();
    expect(apps.status.conditions[0]).toMatchObject({ type: 'Available', status: 'True', reason: 'Local' });
    const core = list.body.items.find((i: any) => i.metadata.name === 'v1.');
    expect(core.spec).toEqual({ version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
  });

  it('kubectl get apiservices prints NAME SERVICE AVAILABLE AGE', async () => {
    const r = await kubectl(kc, ['get', 'apiservices']);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]!.split(/\s{2,}/)).toEqual(['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    expect(lines.some((l) => /^v1\.apps\s+Local\s+True\s+\S+$/.test(l))).toBe(true);
    expect(lines.some((l) => /^v1\.\s+Local\s+True\s+\S+$/.test(l))).toBe(true);
  });

  it('validates as kube-aggregator: version.group names, priorities, local services without a CA bundle', async () => {
    const base = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService' };
    const ok = await api.post(SVCS, {
      ...base,
      metadata: { name: 'v1beta1.metrics.example.com' },
      spec: { group: 'metrics.example.com', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics' }, insecureSkipTLSVerify: true },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.spec.service.port).toBe(443);
    const table = await kubectl(kc, ['get', 'apiservice', 'v1beta1.metrics.example.com', '--no-headers']);
    // Unknown until the availability controller has looked (test/rest/apiservice-availability.test.ts covers its reasons)
    expect(table.stdout).toMatch(/^v1beta1\.metrics\.example\.com\s+kube-system\/metrics\s+(Unknown|False \(ServiceNotFound\))\s+\S+/);
    const bad = await api.post(SVCS, {
      ...base,
      metadata: { name: 'v1.wrong.example.com' },
      spec: { group: 'metrics.example.com', version: 'v1', groupPriorityMinimum: 0, versionPriority: 2000, caBundle: Buffer.from('x').toString('base64') },
    });
    expect(bad.status).toBe(422);
    const got = causes(bad.body);
    expect(got).toContain('metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1.metrics.example.com"');
    expect(got).toContain('spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000');
    expect(got).toContain('spec.versionPriority: Invalid value: 2000: must be positive and less than 1000');
    expect(got).toContain('spec.caBundle: Invalid value: "1 bytes": local APIServices may not have a caBundle');
  });

  it('registers the same set again at a restart over the same storage, without duplicates', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'apisvc-')), 'db');
    const first = await testServer({ store: 'sqlite', dataDir });
    const a = (await client(first.url).get(SVCS)).body.items;
    await first.close();
    const second = await testServer({ store: 'sqlite', dataDir });
    try {
      const b = (await client(second.url).get(SVCS)).body.items;
      expect(b.map((i: any) => i.metadata.name)).toEqual(a.map((i: any) => i.metadata.name));
      expect(b.map((i: any) => i.metadata.uid)).toEqual(a.map((i: any) => i.metadata.uid));
    } finally {
      await second.close();
    }
  });
});
