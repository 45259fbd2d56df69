import { expect, test } from './fixtures.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/server/app.js';
import { createConfigMap, createConfigMaps, createNamespace, scrollTable, shot } from './helpers.js';

const row = (page: import('@playwright/test').Page, name: string) => page.locator('.vrow', { hasText: name }).first();

test('navigates groups and resources from discovery', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('nav-group-apps')).toBeVisible();
  await page.getByTestId('nav-apps-deployments').click();
  await expect(page).toHaveURL(/\/r\/apps\/v1\/deployments$/);
  await expect(page.getByTestId('collection-title')).toContainText('Deployment');
  // columns come from the server's Table, the Namespace column from listing all namespaces
  const header = page.locator('.vhead');
  for (const c of ['Namespace', 'Name', 'Ready', 'Up-to-date', 'Available', 'Age']) await expect(header).toContainText(c);
  await expect(row(page, 'checkout')).toBeVisible();
  await expect(page.getByTestId('collection-state')).toHaveAttribute('data-state', 'live');
  await shot(page, 'deployments');

  await page.getByTestId('nav-core-pods').click();
  await expect(page).toHaveURL(/\/r\/core\/v1\/pods$/);
  await expect(page.locator('.vhead')).toContainText('Restarts');
  await page.getByTestId('nav-stable.example.com-crontabs').click();
  await expect(page.locator('.vhead')).toContainText('Spec'); // a CRD printer column
  await expect(page.locator('.vhead')).toContainText('Replicas');
});

test('switches namespace, filters by label and text, sorts', async ({ page }) => {
  await page.goto('/r/core/v1/pods');
  await expect(page.locator('.vrow').first()).toBeVisible();
  await page.getByTestId('namespace-picker').selectOption('shop');
  await expect(page).toHaveURL(/ns=shop/);
  await expect(page.getByTestId('collection-title')).toContainText('in shop');
  await expect(page.locator('.vhead')).not.toContainText('Namespace');
  const names = await page.locator('.vrow .vcell:first-child').allTextContents();
  expect(names.length).toBeGreaterThan(0);
  expect(names.every((n) => /^(frontend|checkout|cart)/.test(n))).toBe(true);

  await page.getByTestId('label-selector').fill('app=cart');
  await page.getByTestId('label-selector').press('Enter');
  await expect(page).toHaveURL(/l=app%3Dcart/);
  await expect.poll(async () => (await page.locator('.vrow .vcell:first-child').allTextContents()).every((n) => n.startsWith('cart'))).toBe(true);
  await page.getByTestId('label-selector').fill('');
  await page.getByTestId('label-selector').press('Enter');

  await page.getByTestId('text-filter').fill('checkout');
  await expect(page).toHaveURL(/q=checkout/);
  await expect.poll(async () => (await page.locator('.vrow .vcell:first-child').allTextContents()).every((n) => n.includes('checkout'))).toBe(true);
  await page.getByTestId('text-filter').fill('');

  await page.locator('.vhead [role=columnheader]', { hasText: 'Name' }).click();
  await expect(page).toHaveURL(/sort=Name/);
  await page.locator('.vhead [role=columnheader]', { hasText: 'Name' }).click();
  await expect(page).toHaveURL(/sort=-Name/);
  const sorted = await page.locator('.vrow .vcell:first-child').allTextContents();
  expect(sorted).toEqual([...sorted].sort().reverse());

  await page.getByTestId('namespace-picker').selectOption('kube-system');
  await expect(page.getByTestId('collection-title')).toContainText('in kube-system');
});

