// Accessibility of the views issue 30 added or rebuilt (the health overview, ranked search, Events,
// history with comparison, namespace history with deletions, the relationship map, the Access tab, the task navigation): axe finds no
// serious or critical violation in either theme, at 1440 and at 1024 px.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from './fixtures.js';

async function serious(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).exclude('.monaco-editor').analyze();
  const node = (n: (typeof r.violations)[number]['nodes'][number]) => `${n.target.join(' ')} ${JSON.stringify(n.any.map((c) => c.data ?? null))}`;
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map(node).join(' | ')}`);
}

const VIEWS: [string, string, (p: Page) => Promise<void>][] = [
  ['overview', '/', (p) => expect(p.getByTestId('nodes-ready')).toBeVisible({ timeout: 20_000 })],
  ['search', '/search?q=checkout', (p) => expect(p.getByTestId('search-status')).toHaveAttribute('data-running', 'false', { timeout: 20_000 })],
  ['events', '/r/core/v1/events?ns=shop', (p) => expect(p.getByTestId('events-count')).not.toBeEmpty()],
  ['history', '/r/apps/v1/deployments/shop/checkout/history', (p) => expect(p.getByTestId('timeline-entry').first()).toBeVisible({ timeout: 20_000 })],
  ['namespace history', '/r/core/v1/namespaces/_/shop/history?ns=shop', async (p) => {
    await expect(p.getByTestId('namespace-change').first()).toBeVisible({ timeout: 20_000 });
    await expect(p.getByTestId('deletions-checking')).toHaveCount(0, { timeout: 20_000 });
  }],
  ['map', '/r/apps/v1/deployments/shop/checkout/related', (p) => expect(p.getByTestId('related-pods')).toBeVisible({ timeout: 20_000 })],
  ['access', '/r/apps/v1/deployments/shop/checkout/access', (p) => expect(p.getByTestId('access-who')).toBeVisible({ timeout: 20_000 })],
];

test.describe.configure({ retries: 1 });

for (const width of [1440, 1024])
  for (const scheme of ['light', 'dark'] as const) {
    test(`axe: issue 30 views, ${scheme}, ${width} px`, async ({ page }) => {
      test.setTimeout(120_000);
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      await page.goto('/');
      // the sidebar open at either width, so the navigation is checked too
      await page.evaluate(() => localStorage.setItem('periscope.sidebar', 'open'));
      const found: string[] = [];
      for (const [name, url, ready] of VIEWS) {
        await page.goto(url);
        await ready(page);
        await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
        await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
        for (const v of await serious(page)) found.push(`${name}: ${v}`);
      }
      expect(found).toEqual([]);
    });
  }
