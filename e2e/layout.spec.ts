// Layouts from 1024 px up: the sidebar folds away, the pods table shows Restarts and Age whole, the
// studio stacks its form above the YAML when the main area is narrow.
import { expect, test } from './fixtures.js';
import { shot } from './helpers.js';

test.use({ viewport: { width: 1024, height: 700 } });

test('at 1024 px: pods table columns whole with the sidebar open; the sidebar folds away and comes back', async ({ page, request }) => {
  // an all-namespaces list with a namespace and a pod name about as long as the API allows, and a pod whose
  // Status and Restarts are long (as a crash-looping pod's are): Name and Namespace must give way so that
  // Status, Restarts and Age stay whole and on screen. The namespace sorts first, so its pods are among the
  // first rows the widths are taken from, whatever other specs left in the cluster.
  const ns = `0layout-e2e-${'n'.repeat(50)}`;
  const pod = `a-pod-with-a-long-name-as-controllers-make-them-${'p'.repeat(60)}-x7k2p`;
  expect((await request.post('/api/v1/namespaces', { data: { metadata: { name: ns } } })).ok()).toBe(true);
  // bound to a node that does not exist: no simulated kubelet rewrites the status set below
  expect((await request.post(`/api/v1/namespaces/${ns}/pods`, { data: { metadata: { name: pod }, spec: { nodeName: 'layout-e2e-no-such-node', containers: [{ name: 'c', image: 'example/app:1' }] } } })).status()).toBe(201);
  const finishedAt = new Date(Date.now() - 5 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const status = { phase: 'Pending', containerStatuses: [{ name: 'c', image: 'example/app:1', imageID: '', ready: false, restartCount: 1234, state: { waiting: { reason: 'CreateContainerConfigError' } }, lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt } } }] };
  expect((await request.patch(`/api/v1/namespaces/${ns}/pods/${pod}/status`, { headers: { 'Content-Type': 'application/merge-patch+json' }, data: { status } })).status()).toBe(200);
  await page.goto('/');
  await page.evaluate(() => localStorage.setItem('periscope.sidebar', 'open'));
  await page.goto('/r/core/v1/pods');
  await expect(page.locator('.vrow').first()).toBeVisible({ timeout: 20_000 });
  const row = page.locator('.vrow').filter({ has: page.locator(`[title="${pod}"]`) });
  await expect(row).toHaveCount(1, { timeout: 20_000 });
  // every column header on screen, none past the window's edge, and the table does not scroll sideways
  const heads = await page.locator('.vhead [role=columnheader]').evaluateAll((els) => els.map((e) => ({ name: e.textContent?.trim(), right: e.getBoundingClientRect().right })));
  expect(heads.map((h) => h.name)).toEqual(expect.arrayContaining(['Namespace', 'Name', 'Restarts', 'Age']));
  for (const h of heads) expect(h.right, `${h.name} ends at ${h.right}`).toBeLessThanOrEqual(1024);
  const overflow = await page.locator('.vbody').evaluate((b) => b.scrollWidth - b.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  // Name and Namespace give way (ellipsis, the whole text on hover); every other cell is whole
  const cells = await row.locator('[role=gridcell]').evaluateAll((els) => els.map((e) => ({ title: e.getAttribute('title'), cut: e.scrollWidth > e.clientWidth })));
  const names = heads.map((h) => h.name);
  cells.forEach((c, i) => {
    if (names[i] === 'Name' || names[i] === 'Namespace') return;
    expect(c.cut, `${names[i]} cell "${c.title}" is cut`).toBe(false);
  });
  expect(cells[names.indexOf('Name')]).toEqual({ title: pod, cut: true });
  expect(cells[names.indexOf('Namespace')]).toEqual({ title: ns, cut: true });
  expect(cells[names.indexOf('Status')]!.title).toBe('CreateContainerConfigError');
  expect(cells[names.indexOf('Restarts')]!.title).toMatch(/^1234 \(/);
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
  // the pod shows up as a problem on other specs' overviews: gone at once (no kubelet to wait for)
  expect((await request.delete(`/api/v1/namespaces/${ns}/pods/${pod}?gracePeriodSeconds=0`)).status()).toBe(200);
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
