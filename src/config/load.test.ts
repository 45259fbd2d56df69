import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { ConfigLoadError, describeLoadedConfigs, loadServerConfigs } from './load.js';
import { ANONYMOUS_FLAG_CONFLICT } from './rules-authentication.js';
import { edit, VALID_ADMISSION, VALID_AUTHENTICATION, VALID_AUTHORIZATION, VALID_ENCRYPTION, VALID_TRACING } from './test-support.js';

let dir: string;
let webhookFile: string;

async function write(name: string, content: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, typeof content === 'string' ? content : stringify(content));
  return file;
}

/** The authorization reference document pointing at a connection file that exists. */
function authorization() {
  return edit(VALID_AUTHORIZATION, (d) => (d.authorizers[0].webhook.connectionInfo.serviceConfigFile = webhookFile));
}

async function loadError(flags: Parameters<typeof loadServerConfigs>[0]): Promise<ConfigLoadError> {
  try {
    await loadServerConfigs(flags);
  } catch (e) {
    if (e instanceof ConfigLoadError) return e;
    throw e;
  }
  throw new Error('expected a ConfigLoadError');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'periscope-config-'));
  webhookFile = await write('webhook.kubeconfig', 'apiVersion: v1\nkind: Config\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadServerConfigs', () => {
  test('no flags load nothing', async () => {
    expect(await loadServerConfigs({})).toEqual({ files: [], warnings: [] });
  });

  test('loads all five documents, applies defaults and says what it loaded', async () => {
    const flags = {
      admissionControlConfigFile: await write('admission.yaml', VALID_ADMISSION),
      authenticationConfig: await write('authn.json', JSON.stringify(VALID_AUTHENTICATION)),
      authorizationConfig: await write('authz.yaml', authorization()),
      encryptionProviderConfig: await write('encryption.yaml', edit(VALID_ENCRYPTION, (d) => delete d.resources[2].providers[0].kms.timeout)),
      tracingConfigFile: await write('tracing.yaml', VALID_TRACING),
    };
    const loaded = await loadServerConfigs(flags);
    expect(loaded.admission).toEqual(VALID_ADMISSION);
    expect(loaded.authentication).toEqual(VALID_AUTHENTICATION);
    expect(loaded.authorization?.authorizers[0]).toMatchObject({ webhook: { cacheAuthorizedRequests: true, cacheUnauthorizedRequests: true } });
    expect(loaded.encryption?.resources[2]?.providers[0]?.kms?.timeout).toBe('3s');
    expect(loaded.tracing).toEqual(VALID_TRACING);
    expect(loaded.warnings).toEqual([]);
    expect(describeLoadedConfigs(loaded)).toEqual([
      `loaded AdmissionConfiguration from ${flags.admissionControlConfigFile} (--admission-control-config-file)`,
      `loaded AuthenticationConfiguration from ${flags.authenticationConfig} (--authentication-config)`,
      `loaded AuthorizationConfiguration from ${flags.authorizationConfig} (--authorization-config)`,
      `loaded EncryptionConfiguration from ${flags.encryptionProviderConfig} (--encryption-provider-config)`,
      `loaded TracingConfiguration from ${flags.tracingConfigFile} (--tracing-config-file)`,
    ]);
  });

  test('warnings do not stop loading and are returned with their file', async () => {
    const file = await write('tracing-warn.yaml', { ...VALID_TRACING, sampling: 5 });
    const loaded = await loadServerConfigs({ tracingConfigFile: file });
    expect(loaded.warnings).toEqual([{ flag: '--tracing-config-file', file, path: 'sampling', message: 'unknown field "sampling"', severity: 'warning' }]);
  });

  test('every error of every file is listed, then loading stops', async () => {
    const authn = await write(
      'bad-authn.yaml',
      edit(VALID_AUTHENTICATION, (d) => {
        d.jwt[0].issuer.url = 'http://issuer.example.com';
        d.jwt[0].claimMappings.username = { claim: 'sub' };
      }),
    );
    const tracing = await write('bad-tracing.yaml', { ...VALID_TRACING, samplingRatePerMillion: -5 });
    const err = await loadError({ authenticationConfig: authn, tracingConfigFile: tracing });
    expect(err.problems.map((p) => [p.flag, p.file, p.path])).toEqual([
      ['--authentication-config', authn, 'jwt[0].issuer.url'],
      ['--authentication-config', authn, 'jwt[0].claimMappings.username.prefix'],
      ['--tracing-config-file', tracing, 'samplingRatePerMillion'],
    ]);
    expect(err.message).toBe(
      [
        'invalid configuration (3 errors):',
        `  --authentication-config=${authn}: jwt[0].issuer.url: Invalid value: "http://issuer.example.com": URL scheme must be https`,
        `  --authentication-config=${authn}: jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing`,
        `  --tracing-config-file=${tracing}: samplingRatePerMillion: Invalid value: -5: must be between 0 and 1000000, inclusive`,
      ].join('\n'),
    );
  });

  test('the kind must match the flag', async () => {
    const file = await write('wrong-kind.yaml', VALID_TRACING);
    const err = await loadError({ encryptionProviderConfig: file });
    expect(err.problems).toEqual([
      {
        flag: '--encryption-provider-config',
        file,
        path: 'kind',
        message: 'Invalid value: "TracingConfiguration": must be EncryptionConfiguration for this flag',
        severity: 'error',
      },
    ]);
  });

  test('unreadable, empty and malformed files are errors', async () => {
    const missing = join(dir, 'missing.yaml');
    const empty = await write('empty.yaml', '');
    const broken = await write('broken.yaml', 'kind: [\n');
    const err = await loadError({ admissionControlConfigFile: missing, authenticationConfig: empty, tracingConfigFile: broken });
    expect(err.problems.map((p) => [p.flag, p.path])).toEqual([
      ['--admission-control-config-file', ''],
      ['--authentication-config', ''],
      ['--tracing-config-file', ''],
    ]);
    expect(err.problems[0]!.message).toMatch(/^error reading file: ENOENT/);
    expect(err.problems[1]!.message).toBe('Required value: the text holds no document');
    expect(err.problems[2]!.message).toMatch(/^yaml: line 2, column 1: /);
  });

  test('an anonymous section conflicts with an explicit --anonymous-auth', async () => {
    const file = await write('authn-anon.yaml', VALID_AUTHENTICATION);
    const err = await loadError({ authenticationConfig: file, anonymousAuthFlagSet: true });
    expect(err.problems).toEqual([{ flag: '--authentication-config', file, path: 'anonymous', message: `Forbidden: ${ANONYMOUS_FLAG_CONFLICT}`, severity: 'error' }]);
  });

  test('the webhook connection file must exist and be a regular file', async () => {
    const missing = await write('authz-missing.yaml', edit(authorization(), (d) => (d.authorizers[0].webhook.connectionInfo.serviceConfigFile = join(dir, 'nope.yaml'))));
    const directory = await write('authz-dir.yaml', edit(authorization(), (d) => (d.authorizers[0].webhook.connectionInfo.serviceConfigFile = dir)));
    const errMissing = await loadError({ authorizationConfig: missing });
    expect(errMissing.problems).toHaveLength(1);
    expect(errMissing.problems[0]).toMatchObject({ path: 'authorizers[0].webhook.connectionInfo.serviceConfigFile' });
    expect(errMissing.problems[0]!.message).toMatch(/^Invalid value: ".*nope\.yaml": error loading file: ENOENT/);
    const errDir = await loadError({ authorizationConfig: directory });
    expect(errDir.problems.map((p) => p.message)).toEqual([`Invalid value: ${JSON.stringify(dir)}: must be a regular file`]);
  });
});
