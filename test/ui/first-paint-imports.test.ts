// The overview's first paint (issue 30: < 500 ms at 100k objects) evaluates only what the shell and the
// overview need: Monaco, the terminal, the config studio, the yaml library and the object/create views are
// chunks fetched later (import()), never in the entry's static graph. A static import anywhere on the way
// (the overview importing a panel that imports a dialog that imports Monaco) puts them back on the path.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, staticClosure } from './import-graph.js';

const entry = join(ROOT, 'src/ui/main.tsx');

const LATER: [string, RegExp][] = [
  ['Monaco', /^pkg:(monaco-editor|monaco-yaml)|^src\/ui\/monaco\//],
  ['the terminal (xterm)', /^pkg:@xterm\/|^src\/ui\/views\/TerminalView/],
  ['the yaml library', /^pkg:yaml$/],
  ['the config studio', /^src\/ui\/studio\//],
  ['the object view', /^src\/ui\/views\/ObjectView/],
  ['the editor', /^src\/ui\/editor\/(EditorView|CreateView|MonacoManifestViewer)/],
];

describe('first paint', () => {
  const closure = staticClosure(entry);
  it('reaches the overview statically', () => {
    expect(closure.has(join(ROOT, 'src/ui/views/Overview.tsx'))).toBe(true);
  });
  for (const [what, re] of LATER)
    it(`does not evaluate ${what}`, () => {
      const found = [...closure.entries()].filter(([, chain]) => re.test(chain[chain.length - 1]!)).map(([, chain]) => chain.join(' → '));
      expect(found).toEqual([]);
    });
});
