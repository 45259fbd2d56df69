// The overview as cluster health, used as a person would: a failing workload is one click from the
// home page; problems never read as an all-clear while their lists are still on the way.
import { expect, test } from './fixtures.js';
import { shot } from './helpers.js';

test('find a failing workload from the overview in at most three clicks', async ({ page }) => {
  await page.goto('/');
  // the demo's checkout Deployment crash-loops: it is listed among the problems, failing workloads first
  const health = page.getByTestId('health');
  await expect(health.getByTestId('nodes-ready')).toHaveText(/^\d+\/\d+ ready$/);
  await expect(page.locator('[data-testid=workload-health][data-kind=Deployment]')).toContainText(/\d+\/\d+ ready/);
  await expect(page.getByTestId('pod-phases')).toContainText('Running');
  const problem = page.getByTestId('problem-item').filter({ hasText: 'Deployment shop/checkout' });
  await expect(problem).toBeVisible({ timeout: 30_000 });
  await expect(problem).toContainText(/\d+\/\d+ ready/);
  await shot(page, 'overview-health');
  let clicks = 0;
  await problem.getByRole('link').click();
  clicks++;
  await expect(page).toHaveURL(/\/r\/apps\/v1\/deployments\/shop\/checkout\/summary/);
  await expect(page.getByTestId('rollout')).toBeVisible();
  expect(clicks).toBeLessThanOrEqual(3);
});

test('problems say "checking…" until the lists arrive, never a false all-clear', async ({ page }) => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  // the pods list is slow to come
  await page.route(/\/api\/v1\/pods\?/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto('/');
  await expect(page.getByTestId('problems-checking')).toBeVisible();
  await expect(page.getByTestId('no-problems')).toHaveCount(0);
  await expect(page.getByTestId('pod-health')).toContainText('checking…');
  release();
  await expect(page.getByTestId('problems-checking')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId('pod-phases')).toBeVisible();
});

test('counts by task: no zero rows, Event counted once', async ({ page }) => {
  await page.goto('/');
  const counts = page.getByTestId('kind-counts');
  await expect(counts.getByTestId('count-group-workloads')).toBeVisible({ timeout: 20_000 });
  await expect(counts.locator('[data-testid=kind-count][data-kind=Deployment]')).toBeVisible();
  await expect(counts.locator('[data-testid=kind-count][data-kind=Event]')).toHaveCount(1);
  for (const c of await counts.getByTestId('count').allTextContents()) expect(c).not.toBe('0');
});
