// The Logs tab followed, paused and resumed, as a person does it: open the pod from its list (name typed
// at ~100 ms/key), Logs, timestamps on; Pause: the lines shown stop while the count of new ones grows;
// Resume: the view catches up, every line once and in order. Shared by the embedded server's spec and the
// spec going through the kubeconfig proxy (the same pods/log path a real cluster serves).
import type { APIRequestContext, Page } from '@playwright/test';
import { expect } from './fixtures.js';

/** A pod whose simulated container writes `rate` lines a second (sim.periscope.dev/log). Setup, not the journey. */
export async function chattyPod(request: APIRequestContext, ns: string, name: string, rate = 5): Promise<void> {
  const r = await request.post(`/api/v1/namespaces/${ns}/pods`, {
    data: {
      metadata: { name, annotations: { 'sim.periscope.dev/log': JSON.stringify({ rate, messages: ['GET /api/items 200', 'POST /api/orders 201', 'cache refreshed'] }) } },
      spec: { containers: [{ name: 'app', image: 'busybox:1.36' }] },
    },
  });
  expect([201, 409]).toContain(r.status());
  await expect.poll(async () => (await (await request.get(`/api/v1/namespaces/${ns}/pods/${name}`)).json()).status?.phase, { timeout: 30_000 }).toBe('Running');
}

async function shownLines(page: Page): Promise<{ seq: number; text: string }[]> {
  const rows = page.getByTestId('logs-lines').locator('.log-line');
  return rows.evaluateAll((els) => els.map((e) => ({ seq: Number((e as HTMLElement).dataset.seq), text: e.textContent ?? '' })));
}

export async function logsPauseResumeJourney(page: Page, base: string, ns: string, name: string): Promise<void> {
  await page.goto(`${base}/r/core/v1/pods?ns=${ns}`);
  await page.getByTestId('text-filter').pressSequentially(name, { delay: 100 });
  await page.getByRole('gridcell', { name }).first().click();
  await expect(page.getByTestId('containers')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('tab-logs').click();
  await page.getByTestId('logs-timestamps').check();
  const lines = page.getByTestId('logs-lines');
  await expect(lines).toContainText('[periscope-sim] container app started', { timeout: 20_000 });
  await expect(lines).toContainText(/(GET \/api\/items 200|POST \/api\/orders 201|cache refreshed)/, { timeout: 20_000 });
  await expect(page.getByTestId('logs-status')).toHaveAttribute('data-status', 'following');

  const pause = page.getByTestId('logs-pause');
  await pause.click();
  await expect(pause).toHaveAttribute('aria-pressed', 'true');
  const frozen = await shownLines(page);
  expect(frozen.length).toBeGreaterThan(1);
  // lines keep coming on the stream: the button counts them, the view does not move
  await expect(pause).toHaveText(/^Resume \((?:[5-9]|\d{2,}) new\)$/, { timeout: 20_000 });
  expect(await shownLines(page)).toEqual(frozen);

  await pause.click();
  await expect(pause).toHaveText('Pause');
  const last = frozen.at(-1)!.seq;
  await expect.poll(async () => (await shownLines(page)).at(-1)?.seq ?? 0, { timeout: 10_000 }).toBeGreaterThan(last + 4);
  // caught up without duplicates or gaps: consecutive lines, each (timestamped) text once, in time order
  const after = await shownLines(page);
  after.forEach((l, i) => i && expect(l.seq).toBe(after[i - 1]!.seq + 1));
  expect(new Set(after.map((l) => l.text)).size).toBe(after.length);
  const times = after.map((l) => /^\S+/.exec(l.text)![0]);
  expect([...times].sort()).toEqual(times);
  // the frozen lines are still there, unchanged, just before the new ones
  const overlap = after.filter((l) => l.seq <= last);
  expect(overlap).toEqual(frozen.filter((l) => l.seq >= (after[0]?.seq ?? 0)));

  await page.getByTestId('logs-search').pressSequentially('orders', { delay: 100 });
  await expect(page.getByTestId('logs-match-count')).toHaveText(/^[1-9][\d,]* matching lines?$/);
}
