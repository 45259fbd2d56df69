// The Logs tab following a chatty container: 1,000 lines/s for 60 s (past the view's 50k-line bound),
// reporting the longest main-thread task (goal < 50 ms), how many tasks passed 50 ms, the p99 frame, and
// the JS heap after 20 s and at the end (bounded: the buffer stops growing once it holds its last 50k
// lines). Beside it, the floor: the same sampling over an empty page in the same browser for 15 s (on a
// shared machine, a task of the renderer can be descheduled for tens of ms whatever it runs).
// The line source is a load generator in front of the real API server: every request goes to the server
// except the one pod's pods/log, answered as a follow stream at the set rate, in upstream's format
// (`<RFC 3339 time> <text>\n`). The simulated kubelet's containers never write this fast.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import type { Browser, Page } from '@playwright/test';
import { startServer, type ApiServer } from '../src/server/app.js';

const NS = 'logs-bench';
const POD = 'chatty';
export const LOG_LINES_PER_SECOND = 1000;
export const LOG_WINDOW_MS = 60_000;

export function lineSource(upstream: URL): Promise<{ server: Server; url: string }> {
  const logPath = `/api/v1/namespaces/${NS}/pods/${POD}/log`;
  const server = createServer((req, res) => {
    if (req.url?.split('?')[0] === logPath) {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache' });
      let n = 0;
      // ten lines every 10 ms
      const t = setInterval(() => {
        let chunk = '';
        for (let i = 0; i < LOG_LINES_PER_SECOND / 100; i++, n++) chunk += `${new Date().toISOString()} GET /api/items/${n} 200 ${(n * 7919) % 997}ms user=u${n % 50} trace=${(n * 2654435761 >>> 0).toString(16)}\n`;
        res.write(chunk);
      }, 10);
      req.on('close', () => clearInterval(t));
      return;
    }
    const fwd = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up: IncomingMessage) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    fwd.on('error', () => res.destroy());
    req.pipe(fwd);
  });
  // watches ride WebSockets: passed through as raw bytes
  server.on('upgrade', (req, socket, head) => {
    const up = connect(Number(upstream.port), upstream.hostname, () => {
      up.write(`${req.method} ${req.url} HTTP/1.1\r\n${Object.entries(req.headers).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`).join('\r\n')}\r\n\r\n`);
      up.write(head);
      socket.pipe(up).pipe(socket);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

async function heapMB(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  await cdp.detach();
  return (metrics.find((m: { name: string }) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 2 ** 20;
}

export interface TaskFigures {
  /** Longest long-task entry (0 when none reached 50 ms). */
  longest: number;
  /** Long-task entries (each ≥ 50 ms). */
  over50: number;
  p99Frame: number;
  maxFrame: number;
}

/** Long tasks and frame intervals over a window. */
async function sampleTasks(page: Page, ms: number): Promise<TaskFigures> {
  return page.evaluate(async (windowMs) => {
    const tasks: number[] = [];
    const po = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tasks.push(e.duration);
    });
    po.observe({ type: 'longtask' });
    const frames: number[] = [];
    let last = performance.now();
    const end = last + windowMs;
    while (performance.now() < end) {
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      frames.push(now - last);
      last = now;
    }
    po.disconnect();
    frames.sort((a, b) => a - b);
    return { longest: Math.max(0, ...tasks), over50: tasks.length, p99Frame: frames[Math.floor(frames.length * 0.99)] ?? 0, maxFrame: frames.at(-1) ?? 0 };
  }, ms);
}

export const IDLE_WINDOW_MS = 15_000;
export const TRACE_WINDOW_MS = 10_000;

/**
 * The renderer main thread's tasks over a window, from a trace: the longest by wall clock and by thread
 * time (CPU the task itself used: what a busy machine adds by descheduling the thread is not in it).
 */
async function tracedTasks(browser: Browser, page: Page, ms: number): Promise<{ tasks: number; longestWall: number; longestCpu: number; p99Cpu: number }> {
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  await page.waitForTimeout(ms);
  const raw = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(raw) ? raw : (raw.traceEvents ?? []);
  const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const runs = events.filter((e) => e.name === 'RunTask' && e.ph === 'X' && main.has(`${e.pid}:${e.tid}`));
  const cpu = runs.map((e) => (e.tdur ?? 0) / 1000).sort((a, b) => a - b);
  return { tasks: runs.length, longestWall: Math.max(0, ...runs.map((e) => (e.dur ?? 0) / 1000)), longestCpu: cpu.at(-1) ?? 0, p99Cpu: cpu[Math.floor(cpu.length * 0.99)] ?? 0 };
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

export async function measureLogs(
  browser: Browser,
  staticDir: string,
): Promise<{ logs: TaskFigures; idle: TaskFigures; traced: Awaited<ReturnType<typeof tracedTasks>>; heapEarly: number; heapEnd: number; kept: string }> {
  const api: ApiServer = await startServer({ port: 0, store: 'memory', demoData: false, requestLog: false, staticDir, compactionIntervalMs: 0 }, { log: () => {} });
  const front = await lineSource(new URL(api.url));
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.setContent('<!doctype html><title>idle</title><p>idle</p>');
    const idle = await sampleTasks(page, IDLE_WINDOW_MS);
    const post = (path: string, body: unknown) => fetch(`${api.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    await post('/api/v1/namespaces', { metadata: { name: NS } });
    const r = await post(`/api/v1/namespaces/${NS}/pods`, { metadata: { name: POD }, spec: { containers: [{ name: 'app', image: 'busybox:1.36' }] } });
    if (r.status !== 201) throw new Error(`pod: ${r.status} ${await r.text()}`);
    await page.goto(`${front.url}/r/core/v1/pods/${NS}/${POD}/logs`);
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=logs-status]')?.textContent?.match(/([\d,]+) lines?/)?.[1]?.replace(/,/g, '') ?? 0) > 1000, undefined, { timeout: 60_000 });
    const started = Date.now();
    // the first 20 s: the buffer fills; then the tasks over the rest of the minute, and the heap at both ends
    await page.waitForTimeout(20_000);
    const heapEarly = await heapMB(page);
    const logs = await sampleTasks(page, Math.max(1000, LOG_WINDOW_MS - (Date.now() - started)));
    const heapEnd = await heapMB(page);
    const kept = (await page.getByTestId('logs-status').textContent()) ?? '';
    // then 10 s more, traced: each task's own CPU time beside its wall-clock time
    const traced = await tracedTasks(browser, page, TRACE_WINDOW_MS);
    return { logs, idle, traced, heapEarly, heapEnd, kept };
  } finally {
    await page.close();
    front.server.close();
    await api.close();
  }
}
