// A single server on SQLite leads at once after any restart: a clean stop releases its Lease (ReleaseOnCancel);
// after a crash (SIGKILL) the Lease its previous run left is taken at once, as no other process can share the
// database, instead of after the lease duration.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from './server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'periscope-leader-restart-'));
const procs: ServerProcess[] = [];
afterAll(async () => {
  for (const p of procs) await p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

// a lease far longer than the test waits: only an immediate take-over can pass
const ARGS = ['--leader-elect-lease-duration', '10m', '--leader-elect-renew-deadline', '5m', '--leader-elect-retry-period', '2s'];

async function start(): Promise<ServerProcess> {
  const p = await startServerProcess(dir, ARGS);
  procs.push(p);
  return p;
}

async function kcmLease(url: string, not?: string): Promise<{ holderIdentity: string; leaseTransitions: number }> {
  const end = Date.now() + 30_000;
  for (;;) {
    const r = await fetch(`${url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager`, { headers: { Accept: 'application/json' } });
    const spec = r.status === 200 ? ((await r.json()) as { spec: { holderIdentity: string; leaseTransitions: number } }).spec : undefined;
    if (spec && spec.holderIdentity && spec.holderIdentity !== not) return spec;
    if (Date.now() > end) throw new Error(`no new kube-controller-manager holder (last: ${JSON.stringify(spec)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('leader election on SQLite across restarts', () => {
  it('released on SIGTERM, taken over at once after SIGKILL', async () => {
    let p = await start();
    const first = await kcmLease(p.url);
    expect(first.leaseTransitions).toBe(0);
    expect(p.output()).toContain(`successfully acquired lease kube-system/kube-controller-manager as ${first.holderIdentity}`);

    // clean stop: the Lease is released
    expect(await p.kill('SIGTERM')).toBe(0);
    p = await start();
    const second = await kcmLease(p.url, first.holderIdentity);
    expect(second.leaseTransitions).toBe(1);

    // crash: the Lease still names the dead run, and is taken at once anyway
    await p.kill('SIGKILL');
    p = await start();
    const third = await kcmLease(p.url, second.holderIdentity);
    expect(third.leaseTransitions).toBe(2);
  }, 120_000);
});
