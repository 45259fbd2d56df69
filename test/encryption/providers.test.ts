// Encryption at rest on every store: each provider round-trips and stores no plaintext under
// upstream's prefix; rotation by reload + storage migration moves every object to the new key;
// a value no provider can read is a corrupt object (get and list 500 naming it, unsafe delete
// removes it); the watch skips it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFeatureGates } from '../../src/server/features.js';
import { migrateStorage } from '../../src/server/encryption/storage-migrate.js';
import { aescbc as aescbcProvider } from '../../src/server/encryption/providers.js';
import { WatchStream } from '../helpers/watch.js';
import { BACKENDS, aescbc, aesgcm, configMap, encryptionConfig, eventually, harness, identity, key32, ns, secret, secretbox, type Harness } from './support.js';

const K1 = key32();
const K2 = key32();
const G1 = key32();
const G2 = key32();
const S1 = key32();
const S2 = key32();

const deployment = (name: string, value: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, annotations: { marker: value } },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: value }] } } },
});

const initial = encryptionConfig([
  { resources: ['secrets'], providers: [aescbc(['k1', K1]), identity] },
  { resources: ['configmaps'], providers: [aesgcm(['g1', G1])] },
  { resources: ['*.apps'], providers: [secretbox(['s1', S1])] },
]);
const rotating = encryptionConfig([
  { resources: ['secrets'], providers: [aescbc(['k2', K2], ['k1', K1]), identity] },
  { resources: ['configmaps'], providers: [aesgcm(['g2', G2], ['g1', G1])] },
  { resources: ['*.apps'], providers: [secretbox(['s2', S2], ['s1', S1])] },
]);
const rotated = encryptionConfig([
  { resources: ['secrets'], providers: [aescbc(['k2', K2])] },
  { resources: ['configmaps'], providers: [aesgcm(['g2', G2])] },
  { resources: ['*.apps'], providers: [secretbox(['s2', S2])] },
]);

const SECRETS = '/api/v1/namespaces/enc/secrets';
const CMS = '/api/v1/namespaces/enc/configmaps';
const DEPLOYS = '/apis/apps/v1/namespaces/enc/deployments';
const skey = (n: string) => `/registry/core/secrets/enc/${n}`;
const ckey = (n: string) => `/registry/core/configmaps/enc/${n}`;
const dkey = (n: string) => `/registry/apps/deployments/enc/${n}`;

