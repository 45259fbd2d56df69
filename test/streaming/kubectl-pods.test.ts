// Stock kubectl against the simulated kubelet: logs (follow, previous, container, tail), exec (env, mounted
// ConfigMap files, exit codes, stdin), attach and port-forward to a pod fronting a local HTTP server.
// kubectl 1.27 speaks SPDY/3.1 only; kubectl 1.33 speaks WebSocket (v5.channel.k8s.io, and SPDY tunnelled in
// WebSocket for port-forward).
import { execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl, kubectlBinary } from '../helpers/kubectl.js';
import { client } from '../helpers/server.js';

let server: ApiServer;
let kc: string;
let http: Server;
let httpPort: number;

async function until<T>(fn: () => Promise<T | undefined>, what: string, tries = 300): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  http = createServer((req, res) => res.end(`hello from the local process behind the pod (${req.url})`));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  httpPort = (http.address() as AddressInfo).port;
  server = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, controllers: ['*'], simulatedNodes: 1, simulatedPodStartMs: 50, simulatedPodReadyMs: 50, simulatedPodRunMs: 4000 },
    { log: () => {} },
  );
  kc = kubeconfigFor(server.url);
  const c = client(server.url);
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  await c.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config' }, data: { mode: 'fast', 'greeting.txt': 'hello from a configmap' } });
  await c.post('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      annotations: { 'sim.periscope.dev/log': 'listening on :80\nready to serve', 'sim.periscope.dev/port-forward': `80=127.0.0.1:${httpPort}` },
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          env: [
            { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'app-config', key: 'mode' } } },
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'GREETING', value: 'hi $(MODE)' },
          ],
          volumeMounts: [{ name: 'cfg', mountPath: '/etc/config' }],
        },
        { name: 'sidecar', image: 'busybox' },
      ],
      volumes: [{ name: 'cfg', configMap: { name: 'app-config' } }],
    },
  });
  await c.post('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'ticker', annotations: { 'sim.periscope.dev/log': JSON.stringify({ rate: 20, format: 'json', levels: { info: 1 } }) } },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
  });
  await c.post('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'crasher', annotations: { 'sim.periscope.dev/fail': 'crash' } },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  });
  for (const name of ['web', 'ticker'])
    await until(async () => ((await c.get(`/api/v1/namespaces/default/pods/${name}`)).body.status?.containerStatuses ?? []).every((s: any) => s.state?.running) && (await c.get(`/api/v1/namespaces/default/pods/${name}`)).body.status?.phase === 'Running', `${name} running`);
  await until(async () => (await c.get('/api/v1/namespaces/default/pods/crasher')).body.status?.containerStatuses?.[0]?.restartCount >= 1, 'crasher restarted');
}, 60_000);
afterAll(async () => {
  await server.close();
  http.close();
});

