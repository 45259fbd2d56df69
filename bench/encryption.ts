// Encryption-at-rest benchmark: Secret create and get throughput through the API on the memory
// store, per provider, next to identity measured in the same run (ratio = fraction of identity's
// speed). Requests are issued CONCURRENCY at a time. KMS v2 uses the test plugin over a unix socket.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { startServer } from '../src/server/app.js';
import { startKmsPlugin } from '../test/encryption/kms-plugin.js';

const CREATES = 2000;
const GETS = 4000;
const CONCURRENCY = 32;

async function pool(count: number, fn: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await fn(next++);
    }),
  );
  return (count / (performance.now() - t0)) * 1000;
}

async function run(dir: string, name: string, provider: Record<string, unknown>): Promise<{ create: number; get: number }> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers: [provider] }] }));
  const server = await startServer(
    { port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, encryptionProviderConfig: file },
    { log: () => {} },
  );
  await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) });
  const url = `${server.url}/api/v1/namespaces/bench/secrets`;
  const value = randomBytes(256).toString('base64');
  const create = await pool(CREATES, async (i) => {
    const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `s-${i}` }, data: { v: value } }) });
    if (r.status !== 201) throw new Error(`create ${r.status}: ${await r.text()}`);
    await r.arrayBuffer().catch(() => undefined);
  });
  const get = await pool(GETS, async (i) => {
    // resourceVersion unset: a quorum read from the store, so every get decrypts
    const r = await fetch(`${url}/s-${i % CREATES}`);
    if (r.status !== 200) throw new Error(`get ${r.status}`);
    await r.arrayBuffer();
  });
  await server.close();
  return { create, get };
}

export async function benchEncryption(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-enc-'));
  const plugin = await startKmsPlugin(join(dir, 'kms.sock'));
  const key = (n: number) => randomBytes(n).toString('base64');
  const providers: [string, Record<string, unknown>][] = [
    ['identity', { identity: {} }],
    ['aescbc', { aescbc: { keys: [{ name: 'k', secret: key(32) }] } }],
    ['aesgcm', { aesgcm: { keys: [{ name: 'k', secret: key(32) }] } }],
    ['secretbox', { secretbox: { keys: [{ name: 'k', secret: key(32) }] } }],
    ['kms-v2', { kms: { apiVersion: 'v2', name: 'bench', endpoint: plugin.endpoint } }],
  ];
  try {
    await run(dir, 'warmup', { identity: {} }); // JIT warm-up, not reported
    let base: { create: number; get: number } | undefined;
    for (const [name, provider] of providers) {
      const r = await run(dir, name, provider);
      base ??= r;
      console.log(
        `encryption ${name.padEnd(9)} create ${Math.round(r.create)}/s (identity ${Math.round(base.create)}/s, ratio ${(r.create / base.create).toFixed(2)})  ` +
          `get ${Math.round(r.get)}/s (identity ${Math.round(base.get)}/s, ratio ${(r.get / base.get).toFixed(2)})`,
      );
    }
  } finally {
    await plugin.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
