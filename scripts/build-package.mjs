// `npm pack` / `npm publish` (prepack): the explorer into dist/, the server compiled to JavaScript
// with declarations into lib/ (no tsx at run time), and the JSON files the server reads beside it.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (args) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

// --server-only: lib/ alone (the start bench), without rebuilding the explorer
if (!process.argv.includes('--server-only')) run([join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn']);
rmSync(join(root, 'lib'), { recursive: true, force: true });
run([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json']);

// JSON the server reads at run time (schemas, protobuf descriptors), test data excepted
const copyJson = (dir) => {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) copyJson(p);
    else if (e.endsWith('.json') && !e.includes('testdata')) {
      const out = join(root, 'lib', relative(join(root, 'src'), p));
      cpSync(p, out);
    }
  }
};
for (const d of ['src/server', 'src/api', 'src/config']) copyJson(join(root, d));
process.stderr.write(`package built: ${relative(process.cwd(), join(root, 'lib'))}/ and ${relative(process.cwd(), join(root, 'dist'))}/\n`);
