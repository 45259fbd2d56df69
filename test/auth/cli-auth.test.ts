// `npm start`: the authentication posture is in the start-up log, and the data directory gets an
// admin kubeconfig that works with stock kubectl once authentication is on.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kubectl } from '../helpers/kubectl.js';
import { TestCA } from '../helpers/tls.js';

const MAIN = join(import.meta.dirname, '../../src/server/main.ts');
const tsx = import.meta.resolve('tsx');
const children: ChildProcess[] = [];
const dirs: string[] = [];

function start(args: string[]): Promise<{ out: string; p: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', tsx, MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(p);
    let out = '';
    const on = (d: Buffer) => {
      out += d;
      if (out.includes('admin kubeconfig:') && out.endsWith('\n')) resolve({ out, p });
    };
    p.stdout.on('data', on);
    p.stderr.on('data', on);
    p.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('periscope start-up authentication', () => {
  it('says a flag-less loopback server runs requests without credentials as admin, and writes a kubeconfig', async () => {
    const data = mkdtempSync(join(tmpdir(), 'cli-auth-'));
    dirs.push(data);
    const { out } = await start(['--port', '0', '--store', 'memory', '--no-demo-data', '--request-log=false', '--data-dir', data]);
    expect(out).toMatch(/authentication: none configured; requests without credentials run as system:admin/);
    expect(out).toContain(`admin kubeconfig: ${join(data, 'kubeconfig')}`);
    expect(statSync(join(data, 'kubeconfig')).mode & 0o777).toBe(0o600);
  });

  it('with authentication on, the data directory kubeconfig works with kubectl', async () => {
    const data = mkdtempSync(join(tmpdir(), 'cli-auth-'));
    dirs.push(data);
    const tls = new TestCA();
    const cert = tls.issue('server', '127.0.0.1', [], 'IP:127.0.0.1');
    const { out } = await start(['--port', '0', '--store', 'sqlite', '--no-demo-data', '--request-log=false', '--data-dir', data, '--anonymous-auth=false', '--tls-cert-file', cert.cert, '--tls-private-key-file', cert.key]);
    expect(out).toContain('anonymous requests rejected (401)');
    const kc = join(data, 'kubeconfig');
    expect(readFileSync(kc, 'utf8')).toContain('token: ');
    const r = await kubectl(kc, ['get', 'namespaces', '-o', 'name']);
    expect(r.stderr).toBe('');
    const who = await kubectl(kc, ['auth', 'whoami']);
    expect(who.stdout).toMatch(/Username\s+system:admin/);
    // a generated service-account key and the admin token are kept in the data directory
    expect(statSync(join(data, 'service-account.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(data, 'admin-token')).mode & 0o777).toBe(0o600);
    tls.cleanup();
  });
});
