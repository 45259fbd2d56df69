// Installs the Debian packages tests need when their binaries are missing (we run as root); fails loudly otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PACKAGES = {
  chromium: { binary: '/usr/bin/chromium', packages: ['chromium'] },
  etcd: { binary: '/usr/bin/etcd', packages: ['etcd-server'] },
};

const wanted = process.argv.slice(2);
const missing = [];
for (const name of wanted) {
  const p = PACKAGES[name];
  if (!p) {
    console.error(`ensure-debian: unknown package set "${name}"`);
    process.exit(2);
  }
  if (!existsSync(p.binary)) missing.push(...p.packages);
}
if (missing.length > 0) {
  console.error(`ensure-debian: installing ${missing.join(' ')} ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Test files may install the same package at once: wait for apt's lock instead of failing on it.
  const run = (args) => spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', ...args], { stdio: 'inherit', env });
  let r = run(['install', '-y', '--no-install-recommends', ...missing]);
  if (r.status !== 0) {
    run(['update']);
    r = run(['install', '-y', '--no-install-recommends', ...missing]);
  }
  if (r.status !== 0) {
    console.error(`ensure-debian: FAILED to install ${missing.join(' ')} (apt-get exit ${r.status}). Tests that need them cannot run.`);
    process.exit(1);
  }
}
for (const name of wanted) {
  if (!existsSync(PACKAGES[name].binary)) {
    console.error(`ensure-debian: ${PACKAGES[name].binary} still missing after install`);
    process.exit(1);
  }
}
