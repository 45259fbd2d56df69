// KMS v2 through a test plugin over a unix socket (key-id rotation, plugin down and back, health
// checks), and wildcard resource matching including a CRD created after start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { kmsCodecs } from '../../src/server/encryption/kms-proto.js';
import { KmsV2Provider, validateEncryptedObject } from '../../src/server/encryption/kms-v2.js';
import { migrateStorage } from '../../src/server/encryption/storage-migrate.js';
import { simpleCrd } from '../helpers/crd.js';
import { startKmsPlugin, type TestKmsPlugin } from './kms-plugin.js';
import { BACKENDS, aesgcm, encryptionConfig, eventually, harness, identity, key32, kms, ns, secret, secretbox, type Harness } from './support.js';

const SECRETS = '/api/v1/namespaces/k/secrets';
const skey = (n: string) => `/registry/core/secrets/k/${n}`;
const PREFIX = 'k8s:enc:kms:v2:plugin-a:';

async function storedObject(h: Harness, key: string) {
  const got = await h.raw().get(key);
  const bytes = got.kv!.value;
  expect(Buffer.from(bytes.subarray(0, PREFIX.length)).toString()).toBe(PREFIX);
  return kmsCodecs.EncryptedObject.decode(bytes.subarray(PREFIX.length));
}

describe.each(BACKENDS)('KMS v2 on %s', (backend) => {
  let h: Harness;
  let plugin: TestKmsPlugin;
  beforeAll(async () => {
    const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'kms-'));
    plugin = await startKmsPlugin(join(dir, 'kms.sock'));
    h = await harness(backend, encryptionConfig([{ resources: ['secrets'], providers: [kms('plugin-a', plugin.endpoint), identity] }]));
    expect((await h.api.post('/api/v1/namespaces', ns('k'))).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await plugin?.stop();
  });

  it('envelope-encrypts through the plugin with one seed for many writes', async () => {
    const before = plugin.calls.encrypt;
    for (const n of ['a', 'b', 'c']) expect((await h.api.post(SECRETS, secret(n, `kms-plain-${n}`))).status).toBe(201);
    expect((await h.api.get(`${SECRETS}/b`)).body.data.password).toBe(Buffer.from('kms-plain-b').toString('base64'));
    const obj = await storedObject(h, skey('a'));
    expect(obj.keyID).toBe('key-1');
    expect(obj.encryptedDEKSourceType).toBe(1); // HKDF_SHA256_XNONCE_AES_GCM_SEED
    expect(Buffer.from(obj.annotations['plugin.kms.example.com']!).toString()).toBe('test');
    expect(Buffer.from(obj.encryptedData).toString('latin1')).not.toContain(Buffer.from('kms-plain-a').toString('base64'));
    // the seed is encrypted once and reused (not a plugin call per write)
    expect(plugin.calls.encrypt - before).toBeLessThanOrEqual(1);
    expect((await h.api.get('/healthz/kms-provider-0')).text).toBe('ok');
    expect((await h.api.get('/healthz')).status).toBe(200);
    const hint = await h.api.get(`/debug/encryption-at-rest?path=${encodeURIComponent(`${SECRETS}/a`)}`);
    expect(hint.body.stored).toEqual({ encrypted: true, provider: 'kms', prefix: PREFIX, keyID: 'key-1' });
  });

  it('detects a key-id change from Status: new writes use the new key, migration moves the old ones', async () => {
    plugin.rotate();
    // the health check is a Status call: the provider sees key-2 and retires its seed
    expect((await h.api.get('/healthz/kms-provider-0')).status).toBe(200);
    expect((await h.api.post(SECRETS, secret('d', 'kms-plain-d'))).status).toBe(201);
    expect((await storedObject(h, skey('d'))).keyID).toBe('key-2');
    expect((await storedObject(h, skey('a'))).keyID).toBe('key-1');
    expect((await h.api.get(`${SECRETS}/a`)).status).toBe(200);
    const results = await migrateStorage({ server: h.server.url, resources: ['secrets'] });
    expect(results[0]!.failed).toEqual([]);
    for (const n of ['a', 'b', 'c', 'd']) expect((await storedObject(h, skey(n))).keyID).toBe('key-2');
  });

  it('plugin down: health fails, writes fail with 503 and write nothing, cached reads keep working; back up: writes work', async () => {
    await plugin.stop();
    const health = await h.api.get('/healthz/kms-provider-0');
    expect(health.status).toBe(500);
    expect(health.text).toContain('internal server error');
    expect((await h.api.get('/healthz')).text).toContain('[-]kms-provider-0 failed');
    const w = await h.api.post(SECRETS, secret('down', 'kms-plain-down'));
    expect(w.status).toBe(503);
    expect(w.body).toMatchObject({ kind: 'Status', code: 503 });
    expect(w.body.message).toContain('KMS provider plugin-a');
    expect((await h.raw().get(skey('down'))).kv).toBeUndefined();
    // reads of objects whose seed is cached do not need the plugin
    expect((await h.api.get(`${SECRETS}/a?resourceVersion=`)).body.data.password).toBe(Buffer.from('kms-plain-a').toString('base64'));
    const rv = (await h.api.get('/api/v1/namespaces')).body.metadata.resourceVersion;
    const l = await h.api.get(`${SECRETS}?limit=50&resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(l.status).toBe(200);
    expect(l.body.items).toHaveLength(4);

    await plugin.start();
    await eventually(async () => expect((await h.api.get('/healthz/kms-provider-0')).status).toBe(200));
    expect((await h.api.post(SECRETS, secret('down', 'kms-plain-down'))).status).toBe(201);
    expect((await storedObject(h, skey('down'))).keyID).toBe('key-2');
  });

  it.skipIf(backend === 'memory')('after a restart with the plugin down, uncached reads answer 503, not a corrupt object', async () => {
    await plugin.stop();
    await h.restart();
    const g = await h.api.get(`${SECRETS}/a`);
    expect(g.status).toBe(503);
    expect(g.body.message).toContain('KMS provider plugin-a');
    expect(g.body.message).not.toContain('corrupt object');
    await plugin.start();
    await eventually(async () => expect((await h.api.get(`${SECRETS}/a`)).status).toBe(200));
  });
});

describe('wildcards and automatic reload health', () => {
  let h: Harness;
  let plugin: TestKmsPlugin;
  beforeAll(async () => {
    const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'kms-'));
    plugin = await startKmsPlugin(join(dir, 'kms.sock'));
    h = await harness(
      'memory',
      encryptionConfig([
        { resources: ['*.apps'], providers: [secretbox(['s', key32()])] },
        { resources: ['*.'], providers: [kms('plugin-a', plugin.endpoint)] },
        { resources: ['*.*'], providers: [aesgcm(['all', key32()])] },
      ]),
      { encryptionProviderConfigAutomaticReload: true },
    );
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await plugin?.stop();
  });

  it('matches *.group, *. and *.* — a CRD created after start included', async () => {
    expect((await h.api.post('/api/v1/namespaces', ns('w'))).status).toBe(201);
    expect((await h.rawText('/registry/core/namespaces/w'))!.startsWith(PREFIX)).toBe(true);
    const crd = simpleCrd({ group: 'later.example.com', plural: 'widgets', kind: 'Widget' });
    expect((await h.api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    expect((await h.rawText('/registry/apiextensions.service.io/customresourcedefinitions/widgets.later.example.com'))!.startsWith('k8s:enc:aesgcm:v1:all:')).toBe(true);
    await eventually(async () => {
      const r = await h.api.post('/apis/later.example.com/v1/namespaces/w/widgets', { apiVersion: 'later.example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 'widget-plain' } });
      expect(r.status).toBe(201);
    });
    const raw = (await h.rawText('/registry/later.example.com/widgets/w/w1'))!;
    expect(raw.startsWith('k8s:enc:aesgcm:v1:all:')).toBe(true);
    expect(raw).not.toContain('widget-plain');
    expect((await h.api.get('/apis/later.example.com/v1/namespaces/w/widgets/w1')).body.spec.size).toBe('widget-plain');
  });

  it('serves one kms-providers check with automatic reload', async () => {
    expect((await h.api.get('/healthz/kms-providers')).text).toBe('ok');
    expect((await h.api.get('/readyz/kms-providers')).status).toBe(200);
  });

  it('refuses a reloaded configuration whose KMS plugin is not healthy', async () => {
    h.writeConfig(encryptionConfig([{ resources: ['*.'], providers: [kms('plugin-b', `unix://${join(h.dir, 'missing.sock')}`)] }]));
    await eventually(async () => expect(h.logs.join('\n')).toContain('encryption config reload refused'));
    expect((await h.api.post('/api/v1/namespaces', ns('w2'))).status).toBe(201);
    expect((await h.rawText('/registry/core/namespaces/w2'))!.startsWith(PREFIX)).toBe(true);
  });
});

