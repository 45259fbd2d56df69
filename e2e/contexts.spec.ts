// Proxy mode: the context in use is always visible and every kubeconfig context is selectable
// without a restart. A proxy is started here against the embedded server Playwright runs.
import { expect, test } from './fixtures.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PROXY_PORT = Number(process.env.E2E_PORT ?? 18080) + 7;
let proxy: ChildProcess;
let dir: string;

test.beforeAll(async ({ baseURL }) => {
  dir = mkdtempSync(join(tmpdir(), 'periscope-e2e-ctx-'));
  const kc = join(dir, 'kc.yaml');
  // two contexts on the same local server (it takes requests without credentials as its admin), told apart by namespace
  writeFileSync(
    kc,
    `apiVersion: v1\nkind: Config\ncurrent-context: alpha\nclusters:\n- name: local\n  cluster: {server: "${baseURL}"}\nusers:\n- name: nobody\n  user: {}\ncontexts:\n- name: alpha\n  context: {cluster: local, user: nobody, namespace: default}\n- name: beta\n  context: {cluster: local, user: nobody, namespace: kube-system}\n`,
  );
  proxy = spawn(process.execPath, ['scripts/start.mjs', '--kubeconfig', kc, '--port', String(PROXY_PORT), '--request-log=false'], { stdio: ['ignore', 'ignore', 'pipe'] });
  await expect
    .poll(async () => {
      try {
        return (await fetch(`http://127.0.0.1:${PROXY_PORT}/readyz`)).status;
      } catch {
        return 0;
      }
    }, { timeout: 60_000 })
    .toBe(200);
});

test.afterAll(() => {
  proxy?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

test('the context in use is visible and another one is selected without a restart', async ({ page }) => {
  await page.goto(`http://127.0.0.1:${PROXY_PORT}/`);
  const picker = page.getByTestId('context-picker');
  await expect(picker).toHaveValue('alpha');
  await expect(picker.locator('option')).toHaveText(['alpha', 'beta']);
  await expect(page.getByTestId('server-version')).toContainText('v1.');
  await picker.selectOption('beta');
  await expect(page.getByTestId('context-picker')).toHaveValue('beta');
  await expect(page.getByTestId('server-version')).toContainText('v1.');
  const after = await (await fetch(`http://127.0.0.1:${PROXY_PORT}/periscope/contexts`)).json();
  expect(after.current).toBe('beta');
  // the embedded server itself has no contexts: no picker
  const page2 = await page.context().newPage();
  await page2.goto('/');
  await expect(page2.getByTestId('server-version')).toContainText('v1.');
  await expect(page2.getByTestId('nav-search')).toBeVisible();
  await expect(page2.getByTestId('context-picker')).toHaveCount(0);
});
