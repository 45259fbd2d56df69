import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { SqliteStore, SQLITE_FILE } from '../../src/server/storage/sqlite.js';
import type { StoreEvent } from '../../src/server/storage/types.js';
import { runStoreConformance } from './conformance.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'periscope-sqlite-'));
}

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = tempDir();
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

runStoreConformance('sqlite', async () => {
  const dir = tempDir();
  const store = new SqliteStore(dir);
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

// A tiny in-memory event window makes watches replay from the log table.
runStoreConformance('sqlite (replay from log table)', async () => {
  const dir = tempDir();
  const store = new SqliteStore(dir, { recentEvents: 4 });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('sqlite store persistence', () => {
  it('keeps data, revision and compacted revision across close and reopen', () =>
    withDir(async (dir) => {
      const first = new SqliteStore(dir);
      await first.open();
      const a = await first.create('/p/a', enc('a1'));
      const a2 = await first.update('/p/a', enc('a2'), a.modRevision);
      const b = await first.create('/p/b', enc('b1'));
      const bDeleted = await first.delete('/p/b');
      await first.create('/p/c', enc('c1'));
      await first.compact(b.modRevision);
      const last = await first.currentRevision();
      await first.close();

      const second = new SqliteStore(dir);
      await second.open();
      expect(await second.currentRevision()).toBe(last);
      expect(await second.compactedRevision()).toBe(b.modRevision);
      expect((await second.range({ prefix: '/p/' })).kvs.map((kv) => [kv.key, dec(kv.value)])).toEqual([
        ['/p/a', 'a2'],
        ['/p/c', 'c1'],
      ]);
      expect(dec((await second.get('/p/b', b.modRevision)).kv!.value)).toBe('b1');
      await expect(second.get('/p/a', a.modRevision)).rejects.toMatchObject({ code: 'Compacted' });

      // Replay after restart comes from the log table, delete events included.
      const events: StoreEvent[] = [];
      second.watch('/p/', b.modRevision, { onEvents: (e) => void events.push(...e), onError: () => {} });
      await vi.waitFor(() => expect(events).toHaveLength(2), { timeout: 5000, interval: 5 });
      expect(events[0]).toMatchObject({ type: 'delete', revision: bDeleted.modRevision });
      expect(dec(events[0].kv.value)).toBe('b1');
      expect(events[0].prevKv).toMatchObject({ modRevision: b.modRevision });

      const next = await second.create('/p/d', enc('d'));
      expect(next.modRevision).toBe(last + 1);
      expect(a2.modRevision).toBeLessThan(next.modRevision);
      await second.close();
    }));

  it('keeps the revision when compaction removed the newest row', () =>
    withDir(async (dir) => {
      const store = new SqliteStore(dir);
      await store.open();
      await store.create('/p/a', enc('x'));
      const deleted = await store.delete('/p/a');
      await store.compact(deleted.modRevision);
      await store.close();
      await store.open();
      expect(await store.currentRevision()).toBe(deleted.modRevision);
      expect((await store.create('/p/b', enc('y'))).modRevision).toBe(deleted.modRevision + 1);
      await store.close();
    }));

  it('compaction removes superseded rows and tombstones from the log table', () =>
    withDir(async (dir) => {
      const store = new SqliteStore(dir);
      await store.open();
      let a = await store.create('/p/a', enc('0'));
      for (let i = 1; i <= 5; i++) a = await store.update('/p/a', enc(String(i)), a.modRevision);
      await store.create('/p/b', enc('b'));
      await store.delete('/p/b');
      const c = await store.create('/p/c', enc('c'));
      await store.compact(c.modRevision);
      const after = await store.update('/p/c', enc('c2'), c.modRevision);
      await store.close();
      const raw = new Database(join(dir, SQLITE_FILE));
      const revs = raw.prepare('SELECT revision FROM log ORDER BY revision').pluck().all();
      raw.close();
      expect(revs).toEqual([a.modRevision, c.modRevision, after.modRevision]);
    }));

  it('refuses a second open of the same database while the first is open', () =>
    withDir(async (dir) => {
      const first = new SqliteStore(dir);
      await first.open();
      await first.create('/p/a', enc('x'));
      const second = new SqliteStore(dir, { lockTimeoutMs: 50 });
      await expect(second.open()).rejects.toMatchObject({ code: 'Unavailable' });
      await first.close();
      await second.open();
      expect((await second.get('/p/a')).kv).toBeDefined();
      await second.close();
    }));

  it('finishes a compaction interrupted by a crash when reopened', () =>
    withDir(async (dir) => {
      const store = new SqliteStore(dir);
      await store.open();
      let kv = await store.create('/p/a', enc('0'));
      for (let i = 1; i <= 20; i++) kv = await store.update('/p/a', enc(String(i)), kv.modRevision);
      await store.close();

      // Simulate a crash after the compacted revision was recorded but before rows were removed.
      const raw = new Database(join(dir, SQLITE_FILE));
      raw.prepare("UPDATE meta SET value = ? WHERE name = 'compacted'").run(kv.modRevision);
      raw.prepare("INSERT INTO meta(name, value) VALUES ('compact_from', 0)").run();
      expect(raw.prepare('SELECT COUNT(*) FROM log').pluck().get()).toBe(21);
      raw.close();

      await store.open();
      expect(await store.compactedRevision()).toBe(kv.modRevision);
      expect(dec((await store.get('/p/a')).kv!.value)).toBe('20');
      await store.close();
      const check = new Database(join(dir, SQLITE_FILE));
      expect(check.prepare('SELECT COUNT(*) FROM log').pluck().get()).toBe(1);
      expect(check.prepare("SELECT COUNT(*) FROM meta WHERE name = 'compact_from'").pluck().get()).toBe(0);
      check.close();
    }));

  it('every acknowledged write survives kill -9 of the writer, and revisions continue', () =>
    withDir(async (dir) => {
      const acks = new Map<string, number>();
      let counterAck = 0;
      const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'burst-writer.ts'), dir], {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += String(chunk)));
      let buffered = '';
      const exited = new Promise<NodeJS.Signals | null>((resolveExit) =>
        child.on('exit', (_code, signal) => resolveExit(signal)),
      );
      // Lines are parsed until the pipe closes, so acks printed just before the kill count too.
      const drained = new Promise<void>((resolveDrain) => child.stdout.on('end', resolveDrain));
      child.stdout.on('data', (chunk) => {
        buffered += String(chunk);
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [word, key, rev] = line.split(' ');
          if (word !== 'ack') continue;
          if (key === '/burst/counter') counterAck = Math.max(counterAck, Number(rev));
          else acks.set(key, Number(rev));
        }
        if (acks.size >= 2000 && child.exitCode === null && !child.killed) child.kill('SIGKILL');
      });
      const signal = await exited;
      await drained;
      expect(stderr).toBe('');
      expect(signal).toBe('SIGKILL');
      expect(acks.size).toBeGreaterThanOrEqual(2000);

      const store = new SqliteStore(dir);
      await store.open();
      const maxAck = Math.max(counterAck, ...acks.values());
      for (const [key, rev] of acks) {
        const { kv } = await store.get(key);
        expect(kv, key).toBeDefined();
        expect(kv!.createRevision).toBe(rev);
        expect(kv!.modRevision).toBe(rev);
        expect(dec(kv!.value)).toBe(key);
      }
      const counter = (await store.get('/burst/counter')).kv!;
      expect(counter.modRevision).toBeGreaterThanOrEqual(counterAck);
      const current = await store.currentRevision();
      expect(current).toBeGreaterThanOrEqual(maxAck);
      const next = await store.create('/burst/after', enc('x'));
      expect(next.modRevision).toBe(current + 1);
      await store.close();
      const raw = new Database(join(dir, SQLITE_FILE));
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
      raw.close();
    }));
});

