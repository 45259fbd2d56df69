// The explorer's main journeys as a person takes them, written once so they run against the embedded
// server and, through the kubeconfig proxy, against a server that looks like a real cluster.
import { expect, type APIRequestContext, type Page } from './fixtures.js';
import { settledDeployment } from './helpers.js';

/** Overview → the failing demo Deployment (checkout crash-loops) in at most three clicks. */
export async function failingWorkloadJourney(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/`);
  const problem = page.getByTestId('problem-item').filter({ hasText: 'Deployment shop/checkout' });
  await expect(problem).toBeVisible({ timeout: 30_000 });
  await problem.getByRole('link').click();
  await expect(page).toHaveURL(/\/r\/apps\/v1\/deployments\/shop\/checkout\/summary/);
  await expect(page.getByTestId('rollout')).toBeVisible();
}

/** Search a fragment typed at a person's pace; the exact match is first and Enter opens it. */
export async function searchJourney(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByTestId('nav-search').click();
  const input = page.getByTestId('search-input');
  await input.pressSequentially('checkout', { delay: 100 });
  await expect(page.getByTestId('search-status')).toHaveAttribute('data-running', 'false', { timeout: 30_000 });
  const first = page.getByTestId('search-hit').first();
  await expect(first).toHaveAttribute('data-kind', 'Deployment');
  await expect(first).toHaveAttribute('data-exact', 'true');
  await input.press('Enter');
  await expect(page).toHaveURL(/\/r\/apps\/v1\/deployments\/shop\/checkout\/summary/);
}

const deploymentBody = (name: string, image: string, replicas = 1) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } } },
});

/** A Deployment another user changed: compare its first and newest versions, restore the first. */
export async function historyJourney(page: Page, base: string, request: APIRequestContext, ns: string, name: string): Promise<void> {
  const path = `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;
  expect((await request.post(`/apis/apps/v1/namespaces/${ns}/deployments`, { data: deploymentBody(name, 'example/app:1.0') })).status()).toBe(201);
  await settledDeployment(request, path);
  const patched = await request.patch(path, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' }, data: { spec: { template: { spec: { containers: [{ name: 'web', image: 'example/app:2.0' }] } } } } });
  expect(patched.status()).toBe(200);
  await settledDeployment(request, path);

  await page.goto(`${base}/r/apps/v1/deployments/${ns}/${name}/summary`);
  await page.getByTestId('tab-history').click();
  const entries = page.getByTestId('timeline-entry');
  await expect(entries.last()).toHaveAttribute('data-change', 'created', { timeout: 20_000 });
  await page.getByTestId('compare-from').selectOption({ index: 0 });
  const image = page.locator('[data-testid=field-change][data-path="spec.template.spec.containers[0].image"]');
  await expect(image).toContainText('example/app:1.0');
  await expect(image).toContainText('example/app:2.0');
  await entries.last().getByTestId('restore-version').click();
  await expect(page.getByTestId('review-dialog')).toBeVisible();
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('restored')).toBeVisible();
  await page.getByTestId('tab-yaml').click();
  await expect(page.getByTestId('manifest')).toContainText('example/app:1.0');
}

/** Deployment → one of its Pods → the Node it runs on → the pods on that Node, in the map. */
export async function mapJourney(page: Page, base: string, request: APIRequestContext, ns: string, name: string): Promise<void> {
  expect((await request.post(`/apis/apps/v1/namespaces/${ns}/deployments`, { data: deploymentBody(name, 'example/walk:1', 2) })).status()).toBe(201);
  await settledDeployment(request, `/apis/apps/v1/namespaces/${ns}/deployments/${name}`);
  await page.goto(`${base}/r/apps/v1/deployments/${ns}/${name}/summary`);
  await page.getByTestId('tab-related').click();
  const pods = page.getByTestId('related-pods').getByRole('link');
  await expect(pods).toHaveCount(2, { timeout: 20_000 });
  const podName = (await pods.first().innerText()).replace('Pod/', '');
  await pods.first().click();
  await expect(page.getByTestId('object-title')).toContainText(podName);
  await page.getByTestId('related-runs-on').getByRole('link').click();
  await expect(page).toHaveURL(/\/r\/core\/v1\/nodes\/_\/[^/]+\/related/);
  await expect(page.getByTestId('related-runs')).toContainText(podName);
}

/** Another user deletes a ConfigMap and a Secret; the namespace's history lists both deletions, newest first, and opens the deleted object's history. */
export async function namespaceDeletionsJourney(page: Page, base: string, request: APIRequestContext, ns: string): Promise<void> {
  expect((await request.post(`/api/v1/namespaces/${ns}/configmaps`, { data: { metadata: { name: 'doomed' }, data: { a: '1' } } })).status()).toBe(201);
  expect((await request.post(`/api/v1/namespaces/${ns}/secrets`, { data: { metadata: { name: 'doomed-secret' }, stringData: { k: 'v' } } })).status()).toBe(201);
  expect((await request.delete(`/api/v1/namespaces/${ns}/configmaps/doomed`)).status()).toBe(200);
  expect((await request.delete(`/api/v1/namespaces/${ns}/secrets/doomed-secret`)).status()).toBe(200);

  await page.goto(`${base}/r/core/v1/namespaces/_/${ns}/summary`);
  await page.getByTestId('tab-history').click();
  const deleted = page.locator('[data-testid=namespace-change][data-type=DELETED]');
  const gone = deleted.filter({ hasText: 'ConfigMap/doomed' });
  await expect(gone).toContainText('deleted', { timeout: 30_000 });
  await expect(deleted.filter({ hasText: 'Secret/doomed-secret' })).toBeVisible();
  // newest first: the Secret went after the ConfigMap
  const labels = await deleted.getByRole('link').allInnerTexts();
  expect(labels.indexOf('Secret/doomed-secret')).toBeLessThan(labels.indexOf('ConfigMap/doomed'));
  await gone.getByRole('link').click();
  await expect(page.getByTestId('timeline-deleted')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('history-filter').selectOption('all');
  await expect(page.getByTestId('timeline-entry').first()).toHaveAttribute('data-change', 'deleted');
}
