import { defineConfig } from '@playwright/test';

const port = Number(process.env.E2E_PORT ?? 18080);

export default defineConfig({
  testDir: './e2e',
  reporter: 'list',
  timeout: 60_000,
  workers: 1,
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  webServer: {
    command: `node scripts/start.mjs --port ${port} --store memory --request-log=false`,
    url: `http://127.0.0.1:${port}/readyz`,
    reuseExistingServer: false,
    timeout: 120_000,
  },
});
