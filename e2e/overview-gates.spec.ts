// The overview's feature gates, read from /metrics as upstream publishes them: a gate set by
// --feature-gates shows with its state and stage; a user who may not read /metrics is told so, and the
// system:monitoring group may. Runs its own server (token file, RBAC, chosen gates).
import { expect, test } from './fixtures.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = Number(process.env.E2E_PORT ?? 18080) + 13;
const base = `http://127.0.0.1:${port}`;
let server: ChildProcess | undefined;
let dir: string;

test.use({ baseURL: base, extraHTTPHeaders: { Authorization: 'Bearer admin-token' } });

test.beforeAll(async ({ request }) => {
  dir = mkdtempSync(join(tmpdir(), 'periscope-e2e-gates-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'admin-token,admin,u1,"system:masters"\nviewer-token,viewer,u2,""\nmonitor-token,monitor,u3,"system:monitoring"\n');
  const args = ['scripts/start.mjs', '--port', String(port), '--store', 'memory', '--request-log=false', '--no-demo-data', '--token-auth-file', tokens];
  server = spawn(process.execPath, [...args, '--feature-gates', 'WatchList=false,AllowUnsafeMalformedObjectDeletion=true'], { stdio: 'ignore' });
  await expect.poll(async () => (await request.get('/readyz').catch(() => undefined))?.status(), { timeout: 90_000 }).toBe(200);
});

test.afterAll(() => {
  server?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

const gate = (page: import('@playwright/test').Page, name: string) => page.locator(`[data-testid=feature-gate][data-gate=${name}]`);

test('overview: feature gates as --feature-gates set them, with their stage', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('server-version')).toContainText('v1.33');
  const watchList = gate(page, 'WatchList');
  await expect(watchList.getByTestId('gate-state')).toHaveText('disabled');
  await expect(watchList.getByTestId('gate-stage')).toHaveText('Beta');
  await expect(gate(page, 'AllowUnsafeMalformedObjectDeletion').getByTestId('gate-state')).toHaveText('enabled');
  await expect(gate(page, 'AllowUnsafeMalformedObjectDeletion').getByTestId('gate-stage')).toHaveText('Alpha');
  await expect(gate(page, 'APIResponseCompression')).toHaveAttribute('data-enabled', 'true');
  await expect(page.getByTestId('gates-summary')).toContainText('5 gates, 3 enabled');
});

test('overview: a user who may not read /metrics is told so; system:monitoring may', async ({ page, context }) => {
  await context.setExtraHTTPHeaders({ Authorization: 'Bearer viewer-token' });
  await page.goto('/');
  await expect(page.getByTestId('gates-forbidden')).toContainText('forbidden: User "viewer" cannot get path "/metrics"');
  await expect(page.getByTestId('feature-gate')).toHaveCount(0);

  await context.setExtraHTTPHeaders({ Authorization: 'Bearer monitor-token' });
  await page.reload();
  await expect(gate(page, 'WatchList').getByTestId('gate-state')).toHaveText('disabled');
  await expect(page.getByTestId('gates-forbidden')).toHaveCount(0);
});
