// UI benchmark (`npm run bench -- ui`): the explorer in Chromium over 10k and 100k configmaps.
// For each size: time to first rows, time to all rows loaded, scroll frame time p95, and the longest
// main-thread task while 500 updates/s arrive by watch; each beside the ceiling of the same table
// rendering a static array of the same rows in the page (/bench/static/index.html), with no network or informer.
// All rows loaded has its own ceiling, since a static array has nothing to load: the same page getting
// every row the fastest way there is (one unpaged Table request, parsed by the browser, no informer, no
// paging), on the same kind of server, cold and warm. Loads are repeated (RUNS) and the median shown
// beside every run: single loads on two shared cores vary by a third.
// The overview's first paint is the Health heading's paint as the browser records it (Element Timing), with
// where the time before it went (BENCH_UI_TRACE=1 adds a Chrome trace's main-thread breakdown).
// Also: the overview's load time and a global search's latency at each size, beside the bare API
// requests they make (fetched in the page, nothing rendered); and 20 live views at 50 updates/s each
// (longest task in one of them, ceiling: the static table taking the same update rate).
// BENCH_UI_SIZES=10k limits the sizes (10k, 100k); BENCH_UI_ONLY=overview measures the overview alone.
// Cold: the objects are written to the store first and the server is started on it (its watch caches
// load them before /readyz, as after a restart); the first page is the first request it serves.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from '@playwright/test';
import { startServer, type ApiServer } from '../src/server/app.js';
import { encodeForStorage } from '../src/server/registry/resource-store.js';
import { createStore } from '../src/server/storage/index.js';
import type { RevisionedStore } from '../src/server/storage/types.js';
import { IDLE_WINDOW_MS, TRACE_WINDOW_MS, LOG_LINES_PER_SECOND, LOG_WINDOW_MS, measureLogs, type TaskFigures } from './ui-logs.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const NS = 'bench';
const UPDATES_PER_SECOND = 500;
const UPDATE_WINDOW_MS = 4000;

interface Figures {
  firstRows: number;
  scrollP95: number;
  longestTask: number;
  maxFrame: number;
}

function buildExplorer(): void {
  const r = spawnSync(process.execPath, [`${root}node_modules/vite/bin/vite.js`, 'build', '--config', `${root}bench/vite.bench.config.ts`, '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('explorer build failed');
}

function nameOf(i: number, n: number): string {
  return `cm-${String(i).padStart(String(n - 1).length, '0')}`;
}

/** A memory store holding the namespace and n configmaps, for a server to start on. */
async function seededStore(n: number): Promise<RevisionedStore> {
  const store = createStore({ kind: 'memory' });
  await store.open();
  const created = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const ns = { kind: 'Namespace', apiVersion: 'v1', metadata: { name: NS, uid: crypto.randomUUID(), creationTimestamp: created, labels: { 'kubernetes.io/metadata.name': NS } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } };
  await store.create(`/registry/core/namespaces/${NS}`, encodeForStorage(ns));
  let batch: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const name = nameOf(i, n);
    const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: NS, uid: crypto.randomUUID(), creationTimestamp: created }, data: { v: '0' } };
    batch.push(store.create(`/registry/core/configmaps/${NS}/${name}`, encodeForStorage(obj)));
    if (batch.length === 1000) {
      await Promise.all(batch);
      batch = [];
    }
  }
  await Promise.all(batch);
  return store;
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

/** Scrolling and live updates in the explorer's table holding all n rows. */
async function measureLive(browser: Browser, server: ApiServer, n: number): Promise<Pick<Figures, 'scrollP95' | 'longestTask' | 'maxFrame'>> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(`${server.url}/r/core/v1/configmaps?ns=${NS}&all=1`);
    await waitMark(page, 'periscope:all-rows', 120_000);
    await page.waitForFunction((count) => document.querySelector('[data-testid=resource-table]')?.getAttribute('data-rows') === String(count), n);
    const scroll = await scrollP95(page);
    await page.evaluate(() => ((document.querySelector('.vbody') as HTMLElement).scrollTop = 0));
    const stop = startUpdates(server, n);
    await page.waitForTimeout(500);
    const upd = await longestTask(page, UPDATE_WINDOW_MS);
    await stop();
    return { scrollP95: scroll, longestTask: upd.longest || upd.maxFrame, maxFrame: upd.maxFrame };
  } finally {
    await page.close();
  }
}

