// The simulated kubelet's container runtime behind exec, attach and port-forward:
// - exec runs the built-in shell over what the pod's spec gives the container (builtin-shell.ts), or, with
//   --simulated-exec=host, a real local process in a per-container scratch directory holding the mounted
//   files, with the resolved environment (local development only; see README);
// - attach streams what the container prints from now on (its log; stdin is read and discarded);
// - port-forward reaches the loopback target the pod names in `sim.periscope.dev/port-forward`, and nothing
//   else: simulated pod IPs exist only inside the simulation and are never dialled.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { KubeObject } from '../registry/types.js';
import { runBuiltin, StdinReader, type ProcessIO } from './builtin-shell.js';
import { containerEnv, containerFiles, podHostname, type ObjectReader } from './container-view.js';
import { containerRun } from './pod-logs.js';
import { delay } from './abortable.js';
import { isLoopbackAddress, loopbackTargetFor, PORT_FORWARD_ANNOTATION } from './port-forward-annotation.js';

export type ExecMode = 'builtin' | 'host';

export interface ContainerRuntime {
  /** Runs a command in a running container; resolves with its exit code. */
  exec(pod: KubeObject, container: string, argv: string[], io: ProcessIO): Promise<number>;
  /** Attaches to the container's main process until it stops or the client goes. */
  attach(pod: KubeObject, container: string, io: ProcessIO, current: () => KubeObject | undefined): Promise<number>;
  /** A connection to a port of the pod; rejects with the kubelet's error text. */
  dial(pod: KubeObject, port: number): Promise<Socket>;
}

/** How often attach looks for new output of the container. */
const ATTACH_POLL_MS = 200;

export class SimulatedRuntime implements ContainerRuntime {
  constructor(
    private readonly read: ObjectReader,
    private readonly mode: ExecMode,
    private readonly now: () => number = Date.now,
  ) {}

  async exec(pod: KubeObject, container: string, argv: string[], io: ProcessIO): Promise<number> {
    const env = containerEnv(pod, container, this.read);
    const files = await containerFiles(pod, container, this.read);
    if (this.mode === 'host') return runOnHost(pod, container, argv, env, files.files, io);
    return runBuiltin(argv, { env, files, hostname: podHostname(pod) }, io);
  }

  async attach(pod: KubeObject, container: string, io: ProcessIO, current: () => KubeObject | undefined): Promise<number> {
    // stdin goes to a main process that reads nothing: consumed so the client never blocks
    const stdin = new StdinReader(io.stdin);
    void (async () => {
      while ((await stdin.chunk(io.signal)) !== undefined);
    })();
    const first = containerRun(pod, container, false);
    if ('error' in first) throw new Error(first.error);
    const run = first.run;
    let i = run.count(this.now());
    while (!io.signal.aborted) {
      await delay(ATTACH_POLL_MS, io.signal);
      if (io.signal.aborted) break;
      const p = current();
      const again = p && p.metadata?.uid === pod.metadata?.uid ? containerRun(p, container, false) : undefined;
      const cur = again && 'run' in again && again.run.containerID === run.containerID ? again.run : undefined;
      const src = cur ?? run;
      const end = src.finishedAt !== undefined || !cur ? src.count(src.finishedAt ?? this.now()) : src.count(this.now());
      for (; i < end; i++) {
        const l = src.line(i);
        await (l.stream === 'stderr' ? io.stderr : io.stdout)(l.text + '\n');
      }
      if (!cur || cur.finishedAt !== undefined) return cur?.exitCode ?? 0;
    }
    return 0;
  }

  dial(pod: KubeObject, port: number): Promise<Socket> {
    const target = loopbackTargetFor(pod.metadata?.annotations as Record<string, unknown> | undefined, port);
    const prefix = `error forwarding port ${port} to pod ${pod.metadata?.name}, uid ${pod.metadata?.uid}: `;
    if (!target)
      return Promise.reject(
        new Error(`${prefix}failed to connect to localhost:${port} inside the simulated pod: dial tcp4 127.0.0.1:${port}: connect: connection refused (the pod's ${PORT_FORWARD_ANNOTATION} annotation names no target for this port)`),
      );
    // the parser only yields numeric loopback addresses; checked again here, where the socket is made
    if (!isLoopbackAddress(target.host)) return Promise.reject(new Error(`${prefix}${target.host} is not a loopback address`));
    return new Promise((resolve, reject) => {
      const s = connect({ host: target.host, port: target.port });
      s.once('connect', () => {
        s.removeAllListeners('error');
        resolve(s);
      });
      s.once('error', (e: NodeJS.ErrnoException) => {
        s.destroy();
        reject(new Error(`${prefix}dial tcp ${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}: connect: ${e.code === 'ECONNREFUSED' ? 'connection refused' : e.message}`));
      });
    });
  }
}

/** Scratch directories of host-mode exec: one per container, holding its mounted files. */
function scratchDir(pod: KubeObject, container: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');
  return join(tmpdir(), 'periscope-exec', safe(String(pod.metadata?.uid ?? 'pod')), safe(container));
}

/** --simulated-exec=host: a real process, in the scratch directory, with the container's environment. */
async function runOnHost(pod: KubeObject, container: string, argv: string[], env: [string, string][], files: Map<string, Buffer>, io: ProcessIO): Promise<number> {
  const dir = scratchDir(pod, container);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [path, data] of files) {
    const to = join(dir, path);
    if (!to.startsWith(dir + '/')) continue;
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, data, { mode: 0o600 });
  }
  const childEnv: Record<string, string> = Object.fromEntries(env);
  childEnv['PATH'] = process.env['PATH'] ?? childEnv['PATH'] ?? '/usr/bin:/bin';
  return new Promise<number>((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: dir, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let settled = false;
    const done = (code: number) => {
      if (settled) return;
      settled = true;
      resolve(code);
    };
    child.on('error', async (e: NodeJS.ErrnoException) => {
      await io.stderr(e.code === 'ENOENT' ? `sh: ${argv[0]}: not found\n` : `sh: ${argv[0]}: ${e.message}\n`);
      done(e.code === 'ENOENT' ? 127 : 126);
    });
    const pump = (from: NodeJS.ReadableStream, to: (b: Buffer) => Promise<void>) => {
      let pending = Promise.resolve();
      from.on('data', (b: Buffer) => {
        (from as unknown as { pause(): void }).pause();
        pending = pending.then(() => to(b)).finally(() => (from as unknown as { resume(): void }).resume());
      });
      return new Promise<void>((r) => from.on('end', () => void pending.then(r)));
    };
    const outDone = pump(child.stdout!, (b) => io.stdout(b));
    const errDone = pump(child.stderr!, (b) => io.stderr(b));
    if (io.stdin) {
      io.stdin.pipe(child.stdin!);
      child.stdin!.on('error', () => {});
    } else child.stdin!.end();
    const kill = () => child.kill('SIGKILL');
    io.signal.addEventListener('abort', kill, { once: true });
    child.on('close', (code, sig) => {
      io.signal.removeEventListener('abort', kill);
      void Promise.all([outDone, errDone]).then(() => done(code ?? (sig ? 128 + 9 : 1)));
    });
  });
}
