// The Events list as a person reads it: newest first, filtered by type and reason, the object a link,
// the message in full, how many times it happened.
import { expect, test } from './fixtures.js';
import { createNamespace } from './helpers.js';

const NS = 'events-e2e';
const LONG = `a long message that does not fit one line ${'and keeps going '.repeat(12)}until the end`;

test.beforeAll(async ({ request }) => {
  await createNamespace(request, NS);
  await request.post(`/api/v1/namespaces/${NS}/configmaps`, { data: { metadata: { name: 'subject' } } });
  const ev = (name: string, type: string, reason: string, at: string, count: number, message: string) =>
    request.post(`/api/v1/namespaces/${NS}/events`, {
      data: { metadata: { name }, type, reason, message, count, firstTimestamp: at, lastTimestamp: at, involvedObject: { kind: 'ConfigMap', apiVersion: 'v1', name: 'subject', namespace: NS }, source: { component: 'e2e' } },
    });
  expect((await ev('older', 'Warning', 'Broken', '2026-01-01T10:00:00Z', 3, 'older one')).status()).toBe(201);
  expect((await ev('newest', 'Normal', 'Fixed', '2026-01-01T12:00:00Z', 1, LONG)).status()).toBe(201);
  expect((await ev('middle', 'Warning', 'Broken', '2026-01-01T11:00:00Z', 12, 'middle one')).status()).toBe(201);
});

test('events: newest first, type and reason filters, the object as a link, messages wrap, series counts', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto(`/r/core/v1/events?ns=${NS}`);
  const rows = page.getByTestId('event-row');
  await expect(rows).toHaveCount(3);
  expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-last')))).toEqual(['2026-01-01T12:00:00Z', '2026-01-01T11:00:00Z', '2026-01-01T10:00:00Z']);
  // the long message wraps inside the viewport
  const msg = rows.first().locator('td.wrap');
  await expect(msg).toContainText('until the end');
  const box = await msg.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(1024);
  expect(box!.height).toBeGreaterThan(30);
  await page.getByTestId('events-type').selectOption('Warning');
  await expect(rows).toHaveCount(2);
  await expect(rows.first().getByTestId('event-count')).toHaveText('12');
  await page.getByTestId('events-type').selectOption('');
  await page.getByTestId('events-reason').selectOption('Fixed');
  await expect(rows).toHaveCount(1);
  await rows.first().getByTestId('event-object').click();
  await expect(page).toHaveURL(new RegExp(`/r/core/v1/configmaps/${NS}/subject/summary`));
});
