// Starts a benchmark server in a child process (so load generator and server each get a core).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ChildServer {
  url: string;
  proc: ChildProcess;
  /** Peak resident set size of the child in bytes (sampled from /proc). */
  peakRss(): number;
  /** CPU time (user + system) the child has used so far, in ms (from /proc; NaN when unavailable). */
  cpuMs(): number;
  /** Current resident set size of the child in bytes. */
  rss(): number;
  stop(): Promise<void>;
}

export async function startChild(script: string, args: string[] = []): Promise<ChildServer> {
  const path = fileURLToPath(new URL(`../${script}`, import.meta.url));
  // BENCH_PROF=<dir>: the server writes a V8 CPU profile there when it stops (profile first, #22)
  const prof = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const proc = spawn(process.execPath, [...prof, '--import', 'tsx', path, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (d) => {
      buf += d;
      const m = buf.match(/^URL (\S+)$/m);
      if (m) resolve(m[1]!);
    });
    proc.on('exit', (c) => reject(new Error(`${script} exited with ${c}`)));
  });
  // a /proc/<pid>/status size field in bytes (VmHWM: the kernel's record of the peak resident set size)
  const statusBytes = (field: 'VmHWM' | 'VmRSS') => {
    try {
      const m = readFileSync(`/proc/${proc.pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
      return m ? Number(m[1]) * 1024 : NaN;
    } catch {
      return NaN;
    }
  };
  const peakRss = () => statusBytes('VmHWM');
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second on Linux)
  const cpuMs = () => {
    try {
      const f = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(f[11]) + Number(f[12])) * 10;
    } catch {
      return NaN;
    }
  };
  const rss = () => statusBytes('VmRSS');
  return {
    url,
    proc,
    peakRss,
    cpuMs,
    rss,
    stop: async () => {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    },
  };
}
