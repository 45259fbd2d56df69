// `npm run bench -- start`: how fast the package starts.
// - startPeriscope() (memory store, no controllers) to its first successful request, in a fresh Node
//   process: the compiled package (lib/) beside the same call through tsx on the sources (how the
//   server ran before it was compiled). Module loading is reported apart from start → first request.
// - the CLI to /readyz: `node bin/periscope.mjs` (compiled) beside `tsx src/server/main.ts`.
// Each figure is the median of five fresh processes.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 5;
const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

/** Runs one process printing `LOAD <ms> FIRST <ms>`; returns both. */
function programmatic(args: string[]): Promise<{ load: number; first: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      const m = /LOAD (\S+) FIRST (\S+)/.exec(out);
      if (code !== 0 || !m) reject(new Error(`start script failed (${code}): ${out}`));
      else resolve({ load: Number(m[1]), first: Number(m[2]) });
    });
  });
}

const script = (entry: string) => `
  const t0 = performance.now();
  const { startPeriscope } = await import(${JSON.stringify(entry)});
  const t1 = performance.now();
  const p = await startPeriscope();
  const r = await fetch(p.url + '/api/v1/namespaces/default');
  if (r.status !== 200) throw new Error('first request: ' + r.status);
  const t2 = performance.now();
  await p.stop();
  console.log('LOAD ' + (t1 - t0) + ' FIRST ' + (t2 - t1));
`;

/** Spawns a CLI and measures spawn → /readyz 200. */
function cli(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/\S+?) /.exec(out);
      if (m && !polling) {
        polling = true;
        void poll(m[1]!);
      }
    };
    let polling = false;
    const poll = async (url: string) => {
      for (;;) {
        const r = await fetch(url + '/readyz').catch(() => undefined);
        if (r?.status === 200) break;
        await new Promise((res) => setTimeout(res, 2));
      }
      const ms = performance.now() - t0;
      child.kill('SIGTERM');
      child.once('exit', () => resolve(ms));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      if (!polling) reject(new Error(`cli exited ${code}: ${out}`));
    });
  });
}

export async function benchStart(): Promise<void> {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build-package.mjs'), '--server-only'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('building lib/ failed');

  const compiled: { load: number; first: number }[] = [];
  const viaTsx: { load: number; first: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    compiled.push(await programmatic(['--input-type=module', '-e', script(join(root, 'lib', 'index.js'))]));
    viaTsx.push(await programmatic(['--import', 'tsx', '--input-type=module', '-e', script(join(root, 'src', 'index.ts'))]));
  }
  const total = (x: { load: number; first: number }) => x.load + x.first;
  console.log('startPeriscope() (memory store, no controllers), median of 5 fresh processes:');
  console.log(`  start → first request: compiled ${fmt(median(compiled.map((x) => x.first)))}   (through tsx ${fmt(median(viaTsx.map((x) => x.first)))})`);
  console.log(`  import + start → first request: compiled ${fmt(median(compiled.map(total)))}   (through tsx ${fmt(median(viaTsx.map(total)))})`);

  const flags = ['--port', '0', '--store', 'memory', '--no-demo-data', '--simulated-nodes', '0', '--request-log=false', '--static-dir', ''];
  const bin: number[] = [];
  const tsxCli: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bin.push(await cli([join(root, 'bin', 'periscope.mjs'), ...flags]));
    tsxCli.push(await cli([tsx, join(root, 'src', 'server', 'main.ts'), ...flags]));
  }
  console.log('CLI to /readyz (memory store, no demo data), median of 5:');
  console.log(`  compiled bin/periscope.mjs ${fmt(median(bin))}   (tsx src/server/main.ts ${fmt(median(tsxCli))})`);
}
