// A throwaway single-member etcd for tests and benchmarks: free loopback ports, a temp data dir,
// start/stop/restart on the same ports and data, and a health wait. Installs the Debian
// etcd-server package through scripts/ensure-debian.mjs when /usr/bin/etcd is missing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ETCD_BINARY = process.env.ETCD_BINARY ?? '/usr/bin/etcd';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface EtcdProcess {
  /** Client URL, e.g. http://127.0.0.1:40123 (stable across restarts). */
  readonly url: string;
  readonly dataDir: string;
  readonly running: boolean;
  /** Starts etcd (again) on the same ports and data dir and waits until it is healthy. */
  start(): Promise<void>;
  /** SIGTERM (or SIGKILL with hard) and waits for the process to exit. */
  stop(hard?: boolean): Promise<void>;
  /** Stops (SIGKILL with hard), waits downMs, starts again. */
  restart(downMs?: number, hard?: boolean): Promise<void>;
  /** Stops etcd and removes its data dir. */
  cleanup(): Promise<void>;
}

/** Makes sure the etcd binary exists, installing the Debian package when it does not. */
export function ensureEtcdBinary(): string {
  if (existsSync(ETCD_BINARY)) return ETCD_BINARY;
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-debian.mjs'), 'etcd'], { stdio: 'inherit' });
  if (r.status !== 0 || !existsSync(ETCD_BINARY)) throw new Error(`etcd is not installed (${ETCD_BINARY}) and installing etcd-server failed`);
  return ETCD_BINARY;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Starts a fresh etcd; call cleanup() when done. */
export async function startEtcd(opts: { log?: boolean } = {}): Promise<EtcdProcess> {
  const binary = ensureEtcdBinary();
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  const start = async (): Promise<void> => {
    if (child) return;
    const args = [
      '--name', 'periscope-test',
      '--data-dir', dataDir,
      '--listen-client-urls', url,
      '--advertise-client-urls', url,
      '--listen-peer-urls', peer,
      '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `periscope-test=${peer}`,
      '--heartbeat-interval', '50',
      '--election-timeout', '500',
      '--logger', 'zap',
      '--log-outputs', 'stderr',
      '--log-level', opts.log ? 'info' : 'error',
    ];
    const proc = spawn(binary, args, { stdio: ['ignore', 'ignore', opts.log ? 'inherit' : 'ignore'] });
    child = proc;
    exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    void exited.then(() => {
      if (child === proc) child = undefined;
    });
    await waitHealthy(url, proc);
  };

  const stop = async (hard = false): Promise<void> => {
    const proc = child;
    if (!proc) return;
    proc.kill(hard ? 'SIGKILL' : 'SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    child = undefined;
  };

  await start();
  return {
    url,
    dataDir,
    get running() {
      return child !== undefined;
    },
    start,
    stop,
    async restart(downMs = 0, hard = false) {
      await stop(hard);
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    async cleanup() {
      await stop(true);
      process.off('exit', killOnExit);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function waitHealthy(url: string, proc: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  let last = '';
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`etcd exited during start-up (${proc.exitCode ?? proc.signalCode})`);
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: string };
      if (body.health === 'true') return;
      last = JSON.stringify(body);
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  proc.kill('SIGKILL');
  throw new Error(`etcd at ${url} did not become healthy: ${last}`);
}