test('pages in a list of 2,000 objects as the table scrolls', async ({ page, request }) => {
  await createNamespace(request, 'bulk');
  await createConfigMaps(request, 'bulk', 2000);
  await page.goto('/r/core/v1/configmaps?ns=bulk');
  await expect(row(page, 'cm-0000')).toBeVisible();
  // only the first chunk is loaded up front; the rest are placeholders until scrolled to
  await expect(page.getByTestId('row-count')).toContainText('of ~2,000');
  const firstLoaded = Number(await page.getByTestId('resource-table').getAttribute('data-rows'));
  expect(firstLoaded).toBeLessThan(2000);
  await shot(page, 'configmaps-first-chunk');
  for (let i = 0; i < 200; i++) {
    const loaded = Number(await page.getByTestId('resource-table').getAttribute('data-rows'));
    if (loaded >= 2000) break;
    await scrollTable(page, 4000);
    await page.waitForTimeout(50);
  }
  await expect(page.getByTestId('row-count')).toHaveText(/^2,000 rows/);
  await scrollTable(page, 1e7);
  await expect(row(page, 'cm-1999')).toBeVisible();
  await expect(page.getByTestId('list-progress')).toHaveCount(0);
  await shot(page, 'configmaps-scrolled');
  // the metadata-only mode lists the same objects as PartialObjectMetadata, with generic columns
  await page.getByTestId('metadata-only').check();
  await expect(page).toHaveURL(/meta=1/);
  await expect(page.locator('.vhead')).toContainText('Labels');
  await expect(row(page, 'cm-0000')).toBeVisible();
  await page.getByTestId('load-all').click();
  await expect(page.getByTestId('row-count')).toHaveText(/^2,000 rows/);
});

test('rows appear, change and disappear live', async ({ page, request }) => {
  await createNamespace(request, 'live');
  await createConfigMap(request, 'live', 'first', { a: '1' });
  await page.goto('/r/core/v1/configmaps?ns=live');
  await expect(row(page, 'first')).toBeVisible();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await createConfigMap(request, 'live', 'appeared', { a: '1', b: '2' });
  await expect(row(page, 'appeared')).toBeVisible();
  await expect(row(page, 'appeared').locator('.vcell').nth(1)).toHaveText('2');
  const put = await request.put('/api/v1/namespaces/live/configmaps/appeared', {
    data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'appeared', namespace: 'live' }, data: { a: '1', b: '2', c: '3' } },
  });
  expect(put.status()).toBe(200);
  await expect(row(page, 'appeared').locator('.vcell').nth(1)).toHaveText('3');
  expect((await request.delete('/api/v1/namespaces/live/configmaps/first')).status()).toBe(200);
  await expect(page.locator('.vrow', { hasText: 'first' })).toHaveCount(0);
  await expect(page.getByTestId('row-count')).toHaveText(/^1 row/);
});

test('a new CRD shows up in the navigation live', async ({ page, request }) => {
  await page.goto('/');
  await expect(page.getByTestId('nav-group-apps')).toBeVisible();
  await expect(page.getByTestId('nav-group-e2e.example.com')).toHaveCount(0);
  const r = await request.post('/apis/apiextensions.service.io/v1/customresourcedefinitions', {
    data: {
      apiVersion: 'apiextensions.service.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.e2e.example.com' },
      spec: {
        group: 'e2e.example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['gd'] },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    },
  });
  expect(r.status()).toBe(201);
  await expect(page.getByTestId('nav-e2e.example.com-gadgets')).toBeVisible({ timeout: 10_000 });
  await shot(page, 'crd-in-navigation');
  // and the jump box knows its short name
  await page.getByTestId('jump').fill('gd');
  await page.getByTestId('jump').press('Enter');
  await expect(page).toHaveURL(/\/r\/e2e\.example\.com\/v1\/gadgets/);
  await expect(page.getByTestId('empty-state')).toContainText('No gadgets');
});

test('object view: summary, YAML and JSON, events; deep links survive reload and history', async ({ page, request }) => {
  await request.post('/api/v1/namespaces/shop/events', {
    data: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'cart.e2e', namespace: 'shop' },
      involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart', namespace: 'shop' },
      reason: 'ScalingReplicaSet',
      message: 'Scaled up replica set cart-abc to 1',
      type: 'Normal',
      source: { component: 'deployment-controller' },
    },
  });
  await page.goto('/r/apps/v1/deployments?ns=shop');
  await row(page, 'cart').click();
  await expect(page).toHaveURL(/\/r\/apps\/v1\/deployments\/shop\/cart\/summary\?ns=shop$/);
  await expect(page.getByTestId('object-title')).toContainText('cart');
  await expect(page.getByTestId('labels')).toContainText('app');
  await shot(page, 'object-summary');
  await page.getByTestId('tab-yaml').click();
  await expect(page.getByTestId('manifest')).toContainText('kind: Deployment');
  await expect(page.getByTestId('manifest')).toContainText('name: cart');
  await shot(page, 'object-yaml');
  await page.getByTestId('tab-json').click();
  await expect(page.getByTestId('manifest')).toContainText('"kind": "Deployment"');
  await page.getByTestId('tab-events').click();
  await expect(page.getByTestId('events')).toContainText('Scaled up replica set cart-abc to 1');

  await page.getByTestId('tab-yaml').click();
  await page.reload();
  await expect(page.getByTestId('manifest')).toContainText('kind: Deployment');
  await page.goBack();
  await expect(page).toHaveURL(/\/r\/apps\/v1\/deployments\?ns=shop$/);
  await expect(row(page, 'cart')).toBeVisible();
  await page.goForward();
  await expect(page.getByTestId('object-view')).toBeVisible();

  // a name with dots still deep-links (the CRD object of the demo data)
  await page.goto('/r/apiextensions.service.io/v1/customresourcedefinitions/_/crontabs.stable.example.com/yaml');
  await expect(page.getByTestId('manifest')).toContainText('kind: CustomResourceDefinition');
});

