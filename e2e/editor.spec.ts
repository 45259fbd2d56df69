// The object editor against the embedded server: create from a template, each edit mode sending its
// real request, apply conflicts, replace conflicts with rebase, dry-run previews, validation markers,
// deletion with a finalizer.
import { expect, test, type APIRequestContext, type Page } from './fixtures.js';
import { stringify } from 'yaml';
import { createNamespace, settledDeployment, shot } from './helpers.js';

const NS = 'edit-e2e';

test.beforeAll(async ({ request }) => {
  await createNamespace(request, NS);
});

async function post(request: APIRequestContext, path: string, body: unknown, query = ''): Promise<any> {
  const r = await request.post(`${path}${query}`, { data: body });
  if (r.status() !== 201) throw new Error(`POST ${path}: ${r.status()} ${await r.text()}`);
  return r.json();
}

async function get(request: APIRequestContext, path: string): Promise<any> {
  const r = await request.get(path);
  return r.status() === 200 ? r.json() : undefined;
}

const cmPath = `/api/v1/namespaces/${NS}/configmaps`;
const depPath = `/apis/apps/v1/namespaces/${NS}/deployments`;

function deployment(name: string, replicas = 1) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1' }, { name: 'log', image: 'fluent:1' }] } },
    },
  };
}

/** Replaces the whole text of a Monaco editor with a paste (typing would auto-indent every line). */
async function setEditor(page: Page, testId: string, text: string): Promise<void> {
  const editor = page.getByTestId(testId);
  await expect(editor).toHaveAttribute('data-editor', 'monaco');
  await editor.locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.evaluate((t) => {
    const data = new DataTransfer();
    data.setData('text/plain', t);
    document.activeElement!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
  // the cursor ends at the end: the last line is in view
  const last = text.trim().split('\n').pop()!.trim();
  await expect.poll(() => editor.locator('.view-lines').innerText().then((v) => v.replace(/\s+/g, ' ').includes(last))).toBe(true);
}

const openEditor = async (page: Page, path: string) => {
  await page.goto(path);
  await expect(page.getByTestId('edit-buffer')).toHaveAttribute('data-editor', 'monaco');
  await expect(page.getByTestId('edit-buffer')).toContainText('kind');
};

test('creates an object from its schema template with a dry-run preview', async ({ page, request }) => {
  await page.goto(`/r/core/v1/configmaps?ns=${NS}`);
  await page.getByTestId('new-object').click();
  await expect(page).toHaveURL(/\/r\/core\/v1\/configmaps\/_new\?ns=edit-e2e$/);
  const buffer = page.getByTestId('edit-buffer');
  await expect(buffer).toContainText('kind: ConfigMap');
  await expect(buffer).toContainText('name: my-configmap');
  await expect(buffer).toContainText(`namespace: ${NS}`);
  // keys typed into the editor are text, not the explorer's shortcuts (t: theme, digits: tabs)
  const theme = await page.evaluate(() => document.documentElement.dataset.theme);
  await buffer.locator('.view-lines').click();
  await page.keyboard.type('t1');
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
  await expect(page).toHaveURL(/_new/);
  await setEditor(page, 'edit-buffer', stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made-here', namespace: NS }, data: { greeting: 'hello' } }));
  await page.getByTestId('review-button').click();
  const dialog = page.getByTestId('review-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('review-request')).toContainText(`POST /api/v1/namespaces/${NS}/configmaps`);
  await expect(dialog.getByTestId('review-diff')).toContainText('greeting');
  await shot(page, 'editor-create-review');
  expect(await get(request, `${cmPath}/made-here`)).toBeUndefined(); // only a dry run so far
  await dialog.getByTestId('confirm-button').click();
  await expect(page).toHaveURL(new RegExp(`/r/core/v1/configmaps/${NS}/made-here/summary`));
  expect((await get(request, `${cmPath}/made-here`)).data).toEqual({ greeting: 'hello' });
});

test('server-side apply: a conflict lists the field and its owner, drop or force resolves it', async ({ page, request }) => {
  await post(request, depPath, deployment('applied', 2), '?fieldManager=deployer');
  await openEditor(page, `/r/apps/v1/deployments/${NS}/applied/edit`);
  await expect(page.getByTestId('editor-view')).toHaveAttribute('data-mode', 'edit');
  await page.getByTestId('edit-mode-apply').click();
  await expect(page.getByTestId('editor-view')).toHaveAttribute('data-mode', 'apply');
  const config = (replicas: number, label: string) =>
    stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'applied', namespace: NS, labels: { team: label } }, spec: { ...deployment('applied').spec, replicas } });

  // drop: the conflicting field leaves the configuration, the rest is applied
  await setEditor(page, 'edit-buffer', config(5, 'a'));
  await page.getByTestId('review-button').click();
  const conflicts = page.getByTestId('apply-conflicts');
  await expect(conflicts).toBeVisible();
  await expect(conflicts.getByTestId('conflict-row')).toContainText(['.spec.replicas']);
  await expect(conflicts).toContainText('deployer');
  await shot(page, 'editor-apply-conflict');
  await conflicts.getByTestId('conflict-drop').click();
  await expect(page.getByTestId('review-dialog')).toBeVisible();
  await expect(page.getByTestId('edit-buffer')).not.toContainText('replicas: 5');
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  let obj = await get(request, `${depPath}/applied`);
  expect(obj.spec.replicas).toBe(2);
  expect(obj.metadata.labels).toEqual({ team: 'a' });

  // force: periscope takes the field over
  await setEditor(page, 'edit-buffer', config(5, 'b'));
  await page.getByTestId('review-button').click();
  await expect(page.getByTestId('apply-conflicts')).toBeVisible();
  await page.getByTestId('conflict-force').click();
  await expect(page.getByTestId('review-request')).toContainText('force=true');
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  obj = await get(request, `${depPath}/applied`);
  expect(obj.spec.replicas).toBe(5);
  const mine = obj.metadata.managedFields.find((m: any) => m.manager === 'periscope' && m.operation === 'Apply');
  expect(mine.fieldsV1['f:spec']['f:replicas']).toEqual({});

  // the owners overlay marks lines in the gutter
  await page.getByTestId('owners-toggle').check();
  await expect(page.getByTestId('owners-legend')).toContainText('periscope');
  await expect(page.locator('[data-testid=edit-buffer] .mf-glyph').first()).toBeVisible();
});

test('merge patch: the computed patch is shown, the dry-run diff hides noise, confirm saves', async ({ page, request }) => {
  await post(request, cmPath, { metadata: { name: 'merged' }, data: { a: '1', b: '2' } });
  await openEditor(page, `/r/core/v1/configmaps/${NS}/merged/edit`);
  await page.getByTestId('edit-mode-merge').click();
  const cur = await get(request, `${cmPath}/merged`);
  delete cur.metadata.managedFields;
  await setEditor(page, 'edit-buffer', stringify({ ...cur, data: { a: '10', c: '3' } }));
  const patch = page.getByTestId('patch-buffer');
  await expect(patch).toContainText('"a": "10"');
  await expect(patch).toContainText('"b": null');
  await expect(patch).toContainText(`"resourceVersion": "${cur.metadata.resourceVersion}"`);
  await page.getByTestId('review-button').click();
  const dialog = page.getByTestId('review-dialog');
  await expect(dialog.getByTestId('review-request')).toContainText('application/merge-patch+json');
  await expect(dialog.getByTestId('review-diff')).toContainText('c: "3"');
  await expect(dialog.getByTestId('review-diff')).not.toContainText('managedFields');
  await dialog.getByTestId('noise-toggle').check();
  await expect(dialog.getByTestId('review-diff')).toContainText('managedFields');
  await shot(page, 'editor-merge-review');
  await dialog.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  expect((await get(request, `${cmPath}/merged`)).data).toEqual({ a: '10', c: '3' });
});

test('JSON patch: generated ops carry test guards and can be edited by hand', async ({ page, request }) => {
  await post(request, cmPath, { metadata: { name: 'jsonp' }, data: { a: '1' } });
  await openEditor(page, `/r/core/v1/configmaps/${NS}/jsonp/edit`);
  await page.getByTestId('edit-mode-json').click();
  const cur = await get(request, `${cmPath}/jsonp`);
  delete cur.metadata.managedFields;
  await setEditor(page, 'edit-buffer', stringify({ ...cur, data: { a: '2' } }));
  const patch = page.getByTestId('patch-buffer');
  await expect(patch).toContainText('"op": "test"');
  await expect(patch).toContainText('"path": "/data/a"');
  await shot(page, 'editor-json-patch');
  const ops = [
    { op: 'test', path: '/data/a', value: '1' },
    { op: 'replace', path: '/data/a', value: '2' },
    { op: 'add', path: '/metadata/annotations', value: { 'edited-by': 'hand' } },
  ];
  await setEditor(page, 'patch-buffer', JSON.stringify(ops, null, 2));
  await expect(page.getByTestId('patch-edited')).toBeVisible();
  await page.getByTestId('review-button').click();
  await expect(page.getByTestId('review-request')).toContainText('application/json-patch+json');
  await expect(page.getByTestId('review-diff')).toContainText('edited-by');
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  const after = await get(request, `${cmPath}/jsonp`);
  expect(after.data).toEqual({ a: '2' });
  expect(after.metadata.annotations).toEqual({ 'edited-by': 'hand' });
});

test('strategic merge patch merges containers by name; custom resources cannot use it', async ({ page, request }) => {
  await post(request, depPath, deployment('strategic'));
  await settledDeployment(request, `${depPath}/strategic`);
  await openEditor(page, `/r/apps/v1/deployments/${NS}/strategic/edit`);
  await page.getByTestId('edit-mode-strategic').click();
  const cur = await get(request, `${depPath}/strategic`);
  delete cur.metadata.managedFields;
  cur.spec.template.spec.containers[0].image = 'nginx:2';
  cur.spec.template.spec.containers.splice(1, 1);
  await setEditor(page, 'edit-buffer', stringify(cur));
  const patch = page.getByTestId('patch-buffer');
  await expect(patch).toContainText('$setElementOrder/containers');
  await expect(patch).toContainText('"$patch": "delete"');
  await page.getByTestId('review-button').click();
  await expect(page.getByTestId('review-request')).toContainText('application/strategic-merge-patch+json');
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  const after = await get(request, `${depPath}/strategic`);
  expect(after.spec.template.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(['web=nginx:2']);

  await openEditor(page, '/r/stable.example.com/v1/crontabs/shop/cache-warmup/edit');
  await expect(page.getByTestId('edit-mode-strategic')).toBeDisabled();
});

test('replace: a change to another field rebases quietly; one to the edited field shows live, the 409 opens a three-way view, rebase keeps both', async ({ page, request }) => {
  await post(request, cmPath, { metadata: { name: 'replaced' }, data: { mine: 'old', theirs: 'old' } });
  await openEditor(page, `/r/core/v1/configmaps/${NS}/replaced/edit`);
  await page.getByTestId('edit-mode-replace').click();
  const cur = await get(request, `${cmPath}/replaced`);
  delete cur.metadata.managedFields;
  await setEditor(page, 'edit-buffer', stringify({ ...cur, data: { mine: 'new', theirs: 'old' } }));
  // someone else writes a field this edit leaves alone: the edit moves onto their version, with a note
  const r = await request.patch(`${cmPath}/replaced`, { data: { data: { theirs: 'new' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  expect(r.status()).toBe(200);
  await expect(page.getByTestId('quiet-rebase')).toContainText('data.theirs');
  await expect(page.getByTestId('edit-base-rv')).toHaveText((await r.json()).metadata.resourceVersion);
  await expect(page.getByTestId('live-changed')).toHaveCount(0);
  // and then the field this edit changes
  const r2 = await request.patch(`${cmPath}/replaced`, { data: { data: { mine: 'theirs' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  expect(r2.status()).toBe(200);
  await expect(page.getByTestId('live-changed')).toBeVisible();
  await page.getByTestId('review-button').click();
  const view = page.getByTestId('rebase-view');
  await expect(view).toBeVisible();
  await expect(view.getByTestId('rebase-conflicts')).toContainText('/data/mine');
  await shot(page, 'editor-replace-rebase');
  await view.getByTestId('rebase-button').click();
  await expect(page.getByTestId('edit-base-rv')).toHaveText((await get(request, `${cmPath}/replaced`)).metadata.resourceVersion);
  await page.getByTestId('review-button').click();
  await expect(page.getByTestId('review-request')).toContainText('PUT');
  await page.getByTestId('confirm-button').click();
  await expect(page.getByTestId('saved-banner')).toBeVisible();
  expect((await get(request, `${cmPath}/replaced`)).data).toEqual({ mine: 'new', theirs: 'new' });
});

test('strict field validation marks the unknown field; Warn lists the warning', async ({ page, request }) => {
  await post(request, depPath, deployment('validated'));
  await settledDeployment(request, `${depPath}/validated`);
  await openEditor(page, `/r/apps/v1/deployments/${NS}/validated/edit`);
  await page.getByTestId('edit-mode-merge').click();
  const cur = await get(request, `${depPath}/validated`);
  delete cur.metadata.managedFields;
  const text = stringify({ ...cur, spec: { ...cur.spec, colour: 'blue' } });
  await setEditor(page, 'edit-buffer', text);
  await page.getByTestId('review-button').click();
  const err = page.getByTestId('edit-error');
  await expect(err).toContainText('strict decoding error: unknown field "spec.colour"');
  const line = text.split('\n').findIndex((l) => l.includes('colour:')) + 1;
  await expect(err.getByTestId('placed-marker')).toHaveAttribute('data-line', String(line));
  await err.getByTestId('placed-marker').getByRole('button', { name: `line ${line}` }).click();
  await expect(page.locator('[data-testid=edit-buffer] .squiggly-error').first()).toBeAttached();
  await shot(page, 'editor-strict-marker');

  await page.getByTestId('field-validation').selectOption('Warn');
  await page.getByTestId('review-button').click();
  await expect(page.getByTestId('review-warnings')).toContainText('unknown field "spec.colour"');
  await page.getByTestId('review-dialog').getByText('Back to editing').click();
});

test('delete: dry run lists dependents, the finalizer holds the object until removed', async ({ page, request }) => {
  const owner = await post(request, cmPath, { metadata: { name: 'held', finalizers: ['example.com/hold'] }, data: { x: '1' } });
  await post(request, cmPath, { metadata: { name: 'held-child', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'held', uid: owner.metadata.uid }] } });
  await page.goto(`/r/core/v1/configmaps/${NS}/held/summary`);
  await page.getByTestId('delete-button').click();
  const dialog = page.getByTestId('delete-dialog');
  await expect(dialog.getByTestId('dry-run-outcome')).toHaveAttribute('data-outcome', 'pending');
  await expect(dialog.getByTestId('dry-run-outcome')).toContainText('example.com/hold');
  await expect(dialog.getByTestId('dependent')).toContainText(['ConfigMap/held-child']);
  await dialog.getByTestId('delete-policy').selectOption('Foreground');
  await expect(dialog.getByTestId('dry-run-outcome')).toContainText('foregroundDeletion');
  await dialog.getByTestId('delete-policy').selectOption('Background');
  await expect(dialog.getByTestId('dry-run-outcome')).not.toContainText('foregroundDeletion');
  await shot(page, 'editor-delete-dialog');
  expect((await get(request, `${cmPath}/held`)).metadata.deletionTimestamp).toBeUndefined();
  await dialog.getByTestId('delete-confirm').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('deletion-state')).toContainText('example.com/hold');
  await expect(page.getByTestId('deleting')).toBeVisible();

  await page.getByTestId('finalizer-remove').click();
  await page.getByTestId('finalizer-remove-yes').click();
  await expect(page.getByTestId('empty-state')).toContainText('not found');
  expect(await get(request, `${cmPath}/held`)).toBeUndefined();
  await expect.poll(async () => await get(request, `${cmPath}/held-child`)).toBeUndefined();
});
