import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/server/storage/sqlite.js';

describe('sqlite range without a count', () => {
  it('pages a whole prefix with `more` right at every boundary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-probe-'));
    const store = new SqliteStore(dir);
    try {
      await store.open();
      for (let i = 0; i < 7; i++) await store.create(`/registry/core/pods/ns/p${i}`, Buffer.from('{}'));
      await store.create('/registry/core/services/ns/s', Buffer.from('{}'));
      const seen: string[] = [];
      let startKey: string | undefined;
      const mores: boolean[] = [];
      for (;;) {
        const page = await store.range({ prefix: '/registry/core/pods/', startKey, limit: 3, count: false });
        seen.push(...page.kvs.map((kv) => kv.key));
        mores.push(page.more);
        expect(page.kvs.length).toBeLessThanOrEqual(3);
        if (!page.more) break;
        startKey = page.kvs[page.kvs.length - 1]!.key + '\u0000';
      }
      expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => `/registry/core/pods/ns/p${i}`));
      expect(mores).toEqual([true, true, false]);
      // exactly full last page: no extra empty page
      const six = await store.range({ prefix: '/registry/core/pods/', startKey: '/registry/core/pods/ns/p4', limit: 3, count: false });
      expect(six.more).toBe(false);
      // the counted form is unchanged
      const counted = await store.range({ prefix: '/registry/core/pods/', limit: 3 });
      expect(counted).toMatchObject({ more: true, count: 7 });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
