// Data flows through ui/data only: views, components and the editor never hold the API client or open a
// connection themselves (their reads are hooks with keys in keys.ts, their writes go through writes.ts),
// so one invalidation reaches every reader and every write carries the one field manager. This fails on
// an import of the client instance (src/ui/api.ts) or a value import of ApiClient, and on fetch(),
// WebSocket, EventSource, XMLHttpRequest or sendBeacon in those files.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ui = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const GUARDED = ['views', 'components', 'editor', 'studio', 'monaco', 'lib'];
/**
 * Files still calling the API themselves, each with who moves it into ui/data. Only shrinks: a new
 * file here needs a reason as good.
 */
const ALLOWED: Record<string, string> = {};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return files(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** What in `src` reaches the network without ui/data. */
export function violations(file: string, src: string): string[] {
  const out: string[] = [];
  for (const m of src.matchAll(/import\s+(type\s+)?(\{[^}]*\}|[\w*\s,]+?)\s+from\s+'([^']+)'/g)) {
    const [, typeOnly, names, spec] = m;
    if (typeOnly || !spec!.startsWith('.')) continue;
    const target = resolve(dirname(file), spec!).replace(/\.js$/, '');
    if (target === join(ui, 'api')) out.push(`imports the API client (${spec})`);
    if (/\/src\/client(\/index)?$/.test(target)) {
      const values = names!.replace(/[{}]/g, '').split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type '));
      if (values.some((n) => n.split(/\s+as\s+/)[0] === 'ApiClient')) out.push('constructs an ApiClient');
    }
  }
  for (const m of src.matchAll(/import\(\s*'([^']+)'\s*\)/g))
    if (m[1]!.startsWith('.') && resolve(dirname(file), m[1]!).replace(/\.js$/, '') === join(ui, 'api')) out.push(`imports the API client (${m[1]})`);
  const code = src.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '');
  for (const [re, what] of [
    [/(?<![\w.])fetch\s*\(/, 'calls fetch()'],
    [/\bnew\s+WebSocket\b/, 'opens a WebSocket'],
    [/\bnew\s+EventSource\b/, 'opens an EventSource'],
    [/\bXMLHttpRequest\b/, 'uses XMLHttpRequest'],
    [/\bsendBeacon\b/, 'uses sendBeacon'],
  ] as const)
    if (re.test(code)) out.push(what);
  return out;
}

describe('ui layering', () => {
  it('finds what it guards against', () => {
    const f = join(ui, 'views', 'X.tsx');
    expect(violations(f, "import { api } from '../api.js';")).toEqual(['imports the API client (../api.js)']);
    expect(violations(f, "import type { api } from '../api.js';")).toEqual([]);
    expect(violations(f, "const { api } = await import('../api.js');")).toEqual(['imports the API client (../api.js)']);
    expect(violations(f, "import { ApiClient, resourcePath } from '../../client/index.js';")).toEqual(['constructs an ApiClient']);
    expect(violations(f, "import { type ApiClient, resourcePath } from '../../client/index.js';")).toEqual([]);
    expect(violations(f, 'const r = await fetch(url);')).toEqual(['calls fetch()']);
    expect(violations(f, 'q.refetch(); // fetch(x) in a comment')).toEqual([]);
    expect(violations(f, "const ws = new WebSocket('ws://x');")).toEqual(['opens a WebSocket']);
  });

  it('views, components and the editor reach the API only through ui/data', () => {
    const found: string[] = [];
    for (const dir of GUARDED)
      for (const f of files(join(ui, dir))) {
        const rel = relative(ui, f);
        if (rel in ALLOWED) continue;
        for (const v of violations(f, readFileSync(f, 'utf8'))) found.push(`${rel}: ${v}`);
      }
    expect(found).toEqual([]);
  });

  it('the editor, the delete dialog and finalizers are not on the allow-list', () => {
    expect(Object.keys(ALLOWED).filter((k) => k.startsWith('editor/'))).toEqual([]);
  });
});
