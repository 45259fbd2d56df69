// UI benchmark (`npm run bench -- ui`): the explorer in Chromium over 10k and 100k configmaps.
// For each size: time to first rows, time to all rows loaded, scroll frame time p95, and the longest
// main-thread task while 500 updates/s arrive by watch; each beside the ceiling of the same table
// rendering a static array of the same rows in the page (/_bench/static), with no network or informer.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from '@playwright/test';
import { startServer, type ApiServer } from '../src/server/app.js';
import { encodeForStorage } from '../src/server/registry/resource-store.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const NS = 'bench';
const UPDATES_PER_SECOND = 500;
const UPDATE_WINDOW_MS = 4000;

interface Figures {
  firstRows: number;
  allRows: number;
  scrollP95: number;
  longestTask: number;
  maxFrame: number;
}

function buildExplorer(): void {
  const r = spawnSync(process.execPath, [`${root}node_modules/vite/bin/vite.js`, 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('explorer build failed');
}

function nameOf(i: number, n: number): string {
  return `cm-${String(i).padStart(String(n - 1).length, '0')}`;
}

async function seed(server: ApiServer, n: number): Promise<void> {
  const r = await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: NS } }) });
  if (r.status !== 201) throw new Error(`namespace: ${r.status}`);
  const created = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  let batch: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const name = nameOf(i, n);
    const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: NS, uid: crypto.randomUUID(), creationTimestamp: created }, data: { v: '0' } };
    batch.push(server.store.create(`/registry/core/configmaps/${NS}/${name}`, encodeForStorage(obj)));
    if (batch.length === 1000) {
      await Promise.all(batch);
      batch = [];
    }
  }
  await Promise.all(batch);
}

/** Writes UPDATES_PER_SECOND modifications a second straight to the store; the watch carries them to the page. */
function startUpdates(server: ApiServer, n: number): () => Promise<void> {
  let stopped = false;
  let seq = 0;
  const tick = async () => {
    const perTick = UPDATES_PER_SECOND / 50;
    const jobs: Promise<unknown>[] = [];
    for (let k = 0; k < perTick; k++) {
      const i = (seq++ * 7919) % n;
      const key = `/registry/core/configmaps/${NS}/${nameOf(i, n)}`;
      jobs.push(
        (async () => {
          const cur = await server.store.get(key);
          if (!cur.kv) return;
          const obj = JSON.parse(new TextDecoder().decode(cur.kv.value));
          obj.data = { ...obj.data, v: String(seq) };
          if (seq % 2) obj.data.extra = 'x';
          else delete obj.data.extra;
          await server.store.update(key, encodeForStorage(obj), cur.kv.modRevision).catch(() => {});
        })(),
      );
    }
    await Promise.all(jobs);
  };
  const loop = (async () => {
    while (!stopped) {
      const t0 = Date.now();
      await tick();
      await new Promise((r) => setTimeout(r, Math.max(0, 20 - (Date.now() - t0))));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

async function waitMark(page: Page, name: string, timeoutMs: number): Promise<number> {
  const h = await page.waitForFunction((m) => performance.getEntriesByName(m)[0]?.startTime, name, { timeout: timeoutMs, polling: 50 });
  return Number(await h.jsonValue());
}

/** Scrolls the table a fixed distance per frame and returns the frame-time p95. */
async function scrollP95(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const body = document.querySelector('.vbody') as HTMLElement;
    body.scrollTop = 0;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const deltas: number[] = [];
    let last = performance.now();
    for (let f = 0; f < 240; f++) {
      body.scrollTop += f % 60 < 50 ? 240 : 4000; // steady scrolling with a few long jumps
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      deltas.push(now - last);
      last = now;
    }
    deltas.sort((a, b) => a - b);
    return deltas[Math.floor(deltas.length * 0.95)]!;
  });
}

/** Longest task (long-task entries, or the longest frame when none reached 50 ms) over a window. */
async function longestTask(page: Page, windowMs: number): Promise<{ longest: number; maxFrame: number }> {
  return page.evaluate(async (ms) => {
    const tasks: number[] = [];
    const po = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tasks.push(e.duration);
    });
    po.observe({ type: 'longtask' });
    let maxFrame = 0;
    let last = performance.now();
    const end = last + ms;
    while (performance.now() < end) {
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      maxFrame = Math.max(maxFrame, now - last);
      last = now;
    }
    po.disconnect();
    return { longest: Math.max(0, ...tasks), maxFrame };
  }, windowMs);
}

