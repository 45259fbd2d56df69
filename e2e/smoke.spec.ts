import { expect, test } from './fixtures.js';

test('the served explorer page opens and talks to the server', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveTitle('Periscope');
  await expect(page.getByTestId('server-version')).toContainText('v1.33.0');
  await expect(page.getByTestId('group-list')).toContainText('apps/v1');
  await page.screenshot({ path: 'test-results/smoke-home.png' });
});

test('the explorer runs under its Content-Security-Policy: no violation while the editor and the studio load', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/^Refused to load: CSP/.test(m.text()) || (/Content Security Policy/.test(m.text()) && !/unsafe-eval/.test(m.text()))) violations.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      // cbor-x probes `Function('')` inside try/catch and falls back to its interpreter: the one refusal expected
      if (e.blockedURI === 'eval') return;
      console.error(`Refused to load: CSP ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  const response = await page.goto('/');
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  expect(response?.headers()['x-frame-options']).toBe('DENY');
  await expect(page.getByTestId('server-version')).toContainText('v1.33.0');
  await page.goto('/studio/EncryptionConfiguration');
  await expect(page.getByTestId('yaml-editor')).toHaveAttribute('data-editor', 'monaco', { timeout: 20_000 });
  await page.goto('/r/core/v1/configmaps/_new?ns=default');
  await expect(page.getByTestId('edit-buffer')).toContainText('kind: ConfigMap');
  await expect(page.getByTestId('edit-buffer').locator('.monaco-editor')).toBeVisible();
  expect(violations).toEqual([]);
});
