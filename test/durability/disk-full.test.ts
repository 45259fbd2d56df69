// Issue 14 durability: a full disk under the sqlite data directory. Writes fail with a 5xx Status that
// says the storage is full (upstream answers etcd's "mvcc: database space exceeded" with 500
// InternalError, kubernetes/kubernetes#94029), the server stays up and readable, nothing acknowledged
// is lost, writes work again once there is space, and a restart on the same directory reads it all.
// Needs a small tmpfs: runs as root where `mount -t tmpfs` works, and says why it is skipped otherwise.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configMap, createNamespace, JSON_HEADERS, startServerProcess, type ServerProcess } from './server-process.js';

const SMALL = '4m';
const BIG = '64m';
const NS = 'full';

function mountTmpfs(dir: string, size: string, remount = false): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root';
  const r = spawnSync('mount', remount ? ['-o', `remount,size=${size}`, dir] : ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `mount failed: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}`;
}

const mnt = mkdtempSync(join(tmpdir(), 'durability-full-'));
const mountError = mountTmpfs(mnt, SMALL);
if (mountError) rmSync(mnt, { recursive: true, force: true });

describe.skipIf(mountError !== undefined)(`sqlite data directory on a full disk${mountError ? ` (skipped: ${mountError})` : ''}`, () => {
  const dataDir = join(mnt, 'data');
  const procs: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of procs) await p.kill('SIGKILL');
    spawnSync('umount', [mnt]);
    if (spawnSync('mountpoint', ['-q', mnt]).status === 0) spawnSync('umount', ['-l', mnt]);
    rmSync(mnt, { recursive: true, force: true });
  });

  it('fails writes with a storage-full 5xx Status, stays up, loses nothing acknowledged, and recovers when space returns', async () => {
    mkdirSync(dataDir, { recursive: true });
    const srv = await startServerProcess(dataDir, ['--compaction-interval', '0']);
    procs.push(srv);
    const base = `${srv.url}/api/v1/namespaces/${NS}/configmaps`;
    await createNamespace(srv.url, NS);

    const acked = new Map<string, string>();
    const payload = (i: number) => `${i}:${'x'.repeat(64 * 1024)}`;
    let failure: { status: number; body: any } | undefined;
    for (let i = 0; i < 400 && !failure; i++) {
      const r = await fetch(base, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(configMap(`cm-${i}`, { v: payload(i) })) });
      const body = await r.json().catch(() => undefined);
      if (r.status === 201) acked.set(`cm-${i}`, payload(i));
      else failure = { status: r.status, body };
    }
    expect(failure, 'the disk never filled').toBeDefined();
    expect(acked.size).toBeGreaterThan(0);
    // a server fault, not the client's: 5xx, as a Status naming the cause
    expect(failure!.status).toBeGreaterThanOrEqual(500);
    expect(failure!.body).toMatchObject({ kind: 'Status', status: 'Failure', code: failure!.status });
    expect(failure!.body.message).toMatch(/full|space/i);

    // it stays full, stays up, and reads still answer with everything acknowledged
    for (let i = 0; i < 5; i++) {
      const r = await fetch(base, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(configMap(`more-${i}`, { v: payload(i) })) });
      expect(r.status).toBeGreaterThanOrEqual(500);
      expect(((await r.json()) as { kind: string }).kind).toBe('Status');
    }
    expect(srv.proc.exitCode).toBeNull();
    expect((await fetch(`${srv.url}/livez`)).status).toBe(200);
    const readAll = async (url: string) => {
      const list = (await (await fetch(`${url}/api/v1/namespaces/${NS}/configmaps`, { headers: { Accept: 'application/json' } })).json()) as { items: { metadata: { name: string }; data: { v: string } }[] };
      return new Map(list.items.map((o) => [o.metadata.name, o.data.v]));
    };
    const lostOrChanged = (got: Map<string, string>) => [...acked].filter(([n, v]) => got.get(n) !== v).map(([n]) => n);
    expect(lostOrChanged(await readAll(srv.url))).toEqual([]);

    // space returns: writes work again
    expect(mountTmpfs(mnt, BIG, true)).toBeUndefined();
    const again = await fetch(base, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(configMap('after-space', { v: 'ok' })) });
    expect(again.status).toBe(201);
    acked.set('after-space', 'ok');

    // a restart on the same directory reads everything acknowledged
    expect(await srv.kill('SIGTERM')).toBe(0);
    const next = await startServerProcess(dataDir, ['--compaction-interval', '0']);
    procs.push(next);
    expect(lostOrChanged(await readAll(next.url))).toEqual([]);
  }, 120_000);
});
