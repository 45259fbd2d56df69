// The explorer against a server that looks like a real cluster: the kubeconfig proxy in front of a
// test proxy that serves only the upstream `*.k8s.io` spellings (service.io groups hidden from
// discovery and answered 404). The main journeys pass, the Access tab reads RBAC through discovery,
// and no request names a service.io group.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './fixtures.js';
import { createNamespace } from './helpers.js';
import { failingWorkloadJourney, historyJourney, mapJourney, namespaceDeletionsJourney, searchJourney } from './journeys.js';
import { startK8sIoOnlyProxy } from './k8s-io-only-proxy.js';
import { chattyPod, logsPauseResumeJourney } from './logs-journey.js';

const PROXY_PORT = Number(process.env.E2E_PORT ?? 18080) + 8;
const base = `http://127.0.0.1:${PROXY_PORT}`;
const NS = 'real-e2e';
let proxy: ChildProcess;
let filter: { url: string; server: Server; requests: string[] };
let dir: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ baseURL, request }) => {
  test.setTimeout(120_000);
  await createNamespace(request, NS);
  filter = await startK8sIoOnlyProxy(baseURL!);
  dir = mkdtempSync(join(tmpdir(), 'periscope-e2e-real-'));
  const kc = join(dir, 'kc.yaml');
  writeFileSync(
    kc,
    `apiVersion: v1\nkind: Config\ncurrent-context: upstream\nclusters:\n- name: upstream\n  cluster: {server: "${filter.url}"}\nusers:\n- name: nobody\n  user: {}\ncontexts:\n- name: upstream\n  context: {cluster: upstream, user: nobody}\n`,
  );
  proxy = spawn(process.execPath, ['scripts/start.mjs', '--kubeconfig', kc, '--port', String(PROXY_PORT), '--request-log=false'], { stdio: ['ignore', 'ignore', 'pipe'] });
  await expect
    .poll(
      async () => {
        try {
          return (await fetch(`${base}/readyz`)).status;
        } catch {
          return 0;
        }
      },
      { timeout: 60_000 },
    )
    .toBe(200);
});

test.afterAll(async () => {
  proxy?.kill('SIGTERM');
  await new Promise((r) => filter?.server.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the test proxy hides service.io: discovery lists only k8s.io spellings, service.io paths are 404', async () => {
  const groups = (await (await fetch(`${base}/apis`, { headers: { Accept: 'application/json' } })).json()) as { groups: { name: string }[] };
  const names = groups.groups.map((g) => g.name);
  expect(names).toContain('rbac.authorization.k8s.io');
  expect(names.filter((n) => n.endsWith('.service.io'))).toEqual([]);
  expect((await fetch(`${base}/apis/rbac.authorization.service.io/v1/clusterroles`)).status).toBe(404);
  // from here on the log holds the explorer's requests only
  filter.requests.length = 0;
});

test('navigation, context and server shown; the sidebar names k8s.io kinds by task', async ({ page }) => {
  await page.goto(`${base}/`);
  await expect(page.getByTestId('context-picker')).toHaveValue('upstream');
  await expect(page.getByTestId('current-server')).toContainText(filter.url.replace('http://', ''));
  await expect(page.getByTestId('nav-task-access').getByTestId('nav-rbac.authorization.k8s.io-roles')).toBeVisible();
  await expect(page.getByTestId('nav-task-network').getByTestId('nav-networking.k8s.io-ingresses')).toBeVisible();
});

test('journey through the proxy: a failing workload from the overview', async ({ page }) => {
  await failingWorkloadJourney(page, base);
});

test('journey through the proxy: search opens the exact match', async ({ page }) => {
  await searchJourney(page, base);
});

test('journey through the proxy: compare two versions and restore one', async ({ page, request }) => {
  await historyJourney(page, base, request, NS, 'real-history');
});

test('journey through the proxy: Deployment → Pod → Node in the map', async ({ page, request }) => {
  await mapJourney(page, base, request, NS, 'real-map');
});

test('journey through the proxy: follow a pod log, pause, resume', async ({ page, request }) => {
  await chattyPod(request, NS, 'real-chatty');
  await logsPauseResumeJourney(page, base, NS, 'real-chatty');
});

test('the Access tab reads RBAC as the cluster spells it and says authorization is AlwaysAllow', async ({ page }) => {
  await page.goto(`${base}/r/rbac.authorization.k8s.io/v1/clusterroles/_/view/access`);
  await expect(page.getByTestId('access-panel')).toBeVisible();
  await expect(page.getByTestId('access-rules')).toBeVisible();
  await expect(page.getByTestId('always-allow')).toBeVisible();
  await page.goto(`${base}/r/apps/v1/deployments/shop/checkout/access`);
  await expect(page.getByTestId('access-who')).toBeVisible({ timeout: 20_000 });
});

test('journey through the proxy: namespace history lists deletions', async ({ page, request }) => {
  await namespaceDeletionsJourney(page, base, request, NS);
});

test('no explorer request named a service.io group', async () => {
  const bad = filter.requests.filter((r) => /\/apis\/[^/?]*\.service\.io/.test(r));
  expect(bad).toEqual([]);
  expect(filter.requests.length).toBeGreaterThan(20);
});
