// Editing you can trust: controllers writing status never raise the conflict view, a change to the
// field being edited does, and unsaved edits survive tab switches and ask before they are left.
import { expect, test, type APIRequestContext, type Page } from './fixtures.js';
import { createNamespace, settledDeployment } from './helpers.js';

const NS = 'edit-trust-e2e';
const depPath = `/apis/apps/v1/namespaces/${NS}/deployments`;

async function deployment(request: APIRequestContext, name: string): Promise<void> {
  await createNamespace(request, NS);
  const r = await request.post(depPath, {
    data: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } },
  });
  expect([201, 409]).toContain(r.status());
  await settledDeployment(request, `${depPath}/${name}`);
}

/** Double-clicks the `replicas: N` value in the Edit buffer and types a new one at ~100 ms/key. */
async function retypeReplicas(page: Page, value: string): Promise<void> {
  const buffer = page.getByTestId('edit-buffer');
  await expect(buffer).toHaveAttribute('data-editor', 'monaco', { timeout: 20_000 });
  const line = buffer.locator('.view-line').filter({ hasText: 'replicas:' }).first();
  await line.click();
  await page.keyboard.press('End');
  await page.keyboard.press('Shift+Home');
  await page.keyboard.type(`replicas: ${value}`, { delay: 100 });
}

test('edit replicas while controllers write status: saved, no conflict view', async ({ page, request }) => {
  await deployment(request, 'steady');
  await page.goto(`/r/apps/v1/deployments/${NS}/steady/summary`);
  await page.getByTestId('tab-edit').click();
  await retypeReplicas(page, '3');
  await page.getByTestId('review-button').click();
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  // the controllers now scale up and write status several times
  await settledDeployment(request, `${depPath}/steady`);
  const after = await (await request.get(`${depPath}/steady`)).json();
  await expect(page.getByTestId('edit-base-rv')).toHaveText(after.metadata.resourceVersion, { timeout: 20_000 });
  await expect(page.getByTestId('live-changed')).toHaveCount(0);
  await expect(page.getByTestId('rebase-view')).toHaveCount(0);
  // and a second edit saves straight away
  await retypeReplicas(page, '2');
  await page.getByTestId('review-button').click();
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  await expect(page.getByTestId('rebase-view')).toHaveCount(0);
  expect((await (await request.get(`${depPath}/steady`)).json()).spec.replicas).toBe(2);
});

