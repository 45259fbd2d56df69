import { describe, expect, test } from 'vitest';
import { API_VERSION, keyOfLength } from '../test-support.js';
import { encryptionFlags, explainEncryption } from './encryption.js';

const aescbc = (...names: string[]) => ({ aescbc: { keys: names.map((name) => ({ name, secret: keyOfLength(32) })) } });

const config = {
  apiVersion: API_VERSION,
  kind: 'EncryptionConfiguration',
  resources: [
    { resources: ['secrets', 'configmaps'], providers: [aescbc('key2', 'key1'), { identity: {} }] },
    { resources: ['*.apps'], providers: [{ kms: { apiVersion: 'v2', name: 'vault', endpoint: 'unix:///kms.sock' } }] },
    { resources: ['secrets'], providers: [{ secretbox: { keys: [{ name: 'old', secret: keyOfLength(32) }] } }] },
    { resources: ['*.*'], providers: [{ identity: {} }, aescbc('legacy')] },
  ],
};

describe('explainEncryption', () => {
  test('an exact name: first provider writes; reads try every entry listing it', () => {
    const r = explainEncryption(config, 'secrets');
    expect(r.match).toEqual({ via: 'exact', pattern: 'secrets', entries: [0, 2] });
    expect(r.write).toMatchObject({ path: 'resources[0].providers[0]', type: 'aescbc', keys: ['key2', 'key1'] });
    expect(r.encrypted).toBe(true);
    expect(r.reads.map((s) => `${s.path} ${s.type}`)).toEqual([
      'resources[0].providers[0] aescbc',
      'resources[0].providers[1] identity',
      'resources[2].providers[0] secretbox',
    ]);
    expect(r.notes).toEqual([
      'secrets is listed in 2 entries: the first one writes, the others only add providers tried on reads',
      'identity is listed for reads, so data written before encryption was turned on stays readable',
      'key "key2" encrypts; "key1" only decrypt (key rotation)',
    ]);
  });

  test('each provider shows the exact prefix a stored value carries, as the server writes it', () => {
    const r = explainEncryption(config, 'secrets');
    expect(r.reads.map((s) => s.prefixes)).toEqual([['k8s:enc:aescbc:v1:key2:', 'k8s:enc:aescbc:v1:key1:'], [''], ['k8s:enc:secretbox:v1:old:']]);
    expect(explainEncryption(config, 'deployments.apps').write!.prefixes).toEqual(['k8s:enc:kms:v2:vault:']);
  });

  test('a group wildcard covers the group', () => {
    const r = explainEncryption(config, 'deployments.apps');
    expect(r.display).toBe('deployments.apps');
    expect(r.match).toEqual({ via: 'group', pattern: '*.apps', entries: [1] });
    expect(r.write).toMatchObject({ type: 'kms', keys: ['vault'], description: 'kms plugin vault' });
  });

  test('a custom resource falls to *.*, whose identity writes unencrypted', () => {
    const r = explainEncryption(config, 'crontabs.stable.example.com');
    expect(r.resource).toEqual({ group: 'stable.example.com', resource: 'crontabs' });
    expect(r.match).toEqual({ via: 'all', pattern: '*.*', entries: [3] });
    expect(r.encrypted).toBe(false);
    expect(r.write?.description).toBe('identity (stored unencrypted)');
    expect(r.notes).toContain('new writes are stored unencrypted; the other providers still decrypt existing data (decryption during a rollback or migration)');
  });

  test('nothing matches: stored as is', () => {
    const r = explainEncryption({ ...config, resources: [config.resources[0]] }, 'pods');
    expect(r.match).toBeUndefined();
    expect(r.write).toBeUndefined();
    expect(r.encrypted).toBe(false);
    expect(r.notes).toEqual(['no entry covers this resource: it is stored unencrypted (identity)']);
  });

  test('the core wildcard covers core resources only', () => {
    const c = { resources: [{ resources: ['*.'], providers: [aescbc('k')] }] };
    expect(explainEncryption(c, 'pods').match?.pattern).toBe('*.');
    expect(explainEncryption(c, 'deployments.apps').match).toBeUndefined();
  });

  test.each([
    ['', 'type a resource such as secrets, deployments.apps or crontabs.stable.example.com'],
    ['Secrets', 'resources are lowercase'.replace('resources are', 'resource names are') + ' (the plural, such as secrets)'],
    ['*.apps', 'type a concrete resource, not a wildcard'],
    ['.apps', 'the resource name is missing before the group'],
  ])('rejects %j', (input, invalid) => {
    expect(explainEncryption(config, input).invalid).toBe(invalid);
  });
});

describe('encryptionFlags', () => {
  test('reads-only duplicates and narrowed wildcards', () => {
    expect(encryptionFlags(config)).toEqual([
      { path: 'resources[2].resources[0]', kind: 'reads-only', severity: 'warning', message: 'secrets is first listed in resources[0], which writes it; this entry only adds providers tried on reads' },
      { path: 'resources[3].resources[0]', kind: 'narrowed', severity: 'info', message: '*.* does not apply to secrets, configmaps, which earlier entries configure' },
    ]);
  });

  test('overlap and duplicate inside one list', () => {
    const c = { resources: [{ resources: ['secrets', '*.', 'secrets'], providers: [{ identity: {} }] }] };
    expect(encryptionFlags(c).map((f) => [f.path, f.kind])).toEqual([
      ['resources[0].resources[1]', 'overlap'],
      ['resources[0].resources[2]', 'duplicate'],
      ['resources[0].resources[2]', 'overlap'],
    ]);
  });

  test('names masked by an earlier wildcard, and an entry that never takes effect', () => {
    const c = {
      resources: [
        { resources: ['*.apps'], providers: [{ identity: {} }] },
        { resources: ['deployments.apps', 'statefulsets.apps'], providers: [aescbc('k')] },
      ],
    };
    expect(encryptionFlags(c)).toEqual([
      { path: 'resources[1].resources[0]', kind: 'masked', severity: 'error', message: 'deployments.apps is masked by *.apps in resources[0], which comes first' },
      { path: 'resources[1].resources[1]', kind: 'masked', severity: 'error', message: 'statefulsets.apps is masked by *.apps in resources[0], which comes first' },
      { path: 'resources[1]', kind: 'ineffective', severity: 'warning', message: 'no resource of resources[1] takes effect: every name is masked by an earlier entry' },
    ]);
  });

  test('a clean configuration has no flags', () => {
    expect(encryptionFlags({ resources: [{ resources: ['secrets'], providers: [aescbc('k')] }] })).toEqual([]);
  });
});
