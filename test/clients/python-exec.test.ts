// The official Python client's exec e2e tests (kubernetes-client/python v22.6.0, vendored minimally in
// test/clients/python/exec_e2e.py) against a TLS server with --simulated-exec=host, using Debian's
// python3-kubernetes. Skipped where that package is not installed.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ApiServer } from '../../src/server/app.js';
import { client } from '../helpers/server.js';

const PYTHON = '/usr/bin/python3';
const hasClient = (() => {
  try {
    execFileSync(PYTHON, ['-c', 'import kubernetes, websocket'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let server: ApiServer;
let home: string;

beforeAll(async () => {
  if (!hasClient) return;
  home = mkdtempSync(join(tmpdir(), 'periscope-py-'));
  const key = join(home, 'tls.key');
  const cert = join(home, 'tls.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  server = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, controllers: ['*'], simulatedNodes: 1, simulatedPodStartMs: 50, simulatedPodReadyMs: 50, simulatedExec: 'host', tlsCertFile: cert, tlsPrivateKeyFile: key },
    { log: () => {} },
  );
  const c = client(server.url);
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  writeFileSync(
    join(home, 'config'),
    `apiVersion: v1\nkind: Config\ncurrent-context: p\nclusters:\n- name: p\n  cluster: {server: '${server.url}', insecure-skip-tls-verify: true}\ncontexts:\n- name: p\n  context: {cluster: p, user: u}\nusers:\n- name: u\n  user: {}\n`,
  );
}, 60_000);
afterAll(() => server?.close());

describe.skipIf(!hasClient)('python3-kubernetes e2e exec tests', () => {
  it('test_pod_apis and test_exit_code pass', async () => {
    const r = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(PYTHON, [join(import.meta.dirname, 'python', 'exec_e2e.py')], { timeout: 120_000, env: { ...process.env, HOME: home, KUBECONFIG: join(home, 'config'), PYTHONWARNINGS: 'ignore' } }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      ),
    );
    expect(r.out).toMatch(/test_exit_code .* ok/);
    expect(r.out).toMatch(/test_pod_apis .* ok/);
    expect(r.code, r.out).toBe(0);
  }, 150_000);
});
