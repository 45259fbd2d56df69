import { describe, expect, test } from 'vitest';
import { API_VERSION, edit, errorsOf, VALID_AUTHENTICATION, VALID_TRACING, warningsOf } from './test-support.js';
import { validateAuthorizationConfiguration, validateConfigDocument } from './validate.js';

describe('apiVersion and kind', () => {
  test('the upstream v1 spelling is accepted without remark', () => {
    expect(validateConfigDocument(edit(VALID_TRACING, (d) => (d.apiVersion = 'apiserver.config.k8s.io/v1')))).toEqual([]);
  });

  test('older upstream versions are accepted with a warning', () => {
    const problems = validateConfigDocument(edit(VALID_AUTHENTICATION, (d) => (d.apiVersion = 'apiserver.config.k8s.io/v1beta1')));
    expect(errorsOf(problems)).toEqual([]);
    expect(warningsOf(problems)).toEqual([{ path: 'apiVersion', message: `apiserver.config.k8s.io/v1beta1 is deprecated; use ${API_VERSION}` }]);
  });

  test('apiVersion is required', () => {
    expect(errorsOf(validateConfigDocument(edit(VALID_TRACING, (d) => delete d.apiVersion)))).toEqual([{ path: 'apiVersion', message: 'Required value' }]);
  });

  test('an unknown apiVersion is rejected with the accepted ones listed', () => {
    expect(errorsOf(validateConfigDocument(edit(VALID_TRACING, (d) => (d.apiVersion = 'v1'))))).toEqual([
      {
        path: 'apiVersion',
        message:
          'Unsupported value: "v1": supported values: "apiserver.config.service.io/v1", "apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1beta1", "apiserver.config.k8s.io/v1alpha1"',
      },
    ]);
  });

  test('kind is required', () => {
    expect(validateConfigDocument({ apiVersion: API_VERSION })).toEqual([{ path: 'kind', message: 'Required value', severity: 'error' }]);
  });

  test('an unknown kind is rejected with the five kinds listed', () => {
    expect(validateConfigDocument({ apiVersion: API_VERSION, kind: 'EgressSelectorConfiguration' })).toEqual([
      {
        path: 'kind',
        message:
          'Unsupported value: "EgressSelectorConfiguration": supported values: "AdmissionConfiguration", "AuthenticationConfiguration", "AuthorizationConfiguration", "EncryptionConfiguration", "TracingConfiguration"',
        severity: 'error',
      },
    ]);
  });

  test('a per-kind validator insists on its own kind', () => {
    expect(errorsOf(validateAuthorizationConfiguration({ apiVersion: API_VERSION, kind: 'TracingConfiguration', authorizers: [{ type: 'RBAC', name: 'rbac' }] }))).toEqual([
      { path: 'kind', message: 'Unsupported value: "TracingConfiguration": supported values: "AuthorizationConfiguration"' },
    ]);
  });

  test('a document that is not an object', () => {
    expect(validateConfigDocument(['a'])).toEqual([{ path: '', message: 'Invalid value: the document must be an object with apiVersion and kind', severity: 'error' }]);
  });
});

describe('structure', () => {
  test('unknown fields are warnings with their path', () => {
    const problems = validateConfigDocument(
      edit(VALID_AUTHENTICATION, (d) => {
        d.jwt[0].issuer.audience = 'x';
        d.extra = true;
      }),
    );
    expect(errorsOf(problems)).toEqual([]);
    expect(warningsOf(problems)).toEqual([
      { path: 'jwt[0].issuer.audience', message: 'unknown field "audience"' },
      { path: 'extra', message: 'unknown field "extra"' },
    ]);
  });

  test('wrong JSON types are reported per field', () => {
    const doc = edit(VALID_AUTHENTICATION, (d) => {
      d.jwt[0].issuer.url = 5;
      d.jwt[0].issuer.audiences = 'periscope';
      d.jwt[0].claimMappings = [];
      d.anonymous.conditions = [null];
    });
    expect(errorsOf(validateConfigDocument(doc))).toEqual([
      { path: 'jwt[0].issuer.url', message: 'Invalid value: 5: must be a string' },
      { path: 'jwt[0].issuer.audiences', message: 'Invalid value: "periscope": must be a list' },
      { path: 'jwt[0].claimMappings', message: 'Invalid value: []: must be an object' },
      { path: 'anonymous.conditions[0]', message: 'Invalid value: null: must be an object' },
    ]);
  });

  test('null counts as absent, as in Go', () => {
    expect(errorsOf(validateConfigDocument(edit(VALID_AUTHENTICATION, (d) => (d.jwt = null))))).toEqual([{ path: 'jwt', message: 'Required value' }]);
    expect(validateConfigDocument(edit(VALID_AUTHENTICATION, (d) => (d.anonymous = null)))).toEqual([]);
  });
});
