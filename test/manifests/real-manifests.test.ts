// Real manifests with every kubectl from 1.27 to 1.33 (default validation): a bundle of the kinds public Helm
// charts carry is applied client-side, re-applied (unchanged), and applied server-side twice; `kubectl explain`
// works for each new kind on the oldest and newest client. One server; the versions run in parallel.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor } from '../helpers/kubectl.js';
import { testServer } from '../helpers/server.js';
import { BUNDLE_OBJECTS, bundle } from './bundle.js';

const VERSIONS = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'];
const binDir = existsSync('/usr/bin/kubectl') ? dirname(realpathSync('/usr/bin/kubectl')) : '/usr/bin';
const binary = (v: string) => join(binDir, `kubectl.${v}`);
const available = VERSIONS.filter((v) => existsSync(binary(v)));

/**
 * Kinds upstream itself reports "configured" on every client-side re-apply: the PDB selector's patch strategy is
 * `replace` (its computed patch is never empty), and StatefulSet volumeClaimTemplates (an atomic list) gain
 * server defaults (status.phase Pending, volumeMode) that the manifest does not carry.
 */
const ALWAYS_CONFIGURED = ['statefulset.apps/db', 'poddisruptionbudget.policy/web'];

let server: ApiServer;
let kubeconfig: string;
const home = mkdtempSync(join(tmpdir(), 'real-manifests-'));