describe.each(['1.27', '1.33'])('kubectl %s', (version) => {
  const bin = kubectlBinary(version);
  const k = (args: string[], input?: string, timeoutMs = 30_000) => kubectl(kc, args, input, timeoutMs, { binary: bin });

  it('logs a container, with -c and --tail', async () => {
    const r = await k(['logs', 'web', '-c', 'web']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^\[periscope-sim\] container web started \(image nginx:1.27, restart 0\)\nlistening on :80\nready to serve\n$/);
    const side = await k(['logs', 'web', '-c', 'sidecar']);
    expect(side.stdout).toContain('container sidecar started');
    expect(side.stdout).not.toContain('ready to serve\n[') ;
    const tail = await k(['logs', 'web', '-c', 'web', '--tail=1', '--timestamps']);
    expect(tail.stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z ready to serve\n$/);
    const bad = await k(['logs', 'web', '-c', 'nope']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('container nope is not valid for pod web');
  });

  it('follows a log until the client goes', async () => {
    const before = (await k(['logs', 'ticker'])).stdout.trim().split('\n');
    const lastSeq = JSON.parse(before[before.length - 1]!).seq as number;
    const r = await k(['logs', '-f', 'ticker'], undefined, 2500);
    const seqs = r.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l).seq as number);
    // lines printed after the follow began arrived on the open stream
    expect(Math.max(...seqs)).toBeGreaterThan(lastSeq);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
  });

  it('logs -f ends by itself when the container completes', async () => {
    const c = client(server.url);
    const name = `short-${version.replace('.', '-')}`;
    await c.post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations: { 'sim.periscope.dev/log': 'working' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'job', image: 'busybox' }] } });
    await until(async () => (await c.get(`/api/v1/namespaces/default/pods/${name}`)).body.status?.containerStatuses?.[0]?.state?.running, `${name} running`);
    const r = await k(['logs', '-f', name], undefined, 30_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/working\n\[periscope-sim\] container job completed \(exit code 0\)\n$/);
  });

  it('shows the previous start of a restarted container, and upstream errors', async () => {
    const prev = await k(['logs', 'crasher', '--previous']);
    expect(prev.stderr).toBe('');
    expect(prev.stdout).toContain('[periscope-sim] container app started');
    expect(prev.stdout).toContain('is failing: the pod\'s annotation sim.periscope.dev/fail=crash makes it exit with code 1');
    const none = await k(['logs', 'web', '-c', 'web', '--previous']);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('previous terminated container "web" in pod "web" not found');
  });

  it('exec env shows the environment resolved from the spec', async () => {
    const r = await k(['exec', 'web', '-c', 'web', '--', 'env']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('MODE=fast\n');
    expect(r.stdout).toContain('POD_NAME=web\n');
    expect(r.stdout).toContain('GREETING=hi fast\n');
    expect(r.stdout).toContain('HOSTNAME=web\n');
  });

  it('exec cat reads a mounted ConfigMap key', async () => {
    const r = await k(['exec', 'web', '-c', 'web', '--', 'cat', '/etc/config/greeting.txt']);
    expect(r.stdout).toBe('hello from a configmap');
    const ls = await k(['exec', 'web', '-c', 'web', '--', 'ls', '/etc/config']);
    expect(ls.stdout).toBe('greeting.txt\nmode\n');
    const missing = await k(['exec', 'web', '-c', 'web', '--', 'cat', '/etc/nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cat: can't open '/etc/nope': No such file or directory");
  });

  it('exec returns the exit code, and 127 for unknown programs', async () => {
    const r = await k(['exec', 'web', '-c', 'web', '--', 'sh', '-c', 'exit 3']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('command terminated with exit code 3');
    const nf = await k(['exec', 'web', '-c', 'web', '--', 'nginx', '-v']);
    expect(nf.code).toBe(127);
    expect(nf.stderr).toContain('sh: nginx: not found');
    const both = await k(['exec', 'web', '-c', 'web', '--', 'sh', '-c', 'echo to-err >&2; echo "$MODE and ${POD_NAME}"']);
    expect(both.stdout).toBe('fast and web\n');
    expect(both.stderr).toContain('to-err\n');
  });

  it('exec -i passes stdin to the command', async () => {
    const r = await k(['exec', '-i', 'web', '-c', 'web', '--', 'cat'], 'piped line one\npiped line two\n');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('piped line one\npiped line two\n');
  });

  it('exec -it through a terminal: the shell prompts, runs what is typed, and its exit code comes back', async () => {
    // `script` gives kubectl a pty, so it asks for a TTY and sends resizes
    const cmd = `${bin} --kubeconfig ${kc} exec -it web -c web -- sh`;
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      const child = execFile('script', ['-qec', cmd, '/dev/null'], { timeout: 30_000, env: { ...process.env, HOME: tmpdir(), KUBECACHEDIR: join(tmpdir(), 'periscope-kubecache-' + process.pid) } }, (err, stdout) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout }),
      );
      child.stdin!.end('echo "$MODE"\rexit 3\r');
    });
    expect(r.out).toContain('/ # ');
    expect(r.out).toContain('\r\nfast\r\n');
    expect(r.out).toContain('command terminated with exit code 3');
    expect(r.code).toBe(3);
  });

  it('attach streams what the container prints', async () => {
    const r = await k(['attach', 'ticker'], undefined, 2500);
    const lines = r.stdout.trim().split('\n').filter((l) => l.startsWith('{'));
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info' });
  });

  it('port-forward reaches the local process the pod fronts', async () => {
    const child = spawn(bin, ['--kubeconfig', kc, 'port-forward', 'pod/web', ':80'], { env: { ...process.env, HOME: tmpdir(), KUBECACHEDIR: join(tmpdir(), 'periscope-kubecache-' + process.pid) } });
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (err += b));
    try {
      const local = await until(async () => /Forwarding from 127\.0\.0\.1:(\d+) -> 80/.exec(out)?.[1], `port-forward to start (${err})`);
      const body1 = await (await fetch(`http://127.0.0.1:${local}/first`).catch((e) => { throw new Error(`${e.cause?.message}: ${out} ${err}`); })).text();
      expect(body1).toBe('hello from the local process behind the pod (/first)');
      const body2 = await (await fetch(`http://127.0.0.1:${local}/second`)).text();
      expect(body2).toBe('hello from the local process behind the pod (/second)');
    } finally {
      child.kill();
    }
  });

  it('port-forward to a port the pod fronts nothing on fails as upstream', async () => {
    const child = spawn(bin, ['--kubeconfig', kc, 'port-forward', 'pod/web', ':81'], { env: { ...process.env, HOME: tmpdir(), KUBECACHEDIR: join(tmpdir(), 'periscope-kubecache-' + process.pid) } });
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (err += b));
    try {
      const local = await until(async () => /Forwarding from 127\.0\.0\.1:(\d+) -> 81/.exec(out)?.[1], `port-forward to start (${err})`);
      await fetch(`http://127.0.0.1:${local}/`).then(
        (r) => r.text(),
        () => '',
      );
      await until(async () => err.includes('error forwarding port 81 to pod web'), `the error on stderr (${err})`);
      expect(err).toMatch(/error forwarding port 81 to pod web, uid [0-9a-f-]+: .*connection refused/);
    } finally {
      child.kill();
    }
  });
});
