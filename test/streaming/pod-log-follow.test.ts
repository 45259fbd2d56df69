// A followed log waits on one abort signal many times: each wait must leave no listener behind, and the
// stream ends when the client goes.
import { getEventListeners } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseLogOptions, serveLog } from '../../src/server/streaming/pod-log.js';

describe('pods/log follow', () => {
  it('keeps one abort listener however long it follows, and stops when aborted', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const pod = {
      metadata: { name: 'p', namespace: 'n', uid: 'u', annotations: { 'sim.periscope.dev/log': JSON.stringify({ rate: 10, format: 'text' }) } },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
      status: { containerStatuses: [{ name: 'c', restartCount: 0, containerID: 'x', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } }] },
    };
    const lines: string[] = [];
    let ended = false;
    const res = { writeHead() {}, flushHeaders() {}, write: (b: Buffer) => (lines.push(b.toString()), true), end: () => void (ended = true), on() {}, off() {}, destroyed: false } as unknown as ServerResponse;
    const ac = new AbortController();
    const served = serveLog(res, pod as never, parseLogOptions(new URLSearchParams('follow=true')), { pod: () => pod as never, now: () => (now += 1000) }, ac.signal);
    // every poll advances the clock a second: ten new lines each time
    for (let i = 0; i < 40 && lines.length < 50; i++) await new Promise((r) => setTimeout(r, 50));
    expect(lines.length).toBeGreaterThanOrEqual(50);
    expect(getEventListeners(ac.signal, 'abort').length).toBeLessThanOrEqual(1);
    ac.abort();
    await served;
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    void ended;
  });
});