async function measureCeiling(browser: Browser, server: ApiServer, n: number): Promise<Figures> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(`${server.url}/bench/static/index.html?n=${n}`);
    const firstRows = await waitMark(page, 'periscope:first-rows', 60_000);
    const scroll = await scrollP95(page);
    await page.goto(`${server.url}/bench/static/index.html?n=${n}&updates=${UPDATES_PER_SECOND}`);
    await waitMark(page, 'periscope:first-rows', 60_000);
    await page.waitForTimeout(500);
    const upd = await longestTask(page, UPDATE_WINDOW_MS);
    return { firstRows, scrollP95: scroll, longestTask: upd.longest || upd.maxFrame, maxFrame: upd.maxFrame };
  } finally {
    await page.close();
  }
}

const RUNS = 3;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function runs(xs: number[]): string {
  return xs.map((x) => Math.round(x)).join('/');
}

function serverOn(store: RevisionedStore): Promise<ApiServer> {
  // startServer returns once ready (/readyz 200): its watch caches hold the store's objects
  return startServer({ port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: `${root}dist-bench`, compactionIntervalMs: 0 }, { log: () => {}, store });
}

/** Opens url and returns its first-rows and all-rows marks once the table holds all n rows. */
interface Load {
  firstRows: number;
  allRows: number;
}

async function load(browser: Browser, url: string, n: number): Promise<Load> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(url);
    const firstRows = await waitMark(page, 'periscope:first-rows', 120_000);
    const allRows = await waitMark(page, 'periscope:all-rows', 120_000);
    const rows = await page.evaluate(() => document.querySelector('[data-testid=resource-table]')?.getAttribute('data-rows'));
    if (rows !== String(n)) throw new Error(`${url}: ${rows} rows, expected ${n}`);
    return { firstRows, allRows };
  } finally {
    await page.close();
  }
}

/**
 * Loads of the explorer's collection and of the all-rows ceiling (the static page fetching the whole Table
 * in one request): cold (the first request to a server just started on a fresh identical store, RUNS
 * servers each) and warm (RUNS more loads on the last, now warmed, server).
 */
async function measureLoads(browser: Browser, n: number, url: string): Promise<{ cold: Load[]; warm: number[] }> {
  const cold: Load[] = [];
  const warm: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const server = await serverOn(await seededStore(n));
    try {
      cold.push(await load(browser, server.url + url, n));
      if (r === RUNS - 1) for (let w = 0; w < RUNS; w++) warm.push((await load(browser, server.url + url, n)).allRows);
    } finally {
      await server.close();
    }
  }
  return { cold, warm };
}

interface OverviewLoad {
  live: number;
  ceiling: number;
  requests: number;
  /** The Health heading's paint (Element Timing: the browser's own record of when it reached the screen). */
  firstPaint: number;
  bundle: number;
  /** Where the time before the first paint went, from the page's own timings (and the trace when traced). */
  breakdown: string;
}

/** Overview marks read in the page: the heading's paint time and the loads and long tasks before it. */
async function overviewPaint(page: Page): Promise<{ paint: number; breakdown: string }> {
  return page.evaluate(
    () =>
      new Promise<{ paint: number; breakdown: string }>((resolve) => {
        const po = new PerformanceObserver((list) => {
          const e = list.getEntries().find((x) => (x as PerformanceEntry & { identifier?: string }).identifier === 'overview-health') as (PerformanceEntry & { renderTime: number; loadTime: number }) | undefined;
          if (!e) return;
          po.disconnect();
          const paint = e.renderTime || e.loadTime || e.startTime;
          const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
          const assets = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((r) => r.name.includes('/assets/') && r.startTime < paint);
          const scriptsEnd = Math.max(0, ...assets.map((r) => r.responseEnd));
          const apiBefore = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((r) => r.initiatorType === 'fetch' && r.responseEnd < paint).length;
          const shell = performance.getEntriesByName('periscope:overview-shell')[0]?.startTime ?? NaN;
          const kb = Math.round(assets.reduce((a, r) => a + (r.decodedBodySize || 0), 0) / 1024);
          resolve({
            paint,
            breakdown: `html ${Math.round(nav.responseEnd)}ms, ${assets.length} assets (${kb} KiB) loaded by ${Math.round(scriptsEnd)}ms, overview rendered ${Math.round(shell)}ms, painted ${Math.round(paint)}ms; API answers before the paint: ${apiBefore}`,
          });
        });
        po.observe({ type: 'element', buffered: true });
      }),
  );
}