test('keyboard: jump by short name, move through rows, open and go back; themes', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('nav-apps-deployments')).toBeVisible();
  await page.keyboard.press(':');
  await page.keyboard.type('deploy');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/r\/apps\/v1\/deployments/);
  await expect(page.locator('.vrow').first()).toBeVisible();
  await page.getByTestId('resource-table').focus();
  await page.keyboard.press('j');
  await expect(page.locator('.vrow.selected')).toHaveAttribute('data-row-index', '1');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('object-view')).toBeVisible();
  await page.keyboard.press('2');
  await expect(page).toHaveURL(/\/yaml/);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('collection')).toBeVisible();

  await page.keyboard.press(':');
  await page.keyboard.type('po');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/r\/core\/v1\/pods/);

  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  await page.getByTestId('theme-toggle').click();
  const after = await page.evaluate(() => document.documentElement.dataset.theme);
  expect(after).not.toBe(before);
  await expect(page.locator('.vrow').first()).toBeVisible();
  await shot(page, `pods-${after}`);
  await page.reload();
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(after);
});

test('empty, not-found and error states', async ({ page }) => {
  await page.goto('/r/core/v1/configmaps/default/does-not-exist/summary');
  await expect(page.getByTestId('empty-state')).toContainText('not found');
  await page.goto('/r/nope.example.com/v1/things');
  await expect(page.getByTestId('empty-state')).toContainText('not served');
  await page.goto('/r/core/v1/configmaps?l=%3D%3Dbad');
  await expect(page.getByTestId('error-state')).toContainText('400');
  await shot(page, 'error-state');
});

test('losing the server turns the indicator to reconnecting, then stale, and live again when it returns', async ({ page }) => {
  // a server of this test's own, so it can go away and come back on the same port with the same data
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-e2e-'));
  const flags = { port: 0, store: 'sqlite' as const, dataDir, demoData: false, requestLog: false, staticDir: 'dist', compactionIntervalMs: 0 };
  let server = await startServer(flags, { log: () => {} });
  try {
    await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'before' } }) });
    await page.goto(`${server.url}/r/core/v1/namespaces`);
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
    await expect(row(page, 'before')).toBeVisible();
    await server.close();
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', /reconnecting|stale/);
    await expect(page.getByTestId('connection-banner')).toBeVisible();
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'stale', { timeout: 15_000 });
    await shot(page, 'connection-stale');
    server = await startServer({ ...flags, port: server.port }, { log: () => {} });
    await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'after-restart' } }) });
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live', { timeout: 30_000 });
    await expect(row(page, 'after-restart')).toBeVisible();
    await expect(page.getByTestId('connection-banner')).toHaveCount(0);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
