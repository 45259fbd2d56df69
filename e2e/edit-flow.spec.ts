// The default edit flow (like kubectl edit: a patch of the user's changes, no field-manager
// knowledge needed) and typing at human speed into every YAML editor: create, edit, config studio.
import { expect, test, type APIRequestContext, type Page } from './fixtures.js';
import { createNamespace, settledDeployment } from './helpers.js';

const NS = 'edit-flow-e2e';
const cmPath = `/api/v1/namespaces/${NS}/configmaps`;
const depPath = `/apis/apps/v1/namespaces/${NS}/deployments`;

test.beforeAll(async ({ request }) => {
  await createNamespace(request, NS);
});

async function create(request: APIRequestContext, path: string, body: unknown, manager: string): Promise<any> {
  const r = await request.post(`${path}?fieldManager=${manager}`, { data: body });
  if (r.status() !== 201) throw new Error(`POST ${path}: ${r.status()} ${await r.text()}`);
  return r.json();
}

async function get(request: APIRequestContext, path: string): Promise<any> {
  const r = await request.get(path);
  return r.status() === 200 ? r.json() : undefined;
}

/** The editor's text, read from Monaco's rendered lines in their vertical order (short documents fit). */
async function editorText(page: Page, testId: string): Promise<string> {
  return page
    .getByTestId(testId)
    .locator('.view-line')
    .evaluateAll((els) =>
      els
        .map((e) => [parseFloat((e as HTMLElement).style.top), (e.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()] as const)
        .sort((a, b) => a[0] - b[0])
        .map((x) => x[1])
        .join('\n'),
    );
}

async function monacoReady(page: Page, testId: string): Promise<void> {
  await expect(page.getByTestId(testId)).toHaveAttribute('data-editor', 'monaco', { timeout: 20_000 });
  await expect(page.getByTestId(testId).locator('.view-line').first()).toBeVisible();
}

/** Selects a value at the end of its line (a double-click, extended to the line's end) and types a replacement at a human pace (120 ms per key). */
async function retypeWord(page: Page, testId: string, word: string, replacement: string): Promise<void> {
  await monacoReady(page, testId);
  const target = page.getByTestId(testId).locator('.view-lines span', { hasText: new RegExp(`^${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }).first();
  // Monaco renders only the lines in view: scroll down until the word's line is rendered
  for (let i = 0; i < 20 && (await target.count()) === 0; i++) {
    await page.getByTestId(testId).locator('.view-lines').hover();
    await page.mouse.wheel(0, 120);
  }
  await target.dblclick();
  await page.keyboard.press('End');
  for (let i = 0; i < word.length; i++) await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.type(replacement, { delay: 120 });
}

/** Slows the page's CPU: a render then takes longer than a keystroke, as on a busy laptop. */
async function throttle(page: Page, rate = 6): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
}

test('a first edit of an object another manager created saves without forcing', async ({ page, request }) => {
  await create(request, cmPath, { metadata: { name: 'theirs' }, data: { color: 'blue', size: 'L' } }, 'someone-else');
  await page.goto(`/r/core/v1/configmaps/${NS}/theirs/edit`);
  await expect(page.getByTestId('editor-view')).toHaveAttribute('data-mode', 'edit');
  await retypeWord(page, 'edit-buffer', 'blue', 'green');
  await expect(page.getByTestId('edit-status')).toContainText('patch will be sent');
  await page.getByTestId('review-button').click();
  const dialog = page.getByTestId('review-dialog');
  await expect(dialog.getByTestId('review-request')).toContainText('application/strategic-merge-patch+json');
  await expect(dialog.getByTestId('review-diff')).toContainText('green');
  await dialog.locator('summary').click();
  await expect(dialog.getByTestId('review-patch')).toContainText('"color": "green"');
  await expect(dialog.getByTestId('review-patch')).toContainText('resourceVersion');
  await dialog.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  const after = await get(request, `${cmPath}/theirs`);
  expect(after.data).toEqual({ color: 'green', size: 'L' });
  expect(after.metadata.managedFields.map((m: any) => `${m.manager}/${m.operation}`)).toContain('periscope/Update');
});

test('edit: a concurrent change to other fields moves the edit onto the new version quietly', async ({ page, request }) => {
  await create(request, cmPath, { metadata: { name: 'raced' }, data: { mine: 'old', theirs: 'old' } }, 'someone-else');
  await page.goto(`/r/core/v1/configmaps/${NS}/raced/edit`);
  await retypeWord(page, 'edit-buffer', 'old', 'new');
  const r = await request.patch(`${cmPath}/raced`, { data: { data: { theirs: 'new' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  expect(r.status()).toBe(200);
  await expect(page.getByTestId('quiet-rebase')).toContainText('data.theirs');
  await expect(page.getByTestId('live-changed')).toHaveCount(0);
  await page.getByTestId('review-button').click();
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  expect((await get(request, `${cmPath}/raced`)).data).toEqual({ mine: 'new', theirs: 'new' });
});

test('edit: custom resources are saved with a JSON merge patch', async ({ page, request }) => {
  await page.goto('/r/stable.example.com/v1/crontabs/shop/cache-warmup/edit');
  await monacoReady(page, 'edit-buffer');
  await expect(page.getByTestId('edit-status')).toContainText('No changes yet');
  const text = await editorText(page, 'edit-buffer');
  await page.getByTestId('edit-buffer').locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.evaluate((t) => {
    const data = new DataTransfer();
    data.setData('text/plain', t);
    document.activeElement!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text.replace(/^(metadata:\n)/m, '$1  labels:\n    edited: "yes"\n'));
  await page.getByTestId('review-button').click();
  await expect(page.getByTestId('review-request')).toContainText('application/merge-patch+json');
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  expect((await get(request, '/apis/stable.example.com/v1/namespaces/shop/crontabs/cache-warmup')).metadata.labels).toMatchObject({ edited: 'yes' });
});

test('typing at human speed into the Edit tab lands where the cursor is', async ({ page, request }) => {
  await create(request, cmPath, { metadata: { name: 'typed' }, data: { color: 'blue' } }, 'someone-else');
  await page.goto(`/r/core/v1/configmaps/${NS}/typed/edit`);
  await monacoReady(page, 'edit-buffer');
  await page.getByTestId('edit-mode-apply').click(); // the plainest document: no server-set metadata
  await throttle(page);
  await retypeWord(page, 'edit-buffer', 'blue', 'green');
  await expect.poll(() => editorText(page, 'edit-buffer')).toBe(['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: typed', `  namespace: ${NS}`, 'data:', '  color: green', ''].join('\n'));
});

test('typing at human speed into the create editor lands where the cursor is', async ({ page }) => {
  await page.goto(`/r/core/v1/configmaps/_new?ns=${NS}`);
  await monacoReady(page, 'edit-buffer');
  await throttle(page);
  await retypeWord(page, 'edit-buffer', 'my-configmap', 'typed-name');
  await expect.poll(() => editorText(page, 'edit-buffer')).toBe(['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: typed-name', `  namespace: ${NS}`, ''].join('\n'));
});

test('typing at human speed into the config studio lands where the cursor is', async ({ page }) => {
  await page.goto('/studio/TracingConfiguration');
  await monacoReady(page, 'yaml-editor');
  const before = await editorText(page, 'yaml-editor');
  await page.getByTestId('yaml-editor').locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+End');
  await throttle(page);
  // the form follows each key (its endpoint field fills in) while the cursor stays put
  await page.keyboard.type('endpoint: collector:4317', { delay: 120 });
  await expect.poll(() => editorText(page, 'yaml-editor')).toBe(`${before.replace(/\n$/, '')}\nendpoint: collector:4317`);
});

test('a deployment edit merges containers by name (strategic) without any field-manager choice', async ({ page, request }) => {
  await create(
    request,
    depPath,
    {
      metadata: { name: 'dep' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'dep' } }, template: { metadata: { labels: { app: 'dep' } }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } } },
    },
    'deployer',
  );
  await settledDeployment(request, `${depPath}/dep`);
  await page.goto(`/r/apps/v1/deployments/${NS}/dep/edit`);
  await retypeWord(page, 'edit-buffer', 'nginx:1', 'nginx:2');
  await page.getByTestId('review-button').click();
  await expect(page.getByTestId('review-request')).toContainText('application/strategic-merge-patch+json');
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  expect((await get(request, `${depPath}/dep`)).spec.template.spec.containers[0].image).toBe('nginx:2');
});
