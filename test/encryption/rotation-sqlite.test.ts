// Rotation by restart on SQLite with stock kubectl: nothing plaintext in the database files
// (WAL included), the upstream idiom `kubectl get secrets -A -o json | kubectl replace -f -`
// (or one object at a time) moves every object to the new key, then the old key is removed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aescbc as aescbcProvider } from '../../src/server/encryption/providers.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { aescbc, aesgcm, encryptionConfig, harness, identity, key32, ns, secret, type Harness } from './support.js';

const OLD = key32();
const NEW = key32();
const SECRETS = '/api/v1/namespaces/r/secrets';

describe('rotation by restart on sqlite with kubectl', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness('sqlite', encryptionConfig([{ resources: ['secrets'], providers: [aescbc(['old', OLD]), identity] }]));
    expect((await h.api.post('/api/v1/namespaces', ns('r'))).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await h.api.post(SECRETS, secret(`s${i}`, `sqlite-plain-${i}`))).status).toBe(201);
  }, 60_000);
  afterAll(async () => h?.close());

  const dbBytes = () =>
    readdirSync(h.dir)
      .filter((f) => f.startsWith('periscope.db'))
      .map((f) => readFileSync(join(h.dir, f)).toString('latin1'))
      .join('');

  it('keeps every secret value out of the database files (WAL included)', () => {
    const all = dbBytes();
    expect(all).toContain('k8s:enc:aescbc:v1:old:');
    for (let i = 0; i < 5; i++) {
      expect(all).not.toContain(`sqlite-plain-${i}`);
      expect(all).not.toContain(Buffer.from(`sqlite-plain-${i}`).toString('base64'));
    }
  });

  it('rotates with a restart and kubectl replace, then drops the old key', async () => {
    h.writeConfig(encryptionConfig([{ resources: ['secrets'], providers: [aesgcm(['new', NEW]), aescbc(['old', OLD])] }]));
    await h.restart();
    const kc = kubeconfigFor(h.server.url);
    const got = await kubectl(kc, ['get', 'secrets', '-A', '-o', 'json']);
    expect(got.code).toBe(0);
    // the upstream idiom, the whole List at once
    const replaced = await kubectl(kc, ['replace', '-f', '-'], got.stdout);
    expect(replaced.stderr).toBe('');
    expect(replaced.code).toBe(0);
    const rows = await h.raw().range({ prefix: '/registry/core/secrets/' });
    expect(rows.kvs).toHaveLength(5);
    for (const kv of rows.kvs) expect(Buffer.from(kv.value).subarray(0, 20).toString('latin1')).toBe('k8s:enc:aesgcm:v1:ne');

    h.writeConfig(encryptionConfig([{ resources: ['secrets'], providers: [aesgcm(['new', NEW])] }]));
    await h.restart();
    for (let i = 0; i < 5; i++) expect((await h.api.get(`${SECRETS}/s${i}`)).body.data.password).toBe(Buffer.from(`sqlite-plain-${i}`).toString('base64'));
  });

  it('starts with an undecryptable object in the store and reports it as corrupt', async () => {
    // s0 is still under the removed key "old" in a second copy
    const old = aescbcProvider('old', Buffer.from(OLD, 'base64'));
    const body = new TextEncoder().encode(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'stuck', namespace: 'r', uid: 'u-stuck', creationTimestamp: '2026-01-01T00:00:00Z' } }));
    await h.raw().create('/registry/core/secrets/r/stuck', await old.encrypt('/registry/core/secrets/r/stuck', body));
    await h.restart();
    const g = await h.api.get(`${SECRETS}/stuck`);
    expect(g.status).toBe(500);
    expect(g.body.message).toContain('corrupt object');
    expect((await h.api.get(`${SECRETS}/s1`)).status).toBe(200);
    // the watch cache loads the readable ones and leaves the corrupt one out
    const l = await h.api.get(SECRETS);
    expect(l.status).toBe(200);
    expect(l.body.items.map((i: any) => i.metadata.name).sort()).toEqual(['s0', 's1', 's2', 's3', 's4']);
  });
});