/** Renderer main-thread time before `until` ms (after navigation start), by kind of work, from a Chrome trace. */
function traceSummary(trace: Buffer, until: number): string {
  type Ev = { name: string; ph: string; ts: number; dur?: number; pid: number; tid: number; args?: { name?: string } };
  const events = (JSON.parse(trace.toString('utf8')) as { traceEvents: Ev[] }).traceEvents;
  const nav = events.find((e) => e.name === 'navigationStart');
  if (!nav) return 'trace: no navigationStart';
  const main = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}/${e.tid}`));
  const end = nav.ts + until * 1000;
  const kinds: [string, RegExp][] = [
    ['script', /^(EvaluateScript|v8\.evaluateModule|FunctionCall|TimerFire|FireAnimationFrame|EventDispatch|v8\.compile|v8\.compileModule|RunMicrotasks)$/],
    ['html', /^ParseHTML$/],
    ['style+layout', /^(UpdateLayoutTree|Layout|RecalculateStyles)$/],
    ['paint', /^(Paint|PrePaint|Layerize|Commit|UpdateLayer)$/],
  ];
  const sum = (xs: [number, number][]) => {
    xs.sort((a, b) => a[0] - b[0]);
    let total = 0;
    let cur: [number, number] | undefined;
    for (const x of xs) {
      if (cur && x[0] <= cur[1]) cur[1] = Math.max(cur[1], x[1]);
      else {
        if (cur) total += cur[1] - cur[0];
        cur = [x[0], x[1]];
      }
    }
    return (total + (cur ? cur[1] - cur[0] : 0)) / 1000;
  };
  const onMain = events.filter((e) => e.ph === 'X' && main.has(`${e.pid}/${e.tid}`) && e.ts >= nav.ts && e.ts < end && e.dur);
  const span = (re: RegExp): [number, number][] => onMain.filter((e) => re.test(e.name)).map((e) => [e.ts, Math.min(end, e.ts + e.dur!)]);
  const busy = sum(span(/^RunTask$/));
  const longest = Math.max(0, ...onMain.filter((e) => e.name === 'RunTask').map((e) => e.dur! / 1000));
  return `trace before the paint: main thread busy ${Math.round(busy)}ms of ${Math.round(until)}ms (longest task ${Math.round(longest)}ms): ${kinds.map(([k, re]) => `${k} ${Math.round(sum(span(re)))}ms`).join(', ')}; the rest waiting (network, idle)`;
}

/**
 * The overview: the Health heading's first paint, then until the ConfigMap count reads n; ceiling: the same
 * page bundle loading and rendering an empty static table, then the same limit=1 metadata lists fetched
 * bare (page load + requests). BENCH_UI_TRACE=1 records a Chrome trace of the load and says where the
 * main thread's time before the paint went.
 */
async function measureOverview(browser: Browser, server: ApiServer, n: number): Promise<OverviewLoad> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const traced = process.env.BENCH_UI_TRACE === '1';
  try {
    if (traced) await browser.startTracing(page, { screenshots: false, categories: ['devtools.timeline', 'blink.user_timing', 'loading', 'v8.execute', 'toplevel', 'disabled-by-default-devtools.timeline'] });
    await page.goto(`${server.url}/?ns=${NS}`);
    // first paint of the overview: its Health heading on screen (figures may still read "checking…"),
    // as the browser recorded it (Element Timing), not when this process got round to looking
    const { paint: firstPaint, breakdown: pageBreakdown } = await overviewPaint(page);
    let breakdown = pageBreakdown;
    if (traced) breakdown += `\n  ${traceSummary(await browser.stopTracing(), firstPaint)}`;
    const expected = n.toLocaleString('en-US');
    const h = await page.waitForFunction((want) => (document.querySelector('[data-testid=kind-count][data-kind=ConfigMap] [data-testid=count]')?.textContent === want ? performance.now() : 0), expected, { timeout: 120_000, polling: 20 });
    const live = Number(await h.jsonValue());
    await page.goto(`${server.url}/bench/static/index.html?n=0`);
    const loaded = await waitMark(page, 'periscope:first-rows', 60_000);
    const requests = await page.evaluate(async (ns) => {
      const t0 = performance.now();
      const d = (await (await fetch('/api/v1')).json()) as { resources: { name: string; namespaced: boolean; verbs: string[] }[] };
      const kinds = d.resources.filter((r) => r.namespaced && !r.name.includes('/') && r.verbs.includes('list'));
      await Promise.all(kinds.map((r) => fetch(`/api/v1/namespaces/${ns}/${r.name}?limit=1`, { headers: { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' } }).then((x) => x.arrayBuffer())));
      return performance.now() - t0;
    }, NS);
    return { live, ceiling: loaded + requests, requests, firstPaint, bundle: loaded, breakdown };
  } finally {
    await page.close();
  }
}

/** A name fragment matching one object in n, until its hit shows and the search finished; ceiling: the paged metadata lists fetched bare. */
async function measureSearch(browser: Browser, server: ApiServer, n: number): Promise<{ live: number; ceiling: number }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    const target = nameOf(n - 1, n);
    await page.goto(`${server.url}/search?ns=${NS}`);
    await page.waitForSelector('[data-testid=search-input]');
    const t0 = await page.evaluate(() => performance.now());
    await page.fill('[data-testid=search-input]', target);
    const h = await page.waitForFunction(
      (name) => (document.querySelector('[data-testid=search-status]')?.getAttribute('data-running') === 'false' && document.querySelector('[data-testid=search-results]')?.textContent?.includes(name) ? performance.now() : 0),
      target,
      { timeout: 120_000, polling: 20 },
    );
    const live = Number(await h.jsonValue()) - t0;
    const ceiling = await page.evaluate(async (ns) => {
      const start = performance.now();
      let cont = '';
      do {
        const r = (await (await fetch(`/api/v1/namespaces/${ns}/configmaps?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, { headers: { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' } })).json()) as { metadata?: { continue?: string } };
        cont = r.metadata?.continue ?? '';
      } while (cont);
      return performance.now() - start;
    }, NS);
    return { live, ceiling };
  } finally {
    await page.close();
  }
}

