// Runs the stock kubectl against a test server through a temporary kubeconfig.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** kubectl 1.33 next to the /usr/bin/kubectl dispatcher (the dispatcher itself as a fallback). */
function findKubectl(): string {
  if (process.env.KUBECTL) return process.env.KUBECTL;
  for (const candidate of ['/usr/bin/kubectl.1.33', existsSync('/usr/bin/kubectl') ? join(dirname(realpathSync('/usr/bin/kubectl')), 'kubectl.1.33') : ''])
    if (candidate && existsSync(candidate)) return candidate;
  return '/usr/bin/kubectl';
}

export const KUBECTL = findKubectl();

/** A given kubectl minor (`1.27`): on PATH as kubectl.1.27, or next to the /usr/bin/kubectl dispatcher. */
export function kubectlBinary(version: string): string {
  const name = `kubectl.${version}`;
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/bin', existsSync('/usr/bin/kubectl') ? dirname(realpathSync('/usr/bin/kubectl')) : ''])
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  return name;
}

export function kubeconfigFor(serverUrl: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-kube-'));
  const file = join(dir, 'config');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: periscope',
      '  cluster:',
      `    server: ${serverUrl}`,
      'contexts:',
      '- name: periscope',
      '  context:',
      '    cluster: periscope',
      '    user: admin',
      '    namespace: default',
      'current-context: periscope',
      'users:',
      '- name: admin',
      '  user: {}',
      '',
    ].join('\n'),
  );
  return file;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function kubectl(kubeconfig: string, args: string[], input?: string, timeoutMs = 30_000, opts: { binary?: string; env?: Record<string, string> } = {}): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      opts.binary ?? KUBECTL,
      ['--kubeconfig', kubeconfig, ...args],
      // kubectl's errors for a refused patch quote the whole patch (a large CRD's is several hundred KB)
      { timeout: timeoutMs, maxBuffer: 64 << 20, env: { ...process.env, HOME: tmpdir(), KUBECACHEDIR: join(tmpdir(), 'periscope-kubecache-' + process.pid), ...opts.env } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) {
      child.stdin!.write(input);
      child.stdin!.end();
    }
  });
}
