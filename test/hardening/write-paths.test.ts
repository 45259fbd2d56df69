// Nothing writes to storage around the write pipeline (issue 31): every create, update and delete of an object
// goes through src/server/registry/pipeline (admission, validation, managedFields), whose storage.ts holds the
// only store writes. This scans src/server for store writes anywhere else: a call of create/update/delete/put/
// txn/remove on a store (a receiver named *store*, *Store*, rs or *Rs), the pipeline's storage functions, or
// encoding an object for storage.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SERVER = resolve(__dirname, '../../src/server');

/** Where store writes belong: the storage backends themselves, and the pipeline. */
const WRITERS = ['storage/', 'registry/pipeline/'];

/**
 * Real exceptions, each with its reason (file → reason). None today: storage migration, compaction and leases
 * live in storage/ or go through the pipeline.
 */
const ALLOWED: Record<string, string> = {};

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts') && !/\.test\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}

const WRITE_METHODS = new Set(['create', 'update', 'delete', 'put', 'txn', 'remove']);
/** The last name of a receiver that is a store: `store`, `deps.store`, `backendStore`, `rs`, `pdbRs`, `h.raw()`. */
const STORE_RECEIVER = /(store|Store|^rs|Rs|^raw\(\))$/;

/** Code without comments (strings kept as they are: a `//` inside a string is text). */
function code(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const skipped = text.slice(i, end < 0 ? text.length : end + 2);
      out += skipped.replace(/[^\n]/g, ' ');
      i += skipped.length;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** A call of a write method on a receiver expression (`a.b.store.update(`, `h.raw().create(`, `pdbRs?.remove(`). */
const METHOD_CALL = /([A-Za-z_$][\w$]*)(\(\))?\s*[!?]?\s*\??\.\s*(create|update|delete|put|txn|remove)\s*\(/g;
const FUNCTION_CALL = /(^|[^\w$.])(storeCreate|storeUpdate|storeRemove|encodeForStorage)\s*\(/g;

/** The store writes in a source text: `line: call` for each. */
export function storeWrites(text: string): string[] {
  if (!/\.\s*(create|update|delete|put|txn|remove)\s*\(|storeCreate|storeUpdate|storeRemove|encodeForStorage/.test(text)) return [];
  const src = code(text);
  const lineOf = (i: number) => src.slice(0, i).split('\n').length;
  const found: string[] = [];
  for (const m of src.matchAll(METHOD_CALL)) if (STORE_RECEIVER.test(m[1]! + (m[2] ?? '')) && WRITE_METHODS.has(m[3]!)) found.push(`${lineOf(m.index!)}: ${m[0].replace(/\s+/g, '')}`);
  for (const m of src.matchAll(FUNCTION_CALL)) {
    // the definition of encodeForStorage (registry/resource-store.ts) is not a call
    if (/function\s+$/.test(src.slice(Math.max(0, m.index! - 12), m.index! + m[1]!.length))) continue;
    found.push(`${lineOf(m.index!)}: ${m[2]}(`);
  }
  return found;
}

describe('store writes', () => {
  it('are recognised (the scan can fail)', () => {
    expect(storeWrites('await this.deps.store.update(key, encodeForStorage(obj), rev);')).toHaveLength(2);
    expect(storeWrites('await rs.create(o, {});\nawait s.rs.update(k, n, c, {});\nawait pdbRs.remove(cur, {});')).toHaveLength(3);
    expect(storeWrites('await deps.store.delete(key);\nawait h.raw().create(k, v);')).toHaveLength(2);
    expect(storeWrites('const r = await storeUpdate(rs, key, next, cur, {});')).toHaveLength(1);
    // maps, sets, hashes and caches are not stores; comments are not code
    expect(storeWrites('this.timers.delete(key);\nhash.update(x);\nthis.owners.delete(k);\nthis.raw.delete(k);\n// store.update(k)\nexport function encodeForStorage(o) {}')).toEqual([]);
  });

  it('happen only in the write pipeline and the storage backends', () => {
    const outside: string[] = [];
    for (const file of sources(SERVER)) {
      const rel = relative(SERVER, file);
      if (WRITERS.some((w) => rel.startsWith(w)) || rel in ALLOWED) continue;
      for (const w of storeWrites(readFileSync(file, 'utf8'))) outside.push(`src/server/${rel}:${w}`);
    }
    expect(outside).toEqual([]);
  });

  it('allow-list only files that still write (no stale exceptions)', () => {
    for (const rel of Object.keys(ALLOWED)) expect(storeWrites(readFileSync(join(SERVER, rel), 'utf8')), rel).not.toEqual([]);
  });
});
