import { expect, test } from 'vitest';
import { applyConfigDefaults } from './defaults.js';
import { API_VERSION, edit, VALID_AUTHORIZATION, VALID_ENCRYPTION, VALID_TRACING } from './test-support.js';
import type { AuthorizationConfiguration, EncryptionConfiguration } from './types.js';

test('webhook caching defaults to on, and the input is left alone', () => {
  const input = structuredClone(VALID_AUTHORIZATION);
  const out = applyConfigDefaults(input as unknown as AuthorizationConfiguration);
  expect(out.authorizers[0]).toMatchObject({ webhook: { cacheAuthorizedRequests: true, cacheUnauthorizedRequests: true } });
  expect(input).toEqual(VALID_AUTHORIZATION);
});

test('explicit false caching is kept', () => {
  const out = applyConfigDefaults(edit(VALID_AUTHORIZATION, (d) => (d.authorizers[0].webhook.cacheAuthorizedRequests = false))) as any;
  expect(out.authorizers[0].webhook).toMatchObject({ cacheAuthorizedRequests: false, cacheUnauthorizedRequests: true });
});

test('upstream spellings become canonical', () => {
  const out = applyConfigDefaults(
    edit(VALID_AUTHORIZATION, (d) => {
      d.apiVersion = 'apiserver.config.k8s.io/v1';
      d.authorizers[0].webhook.connectionInfo = { type: 'KubeConfigFile', kubeConfigFile: '/etc/authz.yaml' };
    }),
  ) as any;
  expect(out.apiVersion).toBe(API_VERSION);
  expect(out.authorizers[0].webhook.connectionInfo).toEqual({ type: 'ServiceConfig', serviceConfigFile: '/etc/authz.yaml' });
});

test('KMS defaults: v1 gets apiVersion, cachesize 1000 and timeout 3s; v2 gets no cachesize', () => {
  const doc = edit(VALID_ENCRYPTION, (d) => {
    d.resources[2].providers.push({ kms: { name: 'old', endpoint: 'unix:///tmp/old.sock' } });
    delete d.resources[2].providers[0].kms.timeout;
  });
  const out = applyConfigDefaults(doc as unknown as EncryptionConfiguration);
  expect(out.resources[2]!.providers[0]!.kms).toEqual({ apiVersion: 'v2', name: 'vault', endpoint: 'unix:///var/run/kms.sock', timeout: '3s' });
  expect(out.resources[2]!.providers[2]!.kms).toEqual({ apiVersion: 'v1', name: 'old', endpoint: 'unix:///tmp/old.sock', cachesize: 1000, timeout: '3s' });
});

test('documents without defaults are copied unchanged', () => {
  expect(applyConfigDefaults(VALID_TRACING)).toEqual(VALID_TRACING);
  expect(applyConfigDefaults('text')).toBe('text');
});