describe('sqlite group commit and reads', () => {
  it('a read that does not touch the open batch neither commits it nor sees it; one that does commits first', () =>
    withDir(async (dir) => {
      const store = new SqliteStore(dir);
      await store.open();
      try {
        await store.create('/registry/ns/a', enc('a'));
        const committed = await store.currentRevision();
        let acked = false;
        const write = store.create('/registry/cm/x', enc('x')).then((kv) => ((acked = true), kv));
        // another key and another prefix: answered from the committed state, the batch stays open
        const other = await store.get('/registry/ns/a');
        expect(other.revision).toBe(committed);
        expect(dec(other.kv!.value)).toBe('a');
        const list = await store.range({ prefix: '/registry/ns/' });
        expect(list.revision).toBe(committed);
        expect(list.kvs.map((kv) => kv.key)).toEqual(['/registry/ns/a']);
        await Promise.resolve();
        expect(acked).toBe(false);
        // a range over the written key needs the batch: committed before it reads, and sees the write
        const cms = await store.range({ prefix: '/registry/cm/' });
        expect(cms.kvs.map((kv) => dec(kv.value))).toEqual(['x']);
        expect((await write).modRevision).toBe(committed + 1);
        expect(acked).toBe(true);
        // the same for a get of the written key, and for a read at the revision the batch assigned
        const w2 = store.update('/registry/cm/x', enc('y'), committed + 1);
        expect(dec((await store.get('/registry/cm/x')).kv!.value)).toBe('y');
        const rev2 = (await w2).modRevision;
        void store.create('/registry/cm/z', enc('z'));
        const at = await store.get('/registry/ns/a', rev2 + 1);
        expect(at.revision).toBe(rev2 + 1);
      } finally {
        await store.close();
      }
    }));
});
