// History as a person reads it: what kind of change each version was, status churn filtered out, a
// field-level comparison of two versions, "restore this version" through the dry-run preview, and the
// history of an object that was deleted.
import { expect, test, type APIRequestContext } from './fixtures.js';
import { createNamespace, settledDeployment, shot } from './helpers.js';
import { namespaceDeletionsJourney } from './journeys.js';

const NS = 'history-e2e';
const path = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;

async function deployment(request: APIRequestContext, name: string, image: string): Promise<void> {
  const r = await request.post(`/apis/apps/v1/namespaces/${NS}/deployments`, {
    data: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } } },
    },
  });
  expect(r.status()).toBe(201);
}

/** Another user changes the image (the setup the journey then looks at). */
async function setImage(request: APIRequestContext, name: string, image: string): Promise<void> {
  const r = await request.patch(path(name), { headers: { 'Content-Type': 'application/strategic-merge-patch+json' }, data: { spec: { template: { spec: { containers: [{ name: 'web', image }] } } } } });
  expect(r.status()).toBe(200);
}

test.beforeAll(async ({ request }) => {
  await createNamespace(request, NS);
});

test('see what changed between two versions of a Deployment and restore one', async ({ page, request }) => {
  await deployment(request, 'web', 'example/web:1.0');
  await settledDeployment(request, path('web'));
  await setImage(request, 'web', 'example/web:2.0');
  await settledDeployment(request, path('web'));

  await page.goto(`/r/apps/v1/deployments/${NS}/web/summary`);
  await page.getByTestId('tab-history').click();
  const entries = page.getByTestId('timeline-entry');
  // by default status churn is hidden: creation and the image change, each named for what it was
  await expect(entries.first()).toHaveAttribute('data-change', 'spec', { timeout: 20_000 });
  await expect(entries.first()).toContainText('Changed');
  await expect(entries.last()).toHaveAttribute('data-change', 'created');
  await expect(page.getByTestId('history-hidden')).toContainText('status-only');
  await page.getByTestId('history-filter').selectOption('status');
  await expect(entries.first()).toHaveAttribute('data-change', 'status');
  await page.getByTestId('history-filter').selectOption('spec');

  // compare the first version with the newest: the image field changed
  await page.getByTestId('compare-from').selectOption({ index: 0 });
  const imageRow = page.locator('[data-testid=field-change][data-path="spec.template.spec.containers[0].image"]');
  await expect(imageRow).toContainText('example/web:1.0');
  await expect(imageRow).toContainText('example/web:2.0');
  await shot(page, 'history-compare');

  // restore the created version: the dry-run preview first, then Confirm
  await entries.last().getByTestId('restore-version').click();
  const dialog = page.getByTestId('review-dialog');
  await expect(dialog).toBeVisible();
  await expect(page.getByTestId('review-request')).toContainText('PUT');
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('restored')).toBeVisible();
  await page.getByTestId('tab-yaml').click();
  await expect(page.getByTestId('manifest')).toContainText('example/web:1.0');
  // and the history now shows the restore as a spec change at the top
  await page.getByTestId('tab-history').click();
  const restoredEntry = page.getByTestId('timeline-entry').filter({ hasText: '+         image: example/web:1.0' });
  // newest first: the restore (a spec change) comes before the creation that also shows that line
  await expect(restoredEntry).toHaveCount(2);
  await expect(restoredEntry.first()).toHaveAttribute('data-change', 'spec');
  await expect(restoredEntry.last()).toHaveAttribute('data-change', 'created');
});

test('a deleted object keeps its history and can be created again from it', async ({ page, request }) => {
  await deployment(request, 'gone', 'example/gone:1.0');
  await settledDeployment(request, path('gone'));
  expect((await request.delete(path('gone'))).status()).toBe(200);
  await expect.poll(async () => (await request.get(path('gone'))).status()).toBe(404);

  await page.goto(`/r/apps/v1/deployments/${NS}/gone/summary`);
  await page.getByTestId('deleted-history').click();
  await expect(page.getByTestId('timeline-deleted')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('history-filter').selectOption('all');
  await expect(page.getByTestId('timeline-entry').first()).toHaveAttribute('data-change', 'deleted');
  await page.getByTestId('restore-version').first().click();
  await expect(page.getByTestId('review-request')).toContainText('POST');
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('object-title')).toBeVisible();
  await page.getByTestId('tab-summary').click();
  await expect(page.getByTestId('rollout')).toBeVisible({ timeout: 20_000 });
});

test('namespace history: an object changed after its creation reads "changed", Events once', async ({ page, request }) => {
  expect((await request.post(`/api/v1/namespaces/${NS}/configmaps`, { data: { metadata: { name: 'later' }, data: { a: '1' } } })).status()).toBe(201);
  const created = Date.now();
  // managedFields times have one-second resolution: the change lands in a later second than the creation
  await expect.poll(() => Date.now() - created >= 1100).toBe(true);
  expect((await request.patch(`/api/v1/namespaces/${NS}/configmaps/later`, { headers: { 'Content-Type': 'application/merge-patch+json' }, data: { data: { a: '2' } } })).status()).toBe(200);
  await page.goto(`/r/core/v1/namespaces/_/${NS}/history`);
  const entry = page.getByTestId('namespace-change').filter({ hasText: 'ConfigMap/later' });
  await expect(entry).toContainText('changed by');
  await expect(entry).toContainText('· created');
  await expect(entry).toHaveAttribute('data-type', 'MODIFIED');
  // a live object is listed once (Events served by two groups too); deletions are entries of their own
  const labels = await page.locator('[data-testid=namespace-change]:not([data-type=DELETED])').getByRole('link').allInnerTexts();
  expect(new Set(labels).size).toBe(labels.length);
});

test('namespace history lists deletions, each opening the deleted object\'s history', async ({ page, request }) => {
  await namespaceDeletionsJourney(page, '', request, NS);
});
