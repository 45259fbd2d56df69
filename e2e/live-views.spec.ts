// Many live views at once: watches run over WebSocket, so 20 views (tabs of the same explorer) stay
// live together; a browser allows only six HTTP/1.1 streams per host.
import { expect, test, type Page } from './fixtures.js';
import { createConfigMap, createNamespace } from './helpers.js';

const VIEWS = 20;

test('20 live views open at once, each receiving its updates', async ({ context, request }) => {
  test.setTimeout(180_000);
  const sockets: string[] = [];
  context.on('page', (p) => p.on('websocket', (ws) => sockets.push(ws.url())));
  const pages: Page[] = [];
  for (let i = 0; i < VIEWS; i++) {
    await createNamespace(request, `live-${i}`);
    await createConfigMap(request, `live-${i}`, 'first', { a: '1' });
    const page = await context.newPage();
    await page.goto(`/r/core/v1/configmaps?ns=live-${i}`);
    await expect(page.locator('.vrow', { hasText: 'first' })).toBeVisible();
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
    pages.push(page);
  }
  expect(sockets.some((u) => /\/api\/v1\/namespaces\/live-\d+\/configmaps\?watch=1/.test(u))).toBe(true);
  // every view, the first opened included, gets its update
  for (let i = 0; i < VIEWS; i++) await createConfigMap(request, `live-${i}`, 'update', { a: '1', b: '2' });
  for (let i = 0; i < VIEWS; i++) await expect(pages[i]!.locator('.vrow', { hasText: 'update' })).toBeVisible({ timeout: 15_000 });
  // an edit in place reaches the view too
  const put = await request.put('/api/v1/namespaces/live-0/configmaps/update', {
    data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'update', namespace: 'live-0' }, data: { a: '1', b: '2', c: '3' } },
  });
  expect(put.status()).toBe(200);
  await expect(pages[0]!.locator('.vrow', { hasText: 'update' }).locator('.vcell').nth(1)).toHaveText('3');
});