const LIVE_VIEWS = 20;
const VIEW_UPDATES_PER_SECOND = 50;

/** 20 collection views open at once (one page each), every view's namespace taking 50 updates/s. */
async function measureLiveViews(browser: Browser): Promise<{ live: number; ceiling: number; maxFrame: number }> {
  const server = await startServer({ port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: `${root}dist-bench`, compactionIntervalMs: 0 }, { log: () => {} });
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  try {
    const perView = 50;
    for (let v = 0; v < LIVE_VIEWS; v++) {
      await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: `view-${v}` } }) });
      for (let i = 0; i < perView; i++)
        await server.store.create(`/registry/core/configmaps/view-${v}/cm-${i}`, encodeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `cm-${i}`, namespace: `view-${v}`, uid: crypto.randomUUID(), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }, data: { v: '0' } }));
    }
    const pages: Page[] = [];
    for (let v = 0; v < LIVE_VIEWS; v++) {
      const page = await context.newPage();
      await page.goto(`${server.url}/r/core/v1/configmaps?ns=view-${v}`);
      await waitMark(page, 'periscope:first-rows', 60_000);
      pages.push(page);
    }
    let stopped = false;
    let seq = 0;
    const loop = (async () => {
      while (!stopped) {
        const t0 = Date.now();
        const jobs: Promise<unknown>[] = [];
        // per 20 ms tick: one update for each view
        for (let v = 0; v < LIVE_VIEWS; v++) {
          const key = `/registry/core/configmaps/view-${v}/cm-${seq % perView}`;
          jobs.push(
            (async () => {
              const cur = await server.store.get(key);
              if (!cur.kv) return;
              const obj = JSON.parse(new TextDecoder().decode(cur.kv.value));
              obj.data = { v: String(seq) };
              await server.store.update(key, encodeForStorage(obj), cur.kv.modRevision).catch(() => {});
            })(),
          );
        }
        seq++;
        await Promise.all(jobs);
        await new Promise((r) => setTimeout(r, Math.max(0, 1000 / VIEW_UPDATES_PER_SECOND - (Date.now() - t0))));
      }
    })();
    await pages[0]!.waitForTimeout(500);
    const versionOf = (p: Page) => p.evaluate(() => Number(document.querySelector('[data-testid=resource-table]')?.getAttribute('data-version') ?? 0));
    const before = await Promise.all(pages.map(versionOf));
    const upd = await longestTask(pages[LIVE_VIEWS - 1]!, UPDATE_WINDOW_MS);
    const after = await Promise.all(pages.map(versionOf));
    stopped = true;
    await loop;
    // the figure means something only if every view was taking updates while it was measured
    const renders = after.map((a, i) => a - before[i]!);
    if (renders.some((r) => r <= 0)) throw new Error(`live views without updates during the window: ${renders.join(',')}`);
    console.log(`ui ${LIVE_VIEWS}-views: ${seq} writes per view; collection changes seen per view in the ${UPDATE_WINDOW_MS} ms window: min ${Math.min(...renders)}, max ${Math.max(...renders)}`);
    const ceilingPage = await context.newPage();
    await ceilingPage.goto(`${server.url}/bench/static/index.html?n=${perView}&updates=${VIEW_UPDATES_PER_SECOND}`);
    await waitMark(ceilingPage, 'periscope:first-rows', 60_000);
    await ceilingPage.waitForTimeout(500);
    const ceil = await longestTask(ceilingPage, UPDATE_WINDOW_MS);
    return { live: upd.longest || upd.maxFrame, ceiling: ceil.longest || ceil.maxFrame, maxFrame: upd.maxFrame };
  } finally {
    await context.close();
    await server.close();
  }
}