describe.each(BACKENDS)('encryption at rest on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(backend, initial, { encryptionProviderConfigAutomaticReload: true, featureGates: parseFeatureGates('AllowUnsafeMalformedObjectDeletion=true') });
    expect((await h.api.post('/api/v1/namespaces', ns('enc'))).status).toBe(201);
  }, 60_000);
  afterAll(async () => h?.close());

  it('round-trips each provider and stores only ciphertext under its prefix', async () => {
    expect((await h.api.post(SECRETS, secret('s1', 'plain-secret-one'))).status).toBe(201);
    expect((await h.api.post(CMS, configMap('c1', 'plain-config-one'))).status).toBe(201);
    expect((await h.api.post(DEPLOYS, deployment('d1', 'plain-image-one'))).status).toBe(201);
    expect((await h.api.get(`${SECRETS}/s1`)).body.data.password).toBe(Buffer.from('plain-secret-one').toString('base64'));
    expect((await h.api.get(`${CMS}/c1`)).body.data.value).toBe('plain-config-one');
    expect((await h.api.get(`${DEPLOYS}/d1`)).body.metadata.annotations.marker).toBe('plain-image-one');
    const list = await h.api.get(SECRETS);
    expect(list.body.items.map((i: any) => i.metadata.name)).toEqual(['s1']);

    const s = (await h.rawText(skey('s1')))!;
    expect(s.startsWith('k8s:enc:aescbc:v1:k1:')).toBe(true);
    expect(s).not.toContain(Buffer.from('plain-secret-one').toString('base64'));
    expect(s).not.toContain('"kind"');
    const c = (await h.rawText(ckey('c1')))!;
    expect(c.startsWith('k8s:enc:aesgcm:v1:g1:')).toBe(true);
    expect(c).not.toContain('plain-config-one');
    const d = (await h.rawText(dkey('d1')))!;
    expect(d.startsWith('k8s:enc:secretbox:v1:s1:')).toBe(true);
    expect(d).not.toContain('plain-image-one');
    // resources not configured stay plain
    expect((await h.rawText('/registry/core/namespaces/enc'))!.startsWith('{')).toBe(true);
    // the explorer's hint endpoint
    const hint = await h.api.get(`/debug/encryption-at-rest?path=${encodeURIComponent(`${SECRETS}/s1`)}`);
    expect(hint.body).toMatchObject({ key: skey('s1'), configured: true, writeProvider: 'k8s:enc:aescbc:v1:k1:', stored: { encrypted: true, provider: 'aescbc', prefix: 'k8s:enc:aescbc:v1:k1:' } });
  });

  it('reads plaintext written before encryption through a later identity provider', async () => {
    const plain = new TextEncoder().encode(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'legacy', namespace: 'enc', uid: 'u-legacy', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { a: 'YQ==' } }));
    await h.raw().create(skey('legacy'), plain);
    expect((await eventually(async () => {
      const g = await h.api.get(`${SECRETS}/legacy`);
      expect(g.status).toBe(200);
      return g;
    })).body.data.a).toBe('YQ==');
  });

  it('binds aesgcm values to their key: a value copied to another key is corrupt', async () => {
    const got = await h.raw().get(ckey('c1'));
    await h.raw().create(ckey('copied'), got.kv!.value);
    const g = await h.api.get(`${CMS}/copied`);
    expect(g.status).toBe(500);
    expect(g.body.message).toContain('corrupt object');
    expect(g.body.message).toContain(ckey('copied'));
    await h.raw().delete(ckey('copied'));
  });

  it('rotates: new key first, reload, migrate every object, drop the old key', async () => {
    h.writeConfig(rotating);
    // the reload is picked up from the file; new writes then use the new keys
    await eventually(async () => {
      await h.api.post(SECRETS, secret('probe', 'x'));
      const raw = (await h.rawText(skey('probe')))!;
      await h.api.del(`${SECRETS}/probe`);
      expect(raw.startsWith('k8s:enc:aescbc:v1:k2:')).toBe(true);
    });
    expect((await h.api.post(SECRETS, secret('s2', 'plain-secret-two'))).status).toBe(201);
    expect((await h.api.post(CMS, configMap('c2', 'plain-config-two'))).status).toBe(201);
    expect((await h.api.post(DEPLOYS, deployment('d2', 'plain-image-two'))).status).toBe(201);
    // mixed data: old objects still read
    expect((await h.rawText(skey('s1')))!.startsWith('k8s:enc:aescbc:v1:k1:')).toBe(true);
    expect((await h.rawText(skey('s2')))!.startsWith('k8s:enc:aescbc:v1:k2:')).toBe(true);
    expect((await h.api.get(`${SECRETS}/s1`)).status).toBe(200);
    expect((await h.api.get(`${CMS}/c1`)).body.data.value).toBe('plain-config-one');
    expect((await h.rawText(dkey('d1')))!.startsWith('k8s:enc:secretbox:v1:s1:')).toBe(true);

    const before = (await h.api.get(`${SECRETS}/s1`)).body.metadata.resourceVersion;
    const results = await migrateStorage({ server: h.server.url, resources: ['secrets', 'configmaps', 'deployments.apps'] });
    expect(results.flatMap((r) => r.failed)).toEqual([]);
    // the unchanged object was rewritten (stale read), so it got a new resourceVersion
    expect((await h.api.get(`${SECRETS}/s1`)).body.metadata.resourceVersion).not.toBe(before);
    for (const [prefix, want] of [
      ['/registry/core/secrets/', 'k8s:enc:aescbc:v1:k2:'],
      ['/registry/core/configmaps/', 'k8s:enc:aesgcm:v1:g2:'],
      ['/registry/apps/deployments/', 'k8s:enc:secretbox:v1:s2:'],
    ] as const) {
      const all = await h.raw().range({ prefix });
      expect(all.kvs.length).toBeGreaterThan(0);
      for (const kv of all.kvs) expect([kv.key, Buffer.from(kv.value).toString('latin1').slice(0, want.length)]).toEqual([kv.key, want]);
    }
    // a second migration is a no-op: nothing is stale any more
    const rv = (await h.api.get(`${SECRETS}/s1`)).body.metadata.resourceVersion;
    await migrateStorage({ server: h.server.url, resources: ['secrets'] });
    expect((await h.api.get(`${SECRETS}/s1`)).body.metadata.resourceVersion).toBe(rv);

    h.writeConfig(rotated);
    await eventually(async () => {
      // with the old key gone a k1 value would be corrupt: write one raw and wait until it reads as corrupt
      expect((await h.api.get(`${SECRETS}/s1`)).status).toBe(200);
      expect((await h.api.get(`${SECRETS}/legacy`)).status).toBe(200);
    });
    expect((await h.api.get(`${CMS}/c1`)).body.data.value).toBe('plain-config-one');
    expect((await h.api.get(`${DEPLOYS}/d1`)).body.metadata.annotations.marker).toBe('plain-image-one');
  });

  it('refuses an invalid reloaded file and keeps the last good configuration', async () => {
    h.writeConfig('kind: EncryptionConfiguration\napiVersion: apiserver.config.k8s.io/v1\nresources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: k, secret: c2hvcnQ=}]}}]}]\n');
    await eventually(async () => expect(h.logs.join('\n')).toContain('encryption config reload refused, keeping the last good configuration'));
    expect(h.logs.join('\n')).toContain('secret is not of the expected length');
    // writes keep using k2
    expect((await h.api.post(SECRETS, secret('after-bad', 'v'))).status).toBe(201);
    expect((await h.rawText(skey('after-bad')))!.startsWith('k8s:enc:aescbc:v1:k2:')).toBe(true);
  });

  it('treats values no provider can decrypt as corrupt: get and list 500 naming them, unsafe delete removes them', async () => {
    // values under the configured key name but sealed with another secret (a wrong key)
    const wrong = aescbcProvider('k2', Buffer.from(key32(), 'base64'));
    const body = (name: string) => new TextEncoder().encode(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'enc', uid: `u-${name}`, creationTimestamp: '2026-01-01T00:00:00Z' } }));
    const rv0 = (await h.api.get(SECRETS)).body.metadata.resourceVersion;
    const watch = await WatchStream.open(`${h.server.url}${SECRETS}?watch=1&resourceVersion=${rv0}`);
    for (const name of ['bad1', 'bad2']) await h.raw().create(skey(name), await wrong.encrypt(skey(name), body(name)));
    const good = await h.api.post(SECRETS, secret('good-after', 'watch-plain'));
    expect(good.status).toBe(201);
    // the watch skips the undecryptable objects and delivers the next one, decrypted
    const evs = await watch.until((e) => e.some((x) => x.object?.metadata?.name === 'good-after'));
    expect(evs.map((e) => e.object?.metadata?.name)).not.toContain('bad1');
    expect(evs.find((e) => e.object?.metadata?.name === 'good-after')!.object.data.password).toBe(Buffer.from('watch-plain').toString('base64'));
    watch.close();
    const g = await h.api.get(`${SECRETS}/bad1`);
    expect(g.status).toBe(500);
    expect(g.body).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500 });
    expect(g.body.message).toContain('corrupt object');
    expect(g.body.message).toContain(skey('bad1'));
    // the watch skipped them: the cache serves lists of the others
    const cached = await h.api.get(`${SECRETS}?resourceVersion=${good.body.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan`);
    expect(cached.status).toBe(200);
    expect(cached.body.items.map((i: any) => i.metadata.name)).toContain('good-after');
    expect(cached.body.items.map((i: any) => i.metadata.name)).not.toContain('bad2');
    // a list read from the store (after both were written) reports the corrupt objects together
    const l = await h.api.get(`${SECRETS}?limit=500&resourceVersion=${good.body.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    expect(l.status).toBe(500);
    expect(l.body.message).toContain('StorageError: corrupt object, Code: 7');
    expect(l.body.message).toContain(skey('bad1'));
    expect(l.body.message).toContain(skey('bad2'));
    expect((await h.api.del(`${SECRETS}/bad1`)).status).toBe(500);
    for (const name of ['bad1', 'bad2']) {
      const d = await h.api.del(`${SECRETS}/${name}`, { ignoreStoreReadErrorWithClusterBreakingPotential: true });
      expect(d.status).toBe(200);
      expect((await h.raw().get(skey(name))).kv).toBeUndefined();
    }
    await eventually(async () => expect((await h.api.get(SECRETS)).status).toBe(200));
  });
});