function run(v: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(binary(v), ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000, env: { ...process.env, HOME: join(home, v), EDITOR: 'true' } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

const lines = (s: string) => s.split('\n').filter(Boolean);
const ns = (v: string, mode: string) => `app-${mode}-${v.replace('.', '')}`;

beforeAll(async () => {
  server = await testServer();
  kubeconfig = kubeconfigFor(server.url);
});
afterAll(() => server.close());

describe.skipIf(available.length === 0)('real manifests across kubectl versions', () => {
  it('client-side apply creates every object, and a re-apply changes nothing', async () => {
    const results = await Promise.all(
      available.map(async (v) => {
        const doc = bundle(ns(v, 'csa'));
        const first = await run(v, ['apply', '-f', '-'], doc);
        const second = await run(v, ['apply', '-f', '-'], doc);
        return { v, first, second };
      }),
    );
    for (const { v, first, second } of results) {
      expect(first.stderr, v).toBe('');
      expect(lines(first.stdout).filter((l) => l.endsWith(' created')), v).toHaveLength(BUNDLE_OBJECTS);
      expect(second.stderr, v).toBe('');
      const changed = lines(second.stdout).filter((l) => !l.endsWith(' unchanged'));
      expect(changed, v).toEqual(ALWAYS_CONFIGURED.map((o) => `${o} configured`));
    }
  });

  it('server-side apply creates every object and re-applies without conflicts', async () => {
    const results = await Promise.all(
      available.map(async (v) => {
        const doc = bundle(ns(v, 'ssa'));
        const first = await run(v, ['apply', '--server-side', '-f', '-'], doc);
        const second = await run(v, ['apply', '--server-side', '-f', '-'], doc);
        return { v, first, second };
      }),
    );
    for (const { v, first, second } of results) {
      expect(first.stderr, v).toBe('');
      expect(lines(first.stdout).filter((l) => l.endsWith(' serverside-applied')), v).toHaveLength(BUNDLE_OBJECTS);
      expect(second.stderr, v).toBe('');
      expect(lines(second.stdout).filter((l) => l.endsWith(' serverside-applied')), v).toHaveLength(BUNDLE_OBJECTS);
    }
  });

  it('server-side apply after a client-side apply hands ownership over without conflicts; another changes nothing', async () => {
    const rvs = async (v: string, doc: string) => (await run(v, ['get', '-f', '-', '-o', 'jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.resourceVersion} {end}'], doc)).stdout;
    const results = await Promise.all(
      available.map(async (v) => {
        const doc = bundle(ns(v, 'mig'));
        const csa = await run(v, ['apply', '-f', '-'], doc);
        const ssa = await run(v, ['apply', '--server-side', '-f', '-'], doc);
        const before = await rvs(v, doc);
        const again = await run(v, ['apply', '--server-side', '-f', '-'], doc);
        return { v, csa, ssa, again, before, after: await rvs(v, doc) };
      }),
    );
    for (const { v, csa, ssa, again, before, after } of results) {
      expect(csa.stderr, v).toBe('');
      expect(ssa.stderr, v).toBe('');
      expect(lines(ssa.stdout).filter((l) => l.endsWith(' serverside-applied')), v).toHaveLength(BUNDLE_OBJECTS);
      expect(again.stderr, v).toBe('');
      // no object written again: same resourceVersions
      expect(after, v).toBe(before);
    }
  });

  it('replace -f - of a List (the re-encrypt idiom) and edit work on the oldest and newest client', async () => {
    for (const v of [available[0]!, available[available.length - 1]!]) {
      const list = await run(v, ['get', 'secrets', '-A', '-o', 'json']);
      expect(list.code, v).toBe(0);
      const replaced = await run(v, ['replace', '-f', '-'], list.stdout);
      expect(replaced.stderr, v).toBe('');
      expect(lines(replaced.stdout).length, v).toBeGreaterThan(0);
      expect(lines(replaced.stdout).every((l) => l.endsWith(' replaced')), v).toBe(true);
      const edit = await run(v, ['edit', '-n', ns(v, 'csa'), 'configmap', 'web-config']);
      expect(edit.code, v).toBe(0);
      expect(edit.stderr, v).toMatch(/^Edit cancelled, no changes made\.$/m);
    }
  });

  it('resolves short names once: no alias warning, no duplicates in `get all`', async () => {
    const v = available[available.length - 1]!;
    const crds = await run(v, ['get', 'crd']);
    expect(crds.stderr).toBe('');
    const all = await run(v, ['get', 'all', '-n', ns(v, 'csa'), '-o', 'name']);
    expect(all.stderr).toBe('');
    const names = lines(all.stdout);
    expect(names).toEqual([...new Set(names)]);
    expect(names).toEqual(expect.arrayContaining(['horizontalpodautoscaler.autoscaling/web', 'replicationcontroller/legacy', 'deployment.apps/web']));
  });

  it('reports an unknown kind for its one object and applies the rest of the file', async () => {
    // one ConfigMap per kubectl: two clients applying the same new object at once race (one gets AlreadyExists)
    const doc = (v: string) => `apiVersion: nope.example.com/v1
kind: Thing
metadata:
  name: t
  namespace: default
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: after-unknown-${v.replace('.', '-')}
  namespace: default
data:
  a: "1"
`;
    const results = await Promise.all([available[0]!, available[available.length - 1]!].map((v) => run(v, ['apply', '-f', '-'], doc(v))));
    for (const r of results) {
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^configmap\/after-unknown-1-\d+ (created|unchanged)$/m);
      expect(r.stderr).toMatch(/no matches for kind "Thing" in version "nope.example.com\/v1"/);
      expect(r.stderr).not.toMatch(/content type/);
    }
  });

  it.each([available[0]!, available[available.length - 1]!])('kubectl %s create subcommands that send protobuf bodies work for the new groups', async (v) => {
    // kubectl up to 1.30 autoscales through autoscaling/v1, later ones through v2
    const n = `tutorial-${v.replace('.', '')}`;
    expect((await run(v, ['create', 'namespace', n])).code).toBe(0);
    const steps = [
      ['create', 'deployment', 'web', '--image=nginx:1.27', '-n', n],
      ['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=80', '-n', n],
      ['create', 'ingress', 'web', '--rule=web.example.com/*=web:80', '--class=nginx', '-n', n],
      ['create', 'priorityclass', `${n}-zero`, '--value=0'],
    ];
    for (const step of steps) {
      const r = await run(v, step);
      expect(r.stderr, step.join(' ')).toBe('');
      expect(r.code, step.join(' ')).toBe(0);
    }
    const hpa = JSON.parse((await run(v, ['get', 'hpa', 'web', '-n', n, '-o', 'json'])).stdout);
    expect(hpa.spec).toMatchObject({ minReplicas: 2, maxReplicas: 5, scaleTargetRef: { kind: 'Deployment', name: 'web' } });
    const ing = JSON.parse((await run(v, ['get', 'ingress', 'web', '-n', n, '-o', 'json'])).stdout);
    expect(ing.spec.rules[0]).toEqual({ host: 'web.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } });
    // an explicit zero survives the protobuf body (a Go field without omitempty)
    expect(JSON.parse((await run(v, ['get', 'priorityclass', `${n}-zero`, '-o', 'json'])).stdout).value).toBe(0);
  });

  it('explains every new kind on the oldest and newest client', async () => {
    const kinds = ['ingresses', 'ingressclasses', 'networkpolicies', 'horizontalpodautoscalers', 'storageclasses', 'csidrivers', 'volumeattachments',
      'priorityclasses', 'endpointslices', 'resourcequotas', 'limitranges', 'replicationcontrollers', 'podtemplates',
      'controllerrevisions', 'runtimeclasses', 'validatingwebhookconfigurations', 'mutatingwebhookconfigurations', 'csinodes', 'csistoragecapacities',
      'certificatesigningrequests', 'apiservices', 'flowschemas', 'prioritylevelconfigurations'];
    const cases = [...kinds.map((k) => [k]), ['events', '--api-version=events.k8s.io/v1']];
    // one client at a time per version (they share a discovery/OpenAPI cache), the two versions side by side
    const outs = await Promise.all(
      [available[0]!, available[available.length - 1]!].map(async (v) => {
        const out: [string, { stdout: string; stderr: string }][] = [];
        for (const c of cases) out.push([`${v} explain ${c.join(' ')}`, await run(v, ['explain', ...c])]);
        return out;
      }),
    );
    for (const [what, r] of outs.flat()) {
      expect(r.stderr, what).toBe('');
      expect(r.stdout, what).toMatch(/^(GROUP|KIND):/m);
      expect(r.stdout, what).toMatch(/FIELDS:/);
    }
  });
});
