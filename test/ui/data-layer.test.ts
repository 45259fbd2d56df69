// One data layer (issue 30): views and components get data through src/ui/data hooks, never by calling the
// API, fetch, a watch or react-query themselves, and every query key is defined in src/ui/data. A view that
// reads or writes on its own bypasses the shared cache (a sign-in or context switch would not reach it) and
// the one place where requests resolve their groups through discovery.
import { describe, expect, it } from 'vitest';
import { readModule, rel, resolveSpecifier, sourceFiles } from './import-graph.js';

/** Every module that draws the explorer: views, components, the editor's and the studio's screens, the shell. */
const screens = [...sourceFiles('src/ui/views'), ...sourceFiles('src/ui/components'), ...sourceFiles('src/ui/editor').filter((f) => f.endsWith('.tsx')), ...sourceFiles('src/ui/studio').filter((f) => f.endsWith('.tsx')), ...sourceFiles('src/ui').filter((f) => /src\/ui\/App\.tsx$/.test(f))];

/** Client functions that make requests. */
const CLIENT_IO = ['openWatch', 'Informer', 'listPages', 'discover', 'readFeatureGates', 'ApiClient', 'openWebSocketWatch'];
const REACT_QUERY_READS = ['useQuery', 'useQueries', 'useMutation', 'useInfiniteQuery', 'useSuspenseQuery', 'useSuspenseQueries'];

/** Names a module imports from a specifier matching `from` (as esbuild left them: value imports only). */
function importedNames(code: string, from: (spec: string) => boolean): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/import\s*(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*"([^"]+)"/g)) if (from(m[2]!)) out.push(...m[1]!.split(',').map((s) => s.trim().split(/\s+as\s+/)[0]!).filter(Boolean));
  return out;
}

function violations(file: string): string[] {
  const { code, staticImports, dynamicImports } = readModule(file);
  const out: string[] = [];
  const specs = [...staticImports, ...dynamicImports];
  const to = (s: string) => rel(resolveSpecifier(file, s));
  if (importedNames(code, (s) => to(s) === 'src/ui/api.ts').includes('api')) out.push('imports the API client (src/ui/api.ts)');
  for (const n of importedNames(code, (s) => to(s) === 'src/client/index.ts' || to(s).startsWith('src/client/'))) if (CLIENT_IO.includes(n)) out.push(`calls the client's ${n}`);
  for (const n of importedNames(code, (s) => s === '@tanstack/react-query')) if (REACT_QUERY_READS.includes(n)) out.push(`runs its own query (${n})`);
  if (specs.some((s) => to(s) === 'src/ui/data/keys.ts')) out.push('spells query keys (src/ui/data/keys.ts)');
  if (/\bqueryKey\b/.test(code)) out.push('spells a queryKey');
  if (/(^|[^.\w$])fetch\s*\(/.test(code)) out.push('calls fetch');
  for (const io of ['WebSocket', 'EventSource', 'XMLHttpRequest']) if (new RegExp(`new\\s+${io}\\b`).test(code)) out.push(`opens a ${io}`);
  return out;
}

describe('one data layer', () => {
  it('covers the views and components', () => {
    const names = screens.map(rel);
    expect(names).toContain('src/ui/views/Overview.tsx');
    expect(names).toContain('src/ui/views/Relationships.tsx');
    expect(names).toContain('src/ui/components/VirtualTable.tsx');
    expect(names).toContain('src/ui/App.tsx');
  });

  it('no view or component calls the API, fetch, a watch or react-query itself', () => {
    const found = screens.flatMap((f) => violations(f).map((v) => `${rel(f)}: ${v}`));
    expect(found).toEqual([]);
  });

  it('query keys are defined in src/ui/data only', () => {
    const outside = [...sourceFiles('src/ui')].filter((f) => !rel(f).startsWith('src/ui/data/')).filter((f) => /\bqueryKey\b/.test(readModule(f).code));
    expect(outside.map(rel)).toEqual([]);
  });
});
