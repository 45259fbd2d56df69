// The package as a stranger gets it: `npm pack`, `npm install <tgz>` into an empty directory that cannot
// see this checkout, then the `periscope` bin and the programmatic API, each talked to with kubectl.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { KUBECTL } from '../helpers/kubectl.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const MINUTES = 60_000;

/** Starts a process and resolves with the first match of `pattern` in its stderr/stdout. */
function startAndWait(cmd: string, args: string[], cwd: string, pattern: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string }> {
  // its own process group: npx runs the server as a child of its own, which a signal to npx alone leaves running
  const child = spawn(cmd, args, { cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1' } });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${out}`)), 2 * MINUTES);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = out.match(pattern);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code} before ${pattern}; output:\n${out}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
  });
}

/** Directories under node_modules holding a compiled addon (build/Release/*.node). */
function compiledAddons(dir: string, found: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (!statSync(p).isDirectory()) continue;
    if (e === 'Release' && dir.endsWith('build') && readdirSync(p).some((f) => f.endsWith('.node'))) found.push(dir);
    else compiledAddons(p, found);
  }
  return found;
}

describe('npm pack → npm install → periscope', () => {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-pack-'));
  const project = join(dir, 'project');
  let tarball = '';

  beforeAll(async () => {
    // `npm test` builds the package (scripts/build-package.mjs, as prepack does) before the tests run;
    // packing without scripts here keeps dist/ from being rebuilt under the other tests' feet
    if (!existsSync(join(root, 'lib', 'index.js')) || !existsSync(join(root, 'dist', 'index.html'))) await run(process.execPath, [join(root, 'scripts', 'build-package.mjs')], { cwd: root, maxBuffer: 64 << 20 });
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], { cwd: root, maxBuffer: 64 << 20 });
    tarball = join(dir, stdout.trim().split('\n').pop()!);
    writeFileSync(join(dir, 'package.json'), '{}'); // keeps npm from walking up to this checkout
    await run('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: project, maxBuffer: 64 << 20 });
  }, 15 * MINUTES);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs the compiled server and the built explorer, without tsx, with better-sqlite3 the only compiled addon', () => {
    const pkg = join(project, 'node_modules', 'periscope');
    expect(existsSync(join(pkg, 'lib', 'server', 'main.js'))).toBe(true);
    expect(existsSync(join(pkg, 'lib', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(pkg, 'dist', 'index.html'))).toBe(true);
    expect(existsSync(join(pkg, 'src'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', 'react'))).toBe(false);
    expect(compiledAddons(join(project, 'node_modules')).map((d) => d.slice(join(project, 'node_modules').length + 1))).toEqual(['better-sqlite3/build']);
  });

  it('npx periscope serves the API and the explorer; kubectl talks to it', async () => {
    const { child, match } = await startAndWait('npx', ['--no-install', 'periscope', '--port', '0', '--store', 'memory', '--no-demo-data', '--simulated-nodes', '0', '--request-log=false'], project, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    try {
      const url = match[1]!;
      const index = await fetch(url + '/');
      expect(index.status).toBe(200);
      expect(await index.text()).toContain('<div id="root">');
      const { stdout } = await run(KUBECTL, ['--server', url, 'get', 'namespaces', '-o', 'name']);
      expect(stdout).toContain('namespace/kube-system');
      await run(KUBECTL, ['--server', url, 'create', 'configmap', 'from-kubectl', '--from-literal=a=b']);
      expect((await run(KUBECTL, ['--server', url, 'get', 'configmap', 'from-kubectl', '-o', 'jsonpath={.data.a}'])).stdout).toBe('b');
    } finally {
      await stop(child);
    }
  }, 5 * MINUTES);

  it('node -e with startPeriscope(): kubectl reads the kubeconfig it wrote', async () => {
    const script = `
      import { startPeriscope } from 'periscope';
      const p = await startPeriscope({ authentication: 'certificate', crds: [${JSON.stringify(crdObject())}] });
      console.log('KUBECONFIG=' + p.kubeconfigPath);
      process.on('SIGTERM', () => p.stop().then(() => process.exit(0)));
    `;
    const { child, match } = await startAndWait(process.execPath, ['--input-type=module', '-e', script], project, /KUBECONFIG=(\S+)/);
    try {
      const kubeconfig = match[1]!;
      const who = JSON.parse((await run(KUBECTL, ['--kubeconfig', kubeconfig, 'auth', 'whoami', '-o', 'json'])).stdout);
      expect(who.status.userInfo.username).toBe('periscope-admin');
      const { stdout } = await run(KUBECTL, ['--kubeconfig', kubeconfig, 'get', 'crd', 'widgets.example.com', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
      expect(stdout).toBe('True');
    } finally {
      await stop(child);
    }
  }, 5 * MINUTES);

  it("a consumer's vitest file starts and stops it with no async leak left (vitest --detectAsyncLeaks), and the check catches a leak", async () => {
    const tests = join(project, 'tests');
    await run('mkdir', ['-p', tests]);
    writeFileSync(join(project, 'vitest.config.mjs'), 'export default { test: { include: ["tests/**/*.test.mjs"], globals: true } };\n');
    writeFileSync(
      join(tests, 'periscope.test.mjs'),
      `import { startPeriscope } from 'periscope';
       import { request } from 'node:http';
       test('start, use, stop', async () => {
         const p = await startPeriscope({ controllers: true });
         // node:http without an agent: fetch's own keep-alive pool would be the test's leak, not the server's
         const status = await new Promise((resolve, reject) => request(p.url + '/api/v1/namespaces', { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json' } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); }).on('error', reject).end(JSON.stringify({ metadata: { name: 'x' } })));
         expect(status).toBe(201);
         await p.stop();
       });\n`,
    );
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const clean = await run(process.execPath, [vitest, 'run', '--root', project, '--detectAsyncLeaks'], { cwd: project, maxBuffer: 16 << 20, env: { ...process.env, NO_COLOR: '1' } }).catch((e) => e);
    const cleanOut = String(clean.stdout) + String(clean.stderr);
    expect(cleanOut).toMatch(/1 passed/);
    expect(cleanOut).not.toMatch(/Leaks?\s+\d+ leak/);

    // the same check on a file that leaves a timer behind must report it
    writeFileSync(join(tests, 'leaky.test.mjs'), `test('leaks', () => { setInterval(() => {}, 1000); });\n`);
    const leaky = await run(process.execPath, [vitest, 'run', '--root', project, '--detectAsyncLeaks', 'tests/leaky.test.mjs'], { cwd: project, maxBuffer: 16 << 20, env: { ...process.env, NO_COLOR: '1' } }).catch((e) => e);
    expect(String(leaky.stdout) + String(leaky.stderr)).toMatch(/Leaks?\s+1 leak/);
    rmSync(join(tests, 'leaky.test.mjs'));
  }, 5 * MINUTES);

  it('ships the files it names and nothing of the checkout', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules', 'periscope', 'package.json'), 'utf8'));
    expect(pkg.private).toBeUndefined();
    expect(pkg.bin).toEqual({ periscope: 'bin/periscope.mjs' });
    expect(Object.keys(pkg.dependencies)).not.toContain('tsx');
    const top = readdirSync(join(project, 'node_modules', 'periscope')).sort();
    expect(top).toEqual(['README.md', 'bin', 'dist', 'lib', 'package.json']);
  });
});

function crdObject() {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  };
}
