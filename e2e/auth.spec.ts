// The explorer against a server that requires credentials: sign-in page, the current user in the
// header, a 401 mid-session back to sign-in on the same page, sign-out.
import { expect, test } from './fixtures.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type ApiServer } from '../src/server/app.js';

let server: ApiServer;
let dir: string;
const ADMIN = 'e2e-admin-token';

async function api(method: string, path: string, body?: unknown, token = ADMIN): Promise<any> {
  const r = await fetch(server.url + path, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'periscope-e2e-auth-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${ADMIN},alice,1,"dev,system:masters"\n`);
  server = await startServer({ port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: 'dist', compactionIntervalMs: 0, tokenAuthFile: tokens, anonymousAuth: false });
  await api('POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
  await api('POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'settings' }, data: { a: '1' } });
  await api('POST', '/api/v1/namespaces/team/serviceaccounts', { metadata: { name: 'viewer' } });
});
test.afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('signs in with a token, shows the user, returns to sign-in on a 401 and keeps the page', async ({ page }) => {
  await page.goto(`${server.url}/r/core/v1/configmaps?ns=team`);
  await expect(page.getByTestId('sign-in')).toBeVisible();

  await page.getByTestId('token-input').fill('not-a-token');
  await page.getByTestId('sign-in-submit').click();
  await expect(page.getByTestId('sign-in-error')).toContainText('Unauthorized');

  await page.getByTestId('token-input').fill(ADMIN);
  await page.getByTestId('sign-in-submit').click();
  await expect(page.getByTestId('current-user')).toContainText('alice');
  await expect(page.locator('.vrow', { hasText: 'settings' })).toBeVisible();
  await expect(page).toHaveURL(/\/r\/core\/v1\/configmaps\?ns=team$/);
  // the token lives in session storage only
  expect(await page.evaluate(() => sessionStorage.getItem('periscope.token'))).toBe(ADMIN);
  expect(await page.evaluate(() => localStorage.length)).toBe(0);

  // sign out: the token is dropped, the server asks again
  await page.getByTestId('sign-out').click();
  expect(await page.evaluate(() => sessionStorage.getItem('periscope.token'))).toBeNull();
  await expect(page.getByTestId('sign-in')).toBeVisible();

  // a service account token; deleting the account makes the next request 401
  const tr = await api('POST', '/api/v1/namespaces/team/serviceaccounts/viewer/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  await page.getByTestId('token-input').fill(tr.status.token);
  await page.getByTestId('sign-in-submit').click();
  await expect(page.getByTestId('current-user')).toContainText('system:serviceaccount:team:viewer');
  await page.goto(`${server.url}/r/core/v1/secrets?ns=team`);
  await expect(page.getByTestId('current-user')).toContainText('system:serviceaccount:team:viewer');
  await api('DELETE', '/api/v1/namespaces/team/serviceaccounts/viewer');
  await page.getByTestId('nav-core-configmaps').click();
  await expect(page.getByTestId('sign-in')).toBeVisible();
  await expect(page).toHaveURL(/\/r\/core\/v1\/configmaps/);
  await page.getByTestId('token-input').fill(ADMIN);
  await page.getByTestId('sign-in-submit').click();
  await expect(page.locator('.vrow', { hasText: 'settings' })).toBeVisible();
  await expect(page).toHaveURL(/\/r\/core\/v1\/configmaps/);
});
