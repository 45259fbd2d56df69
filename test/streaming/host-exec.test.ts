// --simulated-exec=host: exec runs a real local process in a per-container scratch directory holding the
// mounted files, with the container's environment; refused on a non-loopback bind without authentication.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { FlagError, parseFlags } from '../../src/server/flags.js';
import { client } from '../helpers/server.js';

let server: ApiServer;
const logs: string[] = [];

async function exec(command: string[], stdin?: string): Promise<{ out: string; err: string; status: any }> {
  const q = new URLSearchParams({ container: 'app', stdout: 'true', stderr: 'true', ...(stdin !== undefined ? { stdin: 'true' } : {}) });
  for (const c of command) q.append('command', c);
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/v1/namespaces/default/pods/app/exec?${q}`, ['v5.channel.k8s.io']);
  const msgs: Buffer[] = [];
  ws.on('message', (d: Buffer) => msgs.push(Buffer.from(d)));
  ws.on('open', () => {
    if (stdin === undefined) return;
    ws.send(Buffer.concat([Buffer.from([0]), Buffer.from(stdin)]));
    ws.send(Buffer.from([255, 0]));
  });
  await new Promise((r) => ws.on('close', r));
  const of = (ch: number) => Buffer.concat(msgs.filter((m) => m[0] === ch).map((m) => m.subarray(1))).toString();
  return { out: of(1), err: of(2), status: JSON.parse(of(3)) };
}

beforeAll(async () => {
  server = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, controllers: ['*'], simulatedNodes: 1, simulatedPodStartMs: 50, simulatedPodReadyMs: 50, simulatedExec: 'host' },
    { log: (l) => logs.push(l) },
  );
  const c = client(server.url);
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  await c.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { 'app.conf': 'port=8080\n' } });
  await c.post('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'app' },
    spec: { containers: [{ name: 'app', image: 'busybox', env: [{ name: 'GREETING', value: 'from the spec' }], volumeMounts: [{ name: 'cfg', mountPath: '/etc/app' }] }], volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }] },
  });
  for (let i = 0; i < 200 && !(await c.get('/api/v1/namespaces/default/pods/app')).body.status?.containerStatuses?.[0]?.state?.running; i++) await new Promise((r) => setTimeout(r, 50));
}, 60_000);
afterAll(() => server.close());

describe('--simulated-exec=host', () => {
  it('says so loudly in the log', () => {
    expect(logs.join('\n')).toContain('--simulated-exec=host');
    expect(logs.join('\n')).toContain('LOCAL PROCESS');
  });

  it('runs a local process with the container env in a scratch directory holding the mounted files', async () => {
    const r = await exec(['/bin/sh', '-c', 'echo "$GREETING"; cat etc/app/app.conf; pwd; read line; echo "got $line"; exit 5'], 'typed\n');
    expect(r.out).toMatch(/^from the spec\nport=8080\n.*periscope-exec\/[^/]+\/app\ngot typed\n$/s);
    expect(r.status).toMatchObject({ reason: 'NonZeroExitCode', details: { causes: [{ message: '5' }] } });
  });

  it('a missing program exits 127', async () => {
    const r = await exec(['no-such-program-here']);
    expect(r.err).toContain('no-such-program-here: not found');
    expect(r.status.details.causes[0].message).toBe('127');
  });

  it('is refused on a non-loopback bind without authentication', () => {
    expect(() => parseFlags(['--simulated-exec=host', '--bind-address=0.0.0.0', '--allow-unauthenticated-remote'])).toThrow(FlagError);
    expect(() => parseFlags(['--simulated-exec=host', '--bind-address=0.0.0.0', '--token-auth-file=/dev/null'])).not.toThrow();
    expect(() => parseFlags(['--simulated-exec=host'])).not.toThrow();
    expect(() => parseFlags(['--simulated-exec=yes'])).toThrow('must be builtin or host');
  });
});
