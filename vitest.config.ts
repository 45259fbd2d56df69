import { defineConfig } from 'vitest/config';

// Playwright specs live in e2e/ and are run by `playwright test`, never by vitest.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
