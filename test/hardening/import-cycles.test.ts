// No import circles in src/ (issue 31): the chain, authorization, admission and the REST handlers form
// layers, and a circle between them is how a lower layer starts depending on a higher one. Type-only
// imports count too: they are the same dependency, only erased at run time.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../src');

/** Every .ts/.tsx file under a directory (tests included: they may not close a circle either). */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The text with comments blanked out; strings and template literals kept (a `//` or `/*` inside them is text). */
export function withoutComments(text: string): string {
  let out = '';
  let i = 0;
  const braces: number[] = []; // open `{` counts inside each `${` of an enclosing template literal
  while (i < text.length) {
    const c = text[i]!;
    const n = text[i + 1];
    if (c === '/' && n === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && n === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      out += ' ';
    } else if (c === "'" || c === '"' || c === '`' || (c === '}' && braces.length > 0 && braces[braces.length - 1] === 0)) {
      // a string, or the rest of a template literal after its `${…}`
      const quote = c === '}' ? '`' : c;
      if (c === '}') braces.pop();
      let j = i + 1;
      while (j < text.length && text[j] !== quote && !(quote !== '`' && text[j] === '\n')) {
        if (text[j] === '\\') j++;
        else if (quote === '`' && text[j] === '$' && text[j + 1] === '{') {
          braces.push(0);
          j++;
          break;
        }
        j++;
      }
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      if (braces.length > 0 && c === '{') braces[braces.length - 1]!++;
      else if (braces.length > 0 && c === '}') braces[braces.length - 1]!--;
      out += c;
      i++;
    }
  }
  return out;
}

/** Relative module specifiers of `import … from`, `export … from` and `import()` (type-only ones included). */
export function importsOf(text: string): string[] {
  const code = withoutComments(text);
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm;
  for (const m of code.matchAll(re)) out.push(m[2]!);
  return out;
}

function resolveImport(from: string, spec: string, files: Set<string>): string | undefined {
  const base = resolve(dirname(from), spec);
  for (const c of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base, base + '.ts', base + '.tsx', join(base, 'index.ts')]) if (files.has(c)) return c;
  return undefined;
}

/** The graph's strongly connected components with more than one file (or a file importing itself), Tarjan's algorithm. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

export function importGraph(root: string): Map<string, string[]> {
  const files = new Set(sources(root));
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const deps = importsOf(readFileSync(f, 'utf8'))
      .map((s) => resolveImport(f, s, files))
      .filter((x): x is string => x !== undefined);
    graph.set(f, [...new Set(deps)]);
  }
  return graph;
}

describe('import graph of src/', () => {
  it('the scanner finds a circle, a type-only one and one through export … from', () => {
    const g = new Map<string, string[]>([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(g)).toEqual([['a', 'b', 'c']]);
    expect(importsOf(`import type { X } from './x.js';\nexport { y } from '../y.js';\nimport * as z from './z.js';\n// import { no } from './comment.js'\n/* pkg/x/*/y */ import { w } from './w.js';\nconst m = await import('./lazy.js');`)).toEqual(['./x.js', '../y.js', './z.js', './w.js', './lazy.js']);
  });
  it('has no circles', () => {
    const found = cycles(importGraph(ROOT)).map((c) => c.map((f) => relative(ROOT, f)));
    expect(found).toEqual([]);
  });
});