describe('KMS v2 timeout', () => {
  it('gives up on a plugin that does not answer within the configured timeout', async () => {
    const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'kms-'));
    const plugin = await startKmsPlugin(join(dir, 'kms.sock'));
    const provider = new KmsV2Provider({ name: 'slow', endpoint: plugin.endpoint, timeoutMs: 200 });
    try {
      await provider.check();
      plugin.hang = true;
      await expect(provider.check()).rejects.toThrow(/DeadlineExceeded/);
      await expect(provider.encrypt('/registry/core/secrets/n/x', new Uint8Array([1]))).rejects.toMatchObject({ code: 'Unavailable' });
    } finally {
      provider.close();
      await plugin.stop();
    }
  });
});

describe('KMS v2 EncryptedObject limits (upstream ValidateEncryptedObject)', () => {
  const ok = { encryptedData: new Uint8Array(1), keyID: 'k', encryptedDEKSource: new Uint8Array(32), annotations: { 'a.example.com': new Uint8Array(1) }, encryptedDEKSourceType: 1 };
  it('accepts a well-formed object and names each violation', () => {
    expect(validateEncryptedObject(ok)).toBeUndefined();
    expect(validateEncryptedObject({ ...ok, encryptedDEKSourceType: 7 })).toBe('unknown encryptedDEKSourceType: 7');
    expect(validateEncryptedObject({ ...ok, encryptedData: new Uint8Array(0) })).toBe('encrypted data is empty');
    expect(validateEncryptedObject({ ...ok, encryptedDEKSource: new Uint8Array(1025) })).toContain('encrypted DEK source is 1025 bytes, which exceeds the max size of 1024');
    expect(validateEncryptedObject({ ...ok, keyID: '' })).toContain('keyID is empty');
    expect(validateEncryptedObject({ ...ok, keyID: 'x'.repeat(1025) })).toContain('keyID is 1025 bytes, which exceeds the max size of 1024');
    expect(validateEncryptedObject({ ...ok, annotations: { plain: new Uint8Array(1) } })).toContain('should be a domain with at least two segments');
    expect(validateEncryptedObject({ ...ok, annotations: { 'a.example.com': new Uint8Array(32 * 1024) } })).toContain('exceeds the max size of 32768');
  });
});
