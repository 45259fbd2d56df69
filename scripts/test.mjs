// `npm test`: typecheck, unit + integration (vitest), then e2e (Playwright in Debian Chromium).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npx = (args, extra = {}) => spawnSync('npx', args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...extra } });
const steps = [
  ['ensure debian packages', () => spawnSync(process.execPath, ['scripts/ensure-debian.mjs', 'chromium'], { cwd: root, stdio: 'inherit' })],
  ['typecheck', () => npx(['tsc', '-p', 'tsconfig.json', '--noEmit'])],
  // the explorer (dist/) and the compiled server (lib/), as `npm pack` builds them
  ['build explorer and package', () => spawnSync(process.execPath, ['scripts/build-package.mjs'], { cwd: root, stdio: 'inherit' })],
  ['unit and integration tests', () => npx(['vitest', 'run'])],
  ['e2e tests', () => npx(['playwright', 'test'])],
];
for (const [name, run] of steps) {
  const t0 = Date.now();
  process.stderr.write(`\n=== ${name} ===\n`);
  const r = run();
  if (r.status !== 0) {
    process.stderr.write(`\n=== FAILED: ${name} (exit ${r.status}) ===\n`);
    process.exit(r.status || 1);
  }
  process.stderr.write(`=== ${name}: ok (${((Date.now() - t0) / 1000).toFixed(1)}s) ===\n`);
}
