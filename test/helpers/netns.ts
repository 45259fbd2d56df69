// Runs a TypeScript script in a network namespace that has only loopback (`unshare -rn`, lo brought up), so a
// connection to anything else fails with ENETUNREACH instead of reaching a real network. The script prints one
// JSON line (its result) last on stdout.
import { execFile } from 'node:child_process';
import { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Whether `unshare -rn` works here (user namespaces allowed). */
export function netnsAvailable(): Promise<boolean> {
  return new Promise((resolve) => execFile('unshare', ['-rn', 'true'], (err) => resolve(!err)));
}

/** Runs `script` (a path under the repository) with node + tsx inside a loopback-only network namespace. */
export function runInLoopbackNetns(script: string, timeoutMs = 60_000): Promise<{ result: any; stdout: string; stderr: string }> {
  const node = process.execPath;
  const cmd = `ip link set lo up && exec "${node}" --import tsx "${script}"`;
  return new Promise((resolve, reject) => {
    execFile('unshare', ['-rn', 'sh', '-c', cmd], { cwd: ROOT, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      try {
        resolve({ result: JSON.parse(last), stdout, stderr });
      } catch {
        reject(new Error(`${script} gave no result (${err?.message ?? 'exit 0'})\nstdout: ${stdout.slice(-2000)}\nstderr: ${stderr.slice(-4000)}`));
      }
    });
  });
}

export interface Dial {
  host: string;
  port: number;
}

/** Records every outgoing TCP connection this process starts (net, tls, https, fetch all end in Socket#connect). */
export function recordDials(): Dial[] {
  const dials: Dial[] = [];
  const original = Socket.prototype.connect;
  Socket.prototype.connect = function connect(this: Socket, ...args: any[]) {
    const a = args[0];
    const o = Array.isArray(a) ? a[0] : a;
    if (o && typeof o === 'object' && !o.path) dials.push({ host: String(o.host ?? 'localhost'), port: Number(o.port) });
    else if (typeof o === 'number' || (typeof o === 'string' && /^\d+$/.test(o))) dials.push({ host: typeof args[1] === 'string' ? args[1] : 'localhost', port: Number(o) });
    return (original as any).apply(this, args);
  } as typeof original;
  return dials;
}
