// Issue 14 durability: kill -9 of the server process during an HTTP write burst loses nothing acknowledged.
// Acknowledged = the client received the 201 (create) or 200 (patch, delete). The server is the real
// `main.ts --store sqlite` process; after the kill it restarts on the same data directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configMap, createNamespace, JSON_HEADERS, startServerProcess, type ServerProcess } from './server-process.js';

const NS = 'burst';
const WRITERS = 12;
const KILL_AFTER_ACKS = 300;

describe('kill -9 during an HTTP write burst (sqlite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'durability-kill9-'));
  const procs: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of procs) await p.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('every acknowledged create, patch and delete is there after restart, and revisions continue', async () => {
    const first = await startServerProcess(dir);
    procs.push(first);
    const base = `${first.url}/api/v1/namespaces/${NS}/configmaps`;
    await createNamespace(first.url, NS);
    expect((await fetch(base, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(configMap('counter', { n: '0' })) })).status).toBe(201);

    const created = new Map<string, { data: Record<string, string>; uid?: string }>();
    const deleted = new Set<string>();
    let counterAck = 0;
    let maxAckedRv = 0;
    let lostInFlight = 0;
    let killed = false;
    const noteRv = (obj: { metadata?: { resourceVersion?: string } } | undefined) => {
      const rv = Number(obj?.metadata?.resourceVersion ?? 0);
      if (rv > maxAckedRv) maxAckedRv = rv;
    };
    const maybeKill = () => {
      if (!killed && created.size >= KILL_AFTER_ACKS) {
        killed = true;
        first.proc.kill('SIGKILL');
      }
    };
    const send = async (path: string, init: RequestInit): Promise<{ status: number; obj?: any }> => {
      try {
        const r = await fetch(path, init);
        // the status line is the acknowledgement; the body may be cut by the kill
        const obj = await r.json().catch(() => undefined);
        return { status: r.status, obj };
      } catch {
        lostInFlight++;
        return { status: 0 };
      }
    };

    const creator = async (w: number) => {
      for (let i = 0; !killed; i++) {
        const name = `w${w}-${i}`;
        const data = { owner: name, payload: `${name}:${'p'.repeat(512)}` };
        const r = await send(base, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(configMap(name, data)) });
        if (r.status === 201) {
          created.set(name, { data, uid: r.obj?.metadata?.uid });
          noteRv(r.obj);
        } else if (r.status !== 0) throw new Error(`create ${name}: ${r.status}`);
        maybeKill();
      }
    };
    const counter = async () => {
      for (let n = 1; !killed; n++) {
        const r = await send(`${base}/counter`, { method: 'PATCH', headers: { ...JSON_HEADERS, 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { n: String(n) } }) });
        if (r.status === 200) {
          counterAck = n;
          noteRv(r.obj);
        } else if (r.status !== 0) throw new Error(`patch counter: ${r.status}`);
      }
    };
    const deleter = async () => {
      for (let i = 0; !killed; i++) {
        const name = `del-${i}`;
        const c = await send(base, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(configMap(name, { gone: 'soon' })) });
        if (c.status !== 201) continue;
        const d = await send(`${base}/${name}`, { method: 'DELETE', headers: { Accept: 'application/json' } });
        if (d.status === 200) deleted.add(name);
      }
    };
    await Promise.all([...Array.from({ length: WRITERS }, (_, w) => creator(w)), counter(), deleter()]);
    expect(await first.exited).toBe('SIGKILL');
    expect(lostInFlight).toBeGreaterThan(0); // the kill came while requests were in flight

    const second = await startServerProcess(dir);
    procs.push(second);
    const base2 = `${second.url}/api/v1/namespaces/${NS}/configmaps`;
    const list = (await (await fetch(base2, { headers: { Accept: 'application/json' } })).json()) as { items: { metadata: { name: string; uid: string }; data: Record<string, string> }[] };
    const byName = new Map(list.items.map((o) => [o.metadata.name, o]));
    const missing: string[] = [];
    const changed: string[] = [];
    for (const [name, ack] of created) {
      const got = byName.get(name);
      if (!got) missing.push(name);
      else if (JSON.stringify(got.data) !== JSON.stringify(ack.data) || (ack.uid && got.metadata.uid !== ack.uid)) changed.push(name);
    }
    expect(missing, 'acknowledged creates lost').toEqual([]);
    expect(changed, 'acknowledged creates changed').toEqual([]);
    expect([...deleted].filter((n) => byName.has(n)), 'acknowledged deletes undone').toEqual([]);
    // the counter holds the last acknowledged patch, or the one in flight at the kill
    const n = Number(byName.get('counter')!.data.n);
    expect(n).toBeGreaterThanOrEqual(counterAck);
    expect(n).toBeLessThanOrEqual(counterAck + 1);

    // writes work after the restart, at revisions above everything acknowledged before it
    const after = await fetch(base2, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(configMap('after-restart', { ok: 'yes' })) });
    expect(after.status).toBe(201);
    const rv = Number(((await after.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    expect(rv).toBeGreaterThan(maxAckedRv);
  }, 120_000);
});
