// The server CLI: flag errors, configuration documents loaded (or refused with every problem) at start.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../src/server/flags.js';

const MAIN = join(import.meta.dirname, '../../src/server/main.ts');
const tsx = import.meta.resolve('tsx');

function run(args: string[], untilReady = false): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', tsx, MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const on = (d: Buffer) => {
      out += d;
      if (untilReady && out.includes('listening on')) p.kill('SIGTERM');
    };
    p.stdout.on('data', on);
    p.stderr.on('data', on);
    p.on('exit', (code) => resolve({ code, out }));
  });
}

describe('periscope CLI', () => {
  it('rejects unknown flags and bad values with a clear message and non-zero status', async () => {
    const a = await run(['--no-such-flag']);
    expect(a.code).toBe(2);
    expect(a.out).toContain('unknown flag: --no-such-flag');
    const b = await run(['--store', 'mongo']);
    expect(b.code).toBe(2);
    expect(b.out).toContain('invalid value "mongo" for flag --store');
    const c = await run(['--feature-gates', 'Nope=true']);
    expect(c.code).toBe(2);
    expect(c.out).toContain('unrecognized feature gate: Nope');
  });

  it('stops on an invalid configuration document, listing every problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-config-'));
    const file = join(dir, 'authz.yaml');
    writeFileSync(
      file,
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Webhook\n  name: Bad_Name\n  webhook:\n    timeout: 45s\n',
    );
    const r = await run(['--port', '0', '--store', 'memory', '--no-demo-data', '--authorization-config', file]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('authorizers[0].name');
    expect(r.out).toContain('authorizers[0].webhook.timeout');
    expect(r.out).toContain('authorizers[0].webhook.connectionInfo');
  });

  it('loads valid documents and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-config-'));
    const file = join(dir, 'tracing.yaml');
    writeFileSync(file, 'apiVersion: apiserver.config.service.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 10000\n');
    const r = await run(['--port', '0', '--store', 'memory', '--no-demo-data', '--request-log=false', '--tracing-config-file', file], true);
    expect(r.out).toContain('TracingConfiguration');
    expect(r.out).toContain('listening on');
  });

  it('--no-demo-data keeps the 3 simulated nodes; --simulated-nodes 0 is the bare server', () => {
    expect(parseFlags([]).simulatedNodes).toBe(3);
    expect(parseFlags(['--no-demo-data']).simulatedNodes).toBe(3);
    expect(parseFlags(['--no-demo-data', '--simulated-nodes', '5']).simulatedNodes).toBe(5);
    expect(parseFlags(['--simulated-nodes', '0']).simulatedNodes).toBe(0);
  });

  it('--store memory --no-demo-data: nodes register, and nothing is written to the working directory', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'cli-cwd-'));
    const p = spawn(process.execPath, ['--import', tsx, MAIN, '--port', '0', '--store', 'memory', '--no-demo-data', '--request-log=false', '--static-dir', ''], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise((r) => p.on('exit', r));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const on = (d: Buffer) => {
          out += d;
          const m = /listening on (\S+)/.exec(out);
          if (m) resolve(m[1]!);
        };
        p.stdout.on('data', on);
        p.stderr.on('data', on);
        p.on('exit', () => reject(new Error(`exited: ${out}`)));
      });
      let nodes: string[] = [];
      while (nodes.length < 3) {
        const r = await fetch(`${url}/api/v1/nodes`);
        nodes = r.ok ? ((await r.json()) as { items: { metadata: { name: string } }[] }).items.map((n) => n.metadata.name) : [];
        if (nodes.length < 3) await new Promise((r) => setTimeout(r, 100));
      }
      expect(nodes).toHaveLength(3);
      expect(out).toContain('admin kubeconfig (this run only');
      expect(existsSync(join(cwd, '.periscope'))).toBe(false);
    } finally {
      p.kill('SIGTERM');
      await exited;
    }
    expect(existsSync(join(cwd, '.periscope'))).toBe(false);
  });
});
