// The e2e suite's `test`: every page a test opens fails the test on an uncaught page error (an exception
// no handler caught, an unhandled rejection), after the test body ran, so the error is named.
import { test as base } from '@playwright/test';

export * from '@playwright/test';

export const test = base.extend<{ failOnPageError: void }>({
  failOnPageError: [
    async ({ context }, use) => {
      const errors: string[] = [];
      const watch = (p: import('@playwright/test').Page) => p.on('pageerror', (e) => errors.push(`${p.url()}: ${e.name}: ${e.message}`));
      context.pages().forEach(watch);
      context.on('page', watch);
      await use();
      if (errors.length) throw new Error(`uncaught page error(s):\n${errors.join('\n')}`);
    },
    { auto: true },
  ],
});
