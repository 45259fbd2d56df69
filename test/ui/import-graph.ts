// The explorer's source as a module graph: static imports and re-exports
// (what a bundle evaluates up front) apart from import() (what is fetched later) and type-only imports
// (erased). For tests that hold the UI to its structure.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { init, parse } from 'es-module-lexer';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

await init;

export interface ModuleInfo {
  /** Specifiers imported statically (values, not types), as written. */
  staticImports: string[];
  /** Specifiers loaded with import(). */
  dynamicImports: string[];
  /** The module as JavaScript (types stripped, as the bundler sees it). */
  code: string;
}

const cache = new Map<string, ModuleInfo>();

/**
 * A module's imports as the bundle sees them: esbuild strips types (and imports used only as types, as
 * the build does), es-module-lexer tells static imports and re-exports from import().
 */
export function readModule(file: string): ModuleInfo {
  const hit = cache.get(file);
  if (hit) return hit;
  const { code } = transformSync(readFileSync(file, 'utf8'), { loader: file.endsWith('.tsx') ? 'tsx' : 'ts', format: 'esm', jsx: 'automatic' });
  const [imports] = parse(code);
  const staticImports: string[] = [];
  const dynamicImports: string[] = [];
  for (const i of imports) {
    if (i.n === undefined || i.d === -2) continue;
    (i.d === -1 ? staticImports : dynamicImports).push(i.n);
  }
  const info = { staticImports, dynamicImports, code };
  cache.set(file, info);
  return info;
}

/** A relative specifier resolved to its .ts/.tsx file; bare specifiers come back as "pkg:name". */
export function resolveSpecifier(from: string, spec: string): string {
  if (!spec.startsWith('.')) return `pkg:${spec}`;
  const p = resolve(dirname(from), spec);
  const base = p.replace(/\.js$/, '');
  for (const c of [`${base}.ts`, `${base}.tsx`, join(p, 'index.ts'), join(p, 'index.tsx')]) if (existsSync(c)) return c;
  return p;
}

/** Every module the entry evaluates before anything loaded by import(), each with the chain that pulls it in. */
export function staticClosure(entry: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[entry, [rel(entry)]]]);
  const queue = [entry];
  while (queue.length) {
    const f = queue.shift()!;
    if (!/\.tsx?$/.test(f) || !existsSync(f)) continue; // packages, stylesheets
    for (const s of readModule(f).staticImports) {
      const to = resolveSpecifier(f, s);
      if (chains.has(to)) continue;
      chains.set(to, [...chains.get(f)!, to.startsWith('pkg:') ? to : rel(to)]);
      queue.push(to);
    }
  }
  return chains;
}

export function rel(file: string): string {
  return relative(ROOT, file);
}

/** .ts/.tsx files under a directory of the repository, tests excluded. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) visit(p);
      else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(p);
    }
  };
  visit(join(ROOT, dir));
  return out.sort();
}