async function measureLive(browser: Browser, server: ApiServer, n: number): Promise<Figures> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(`${server.url}/r/core/v1/configmaps?ns=${NS}&all=1`);
    const firstRows = await waitMark(page, 'periscope:first-rows', 60_000);
    const allRows = await waitMark(page, 'periscope:all-rows', 120_000);
    await page.waitForFunction((count) => document.querySelector('[data-testid=resource-table]')?.getAttribute('data-rows') === String(count), n);
    const scroll = await scrollP95(page);
    await page.evaluate(() => ((document.querySelector('.vbody') as HTMLElement).scrollTop = 0));
    const stop = startUpdates(server, n);
    await page.waitForTimeout(500);
    const upd = await longestTask(page, UPDATE_WINDOW_MS);
    await stop();
    return { firstRows, allRows, scrollP95: scroll, longestTask: upd.longest || upd.maxFrame, maxFrame: upd.maxFrame };
  } finally {
    await page.close();
  }
}

async function measureCeiling(browser: Browser, server: ApiServer, n: number): Promise<Figures> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(`${server.url}/_bench/static?n=${n}`);
    const firstRows = await waitMark(page, 'periscope:first-rows', 60_000);
    const allRows = await waitMark(page, 'periscope:all-rows', 60_000);
    const scroll = await scrollP95(page);
    await page.goto(`${server.url}/_bench/static?n=${n}&updates=${UPDATES_PER_SECOND}`);
    await waitMark(page, 'periscope:first-rows', 60_000);
    await page.waitForTimeout(500);
    const upd = await longestTask(page, UPDATE_WINDOW_MS);
    return { firstRows, allRows, scrollP95: scroll, longestTask: upd.longest || upd.maxFrame, maxFrame: upd.maxFrame };
  } finally {
    await page.close();
  }
}

function line(label: string, metric: string, live: number, ceiling: number): string {
  const ratio = ceiling > 0 ? (live / ceiling).toFixed(1) : '-';
  return `ui ${label} ${metric} ${Math.round(live)}ms (ceiling ${Math.round(ceiling)}ms, ratio ${ratio})`;
}

export async function benchUi(): Promise<void> {
  buildExplorer();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    for (const [label, n] of [
      ['10k', 10_000],
      ['100k', 100_000],
    ] as const) {
      const server = await startServer(
        { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: `${root}dist`, compactionIntervalMs: 0 },
        { log: () => {} },
      );
      try {
        const t0 = performance.now();
        await seed(server, n);
        console.log(`ui ${label}: seeded ${n} configmaps in ${Math.round(performance.now() - t0)}ms`);
        const live = await measureLive(browser, server, n);
        const ceiling = await measureCeiling(browser, server, n);
        console.log(line(label, 'first-rows', live.firstRows, ceiling.firstRows));
        console.log(line(label, 'all-rows', live.allRows, ceiling.allRows));
        console.log(line(label, 'scroll-frame-p95', live.scrollP95, ceiling.scrollP95));
        console.log(line(label, `longest-task@${UPDATES_PER_SECOND}upd/s`, live.longestTask, ceiling.longestTask) + ` max-frame ${Math.round(live.maxFrame)}ms vs ${Math.round(ceiling.maxFrame)}ms`);
      } finally {
        await server.close();
      }
    }
  } finally {
    await browser.close();
  }
}
