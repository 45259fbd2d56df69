import { expect, test } from '@playwright/test';

test('the served explorer page opens and talks to the server', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveTitle('Periscope');
  await expect(page.getByTestId('server-version')).toContainText('v1.33.0');
  await expect(page.getByTestId('group-list')).toContainText('apps/v1');
  await page.screenshot({ path: 'test-results/smoke-home.png' });
});
