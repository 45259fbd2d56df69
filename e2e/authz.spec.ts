// A read-only user in the explorer: actions they lack the permission for are disabled with a tooltip
// naming the permission, and a 403 from the server is shown with the server's message. Runs its own
// server with a token file (RBAC); the browser sends the user's token on every request.
import { expect, request as playwrightRequest, test, type APIRequestContext } from './fixtures.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = Number(process.env.E2E_AUTHZ_PORT ?? 18091);
const base = `http://127.0.0.1:${port}`;
let server: ChildProcess | undefined;
let dir: string;
let admin: APIRequestContext;

test.use({ baseURL: base, extraHTTPHeaders: { Authorization: 'Bearer viewer-token' } });

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'periscope-e2e-authz-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'admin-token,admin,u1,"system:masters"\nviewer-token,viewer,u2,""\nupdater-token,updater,u3,""\n');
  server = spawn(process.execPath, ['scripts/start.mjs', '--port', String(port), '--store', 'memory', '--request-log=false', '--no-demo-data', '--token-auth-file', tokens], { stdio: 'ignore' });
  admin = await playwrightRequest.newContext({ baseURL: base, extraHTTPHeaders: { Authorization: 'Bearer admin-token' } });
  await expect.poll(async () => (await admin.get('/readyz').catch(() => undefined))?.status(), { timeout: 90_000 }).toBe(200);
  const post = async (path: string, data: unknown) => {
    const r = await admin.post(path, { data });
    if (r.status() !== 201) throw new Error(`${path}: ${r.status()} ${await r.text()}`);
  };
  await post('/api/v1/namespaces', { metadata: { name: 'shop' } });
  await post('/api/v1/namespaces/shop/configmaps', { metadata: { name: 'settings', finalizers: ['example.com/keep'] }, data: { a: '1' } });
  await post('/apis/rbac.authorization.k8s.io/v1/namespaces/shop/rolebindings', {
    metadata: { name: 'viewer-view' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'viewer' }],
  });
  await post('/apis/rbac.authorization.k8s.io/v1/namespaces/shop/roles', {
    metadata: { name: 'cm-updater' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'update'] }],
  });
  await post('/apis/rbac.authorization.k8s.io/v1/namespaces/shop/rolebindings', {
    metadata: { name: 'updater' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-updater' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'updater' }],
  });
});

test.afterAll(async () => {
  await admin?.dispose();
  server?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

test('a read-only user sees no edit, delete or create actions', async ({ page }) => {
  await page.goto('/r/core/v1/configmaps?ns=shop');
  await expect(page.getByText('settings')).toBeVisible();
  const create = page.getByTestId('new-object');
  await expect(create).toBeDisabled();
  await expect(create).toHaveAttribute('title', 'You cannot do this: it needs the "create" permission on configmaps in namespace "shop"');

  await page.goto('/r/core/v1/configmaps/shop/settings/summary');
  const del = page.getByTestId('delete-button');
  await expect(del).toBeDisabled();
  await expect(del).toHaveAttribute('title', /needs the "delete" permission on configmaps "settings" in namespace "shop"/);
  await expect(page.getByTestId('tab-edit')).toHaveAttribute('aria-disabled', 'true');
  await expect(page.getByTestId('finalizer-remove')).toHaveCount(0);
  await page.goto('/r/core/v1/configmaps/shop/settings/edit');
  await expect(page.getByTestId('edit-forbidden')).toContainText('needs the "update" permission');
  await page.screenshot({ path: 'test-results/authz-read-only.png' });
});

test('a user without pods/exec create sees why the Terminal tab cannot connect', async ({ page }) => {
  const r = await admin.post('/api/v1/namespaces/shop/pods', { data: { metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'busybox:1.36' }] } } });
  expect([201, 409]).toContain(r.status());
  await page.goto('/r/core/v1/pods?ns=shop');
  await page.getByTestId('text-filter').pressSequentially('web', { delay: 100 });
  await page.getByRole('gridcell', { name: 'web' }).first().click();
  await expect(page.getByTestId('containers')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('tab-shell').click();
  await expect(page.getByTestId('terminal-view')).toBeVisible();
  await expect(page.getByTestId('terminal-status')).toHaveText(/^Exec is forbidden for you: .*"create" permission on pods\/exec "web" in namespace "shop"/);
  await expect(page.getByTestId('terminal-connect')).toBeDisabled();
});

test('a 403 from the server is shown with its message', async ({ page }) => {
  await page.goto('/r/core/v1/secrets?ns=shop');
  const err = page.getByTestId('error-state');
  await expect(err).toHaveAttribute('data-code', '403');
  await expect(err).toContainText('secrets is forbidden: User "viewer" cannot list resource "secrets" in API group "" in the namespace "shop"');
});

test('the Access tab shows who holds a role and what it grants', async ({ page, context }) => {
  await context.setExtraHTTPHeaders({ Authorization: 'Bearer admin-token' });
  await page.goto('/r/rbac.authorization.service.io/v1/clusterroles/_/view/access');
  await expect(page.getByTestId('access-subjects')).toContainText('User viewer');
  await expect(page.getByTestId('access-subjects')).toContainText('RoleBinding shop/viewer-view');
  await expect(page.getByTestId('access-rules')).toContainText('configmaps');
  await page.goto('/r/core/v1/configmaps/shop/settings/access');
  await expect(page.getByTestId('access-who')).toBeVisible();
  await expect(page.getByTestId('access-who')).toContainText('Group system:masters');
});

test('edit modes follow the verbs: update without patch leaves only replace', async ({ page, context }) => {
  await context.setExtraHTTPHeaders({ Authorization: 'Bearer updater-token' });
  await page.goto('/r/core/v1/configmaps/shop/settings/edit');
  await expect(page.getByTestId('edit-mode-replace')).toBeEnabled();
  for (const m of ['apply', 'merge', 'json', 'strategic']) await expect(page.getByTestId(`edit-mode-${m}`)).toBeDisabled();
  await expect(page.getByTestId('edit-mode-apply')).toHaveAttribute('title', /needs the "patch" permission on configmaps "settings"/);
  await expect(page.getByTestId('delete-button')).toBeDisabled();
});

