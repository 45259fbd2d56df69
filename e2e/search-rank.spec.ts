// Search as a person uses it: a name fragment typed at a person's pace, the exact match first, opened
// with Enter; results grouped by kind, Events last and each once.
import { expect, test } from './fixtures.js';
import { shot } from './helpers.js';

test('search a name fragment and open the exact match as the first result', async ({ page }) => {
  await page.goto('/');
  // a person presses 's' once the page is there
  await expect(page.getByTestId('nav-task-workloads')).toBeVisible();
  await page.keyboard.press('s');
  const input = page.getByTestId('search-input');
  await expect(input).toBeFocused();
  await input.pressSequentially('checkout', { delay: 100 });
  await expect(page.getByTestId('search-status')).toHaveAttribute('data-running', 'false', { timeout: 30_000 });
  const first = page.getByTestId('search-hit').first();
  await expect(first).toHaveAttribute('data-kind', 'Deployment');
  await expect(first).toContainText('shop/checkout');
  await expect(first).toHaveAttribute('data-exact', 'true');
  // groups: kinds by best match and weight, Events last, no object twice
  const kinds = await page.getByTestId('search-group').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
  expect(kinds[0]).toBe('Deployment');
  expect(kinds.indexOf('Service')).toBeGreaterThan(0);
  if (kinds.includes('Event')) expect(kinds.at(-1)).toBe('Event');
  expect(kinds.filter((k) => k === 'Event').length).toBeLessThanOrEqual(1);
  const labels = await page.getByTestId('search-hit').allInnerTexts();
  expect(new Set(labels).size).toBe(labels.length);
  await shot(page, 'search-ranked');
  await input.press('Enter');
  await expect(page).toHaveURL(/\/r\/apps\/v1\/deployments\/shop\/checkout\/summary/);
});

test('a fragment: prefix matches before matches inside a name', async ({ page }) => {
  await page.goto('/search');
  const input = page.getByTestId('search-input');
  await input.pressSequentially('check', { delay: 100 });
  await expect(page.getByTestId('search-status')).toHaveAttribute('data-running', 'false', { timeout: 30_000 });
  await expect(page.getByTestId('search-hit').first()).toContainText('checkout');
  await expect(page.getByTestId('search-hit').first()).toHaveAttribute('data-kind', 'Deployment');
});
