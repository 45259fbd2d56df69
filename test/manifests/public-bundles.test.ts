// Public install bundles as their projects render and document them (test/manifests/bundles/, each naming its
// source and render command): installed the documented way with kubectl 1.33, installed again (nothing changes:
// every resourceVersion and generation stays, with kubectl 1.33 and 1.27), then the project's own example
// resources created, re-applied with kubectl 1.27 (nothing changes) and deleted.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl, kubectlBinary } from '../helpers/kubectl.js';
import { testServer } from '../helpers/server.js';

const DIR = join(import.meta.dirname, 'bundles');
const lines = (s: string) => s.split('\n').filter(Boolean);
const OLDEST = { binary: kubectlBinary('1.27') };

let server: ApiServer;
let kubeconfig: string;
beforeAll(async () => {
  server = await testServer();
  kubeconfig = kubeconfigFor(server.url);
});
afterAll(() => server.close());

/** `name resourceVersion generation` of every object a file names. */
async function versions(file: string): Promise<string[]> {
  const r = await kubectl(kubeconfig, ['get', '-f', file, '-o', 'jsonpath={range .items[*]}{.metadata.name} {.metadata.resourceVersion} {.metadata.generation}{"\\n"}{end}']);
  expect(r.code, r.stderr).toBe(0);
  return lines(r.stdout);
}

describe('Gateway API v1.3.0 standard channel', () => {
  const crds = join(DIR, 'gateway-api-v1.3.0-standard-crds.yaml');
  const examples = join(DIR, 'gateway-api-v1.3.0-simple-gateway.yaml');

  it('installs server-side (its CEL rules within the cost budget), and a re-install changes nothing', async () => {
    const first = await kubectl(kubeconfig, ['apply', '--server-side', '-f', crds], undefined, 120_000);
    expect(first.stderr).toBe('');
    expect(lines(first.stdout)).toHaveLength(5);
    for (const l of lines(first.stdout)) expect(l).toMatch(/ serverside-applied$/);
    const before = await versions(crds);
    const again = await kubectl(kubeconfig, ['apply', '--server-side', '-f', crds], undefined, 120_000);
    expect(again.stderr).toBe('');
    expect(await versions(crds)).toEqual(before);
    const oldest = await kubectl(kubeconfig, ['apply', '--server-side', '-f', crds], undefined, 120_000, OLDEST);
    expect(oldest.stderr).toBe('');
    expect(await versions(crds)).toEqual(before);
    const established = await kubectl(kubeconfig, ['wait', '--for=condition=Established', '-f', crds, '--timeout=30s']);
    expect(established.code, established.stderr).toBe(0);
  });

  it("creates and deletes the project's simple-gateway example", async () => {
    const created = await kubectl(kubeconfig, ['apply', '-f', examples]);
    expect(created.stderr).toBe('');
    expect(lines(created.stdout)).toEqual(['gateway.gateway.networking.k8s.io/prod-web created', 'httproute.gateway.networking.k8s.io/foo created']);
    const route = JSON.parse((await kubectl(kubeconfig, ['get', 'httproute', 'foo', '-o', 'json'])).stdout);
    // the CRD's defaults (rules[].matches, backendRefs[].weight, parentRefs[].group/kind) were applied
    expect(route.spec.rules[0].matches).toEqual([{ path: { type: 'PathPrefix', value: '/' } }]);
    expect(route.spec.parentRefs[0]).toMatchObject({ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'prod-web' });
    const before = await versions(examples);
    const again = await kubectl(kubeconfig, ['apply', '-f', examples], undefined, 30_000, OLDEST);
    expect(again.stderr).toBe('');
    // kubectl sends a custom resource a JSON merge patch, which replaces lists: `rules` (the CRD defaulted its
    // `matches`) is always in the patch, so kubectl says "configured" against upstream too; the server writes nothing
    expect(lines(again.stdout)).toEqual(['gateway.gateway.networking.k8s.io/prod-web unchanged', 'httproute.gateway.networking.k8s.io/foo configured']);
    expect(await versions(examples)).toEqual(before);
    const deleted = await kubectl(kubeconfig, ['delete', '-f', examples]);
    expect(deleted.code, deleted.stderr).toBe(0);
  });
});
