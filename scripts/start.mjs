// `npm start`: build the explorer when its build is missing or older than its sources, then run the server.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const UI_SOURCES = ['index.html', 'vite.config.ts', 'public', 'src/ui', 'src/client', 'src/api', 'src/config', 'package-lock.json'];

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, e)));
  return newest;
}

const builtAt = newestMtime(join(root, 'dist', 'index.html'));
const sourcesAt = Math.max(...UI_SOURCES.map((p) => newestMtime(join(root, p))));
if (builtAt === 0 || sourcesAt > builtAt) {
  process.stderr.write(builtAt === 0 ? 'building the explorer (first start)...\n' : 'explorer sources changed: rebuilding...\n');
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write('explorer build failed\n');
    process.exit(r.status ?? 1);
  }
}

// resolve tsx from this checkout, whatever the caller's working directory
const tsx = import.meta.resolve('tsx');
const child = spawn(process.execPath, ['--import', tsx, join(root, 'src', 'server', 'main.ts'), '--static-dir', join(root, 'dist'), ...process.argv.slice(2)], {
  cwd: process.cwd(),
  stdio: 'inherit',
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
