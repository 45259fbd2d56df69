// Logs and the terminal against the server's pods/log and exec (the simulated kubelet's runtime), as a
// person uses them: from the overview's problem to the crashed container's previous log and last state;
// a shell in a running pod, `env` typed at ~100 ms/key, and the exit status when it ends.
import { expect, test } from './fixtures.js';
import { createNamespace, shot } from './helpers.js';
import { chattyPod, logsPauseResumeJourney } from './logs-journey.js';

test('investigate a crash-looping pod: problem → pod → logs --previous → last state', async ({ page }) => {
  await page.goto('/?ns=shop');
  const problem = page.getByRole('link', { name: /^Pod shop\/checkout-/ }).first();
  await expect(problem).toBeVisible({ timeout: 30_000 });
  await problem.click();
  await expect(page).toHaveURL(/\/r\/core\/v1\/pods\/shop\/checkout-[^/]+\//);
  // the container has restarted at least once: a previous instance exists
  await expect(page.getByTestId('container-checkout').getByTestId('container-last-state')).toContainText('exit code 1', { timeout: 30_000 });

  await page.getByTestId('tab-logs').click();
  const lines = page.getByTestId('logs-lines');
  await expect(lines).toContainText('[periscope-sim] container checkout started', { timeout: 20_000 });
  await page.getByTestId('logs-previous').check();
  await expect(page.getByTestId('logs-follow')).toBeDisabled();
  await expect(lines).toContainText('[periscope-sim] container checkout started', { timeout: 20_000 });
  await expect(page.getByTestId('logs-status')).toHaveAttribute('data-status', 'ended', { timeout: 20_000 });
  // search with highlight and count
  await page.getByTestId('logs-search').pressSequentially('started', { delay: 100 });
  await expect(page.getByTestId('logs-match-count')).toContainText(/^[1-9]\d* matching line/);
  await expect(lines.locator('mark').first()).toHaveText('started');
  await page.getByTestId('logs-timestamps').check();
  await expect(lines).toContainText(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
  await shot(page, 'logs-previous');

  await page.getByTestId('tab-summary').click();
  await expect(page.getByTestId('container-checkout').getByTestId('container-last-state')).toContainText('Terminated: Error (exit code 1)');
});

test('the logs of a Deployment: every pod, prefixed with pod/container', async ({ page }) => {
  await page.goto('/r/apps/v1/deployments/shop/frontend/logs');
  const lines = page.getByTestId('logs-lines');
  await expect(lines).toContainText(/\[frontend-[a-z0-9]+-[a-z0-9]+\/frontend\] \[periscope-sim\] container frontend started/, { timeout: 30_000 });
  await expect(page.getByTestId('logs-status')).toContainText(/of \d+ pod stream/);
});

test('open a shell in a running pod and run env, then exit with a status', async ({ page }) => {
  await page.goto('/r/core/v1/pods?ns=shop');
  await page.getByTestId('text-filter').pressSequentially('frontend', { delay: 100 });
  await page.getByRole('gridcell', { name: /frontend-/ }).first().click();
  await expect(page.getByTestId('containers')).toBeVisible({ timeout: 20_000 });
  await page.keyboard.press('x');
  await expect(page.getByTestId('terminal-view')).toBeVisible();
  await page.getByTestId('terminal-connect').click();
  await expect(page.getByTestId('terminal-status')).toContainText(/Connected \(v[45]\.channel\.k8s\.io\)/, { timeout: 20_000 });
  const term = page.getByTestId('terminal');
  await term.click();
  await page.keyboard.type('env', { delay: 100 });
  await page.keyboard.press('Enter');
  await expect(term.locator('.xterm-rows')).toContainText('KUBERNETES_SERVICE_HOST=', { timeout: 20_000 });
  await expect(term.locator('.xterm-rows')).toContainText('HOME=/root');
  await shot(page, 'terminal-env');
  await page.keyboard.type('exit 3', { delay: 100 });
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('terminal-status')).toHaveText('Session ended: exit code 3', { timeout: 20_000 });
});

test('follow a pod log, pause it (lines stop), resume (it catches up, each line once)', async ({ page, request }) => {
  await createNamespace(request, 'logs-e2e');
  await chattyPod(request, 'logs-e2e', 'chatty');
  await logsPauseResumeJourney(page, '', 'logs-e2e', 'chatty');
});
