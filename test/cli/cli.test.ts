// The server CLI: flag errors, configuration documents loaded (or refused with every problem) at start.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

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
});