test('edit a field someone else changes: the conflict view', async ({ page, request }) => {
  await deployment(request, 'contested');
  await page.goto(`/r/apps/v1/deployments/${NS}/contested/edit`);
  await retypeReplicas(page, '4');
  const r = await request.patch(`${depPath}/contested`, { data: { spec: { replicas: 2 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  expect(r.status()).toBe(200);
  await expect(page.getByTestId('live-changed')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('live-diff').click();
  await expect(page.getByTestId('rebase-view')).toBeVisible();
});

test('unsaved edits survive a tab switch and ask before they are left', async ({ page, request }) => {
  await deployment(request, 'drafted');
  await page.goto(`/r/apps/v1/deployments/${NS}/drafted/edit`);
  await retypeReplicas(page, '5');
  await page.getByTestId('tab-summary').click();
  await expect(page.getByTestId('rollout')).toBeVisible();
  await page.getByTestId('tab-edit').click();
  await expect(page.getByTestId('edit-buffer').locator('.view-line').filter({ hasText: 'replicas: 5' })).toHaveCount(1, { timeout: 20_000 });

  // leaving the object asks; dismissing stays
  let asked = '';
  page.once('dialog', (d) => {
    asked = d.message();
    void d.dismiss();
  });
  await page.getByTestId('back-to-list').click();
  expect(asked).toContain('unsaved edits to Deployment drafted');
  await expect(page).toHaveURL(/\/drafted\/edit/);
  // accepting leaves and discards the draft
  page.once('dialog', (d) => void d.accept());
  await page.getByTestId('back-to-list').click();
  await expect(page).toHaveURL(/\/deployments(\?|$)/);
});

test('completion opens while typing in the Edit tab, without Ctrl+Space', async ({ page, request }) => {
  await deployment(request, 'completed');
  await page.goto(`/r/apps/v1/deployments/${NS}/completed/edit`);
  const buffer = page.getByTestId('edit-buffer');
  await expect(buffer).toHaveAttribute('data-editor', 'monaco', { timeout: 20_000 });
  // a new key under spec, after `replicas: 1`
  await buffer.locator('.view-line').filter({ hasText: 'replicas:' }).first().click();
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('minRe', { delay: 100 });
  await expect(page.locator('.suggest-widget')).toContainText('minReadySeconds', { timeout: 10_000 });
  await page.keyboard.press('Escape');
});

test('merge patch mode: controllers writing status and someone adding a label never raise the conflict view', async ({ page, request }) => {
  await deployment(request, 'merged');
  await page.goto(`/r/apps/v1/deployments/${NS}/merged/edit`);
  await page.getByTestId('edit-mode-merge').click();
  await expect(page.getByTestId('editor-view')).toHaveAttribute('data-mode', 'merge');
  await retypeReplicas(page, '3');
  // someone else changes a field this edit does not touch
  const r = await request.patch(`${depPath}/merged`, { data: { metadata: { labels: { team: 'payments' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  expect(r.status()).toBe(200);
  await expect(page.getByTestId('quiet-rebase')).toContainText('metadata.labels', { timeout: 20_000 });
  await expect(page.getByTestId('live-changed')).toHaveCount(0);
  await expect(page.getByTestId('edit-base-rv')).toHaveText((await r.json()).metadata.resourceVersion);
  await page.getByTestId('review-button').click();
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  // the controllers scale up and write status several times
  await settledDeployment(request, `${depPath}/merged`);
  const after = await (await request.get(`${depPath}/merged`)).json();
  await expect(page.getByTestId('edit-base-rv')).toHaveText(after.metadata.resourceVersion, { timeout: 20_000 });
  await expect(page.getByTestId('live-changed')).toHaveCount(0);
  await expect(page.getByTestId('rebase-view')).toHaveCount(0);
  // a second edit in the same mode saves straight away
  await retypeReplicas(page, '2');
  await page.getByTestId('review-button').click();
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  await expect(page.getByTestId('rebase-view')).toHaveCount(0);
  const saved = await (await request.get(`${depPath}/merged`)).json();
  expect(saved.spec.replicas).toBe(2);
  expect(saved.metadata.labels).toEqual({ team: 'payments' });
});

test('merge patch mode: a field someone else changes opens the conflict view', async ({ page, request }) => {
  await deployment(request, 'merge-contested');
  await page.goto(`/r/apps/v1/deployments/${NS}/merge-contested/edit`);
  await page.getByTestId('edit-mode-merge').click();
  await retypeReplicas(page, '4');
  const r = await request.patch(`${depPath}/merge-contested`, { data: { spec: { replicas: 2 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  expect(r.status()).toBe(200);
  await expect(page.getByTestId('live-changed')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('quiet-rebase')).toHaveCount(0);
  await page.getByTestId('live-diff').click();
  await expect(page.getByTestId('rebase-view')).toBeVisible();
});

test("the browser's back button with unsaved edits asks; staying keeps the edit, leaving drops it", async ({ page, request }) => {
  await deployment(request, 'backed');
  await page.goto(`/r/apps/v1/deployments?ns=${NS}`);
  await page.getByTestId('text-filter').pressSequentially('backed', { delay: 100 });
  await page.getByRole('gridcell', { name: 'backed' }).first().click();
  await expect(page).toHaveURL(/\/deployments\/edit-trust-e2e\/backed(\/|$)/);
  await page.getByTestId('tab-edit').click();
  await retypeReplicas(page, '6');

  let asked = '';
  page.once('dialog', (d) => {
    asked = d.message();
    void d.dismiss();
  });
  await page.goBack();
  await expect.poll(() => asked).toContain('unsaved edits to Deployment backed');
  await expect(page).toHaveURL(/\/backed\/edit/);
  await expect(page.getByTestId('edit-buffer').locator('.view-line').filter({ hasText: 'replicas: 6' })).toHaveCount(1);

  page.once('dialog', (d) => void d.accept());
  await page.goBack();
  await expect(page).toHaveURL(/\/deployments\?ns=edit-trust-e2e/);
  await expect(page.getByTestId('resource-table')).toBeVisible();
});
