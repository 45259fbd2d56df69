// The explorer over a living cluster (npm start: simulated nodes, controllers, demo Deployments, one crash-looping).
import { expect, test } from './fixtures.js';
import { shot } from './helpers.js';

test('home lists recent warnings, newest first, linking to the object', async ({ page }) => {
  await page.goto('/');
  const warnings = page.getByTestId('recent-warnings');
  await expect(warnings.getByTestId('warning-row').first()).toContainText('BackOff', { timeout: 20_000 });
  await expect(warnings).toContainText('Back-off restarting failed container checkout');
  await shot(page, 'home-warnings');
  await warnings.getByTestId('warning-row').first().getByRole('link').click();
  await expect(page).toHaveURL(/\/r\/core\/v1\/pods\/shop\/checkout-[a-z0-9]+-[a-z0-9]+\/events/);
  await expect(page.getByTestId('events')).toContainText('BackOff');
});

test('a Deployment shows rollout progress, its pods, and rolls back after a dry-run diff and confirm', async ({ page, request }) => {
  await page.goto('/r/apps/v1/deployments/shop/frontend/summary');
  await expect(page.getByTestId('bar-available')).toContainText('2', { timeout: 20_000 });
  await expect(page.getByTestId('workload-pod')).toHaveCount(2);
  await expect(page.getByTestId('workload-pod').first().getByTestId('pod-phase')).toHaveText('Running');
  await expect(page.getByTestId('revision-1')).toContainText('active');

  // a new image: revision 2 rolls out live
  const patched = await request.patch('/apis/apps/v1/namespaces/shop/deployments/frontend', {
    headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    data: { spec: { template: { spec: { containers: [{ name: 'frontend', image: 'nginx:1.28' }] } } } },
  });
  expect(patched.status()).toBe(200);
  await expect(page.getByTestId('revision-2')).toContainText('active', { timeout: 20_000 });
  await expect(page.getByTestId('rollout-message')).toContainText('NewReplicaSetAvailable', { timeout: 20_000 });
  await shot(page, 'deployment-rollout');

  // back to revision 1's template (reviewed as a dry-run diff, then confirmed), which becomes revision 3
  await page.getByTestId('rollback-1').click();
  await expect(page.getByTestId('action-diff')).toContainText('template:', { timeout: 20_000 });
  await expect(page.getByTestId('action-patch')).toContainText('nginx:1.27');
  await page.getByTestId('action-confirm').click();
  await expect(page.getByTestId('revision-3')).toContainText('active', { timeout: 20_000 });
  await expect(page.getByTestId('revision-3')).toContainText('nginx:1.27');
  await expect(page.getByTestId('revision-2')).not.toContainText('active');

  // the crash-looping workload: pods coloured as failing, with restarts
  await page.goto('/r/apps/v1/deployments/shop/checkout/summary');
  await expect(page.getByTestId('workload-pod').first().getByTestId('pod-phase')).toHaveText('CrashLoopBackOff', { timeout: 20_000 });
  await expect(page.getByTestId('workload-pod').first().getByTestId('pod-phase')).toHaveClass(/pod-bad/);
  await shot(page, 'deployment-crashloop');
});
