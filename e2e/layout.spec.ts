// Layouts from 1024 px up: the sidebar folds away, the pods table shows Restarts and Age whole, the
// studio stacks its form above the YAML when the main area is narrow.
import { expect, test } from './fixtures.js';
import { shot } from './helpers.js';

test.use({ viewport: { width: 1024, height: 700 } });

test('at 1024 px: pods table columns whole with the sidebar open; the sidebar folds away and comes back', async ({ page, request }) => {
  // an all-namespaces list whose namespaces are long (other specs' namespaces made it overflow by 40 px)
  const ns = 'layout-e2e-a-namespace-with-a-rather-long-name';
  await request.post('/api/v1/namespaces', { data: { metadata: { name: ns } } });
  await request.post(`/api/v1/namespaces/${ns}/pods`, { data: { metadata: { name: 'a-pod-with-a-long-name-as-controllers-make-them-x7k2p' }, spec: { containers: [{ name: 'c', image: 'example/app:1' }] } } });
  await page.goto('/');
  await page.evaluate(() => localStorage.setItem('periscope.sidebar', 'open'));
  await page.goto('/r/core/v1/pods');
  await expect(page.locator('.vrow').first()).toBeVisible({ timeout: 20_000 });
  for (const name of ['Restarts', 'Age']) {
    const cell = page.locator('.vhead').getByText(name, { exact: true });
    await expect(cell).toBeVisible();
    const box = (await cell.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(1024);
  }
  await shot(page, 'pods-1024');
  const toggle = page.getByTestId('sidebar-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await toggle.click();
  await expect(page.getByTestId('nav')).toHaveCount(0);
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await page.reload();
  await expect(page.getByTestId('nav')).toHaveCount(0);
  await toggle.click();
  await expect(page.getByTestId('nav')).toBeVisible();
});

test('at 1024 px the studio stacks the form above the YAML', async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => localStorage.setItem('periscope.sidebar', 'open'));
  await page.goto('/studio/AuthenticationConfiguration');
  const yaml = page.getByTestId('yaml-editor');
  await expect(yaml).toHaveAttribute('data-editor', 'monaco', { timeout: 20_000 });
  const left = (await page.locator('.studio-left').boundingBox())!;
  const right = (await page.locator('.studio-right').boundingBox())!;
  expect(right.y).toBeGreaterThanOrEqual(left.y + left.height - 1);
  expect(right.width).toBeGreaterThan(700);
  await shot(page, 'studio-1024');
  // exported for a real kube-apiserver: the upstream group spelling
  await page.getByTestId('export-spelling').selectOption('upstream');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-yaml').click()]);
  const text = await (await download.createReadStream()).toArray().then((parts) => Buffer.concat(parts).toString('utf8'));
  expect(text).toContain('apiVersion: apiserver.config.k8s.io/v1');
  expect(text).not.toContain('apiserver.config.service.io');
});

test('kinds by kind name, group on hover; a pinned kind comes first and stays pinned', async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => localStorage.setItem('periscope.sidebar', 'open'));
  await page.goto('/');
  const deploy = page.getByTestId('nav-apps-deployments');
  await expect(deploy).toHaveText('Deployment');
  await expect(deploy).toHaveAttribute('title', /apps\/v1/);
  await expect(page.getByTestId('nav-task-cluster').getByRole('link', { name: 'Event', exact: true })).toHaveCount(1);
  await page.getByTestId('pin-apps-deployments').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('nav-pinned').getByTestId('nav-pinned-apps-deployments')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('nav-pinned-apps-deployments')).toBeVisible();
  await page.getByTestId('nav-filter').pressSequentially('ingr', { delay: 100 });
  await expect(page.getByTestId('nav-networking.service.io-ingresses')).toBeVisible();
  await expect(page.getByTestId('nav-apps-deployments')).toHaveCount(0);
});
