// The real server as a child process (`main.ts --store sqlite --data-dir <dir>`), for tests that kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(import.meta.dirname, '../../src/server/main.ts');
const tsx = import.meta.resolve('tsx');

export interface ServerProcess {
  url: string;
  proc: ChildProcess;
  /** Everything the process wrote to stdout and stderr. */
  output(): string;
  /** Resolves with the signal (or exit code) when the process has exited. */
  exited: Promise<NodeJS.Signals | number | null>;
  kill(signal: NodeJS.Signals): Promise<NodeJS.Signals | number | null>;
}

export function startServerProcess(dataDir: string, extra: string[] = []): Promise<ServerProcess> {
  const proc = spawn(process.execPath, ['--import', tsx, MAIN, '--store', 'sqlite', '--data-dir', dataDir, '--port', '0', '--no-demo-data', '--request-log=false', '--static-dir', '', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => proc.once('exit', (code, signal) => resolve(signal ?? code)));
  return new Promise((resolve, reject) => {
    const on = (d: Buffer) => {
      out += d;
      const m = out.match(/listening on (http\S+)/);
      if (m) {
        proc.stdout!.off('data', on);
        proc.stderr!.off('data', on);
        proc.stdout!.on('data', (x: Buffer) => (out += x));
        proc.stderr!.on('data', (x: Buffer) => (out += x));
        resolve({
          url: m[1]!,
          proc,
          output: () => out,
          exited,
          kill: (signal) => {
            if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
            return exited;
          },
        });
      }
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
    exited.then((how) => reject(new Error(`server exited (${how}) before listening:\n${out}`)));
  });
}

export const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };

export async function createNamespace(url: string, name: string): Promise<void> {
  const r = await fetch(`${url}/api/v1/namespaces`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) });
  if (r.status !== 201 && r.status !== 409) throw new Error(`create namespace ${name}: ${r.status} ${await r.text()}`);
}

export function configMap(name: string, data: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}
