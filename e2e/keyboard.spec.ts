// The keyboard as a person uses it: focus lands on the list after navigating, j/k and Enter work at once,
// headers sort from the keyboard, a skip link passes the sidebar, and the object keys (l, x, e) work.
import { expect, test } from './fixtures.js';

test('after :po Enter the list has focus: j moves, Enter opens, l opens logs', async ({ page }) => {
  await page.goto('/?ns=shop');
  await expect(page.getByTestId('nav-task-workloads')).toBeVisible({ timeout: 20_000 });
  await page.keyboard.press(':');
  await page.keyboard.type('po', { delay: 100 });
  await page.keyboard.press('Enter');
  const grid = page.getByTestId('resource-table');
  await expect(grid).toBeFocused();
  await expect(grid.locator('.vrow').first()).toBeVisible({ timeout: 20_000 });
  await page.keyboard.press('j');
  await expect(grid.locator('.vrow.selected')).toHaveCount(1);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/r\/core\/v1\/pods\/shop\/[^/]+\/summary/);
  await expect(page.getByTestId('containers')).toBeVisible({ timeout: 20_000 });
  await page.keyboard.press('l');
  await expect(page).toHaveURL(/\/logs(\?|$)/);
  await expect(page.getByTestId('logs-view')).toBeVisible();
  await page.keyboard.press('x');
  await expect(page).toHaveURL(/\/shell(\?|$)/);
  await expect(page.getByTestId('terminal-view')).toBeVisible();
});

test('sortable headers take the keyboard; the first Tab offers a skip link', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('nav-task-workloads')).toBeVisible({ timeout: 20_000 });
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('skip-link')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('skip-link')).not.toBeFocused();
  expect(await page.evaluate(() => !!document.getElementById('main')?.contains(document.activeElement))).toBe(true);

  await page.goto('/r/core/v1/namespaces');
  await expect(page.getByTestId('resource-table')).toBeFocused({ timeout: 20_000 });
  const header = page.getByRole('columnheader', { name: 'Name' });
  await header.focus();
  await page.keyboard.press('Enter');
  await expect(header).toHaveAttribute('aria-sort', /ascending|descending/);
});

test('the help lists the nine tabs and the object keys', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('nav-task-workloads')).toBeVisible({ timeout: 20_000 });
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toContainText('1 … 9');
  await expect(help).toContainText('access');
  await expect(help).toContainText('e  l  x');
});

test('a wide table that overflows keeps its headers over their cells, scrolled or not', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 700 });
  await page.goto('/r/core/v1/pods?ns=shop&wide=1');
  const grid = page.getByTestId('resource-table');
  await expect(grid.locator('.vrow').first()).toBeVisible({ timeout: 20_000 });
  const offsets = async () =>
    page.evaluate(() => {
      const heads = [...document.querySelectorAll('.vhead [role=columnheader]')].map((e) => e.getBoundingClientRect());
      const rows = [...document.querySelectorAll('.vrow:not(.placeholder)')];
      return rows.map((r) => [...r.querySelectorAll('[role=gridcell]')].map((c, i) => Math.round(Math.abs(c.getBoundingClientRect().left - heads[i]!.left))));
    });
  expect((await offsets()).flat().filter((d) => d > 1)).toEqual([]);
  await page.locator('.vbody').evaluate((el) => (el.scrollLeft = el.scrollWidth));
  await page.waitForTimeout(100);
  expect((await offsets()).flat().filter((d) => d > 1)).toEqual([]);
});
