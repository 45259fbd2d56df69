// The configuration transformer on its own: resource lookup order, read fallbacks and stale
// values, identity refusing encrypted data, the group alias spellings, KMS v1 refused.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { applyConfigDefaults } from '../../src/config/defaults.js';
import type { EncryptionConfiguration } from '../../src/config/types.js';
import { CompiledEncryption, EncryptionTransformer, describeStored, resourceOfKey } from '../../src/server/encryption/transformer.js';
import { testServer } from '../helpers/server.js';
import { aescbc, aesgcm, encryptionConfig, identity, key32, secretbox } from './support.js';

const enc = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => Buffer.from(b).toString('latin1');
const compile = (yaml: string) => new CompiledEncryption(applyConfigDefaults(parse(yaml)) as EncryptionConfiguration);

describe('EncryptionTransformer', () => {
  const A = key32();
  const B = key32();
  const t = new EncryptionTransformer(
    compile(
      encryptionConfig([
        { resources: ['secrets'], providers: [aescbc(['a', A])] },
        { resources: ['*.apps', 'roles.rbac.authorization.k8s.io'], providers: [aesgcm(['g', A])] },
        { resources: ['secrets'], providers: [secretbox(['old', B]), identity] },
        { resources: ['*.*'], providers: [identity, aescbc(['b', B])] },
      ]),
    ),
  );

  it('finds the resource of a storage key', () => {
    expect(resourceOfKey('/registry/core/secrets/ns/x')).toEqual({ group: '', resource: 'secrets' });
    expect(resourceOfKey('/registry/apps/deployments/ns/x')).toEqual({ group: 'apps', resource: 'deployments' });
    expect(resourceOfKey('/other/x')).toBeUndefined();
  });

  it('writes with the first provider of the exact name, else the group wildcard, else *.*', async () => {
    expect(text(await t.toStorage('/registry/core/secrets/n/x', enc('v')))).toMatch(/^k8s:enc:aescbc:v1:a:/);
    expect(text(await t.toStorage('/registry/apps/deployments/n/x', enc('v')))).toMatch(/^k8s:enc:aesgcm:v1:g:/);
    // upstream spellings of aliased groups match the canonical storage group
    expect(text(await t.toStorage('/registry/rbac.authorization.service.io/roles/n/x', enc('v')))).toMatch(/^k8s:enc:aesgcm:v1:g:/);
    expect(text(await t.toStorage('/registry/core/configmaps/n/x', enc('v')))).toBe('v');
  });

  it('reads through later entries naming the same resource, and marks such values stale', async () => {
    const key = '/registry/core/secrets/n/x';
    const current = await t.fromStorage(key, await t.toStorage(key, enc('now')));
    expect(current).toEqual({ value: enc('now'), stale: false });
    const oldT = new EncryptionTransformer(compile(encryptionConfig([{ resources: ['secrets'], providers: [secretbox(['old', B])] }])));
    const old = await t.fromStorage(key, await oldT.toStorage(key, enc('before')));
    expect(text(old.value)).toBe('before');
    expect(old.stale).toBe(true);
    const plain = await t.fromStorage(key, enc('{"plain":true}'));
    expect(plain.stale).toBe(true);
  });

  it('tries providers after identity for encrypted data, and fails when none can read it', async () => {
    const key = '/registry/core/configmaps/n/x';
    const b = new EncryptionTransformer(compile(encryptionConfig([{ resources: ['configmaps'], providers: [aescbc(['b', B])] }])));
    const r = await t.fromStorage(key, await b.toStorage(key, enc('x')));
    expect(text(r.value)).toBe('x');
    const foreign = new EncryptionTransformer(compile(encryptionConfig([{ resources: ['configmaps'], providers: [aesgcm(['z', key32()])] }])));
    await expect(t.fromStorage(key, await foreign.toStorage(key, enc('x')))).rejects.toThrow(/identity transformer tried to read encrypted data/);
    // a resource that is not configured at all refuses encrypted data too
    const none = new EncryptionTransformer(compile(encryptionConfig([{ resources: ['secrets'], providers: [aescbc(['a', A])] }])));
    await expect(none.fromStorage('/registry/core/configmaps/n/x', await b.toStorage(key, enc('x')))).rejects.toThrow();
  });

  it('fails with a wrong key of the same name', async () => {
    const key = '/registry/core/secrets/n/x';
    const wrong = new EncryptionTransformer(compile(encryptionConfig([{ resources: ['secrets'], providers: [aescbc(['a', key32()])] }])));
    const stored = await wrong.toStorage(key, enc('{"a":1}'.repeat(4)));
    await expect(t.fromStorage(key, stored)).rejects.toThrow(/failed to decrypt with k8s:enc:aescbc:v1:a:/);
  });

  it('describes stored bytes without decrypting them', async () => {
    expect(describeStored(await t.toStorage('/registry/core/secrets/n/x', enc('v')))).toEqual({ encrypted: true, provider: 'aescbc', prefix: 'k8s:enc:aescbc:v1:a:' });
    expect(describeStored(enc('{}'))).toEqual({ encrypted: false, provider: 'identity', prefix: '' });
  });

  it('refuses KMS v1 (deprecated upstream; only v2 is implemented)', () => {
    expect(() => compile(encryptionConfig([{ resources: ['secrets'], providers: [{ kms: { name: 'v1plugin', endpoint: 'unix:///tmp/x.sock' } }] }]))).toThrow(/KMSv1/);
  });
});

describe('encryption flags', () => {
  it('refuses automatic reload without a configuration file, as upstream', async () => {
    await expect(testServer({ encryptionProviderConfigAutomaticReload: true })).rejects.toThrow('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
  });
});
