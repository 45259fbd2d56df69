// The suite's `test`: every page a test opens fails the test on an uncaught page error (an exception
// no handler caught, or an unhandled rejection), reported after the test body so its own failure shows first.
import { test as base, type Page } from '@playwright/test';

export * from '@playwright/test';

export const test = base.extend<{ failOnPageError: void }>({
  failOnPageError: [
    async ({ context }, use) => {
      const errors: string[] = [];
      const watch = (page: Page) => page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.stack || e.message}`));
      context.pages().forEach(watch);
      context.on('page', watch);
      await use();
      if (errors.length) throw new Error(`uncaught page error${errors.length > 1 ? 's' : ''}:\n${errors.join('\n\n')}`);
    },
    { auto: true },
  ],
});