function line(label: string, metric: string, live: number, ceiling: number): string {
  const ratio = ceiling > 0 ? (live / ceiling).toFixed(1) : '-';
  return `ui ${label} ${metric} ${Math.round(live)}ms (ceiling ${Math.round(ceiling)}ms, ratio ${ratio})`;
}

/** BENCH_UI_ONLY=overview: the overview's figures only (quick check of a change to it). */
const OVERVIEW_ONLY = process.env.BENCH_UI_ONLY === 'overview';

export async function benchUi(): Promise<void> {
  buildExplorer();
  const browser = await launch();
  // frames not held to the display's 60 Hz: each one takes what producing it costs, so the scroll's frame
  // cost shows apart from the jitter of headless Chromium's vsync timer (±1 ms around 16.7 ms)
  const uncapped = await launch(['--disable-frame-rate-limit', '--disable-gpu-vsync']);
  try {
    const wanted = (process.env.BENCH_UI_SIZES ?? '10k,100k').split(',');
    if (process.env.BENCH_UI_ONLY === 'logs') wanted.length = 0;
    for (const [label, n] of (
      [
        ['10k', 10_000],
        ['100k', 100_000],
      ] as const
    ).filter(([l]) => wanted.includes(l))) {
      if (OVERVIEW_ONLY) {
        const server = await serverOn(await seededStore(n));
        try {
          const loads: OverviewLoad[] = [];
          for (let r = 0; r < RUNS; r++) loads.push(await measureOverview(browser, server, n));
          const paints = loads.map((o) => o.firstPaint);
          const first = loads[0]!;
          console.log(line(label, 'overview-first-paint', median(paints), 500) + ` (Health heading painted, Element Timing; median of ${runs(paints)}, the first on a server just started; ceiling: the 500ms goal)`);
          for (const o of loads) console.log(`  ${o.breakdown}`);
          console.log(line(label, 'overview-load', median(loads.map((o) => o.live)), first.ceiling) + ` (until the ConfigMap count reads ${n.toLocaleString('en-US')}, median of ${runs(loads.map((o) => o.live))}; ceiling: bundle + API requests bare, ${Math.round(first.requests)}ms of it)`);
        } finally {
          await server.close();
        }
        continue;
      }
      const explorer = await measureLoads(browser, n, `/r/core/v1/configmaps?ns=${NS}&all=1`);
      const bare = await measureLoads(browser, n, `/bench/static/index.html?fetch=${encodeURIComponent(`/api/v1/namespaces/${NS}/configmaps`)}`);
      const t0 = performance.now();
      const store = await seededStore(n);
      const t1 = performance.now();
      const server = await serverOn(store);
      try {
        console.log(`ui ${label}: seeded ${n} configmaps in ${Math.round(t1 - t0)}ms, server ready on them in ${Math.round(performance.now() - t1)}ms`);
        const live = await measureLive(browser, server, n);
        const ceiling = await measureCeiling(browser, server, n);
        const first = explorer.cold.map((c) => c.firstRows);
        const all = explorer.cold.map((c) => c.allRows);
        const bareAll = bare.cold.map((c) => c.allRows);
        console.log(line(label, 'first-rows', median(first), ceiling.firstRows) + ` (cold server, median of ${runs(first)}; ceiling: the static array)`);
        console.log(line(label, 'all-rows', median(all), median(bareAll)) + ` (cold server, median of ${runs(all)}; ceiling ${runs(bareAll)}: one unpaged Table request, parsed and rendered)`);
        console.log(line(label, 'all-rows-warm', median(explorer.warm), median(bare.warm)) + ` (warmed server, median of ${runs(explorer.warm)}; ceiling ${runs(bare.warm)})`);
        const cost = await measureScrollCost(uncapped, server, n);
        console.log(line(label, 'scroll-frame-p95', live.scrollP95, ceiling.scrollP95) + ' (frame interval at 60 Hz)');
        console.log(line(label, 'scroll-frame-cost-p95', cost.live, cost.ceiling) + ' (frames not held to vsync: what each costs; budget 16.7ms)');
        console.log(line(label, `longest-task@${UPDATES_PER_SECOND}upd/s`, live.longestTask, ceiling.longestTask) + ` max-frame ${Math.round(live.maxFrame)}ms vs ${Math.round(ceiling.maxFrame)}ms`);
        const overview = await measureOverview(browser, server, n);
        console.log(line(label, 'overview-first-paint', overview.firstPaint, 500) + ` (Health heading painted, Element Timing; ceiling: the 500ms goal; the bench page's own bundle loads in ${Math.round(overview.bundle)}ms)\n  ${overview.breakdown}`);
        console.log(line(label, 'overview-load', overview.live, overview.ceiling) + ` (until the ConfigMap count reads ${n.toLocaleString('en-US')}; ceiling: the page bundle rendering an empty table, then its API requests bare, ${Math.round(overview.requests)}ms of it)`);
        const search = await measureSearch(browser, server, n);
        console.log(line(label, 'search-latency', search.live, search.ceiling) + ' (ceiling: the paged metadata lists, bare)');
      } finally {
        await server.close();
      }
    }
    if (OVERVIEW_ONLY) return;
    const { loadavg } = await import('node:os');
    const loadBefore = loadavg()[0]!.toFixed(1);
    const m = await measureLogs(browser, `${root}dist-bench`);
    const t = (f: TaskFigures) => `longest ${Math.round(f.longest || f.maxFrame)}ms, ${f.over50} task(s) ≥ 50ms, p99 frame ${Math.round(f.p99Frame)}ms, max frame ${Math.round(f.maxFrame)}ms`;
    console.log(
      `ui logs-follow longest-task@${LOG_LINES_PER_SECOND}lines/s ${Math.round(m.logs.longest || m.logs.maxFrame)}ms over ${LOG_WINDOW_MS / 1000}s (goal < 50ms): ${t(m.logs)}; ` +
        `floor (an empty page, ${IDLE_WINDOW_MS / 1000}s): ${t(m.idle)}; ` +
        `traced ${TRACE_WINDOW_MS / 1000}s more: ${m.traced.tasks} tasks, longest ${Math.round(m.traced.longestWall)}ms wall-clock, ${m.traced.longestCpu.toFixed(1)}ms of its own CPU time (p99 ${m.traced.p99Cpu.toFixed(1)}ms: what the view's work costs, without the machine's load); ` +
        `heap ${m.heapEarly.toFixed(1)}MB after 20s, ${m.heapEnd.toFixed(1)}MB at ${LOG_WINDOW_MS / 1000}s (bounded: the view keeps the last 50k lines) · ${m.kept.trim()} · load average ${loadBefore} → ${loadavg()[0]!.toFixed(1)}`,
    );
    if (process.env.BENCH_UI_ONLY === 'logs') return;
    const views = await measureLiveViews(browser);
    console.log(line(`${LIVE_VIEWS}-views`, `longest-task@${VIEW_UPDATES_PER_SECOND}upd/s-each`, views.live, views.ceiling) + ` max-frame ${Math.round(views.maxFrame)}ms (goal < 50ms)`);
  } finally {
    await browser.close();
    await uncapped.close();
  }
}

function launch(extra: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', ...extra],
  });
}

/** Scroll frame cost p95 in a browser whose frames are not held to vsync: the explorer's table with all n rows, and the static array. */
async function measureScrollCost(browser: Browser, server: ApiServer, n: number): Promise<{ live: number; ceiling: number }> {
  const at = async (url: string) => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      await page.goto(server.url + url);
      await waitMark(page, 'periscope:all-rows', 120_000);
      await page.waitForFunction((count) => document.querySelector('[data-testid=resource-table]')?.getAttribute('data-rows') === String(count), n);
      return await scrollP95(page);
    } finally {
      await page.close();
    }
  };
  return { live: await at(`/r/core/v1/configmaps?ns=${NS}&all=1`), ceiling: await at(`/bench/static/index.html?n=${n}`) };
}
