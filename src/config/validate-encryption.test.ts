import { describe, expect, test } from 'vitest';
import { edit, errorsOf, keyOfLength, VALID_ENCRYPTION as VALID, warningsOf, type Found } from './test-support.js';
import { validateConfigDocument, validateEncryptionConfiguration } from './validate.js';

type Case = [title: string, change: (d: any) => void, errors: Found[]];

function runCases(cases: Case[]): void {
  test.each(cases)('%s', (_title, change, expected) => {
    expect(errorsOf(validateConfigDocument(edit(VALID, change)))).toEqual(expected);
  });
}

const P0 = 'resources[0].providers[0]';
const KMS = 'resources[2].providers[0].kms';

describe('EncryptionConfiguration', () => {
  test('the reference document is valid, with no warnings', () => {
    expect(validateConfigDocument(VALID)).toEqual([]);
    expect(validateEncryptionConfiguration(VALID)).toEqual([]);
  });

  describe('valid variations', () => {
    runCases([
      ['aesgcm with a 24-byte key', (d) => (d.resources[1].providers[0].aesgcm.keys[0].secret = keyOfLength(24)), []],
      ['aesgcm with a 32-byte key', (d) => (d.resources[1].providers[0].aesgcm.keys[0].secret = keyOfLength(32)), []],
      ['several keys for rotation', (d) => d.resources[0].providers[0].aescbc.keys.push({ name: 'key0', secret: keyOfLength(32) }), []],
      ['explicit resource before its group wildcard', (d) => d.resources.unshift({ resources: ['deployments.apps'], providers: [{ identity: {} }] }), []],
      ['core group wildcard alone', (d) => (d.resources[0].resources = ['*.']), []],
      ['custom resource', (d) => (d.resources[0].resources = ['widgets.example.com']), []],
      ['KMS v2 without timeout', (d) => delete d.resources[2].providers[0].kms.timeout, []],
    ]);
  });

  describe('required fields', () => {
    runCases([
      ['resources missing', (d) => delete d.resources, [{ path: 'resources', message: 'Required value: at least one resources is required' }]],
      ['resources empty', (d) => (d.resources = []), [{ path: 'resources', message: 'Required value: at least one resources is required' }]],
      ['resource list empty', (d) => (d.resources[0].resources = []), [{ path: 'resources[0].resources', message: 'Required value: at least one resources[0].resources is required' }]],
      ['providers missing', (d) => delete d.resources[0].providers, [{ path: 'resources[0].providers', message: 'Required value: at least one resources[0].providers is required' }]],
      ['keys empty', (d) => (d.resources[0].providers[0].aescbc.keys = []), [{ path: `${P0}.aescbc.keys`, message: 'Required value: at least one keys is required' }]],
      ['key name missing', (d) => delete d.resources[0].providers[0].aescbc.keys[0].name, [{ path: `${P0}.aescbc.keys[0].name`, message: 'Required value: name is a mandatory field for a key' }]],
      ['key secret empty', (d) => (d.resources[0].providers[0].aescbc.keys[0].secret = ''), [{ path: `${P0}.aescbc.keys[0].secret`, message: 'Required value: secret is a mandatory field for a key' }]],
      ['kms name missing', (d) => delete d.resources[2].providers[0].kms.name, [{ path: `${KMS}.name`, message: 'Required value: name is a mandatory field for a provider' }]],
      ['kms endpoint missing', (d) => delete d.resources[2].providers[0].kms.endpoint, [{ path: `${KMS}.endpoint`, message: 'Required value: endpoint is a mandatory field for a kms' }]],
    ]);
  });

  describe('providers', () => {
    runCases([
      [
        'provider with no member',
        (d) => (d.resources[0].providers[1] = {}),
        [{ path: 'resources[0].providers[1]', message: 'Invalid value: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity' }],
      ],
      [
        'provider with a null member',
        (d) => (d.resources[0].providers[1] = { identity: null }),
        [{ path: 'resources[0].providers[1]', message: 'Invalid value: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity' }],
      ],
      [
        'provider with two members',
        (d) => (d.resources[0].providers[0].identity = {}),
        [{ path: P0, message: 'Invalid value: more than one provider specified in a single element, should split into different list elements' }],
      ],
      ['secret not base64', (d) => (d.resources[0].providers[0].aescbc.keys[0].secret = 'not base64!'), [{ path: `${P0}.aescbc.keys[0].secret`, message: 'Invalid value: "REDACTED": secrets must be base64 encoded' }]],
      [
        'aescbc with a 16-byte key',
        (d) => (d.resources[0].providers[0].aescbc.keys[0].secret = keyOfLength(16)),
        [{ path: `${P0}.aescbc.keys[0].secret`, message: 'Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]' }],
      ],
      [
        'aesgcm with a 20-byte key',
        (d) => (d.resources[1].providers[0].aesgcm.keys[0].secret = keyOfLength(20)),
        [{ path: 'resources[1].providers[0].aesgcm.keys[0].secret', message: 'Invalid value: "REDACTED": secret is not of the expected length, got 20, expected one of [16 24 32]' }],
      ],
      [
        'secretbox with a 24-byte key',
        (d) => (d.resources[1].providers[1].secretbox.keys[0].secret = keyOfLength(24)),
        [{ path: 'resources[1].providers[1].secretbox.keys[0].secret', message: 'Invalid value: "REDACTED": secret is not of the expected length, got 24, expected one of [32]' }],
      ],
    ]);

    test('a key name used twice in one provider draws a warning', () => {
      const doc = edit(VALID, (d) => d.resources[0].providers[0].aescbc.keys.push({ name: 'key1', secret: keyOfLength(32) }));
      const problems = validateConfigDocument(doc);
      expect(errorsOf(problems)).toEqual([]);
      expect(warningsOf(problems)).toEqual([
        { path: `${P0}.aescbc.keys[1].name`, message: 'key name "key1" is used more than once in this provider; only the first such key can decrypt' },
      ]);
    });
  });

  describe('resource names', () => {
    const R = 'resources[0].resources';
    runCases([
      ['capital letters', (d) => (d.resources[0].resources = ['Secrets']), [{ path: `${R}[0]`, message: 'Invalid value: "Secrets": resource name should not contain capital letters' }]],
      [
        'a bare star',
        (d) => (d.resources[0].resources = ['*']),
        [{ path: `${R}[0]`, message: "Invalid value: \"*\": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources" }],
      ],
      [
        'a resource without a REST API',
        (d) => (d.resources[0].resources = ['serviceipallocations']),
        [{ path: `${R}[0]`, message: 'Invalid value: "serviceipallocations": resources which do not have REST API/s cannot be encrypted' }],
      ],
      [
        'the events.k8s.io group',
        (d) => (d.resources[0].resources = ['*.events.k8s.io']),
        [
          {
            path: `${R}[0]`,
            message: "Invalid value: \"*.events.k8s.io\": '*.events.k8s.io' objects are stored using the 'events' API group in storage. Use 'events' instead in the config file",
          },
        ],
      ],
      [
        'the extensions group',
        (d) => (d.resources[0].resources = ['deployments.extensions']),
        [{ path: `${R}[0]`, message: "Invalid value: \"deployments.extensions\": 'extensions' group has been removed and cannot be used for encryption" }],
      ],
      [
        'a resource across groups',
        (d) => (d.resources[0].resources = ['secrets.*']),
        [{ path: `${R}[0]`, message: 'Invalid value: "secrets.*": encrypting the same resource across groups is not supported' }],
      ],
      [
        'a name in a list and its core wildcard',
        (d) => (d.resources[0].resources = ['secrets', '*.']),
        [{ path: R, message: "Invalid value: [\"secrets\",\"*.\"]: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked" }],
      ],
      [
        'a group wildcard next to a name in it',
        (d) => (d.resources[0].resources = ['jobs.batch', '*.batch']),
        [{ path: R, message: "Invalid value: [\"jobs.batch\",\"*.batch\"]: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked" }],
      ],
      [
        '*.* with anything else in the list',
        (d) => (d.resources[2].resources = ['*.*', 'widgets.example.com']),
        [{ path: 'resources[2].resources', message: "Invalid value: [\"*.*\",\"widgets.example.com\"]: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked" }],
      ],
      [
        'a name twice in a list',
        (d) => (d.resources[0].resources = ['secrets', 'secrets']),
        [{ path: R, message: 'Invalid value: ["secrets","secrets"]: the same resource cannot be specified multiple times' }],
      ],
      [
        'a name after its group wildcard',
        (d) => d.resources.splice(2, 0, { resources: ['deployments.apps'], providers: [{ identity: {} }] }),
        [{ path: 'resources[2].resources[0]', message: 'Invalid value: "deployments.apps": resource "deployments.apps" is masked by earlier rule "*.apps"' }],
      ],
      [
        'anything after *.*',
        (d) => d.resources.push({ resources: ['secrets'], providers: [{ identity: {} }] }),
        [{ path: 'resources[3].resources[0]', message: 'Invalid value: "secrets": resource "secrets" is masked by earlier rule "*.*"' }],
      ],
      [
        'a core name after the core wildcard',
        (d) => d.resources.unshift({ resources: ['*.'], providers: [{ identity: {} }] }),
        [
          { path: 'resources[1].resources[0]', message: 'Invalid value: "secrets": resource "secrets" is masked by earlier rule "*."' },
          { path: 'resources[1].resources[1]', message: 'Invalid value: "configmaps": resource "configmaps" is masked by earlier rule "*."' },
        ],
      ],
    ]);

    test('a resource listed again in a later entry draws a warning', () => {
      const doc = edit(VALID, (d) => d.resources.splice(1, 0, { resources: ['secrets'], providers: [{ identity: {} }] }));
      const problems = validateConfigDocument(doc);
      expect(errorsOf(problems)).toEqual([]);
      expect(warningsOf(problems)).toEqual([
        {
          path: 'resources[1].resources[0]',
          message: 'resource "secrets" is also listed in resources[0].resources, which takes precedence for writes; this entry only adds providers tried on reads',
        },
      ]);
    });
  });

  describe('KMS', () => {
    runCases([
      [
        'endpoint that is not a unix socket',
        (d) => (d.resources[2].providers[0].kms.endpoint = 'tcp://127.0.0.1:9000'),
        [{ path: `${KMS}.endpoint`, message: 'Invalid value: "tcp://127.0.0.1:9000": unsupported scheme "tcp" for KMS provider, only unix is supported' }],
      ],
      [
        'endpoint without a scheme',
        (d) => (d.resources[2].providers[0].kms.endpoint = '/var/run/kms.sock'),
        [{ path: `${KMS}.endpoint`, message: 'Invalid value: "/var/run/kms.sock": unsupported scheme "" for KMS provider, only unix is supported' }],
      ],
      [
        'unix endpoint without a path',
        (d) => (d.resources[2].providers[0].kms.endpoint = 'unix://'),
        [{ path: `${KMS}.endpoint`, message: 'Invalid value: "unix://": invalid endpoint for kms provider, error: missing socket path' }],
      ],
      ['v2 name with a colon', (d) => (d.resources[2].providers[0].kms.name = 'vault:1'), [{ path: `${KMS}.name`, message: "Invalid value: \"vault:1\": invalid KMS provider name vault:1, must not contain ':'" }]],
      [
        'repeated KMS names',
        (d) => d.resources[2].providers.splice(1, 0, structuredClone(d.resources[2].providers[0])),
        [{ path: 'resources[2].providers[1].kms.name', message: 'Invalid value: "vault": duplicate KMS provider name vault, names must be unique' }],
      ],
      ['zero timeout', (d) => (d.resources[2].providers[0].kms.timeout = '0s'), [{ path: `${KMS}.timeout`, message: 'Invalid value: "0s": timeout should be a positive value' }]],
      ['cachesize with v2', (d) => (d.resources[2].providers[0].kms.cachesize = 100), [{ path: `${KMS}.cachesize`, message: 'Invalid value: 100: cachesize is not supported in v2' }]],
      [
        'zero cachesize with v1',
        (d) => Object.assign(d.resources[2].providers[0].kms, { apiVersion: 'v1', cachesize: 0 }),
        [{ path: `${KMS}.cachesize`, message: 'Invalid value: 0: cachesize should be a positive value, or negative to disable' }],
      ],
      ['cachesize not an integer', (d) => Object.assign(d.resources[2].providers[0].kms, { apiVersion: 'v1', cachesize: 1.5 }), [{ path: `${KMS}.cachesize`, message: 'Invalid value: 1.5: must be an integer' }]],
      [
        'cachesize beyond int32',
        (d) => Object.assign(d.resources[2].providers[0].kms, { apiVersion: 'v1', cachesize: 2 ** 31 }),
        [{ path: `${KMS}.cachesize`, message: 'Invalid value: 2147483648: must be between -2147483648 and 2147483647, inclusive' }],
      ],
      ['unknown apiVersion', (d) => (d.resources[2].providers[0].kms.apiVersion = 'v3'), [{ path: `${KMS}.apiVersion`, message: 'Unsupported value: "v3": supported values: "v1", "v2"' }]],
    ]);

    test('v1 (explicit or by default) is accepted with a deprecation warning, negative cachesize disables caching', () => {
      for (const kms of [{ apiVersion: 'v1', cachesize: -1 }, { apiVersion: undefined, cachesize: 500 }]) {
        const doc = edit(VALID, (d) => {
          Object.assign(d.resources[2].providers[0].kms, kms);
          if (kms.apiVersion === undefined) delete d.resources[2].providers[0].kms.apiVersion;
        });
        const problems = validateConfigDocument(doc);
        expect(errorsOf(problems)).toEqual([]);
        expect(warningsOf(problems)).toEqual([{ path: `${KMS}.apiVersion`, message: 'KMS v1 is deprecated; use apiVersion v2' }]);
      }
    });
  });
});
